/**
 * Character pages (README, "Character pages"): `text` exactly as stored, BOM and CRs included, from an
 * index. The rule a reader must not break: a page starts and ends on whole characters
 * (never between the halves of a surrogate pair), so pages that follow each other's
 * notes rebuild the text exactly.
 */
import { type FileText, safeCut, textNotes } from '@ws/text';
import { PagingError, refusal } from './errors.ts';
import { commonInput, refuseBoth, wholeNumber } from './inputs.ts';
import { EMPTY_FILE_NOTE, characterStopNote, joinNotes } from './notes.ts';
import { innerLength, noteCost, skeletonLength } from './page-length.ts';

/** What to read as a character page. */
export interface CharacterPageOptions {
  /** The file's path as the caller named it; the page repeats it. */
  readonly path: string;
  /** The index in `text` to start from, BOM and CRs counted (default 0). */
  readonly offsetChars?: number;
  /** The most characters (UTF-16 units) to read (default 2000); one more where the end would split a pair. */
  readonly limitChars?: number;
  /** The most characters of `JSON.stringify(page)`; absent for an in-process caller. */
  readonly resultMaxChars?: number;
  /** Sentences the page carries after the file's own (e.g. the store-backed read's disk check, @ws/reconcile's README). */
  readonly notes?: readonly string[];
}

/** A stretch of a file's text, exactly as stored. */
export interface CharacterPage {
  readonly path: string;
  readonly totalChars: number;
  readonly offsetChars: number;
  /** Where the page's content ends in `text`: `offsetChars + content.length`. */
  readonly nextOffsetChars: number;
  /** The invalid-UTF-8 note, the caller's notes and where to read on; absent where there is nothing to say. */
  readonly note?: string;
  readonly content: string;
}

/** The default most characters of a page. */
export const DEFAULT_LIMIT_CHARS = 2000;

/**
 * The text a character page is cut from: a whole file's, or a span of a large one
 * (`CharacterSpan`), indexed as the whole file's text.
 */
interface Chars {
  readonly total: number;
  slice(from: number, to: number): string;
  /** `safeCut` of the whole text at `i`. */
  cut(i: number): number;
}

/** True where index `i` of the text falls between the two halves of a surrogate pair. */
function splitsPair(chars: Chars, i: number): boolean {
  return chars.cut(i) !== i;
}

export function characterPage(ft: FileText, options: CharacterPageOptions): CharacterPage {
  const fields = options as unknown as Readonly<Record<string, unknown>>;
  refuseBoth(fields);
  const { path, budget, notes } = commonInput(fields);
  const offsetChars = wholeNumber(fields, 'offsetChars', 0, 0);
  const limitChars = wholeNumber(fields, 'limitChars', 1, DEFAULT_LIMIT_CHARS);
  const { text } = ft;
  const chars: Chars = { total: text.length, slice: (from, to) => text.slice(from, to), cut: (i) => safeCut(text, i) };
  return pageOf(chars, path, offsetChars, limitChars, budget, [...textNotes(ft, 'characters'), ...notes]);
}

/**
 * A stretch of a large file's text, found by streaming it (README, "Spans of large
 * files"): `text` begins at index `start` of the file's text.
 */
export interface CharacterSpan {
  readonly start: number;
  readonly text: string;
  /** The whole file's length in UTF-16 units. */
  readonly totalChars: number;
  /**
   * The units either side of the request's end (`offsetChars + limitChars`), where `text`
   * does not reach it: the page checks whether that end splits a pair.
   */
  readonly end?: { readonly start: number; readonly text: string };
  /** The whole file's text notes (`textNotes(…, 'characters')`), carried before the caller's. */
  readonly textNotes: readonly string[];
}

/**
 * A character page of a span of a large file, by the same rules as `characterPage`. The
 * span must hold the text from one unit before `offsetChars` (where there is one) to one
 * unit past the shorter of `offsetChars + limitChars` and `offsetChars + resultMaxChars`
 * (where the file has one), and `end` where that is short of the request's end, so every
 * pair check sees both halves. Throws a PagingError for a request it cannot answer.
 */
