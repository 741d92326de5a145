/**
 * What a page says about where it stopped and how to read on. Every wording lives
 * here so tests and docs can refer to one place. The rule: every place to read on is
 * written in a form a program can follow — `offset=N` for the next line page,
 * `offsetChars=K and limitChars=M` for a cut line's rest or a stopped character page.
 */

/** A stretch of `text` to read with a character page: `{ offsetChars: K, limitChars: M }`. */
export interface Rest {
  readonly offsetChars: number;
  readonly limitChars: number;
}

/** How a line page ends, which decides its stop note. */
export type LineStop =
  /** It ends the file on a whole line: nothing to say. */
  | { readonly kind: 'end' }
  /** The file has no lines. */
  | { readonly kind: 'empty' }
  /** It holds `limit` lines and more follow. */
  | { readonly kind: 'limit'; readonly next: number }
  /** One more line would pass the budget. */
  | { readonly kind: 'budget'; readonly next: number }
  /** Its last line is cut (at 2,000 characters or to fit); `next` is null where that line ends the file. */
  | { readonly kind: 'cut'; readonly line: number; readonly rest: Rest; readonly next: number | null };

/** The marker a cut line ends with, naming its rest. */
export function restMarker(rest: Rest): string {
  return `[… read the rest with offsetChars=${rest.offsetChars} and limitChars=${rest.limitChars}]`;
}

/** The marker a window of a long line starts with, naming what is cut before it. */
export function startMarker(rest: Rest): string {
  return `[… read the start with offsetChars=${rest.offsetChars} and limitChars=${rest.limitChars} …]`;
}

/** The sentence a line page ends its note with ('' where it has nothing to say). */
export function lineStopNote(stop: LineStop): string {
  switch (stop.kind) {
    case 'end':
      return '';
    case 'empty':
      return 'The file is empty.';
    case 'limit':
      return `Stopped at the line limit; continue with offset=${stop.next}.`;
    case 'budget':
      return `More lines follow, left out to stay within resultMaxChars; continue with offset=${stop.next}.`;
    case 'cut': {
      const rest = `offsetChars=${stop.rest.offsetChars} and limitChars=${stop.rest.limitChars}`;
      return stop.next === null
        ? `Line ${stop.line}, the file's last, is cut: read its rest with ${rest}.`
        : `Line ${stop.line} is cut: read its rest with ${rest}, then continue with offset=${stop.next}.`;
    }
  }
}

/** The sentence a character page ends its note with when it stops short of what was asked. */
export function characterStopNote(rest: Rest): string {
  return (
    'Stopped to fit resultMaxChars; read the rest of what you asked for with ' +
    `offsetChars=${rest.offsetChars} and limitChars=${rest.limitChars}.`
  );
}

/** The character page of an empty file says so. */
export const EMPTY_FILE_NOTE = lineStopNote({ kind: 'empty' });

/** A page's note: its sentences joined by a space, or undefined where there are none. */
export function joinNotes(sentences: readonly string[]): string | undefined {
  const said = sentences.filter((s) => s !== '');
  return said.length === 0 ? undefined : said.join(' ');
}
