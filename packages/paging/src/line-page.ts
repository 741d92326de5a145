/**
 * Line pages (README, "Line pages"): the longest page from an offset whose JSON fits what reaches
 * the caller whole. The rule a reader must not break: every candidate page is measured
 * exactly as it would go out, its own note included, never estimated; a page that
 * says it fits, fits.
 */
import { type FileText, numberedLine, safeCut, textNotes } from '@ws/text';
import { longestFittingCut, shortestCutPage } from './cut.ts';
import { PagingError, refusal } from './errors.ts';
import { LONG_LINE_CHARS } from './long-line.ts';
import { commonInput, refuseBoth, wholeNumber } from './inputs.ts';
import { EMPTY_FILE_NOTE, type LineStop, type Rest, joinNotes, lineStopNote, restMarker } from './notes.ts';
import { noteCost, numberedLineInner, skeletonLength } from './page-length.ts';

/** What to read as a line page. */
export interface LinePageOptions {
  /** The file's path as the caller named it; the page repeats it. */
  readonly path: string;
  /** The first line to show, 1-based (default 1). */
  readonly offset?: number;
  /** The most lines to show (default 2000). */
  readonly limit?: number;
  /** The most characters of `JSON.stringify(page)`; absent for an in-process caller. */
  readonly resultMaxChars?: number;
  /** Sentences the page carries after the file's own (e.g. the store-backed read's disk check, @ws/reconcile's README). */
  readonly notes?: readonly string[];
}

/** A page of a file's lines, each shown as `numberedLine(n, line)`, joined by `\n`. */
export interface LinePage {
  readonly path: string;
  readonly totalLines: number;
  /** The first line shown (0 for an empty file). */
  readonly fromLine: number;
  /** The last line shown, whole or cut (0 for an empty file). */
  readonly toLine: number;
  /** The file's notes, the caller's notes and where to read on; absent where there is nothing to say. */
  readonly note?: string;
  readonly content: string;
}


/** The default most lines of a page. */
export const DEFAULT_LIMIT = 2000;

/** A line as a budgeted page shows it: whole, or cut with a marker naming its rest. */
interface ShownLine {
  readonly text: string;
  readonly rest: Rest | null;
}

/**
 * The lines a page is cut from: a whole file's, or a span of a large one (`LineSpan`).
 * `text(n)` is line n's text, or its first part where only that is held (then at least
 * `LONG_LINE_CHARS + 1` characters of it); `length(n)` its whole length; `start(n)` the
 * index in the file's text where it begins.
 */
interface Lines {
  readonly total: number;
  text(n: number): string;
  length(n: number): number;
  start(n: number): number;
}

function linesOf(ft: FileText): Lines {
  return {
    total: ft.lines.length,
    text: (n) => ft.lines[n - 1],
    length: (n) => ft.lines[n - 1].length,
    start: (n) => ft.starts[n - 1],
  };
}

function cutLine(lines: Lines, n: number, cut: number): ShownLine {
  const rest = { offsetChars: lines.start(n) + cut, limitChars: lines.length(n) - cut };
  return { text: lines.text(n).slice(0, cut) + restMarker(rest), rest };
}

function shownLine(lines: Lines, n: number): ShownLine {
  return lines.length(n) > LONG_LINE_CHARS ? cutLine(lines, n, safeCut(lines.text(n), LONG_LINE_CHARS)) : { text: lines.text(n), rest: null };
}

function page(path: string, totalLines: number, fromLine: number, shown: readonly string[], note: string | undefined): LinePage {
  const content = shown.map((text, i) => numberedLine(fromLine + i, text)).join('\n');
  const toLine = fromLine + shown.length - 1;
  return note === undefined
    ? { path, totalLines, fromLine, toLine, content }
    : { path, totalLines, fromLine, toLine, note, content };
}

/**
 * A page of `ft`'s lines from `offset` (README, "Line pages"). With `resultMaxChars` it is the
 * longest page whose JSON fits, note included: lines over 2,000 characters are cut
 * with a marker naming their rest, a first line that cannot fit whole is cut to the
 * most that fits, and where nothing fits the shortest page there is goes out (the
 * floor). Without it the page holds `limit` whole lines. Throws a PagingError for a
 * request it cannot answer (README, "Refusals").
 */