export function characterPageOfSpan(span: CharacterSpan, options: CharacterPageOptions): CharacterPage {
  const fields = options as unknown as Readonly<Record<string, unknown>>;
  refuseBoth(fields);
  const { path, budget, notes } = commonInput(fields);
  const offsetChars = wholeNumber(fields, 'offsetChars', 0, 0);
  const limitChars = wholeNumber(fields, 'limitChars', 1, DEFAULT_LIMIT_CHARS);
  const { start, text } = span;
  const chars: Chars = {
    total: span.totalChars,
    slice: (from, to) => text.slice(from - start, to - start),
    cut(i) {
      if (i >= span.totalChars) return span.totalChars;
      if (i <= 0) return 0;
      const end = span.end;
      if (end !== undefined && i > end.start && i < end.start + end.text.length) return end.start + safeCut(end.text, i - end.start);
      return start + safeCut(text, i - start);
    },
  };
  return pageOf(chars, path, offsetChars, limitChars, budget, [...span.textNotes, ...notes]);
}

function pageOf(chars: Chars, path: string, offsetChars: number, limitChars: number, budget: number | undefined, carried: readonly string[]): CharacterPage {
  const totalChars = chars.total;

  if (totalChars === 0) {
    if (offsetChars > 0) throw new PagingError(refusal.pastLastCharacter(offsetChars, 0));
    const note = joinNotes([...carried, EMPTY_FILE_NOTE]) ?? EMPTY_FILE_NOTE;
    return { path, totalChars, offsetChars, nextOffsetChars: 0, note, content: '' };
  }
  if (offsetChars >= totalChars) throw new PagingError(refusal.pastLastCharacter(offsetChars, totalChars));
  if (splitsPair(chars, offsetChars)) throw new PagingError(refusal.insidePair(offsetChars, offsetChars - 1));

  // A request whose end would split a pair takes the pair whole.
  let end = Math.min(totalChars, offsetChars + limitChars);
  if (splitsPair(chars, end)) end++;

  const carriedNote = joinNotes(carried) ?? '';
  const stopNote = (stop: number) =>
    stop === end ? '' : characterStopNote({ offsetChars: stop, limitChars: end - stop });
  const pageTo = (stop: number): CharacterPage => {
    const note = joinNotes([carriedNote, stopNote(stop)]);
    const content = chars.slice(offsetChars, stop);
    return note === undefined
      ? { path, totalChars, offsetChars, nextOffsetChars: stop, content }
      : { path, totalChars, offsetChars, nextOffsetChars: stop, note, content };
  };
  if (budget === undefined) return pageTo(end);

  const noteLength = noteCost(carriedNote);
  const lengthTo = (stop: number) =>
    skeletonLength({ path, totalChars, offsetChars, nextOffsetChars: stop }) +
    innerLength(chars.slice(offsetChars, stop)) +
    noteLength(stopNote(stop));

  // Each character costs at least one in JSON, so a request longer than the budget
  // cannot fit whole and is not measured.
  if (end - offsetChars <= budget && lengthTo(end) <= budget) return pageTo(end);

  const first = splitsPair(chars, offsetChars + 1) ? offsetChars + 2 : offsetChars + 1;
  if (first >= end) return pageTo(end);
  if (lengthTo(first) > budget) {
    // The floor: not one character fits, so the shorter of one character and the whole request goes out.
    return lengthTo(end) <= lengthTo(first) ? pageTo(end) : pageTo(first);
  }
  // A stopped page grows with every character: its rest's length can lose a digit,
  // but the content gains at least as much. Find the last stop that fits.
  let fits = first;
  let over = Math.min(end - 1, offsetChars + budget) + 1;
  while (over - fits > 1) {
    const mid = (fits + over) >>> 1;
    if (lengthTo(chars.cut(mid)) <= budget) fits = mid;
    else over = mid;
  }
  return pageTo(chars.cut(fits));
}
