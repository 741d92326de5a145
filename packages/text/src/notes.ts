/**
 * The sentences a page carries about how its file's text was read. Keep every
 * wording here so tests and docs can refer to one place.
 */
import type { FileText } from './file-text.ts';

/** Which view of the text the notes are for: line pages hide CRs and the BOM; character pages show them. */
export type TextView = 'lines' | 'characters';

function plural(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

/** The CRLF sentence, for a file with at least one CRLF end. */
function crlfNote(ft: FileText): string {
  if (ft.lf === 0) {
    return 'This file has CRLF line ends; lines are shown without their CR.';
  }
  return (
    `This file has mixed line ends: ${ft.crlf} CRLF and ${ft.lf} LF; ` +
    'lines are shown without a CRLF end\u2019s CR.'
  );
}

function ownCrNote(n: number): string {
  return plural(
    n,
    '1 line\u2019s own text ends in a CR and is shown with its line end\u2019s CR.',
    `${n} lines\u2019 own text ends in a CR and each is shown with its line end\u2019s CR.`,
  );
}

const BOM_NOTE = 'The file starts with a UTF-8 BOM, which is not shown as part of line 1.';

const INVALID_UTF8_NOTE =
  'This file is not valid UTF-8: each invalid byte sequence shows as U+FFFD; ' +
  'edit refuses this file; write replaces it whole.';

/**
 * The sentences a page of this text carries, in a fixed order: line ends, BOM,
 * invalid UTF-8. A character page (`view: 'characters'`) shows every CR and the BOM
 * as stored, so it carries only the invalid-UTF-8 sentence.
 */
export function textNotes(ft: FileText, view: TextView = 'lines'): string[] {
  const notes: string[] = [];
  if (view === 'lines') {
    if (ft.crlf > 0) notes.push(crlfNote(ft));
    if (ft.ownCr > 0) notes.push(ownCrNote(ft.ownCr));
    if (ft.bom) notes.push(BOM_NOTE);
  }
  if (!ft.validUtf8) notes.push(INVALID_UTF8_NOTE);
  return notes;
}
