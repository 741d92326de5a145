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

/** The most line numbers the invalid-UTF-8 sentence names. */
const MAX_INVALID_LINES = 10;

/** The 1-based lines holding each of `ft.invalidAt`, each once, in order. */
export function invalidLines(ft: FileText): number[] {
  const lines: number[] = [];
  let line = 0;
  for (const at of ft.invalidAt) {
    while (line + 1 < ft.starts.length && ft.starts[line + 1] <= at) line++;
    if (lines[lines.length - 1] !== line + 1) lines.push(line + 1);
  }
  return lines;
}

function invalidUtf8Note(ft: FileText): string {
  const lines = invalidLines(ft);
  const shown = lines.slice(0, MAX_INVALID_LINES).map(String);
  const more = lines.length > shown.length ? `, and ${lines.length - shown.length} more lines` : '';
  const where =
    lines.length === 0
      ? 'it holds byte sequences that are not UTF-8'
      : `${lines.length === 1 ? 'line' : 'lines'} ${shown.join(', ')}${more} ${lines.length === 1 ? 'holds' : 'hold'} byte sequences that are not UTF-8`;
  return (
    `This file is not valid UTF-8: ${where}, each shown as U+FFFD. ` +
    'An edit keeps those bytes as they are, but cannot replace them (edit around them); write replaces the file whole.'
  );
}

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
  if (!ft.validUtf8) notes.push(invalidUtf8Note(ft));
  return notes;
}
