/**
 * The one cut for long lines: a line over {@link LONG_LINE_CHARS} characters is shown cut,
 * with markers naming what was left out as a character page (`offsetChars`/`limitChars`
 * in the file's text), on every page with a budget — read's line pages and grep's matches
 * alike. The one rule: what a marker names, read back, is exactly the text the window
 * left out on that side, so nothing is hidden and nothing is shown twice.
 */
import { safeCut } from '@ws/text';
import { type Rest, restMarker, startMarker } from './notes.ts';

/** Lines longer than this many characters (UTF-16 units) are cut on a page with a budget. */
export const LONG_LINE_CHARS = 2000;

/** How far into the window the match starts (at most a quarter of it), where the line has that much before it. */
const LEAD = 200;

/** A long line shown as a window, with what is cut on each side. */
export interface LineWindow {
  /** The window's text with its markers: `[… start …]` before, `[… rest …]` after, where cut. */
  readonly text: string;
  /** What is cut before the window, as a character page of the file's text. */
  readonly before?: Rest;
  /** What is cut after the window. */
  readonly after?: Rest;
}

/**
 * `line` (which starts at `lineStart` in the file's text) as a window of at most `size`
 * characters (default {@link LONG_LINE_CHARS}) that holds index `at` of the line (its
 * first match) where the window is wide enough, never splitting a surrogate pair. A line
 * no longer than `size` comes back whole.
 */
export function lineWindow(line: string, lineStart: number, at = 0, size = LONG_LINE_CHARS): LineWindow {
  if (line.length <= size) return { text: line };
  const lead = Math.min(LEAD, Math.floor(size / 4));
  const from = safeCut(line, Math.max(0, Math.min(at - lead, line.length - size)));
  const to = safeCut(line, Math.min(line.length, from + size));
  const before = from > 0 ? { offsetChars: lineStart, limitChars: from } : undefined;
  const after = to < line.length ? { offsetChars: lineStart + to, limitChars: line.length - to } : undefined;
  const text = (before ? startMarker(before) : '') + line.slice(from, to) + (after ? restMarker(after) : '');
  return { text, ...(before ? { before } : {}), ...(after ? { after } : {}) };
}
