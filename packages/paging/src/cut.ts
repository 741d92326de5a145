/**
 * Cutting a page's first line to the most that fits (README "Line pages", rule 3). The rule: the
 * answer is the cut that trying every cut would pick. A cut page names its rest's
 * length twice (marker and note), so the page is not longer for every longer cut:
 * where the rest's length loses a digit, the page gets shorter. Between those drops
 * it grows with every character, so each stretch of cuts whose rest has one number of
 * digits is binary searched on its own, the stretch of longest cuts first.
 */
import { safeCut } from '@ws/text';

/** The JSON length of the page whose first line is cut after `cut` characters. */
export type CutPageLength = (cut: number) => number;

/**
 * The stretches of cuts in 1..maxCut whose rest (`line.length - cut`) has the same
 * number of digits, longest cuts first, as `[lo, hi]` where both split no pair.
 */
function* stretches(line: string, maxCut: number, len: number): Generator<readonly [number, number]> {
  for (let digitLow = 1; len - digitLow >= 1; digitLow *= 10) {
    let lo = Math.max(1, len - (digitLow * 10 - 1));
    const hi = safeCut(line, Math.min(maxCut, len - digitLow));
    if (safeCut(line, lo) !== lo) lo++;
    if (lo <= hi) yield [lo, hi];
  }
}

/**
 * The longest cut of `line` (at most `maxCut`, never inside a surrogate pair, at least
 * one character) whose page fits `budget`, or undefined where none does. `length`: the
 * line's whole length, where `line` holds only its first part (at least `maxCut + 1`).
 */
export function longestFittingCut(line: string, maxCut: number, budget: number, pageLength: CutPageLength, length = line.length): number | undefined {
  for (const [lo, hi] of stretches(line, maxCut, length)) {
    if (pageLength(lo) > budget) continue;
    // pageLength grows with the cut inside a stretch; find its last fitting cut.
    let fits = lo;
    let over = hi + 1;
    while (over - fits > 1) {
      const mid = (fits + over) >>> 1;
      const cut = safeCut(line, mid);
      if (pageLength(cut) <= budget) fits = mid;
      else over = mid;
    }
    return safeCut(line, fits);
  }
  return undefined;
}

/**
 * The cut (at most `maxCut`, at least one character) whose page is shortest, the
 * longer cut on a tie, or undefined where the line has no such cut (`length` as above).
 */
export function shortestCutPage(line: string, maxCut: number, pageLength: CutPageLength, length = line.length): { cut: number; length: number } | undefined {
  let best: { cut: number; length: number } | undefined;
  for (const [lo] of stretches(line, maxCut, length)) {
    // Inside a stretch the page is shortest at its first cut.
    const length = pageLength(lo);
    if (best === undefined || length < best.length) best = { cut: lo, length };
  }
  return best;
}