export function linePage(ft: FileText, options: LinePageOptions): LinePage {
  const fields = options as unknown as Readonly<Record<string, unknown>>;
  refuseBoth(fields);
  const { path, budget, notes } = commonInput(fields);
  const offset = wholeNumber(fields, 'offset', 1, 1);
  const limit = wholeNumber(fields, 'limit', 1, DEFAULT_LIMIT);
  const carried = [...textNotes(ft), ...notes];
  const totalLines = ft.lines.length;

  if (totalLines === 0) {
    if (offset > 1) throw new PagingError(refusal.pastLastLine(offset, 0));
    const note = joinNotes([...carried, EMPTY_FILE_NOTE]) ?? EMPTY_FILE_NOTE;
    return { path, totalLines, fromLine: 0, toLine: 0, note, content: '' };
  }
  if (offset > totalLines) throw new PagingError(refusal.pastLastLine(offset, totalLines));

  const last = Math.min(totalLines, offset + limit - 1);
  if (budget === undefined) {
    const stop: LineStop = last === totalLines ? { kind: 'end' } : { kind: 'limit', next: last + 1 };
    return page(path, totalLines, offset, ft.lines.slice(offset - 1, last), joinNotes([...carried, lineStopNote(stop)]));
  }
  return budgetedPage(linesOf(ft), path, offset, last, budget, carried);
}

/**
 * A stretch of a large file's lines, found by streaming it: the file's line count and
 * text notes, and the lines held from `firstLine` on (README, "Spans of large files").
 */
export interface LineSpan {
  /** The number of the first line held (1-based; 1 for an empty file). */
  readonly firstLine: number;
  /** The file's lines, all of them. */
  readonly totalLines: number;
  /** The lines held, from `firstLine`: each whole, or its first `LONG_LINE_CHARS + 1` characters or more where it is longer. */
  readonly lines: readonly string[];
  /** Each held line's whole length (UTF-16 units). */
  readonly lengths: readonly number[];
  /** Where each held line begins in the file's text (BOM and CRs counted). */
  readonly starts: readonly number[];
  /** The whole file's text notes (`textNotes`), carried before the caller's. */
  readonly textNotes: readonly string[];
}

/**
 * A line page of a span of a large file, by the same rules as `linePage` with one
 * difference: long lines are cut at `LONG_LINE_CHARS` even without `resultMaxChars`,
 * since a line of a large file may be any length. The page ends where the span's held
 * lines end, if `limit` does not end it first (the caller holds enough lines for the
 * budget). Throws a PagingError for a request it cannot answer.
 */
export function linePageOfSpan(span: LineSpan, options: LinePageOptions): LinePage {
  const fields = options as unknown as Readonly<Record<string, unknown>>;
  refuseBoth(fields);
  const { path, budget, notes } = commonInput(fields);
  const offset = wholeNumber(fields, 'offset', 1, 1);
  const limit = wholeNumber(fields, 'limit', 1, DEFAULT_LIMIT);
  const carried = [...span.textNotes, ...notes];
  const { totalLines, firstLine } = span;
  if (totalLines === 0) {
    if (offset > 1) throw new PagingError(refusal.pastLastLine(offset, 0));
    const note = joinNotes([...carried, EMPTY_FILE_NOTE]) ?? EMPTY_FILE_NOTE;
    return { path, totalLines, fromLine: 0, toLine: 0, note, content: '' };
  }
  if (offset > totalLines) throw new PagingError(refusal.pastLastLine(offset, totalLines));
  const held = firstLine + span.lines.length - 1;
  if (offset < firstLine || offset > held) throw new RangeError(`the span holds lines ${firstLine} to ${held}, not ${offset}`);
  const lines: Lines = {
    total: totalLines,
    text: (n) => span.lines[n - firstLine],
    length: (n) => span.lengths[n - firstLine],
    start: (n) => span.starts[n - firstLine],
  };
  const last = Math.min(held, offset + limit - 1);
  return budgetedPage(lines, path, offset, last, budget ?? Number.POSITIVE_INFINITY, carried);
}

