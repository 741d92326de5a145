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
const DEFAULT_LIMIT_CHARS = 2000;

/** True where index `i` of `text` falls between the two halves of a surrogate pair. */
function splitsPair(text: string, i: number): boolean {
  return safeCut(text, i) !== i;
}

/**
 * A page of `ft.text` from `offsetChars` (README, "Character pages"). Without `resultMaxChars` it holds
 * `limitChars` whole; with it, it stops where one more character would pass the
 * budget, and its note names what is left of the request as `offsetChars=X and
 * limitChars=M`. It always moves on by at least one whole character (the floor).
 * Throws a PagingError for a request it cannot answer (README, "Refusals").
 */
export function characterPage(ft: FileText, options: CharacterPageOptions): CharacterPage {
  const fields = options as unknown as Readonly<Record<string, unknown>>;
  refuseBoth(fields);
  const { path, budget, notes } = commonInput(fields);
  const offsetChars = wholeNumber(fields, 'offsetChars', 0, 0);
  const limitChars = wholeNumber(fields, 'limitChars', 1, DEFAULT_LIMIT_CHARS);
  const carried = [...textNotes(ft, 'characters'), ...notes];
  const { text } = ft;
  const totalChars = text.length;

  if (totalChars === 0) {
    if (offsetChars > 0) throw new PagingError(refusal.pastLastCharacter(offsetChars, 0));
    const note = joinNotes([...carried, EMPTY_FILE_NOTE]) ?? EMPTY_FILE_NOTE;
    return { path, totalChars, offsetChars, nextOffsetChars: 0, note, content: '' };
  }
  if (offsetChars >= totalChars) throw new PagingError(refusal.pastLastCharacter(offsetChars, totalChars));
  if (splitsPair(text, offsetChars)) throw new PagingError(refusal.insidePair(offsetChars, offsetChars - 1));

  // A request whose end would split a pair takes the pair whole.
  let end = Math.min(totalChars, offsetChars + limitChars);
  if (splitsPair(text, end)) end++;

  const carriedNote = joinNotes(carried) ?? '';
  const stopNote = (stop: number) =>
    stop === end ? '' : characterStopNote({ offsetChars: stop, limitChars: end - stop });
  const pageTo = (stop: number): CharacterPage => {
    const note = joinNotes([carriedNote, stopNote(stop)]);
    const content = text.slice(offsetChars, stop);
    return note === undefined
      ? { path, totalChars, offsetChars, nextOffsetChars: stop, content }
      : { path, totalChars, offsetChars, nextOffsetChars: stop, note, content };
  };
  if (budget === undefined) return pageTo(end);

  const noteLength = noteCost(carriedNote);
  const lengthTo = (stop: number) =>
    skeletonLength({ path, totalChars, offsetChars, nextOffsetChars: stop }) +
    innerLength(text.slice(offsetChars, stop)) +
    noteLength(stopNote(stop));

  // Each character costs at least one in JSON, so a request longer than the budget
  // cannot fit whole and is not measured.
  if (end - offsetChars <= budget && lengthTo(end) <= budget) return pageTo(end);

  const first = splitsPair(text, offsetChars + 1) ? offsetChars + 2 : offsetChars + 1;
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
    if (lengthTo(safeCut(text, mid)) <= budget) fits = mid;
    else over = mid;
  }
  return pageTo(safeCut(text, fits));
}
