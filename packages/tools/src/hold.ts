/**
 * Holding a list answer (grep, glob, ls, receipts) to the call's `resultMaxChars`: the
 * first items that fit, and a note saying how many more and how to narrow. The one
 * rule: the size is measured as the data would go out (`jsonLength`), note included.
 */
import { jsonLength } from '@ws/text';

/**
 * The data `wrap(shown)` makes for the longest prefix of `items` whose data fits `max`
 * (`wrap` adds its own note when `shown` is shorter than `items`). Without `max`, every
 * item. Where not even the note alone fits, the empty prefix: an answer always comes.
 */
export function holdList<T, D>(items: readonly T[], wrap: (shown: readonly T[]) => D, max: number | undefined): D {
  const whole = wrap(items);
  if (max === undefined || jsonLength(whole) <= max) return whole;
  // Items add their own length and a comma; the rest is what an empty list costs.
  let used = jsonLength(wrap([]));
  let shown = 0;
  while (shown < items.length) {
    const next = used + jsonLength(items[shown]) + (shown > 0 ? 1 : 0);
    if (next > max) break;
    used = next;
    shown++;
  }
  // The note's counts may have more digits than the empty list's: step back until it fits.
  let data = wrap(items.slice(0, shown));
  while (shown > 0 && jsonLength(data) > max) {
    shown--;
    data = wrap(items.slice(0, shown));
  }
  return data;
}

/** One list inside a report: where it is, and how many of its items are shown. */
interface CutList {
  readonly where: string;
  readonly holder: unknown[];
  readonly total: number;
}

/** Every non-empty array inside `value`, with a readable path (`mounts[0].tookIn`). */
function listsIn(value: unknown, where: string, out: CutList[]): void {
  if (Array.isArray(value)) {
    if (value.length > 0) out.push({ where, holder: value, total: value.length });
    value.forEach((item, i) => listsIn(item, `${where}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) listsIn(item, where === '' ? key : `${where}.${key}`, out);
  }
}

/**
 * A report answer (`sync`, `materialize`, `status`) held to `max`: where it does not fit,
 * its longest lists are cut to their first items, halving the longest each time, and a
 * `note` says which lists were cut, how many items they hold, and how to narrow. The
 * mounts' own words are never rewritten, only shortened. Without `max`, `data` whole.
 */
export function holdReport(data: Record<string, unknown>, max: number | undefined): Record<string, unknown> {
  if (max === undefined || jsonLength(data) <= max) return data;
  const copy = structuredClone(data);
  const lists: CutList[] = [];
  // Within each mount's report: the per-mount list itself is never cut.
  const mounts = copy.mounts;
  if (Array.isArray(mounts)) mounts.forEach((m, i) => listsIn(m, `mounts[${i}]`, lists));
  else listsIn(copy, '', lists);
  const withNote = () => {
    const cut = lists.filter((l) => l.holder.length < l.total);
    if (cut.length === 0) return copy;
    const shown = cut.map((l) => `${l.where} shows ${l.holder.length} of ${l.total}`).join('; ');
    return { ...copy, note: `Lists were cut to fit resultMaxChars: ${shown}. Narrow with path or mount to see the rest.` };
  };
  let out = withNote();
  while (jsonLength(out) > max) {
    // Cut the list whose items cost the most, by half (to zero at the end).
    let longest: CutList | undefined;
    let longestLength = -1;
    for (const l of lists) {
      if (l.holder.length === 0) continue;
      const length = jsonLength(l.holder);
      if (length > longestLength) {
        longest = l;
        longestLength = length;
      }
    }
    if (longest === undefined) break; // nothing left to cut: the floor, an answer still comes
    longest.holder.length = Math.floor(longest.holder.length / 2);
    out = withNote();
  }
  return out;
}