function budgetedPage(lines: Lines, path: string, from: number, last: number, budget: number, carried: readonly string[]): LinePage {
  const totalLines = lines.total;
  const carriedNote = joinNotes(carried) ?? '';
  const noteLength = noteCost(carriedNote);
  const carriedLength = noteLength('');
  // Only toLine changes between candidates, and a number's JSON is its digits.
  const skeletonAt0 = skeletonLength({ path, totalLines, fromLine: from, toLine: 0 }) - 1;
  const skeleton = (toLine: number) => skeletonAt0 + String(toLine).length;
  const stopAt = (toLine: number, rest: Rest | null): LineStop => {
    const next = toLine < totalLines ? toLine + 1 : null;
    if (rest !== null) return { kind: 'cut', line: toLine, rest, next };
    if (next === null) return { kind: 'end' };
    return toLine === last ? { kind: 'limit', next } : { kind: 'budget', next };
  };
  const finish = (shown: readonly ShownLine[]) => {
    const toLine = from + shown.length - 1;
    const stop = lineStopNote(stopAt(toLine, shown[shown.length - 1].rest));
    return page(path, totalLines, from, shown.map((s) => s.text), joinNotes([carriedNote, stop]));
  };

  // Whole-line pages from `from` to n. Their content's JSON grows line by line (each
  // "\n" costs 2), so it is summed, not re-serialized.
  const shown: ShownLine[] = [];
  const contentInner: number[] = [];
  const reach = (n: number) => {
    for (let k = from + shown.length; k <= n; k++) {
      const line = shownLine(lines, k);
      const before = shown.length === 0 ? -2 : contentInner[contentInner.length - 1];
      shown.push(line);
      contentInner.push(before + 2 + numberedLineInner(k, line.text));
    }
  };
  /** The page to n with only the carried notes: no page to n or past it is shorter. */
  const least = (n: number) => skeleton(n) + contentInner[n - from] + carriedLength;
  /** The page to n as it would go out: its note is measured, since how it ends decides it. */
  const exact = (n: number) => least(n) - carriedLength + noteLength(lineStopNote(stopAt(n, shown[n - from].rest)));
  const wholeTo = (n: number) => finish(shown.slice(0, n - from + 1));

  // Find the last page whose carried notes alone still fit; past it nothing can fit.
  // Its stop note is at most a sentence, so the longest page that fits is among the
  // last few before it: walk back to it, measuring each note exactly.
  let top = from - 1;
  for (let n = from; n <= last; n++) {
    reach(n);
    if (least(n) > budget) break;
    top = n;
  }
  for (let n = top; n >= from; n--) if (exact(n) <= budget) return wholeTo(n);

  // Not even the first line fits whole: cut it to the most that fits.
  const first = lines.text(from);
  const firstLength = lines.length(from);
  const maxCut = Math.min(firstLength - 1, safeCut(first, LONG_LINE_CHARS));
  const cutPageLength = (cut: number) => {
    const line = cutLine(lines, from, cut);
    const stop = lineStopNote(stopAt(from, line.rest));
    return skeleton(from) + numberedLineInner(from, line.text) + noteLength(stop);
  };
  const cut = longestFittingCut(first, maxCut, budget, cutPageLength, firstLength);
  if (cut !== undefined) return finish([cutLine(lines, from, cut)]);

  // The floor: nothing fits, so the shortest page there is goes out; on a tie, the
  // one that shows more (whole lines over a cut, more lines over fewer).
  let shortest = { n: from, length: exact(from) };
  for (let n = from + 1; n <= last; n++) {
    reach(n);
    if (least(n) > shortest.length) break;
    const length = exact(n);
    if (length <= shortest.length) shortest = { n, length };
  }
  const shortestCut = shortestCutPage(first, maxCut, cutPageLength, firstLength);
  if (shortestCut !== undefined && shortestCut.length < shortest.length) {
    return finish([cutLine(lines, from, shortestCut.cut)]);
  }
  return wholeTo(shortest.n);
}
