/**
 * A page's JSON length from its parts, so a search can try many candidate pages
 * without serializing each one whole. The rule: the parts add up to
 * `JSON.stringify(page).length` exactly. That holds because JSON writes a string one
 * character at a time (a surrogate pair as one), and parts meet only at `\n`, `\t`,
 * a space or `[`, so no pair spans two parts.
 */
import { jsonLength } from '@ws/text';

/** The JSON length of a string without its two quotes. */
export function innerLength(s: string): number {
  return jsonLength(s) - 2;
}

/**
 * The JSON length of `numberedLine(n, text)` without its quotes: the number's digits,
 * the tab (written `\t`, two characters) and the line's own JSON.
 */
export function numberedLineInner(n: number, text: string): number {
  return String(n).length + 2 + innerLength(text);
}

/** `,"note":""`: what a note field adds beyond its inside. */
const NOTE_FIELD = 10;

/**
 * What the note field adds to a page's JSON, for a page whose note is `carried` (the
 * sentences every page of this request carries, joined) followed by a stop sentence.
 * The carried part is measured once; each candidate's stop sentence is measured exactly.
 */
export function noteCost(carried: string): (stop: string) => number {
  const carriedInner = carried === '' ? 0 : innerLength(carried);
  return (stop) => {
    if (stop === '') return carried === '' ? 0 : NOTE_FIELD + carriedInner;
    const stopInner = innerLength(stop);
    return NOTE_FIELD + (carried === '' ? stopInner : carriedInner + 1 + stopInner);
  };
}

/** The JSON length of a page with these fields, no note and empty content. */
export function skeletonLength(fields: Readonly<Record<string, string | number>>): number {
  return jsonLength({ ...fields, content: '' });
}
