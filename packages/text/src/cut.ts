/**
 * Cutting text for a page. The one rule: a cut never separates the two halves of a
 * surrogate pair, so every piece is text a reader can show and copy.
 */

/**
 * The largest cut of `s` at or below `max` characters that does not split a surrogate
 * pair: `s.slice(0, safeCut(s, max))` is whole text. Returns `s.length` when it fits.
 */
export function safeCut(s: string, max: number): number {
  if (max >= s.length) return s.length;
  if (max <= 0) return 0;
  const before = s.charCodeAt(max - 1);
  const after = s.charCodeAt(max);
  const splitsPair = before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
  return splitsPair ? max - 1 : max;
}
