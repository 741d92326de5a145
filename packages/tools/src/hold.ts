/**
 * Holding a list answer (grep, glob, ls, receipts) to the call's `resultMaxChars`: the
 * first items that fit, and a note saying how many more and how to narrow. The one
 * rule: the size is measured as the data would go out (`jsonLength`), note included.
 */
import { jsonLength } from '@ws/text';
import { reportCut } from './errors.ts';

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

/**
 * A page of a streamed listing (grep's results, ls's and glob's entries) held to a
 * budget without holding the listing: results before `offset` are passed by, then each
 * offered item is taken while the items alone still fit beside the least the data costs
 * without them; at the end, with the counts and notes known, items are dropped from the
 * end until the data fits exactly. The one rule: the page is the longest run of items
 * from `offset` whose data, note included, fits (at least one: the floor, so following
 * the notes always moves on), and memory is bounded by the budget.
 */
export class StreamPage<T> {
  /** Items taken, in order. */
  readonly items: T[] = [];
  private used = 0;
  private full = false;
  /** Results seen so far (before `offset` included). */
  seen = 0;

  /** `least`: what the data costs at the least without items (no note, counts of one digit). */
  constructor(
    readonly budget: number | undefined,
    readonly offset: number,
    private readonly least: number,
  ) {}

  /** True while the page still takes the result at `seen`: its detail is worth building. */
  wants(): boolean {
    return this.seen >= this.offset && !this.full;
  }

  /** True once an offer did not fit: the page takes nothing more. */
  isFull(): boolean {
    return this.full;
  }

  /** What the next item may add and still fit (Infinity without a budget). */
  room(): number {
    return this.budget === undefined ? Infinity : this.budget - this.least - this.used;
  }

  /** Offers the result at `seen` with what it adds to the data (its JSON and a comma); call `next()` after. */
  offer(item: T, cost: number): void {
    if (cost > this.room() && this.items.length > 0) {
      this.full = true;
      return;
    }
    this.items.push(item);
    this.used += cost;
  }

  /** Passes by `n` results without their detail (before `offset`, or past what fits). */
  skip(n: number): void {
    this.seen += n;
  }

  /** Moves on to the next result. */
  next(): void {
    this.seen++;
  }

  /** The data `wrap(shown)` makes for the longest run of the taken items that fits (at least one where any was taken). */
  finish<D>(wrap: (shown: readonly T[]) => D): D {
    const shown = [...this.items];
    let data = wrap(shown);
    if (this.budget === undefined) return data;
    while (shown.length > 1 && jsonLength(data) > this.budget) {
      shown.pop();
      data = wrap(shown);
    }
    return data;
  }
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
 * `note` says which lists were cut, how many items they hold, and `wayOn`: how to see the rest. The
 * mounts' own words are never rewritten, only shortened. Without `max`, `data` whole.
 */
export function holdReport(data: Record<string, unknown>, max: number | undefined, wayOn: string): Record<string, unknown> {
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
    // A note the answer already carries (status's drafts note) stays, before the cut's.
    const own = typeof copy.note === 'string' ? `${copy.note} ` : '';
    return { ...copy, note: `${own}${reportCut(shown, wayOn)}` };
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
