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
