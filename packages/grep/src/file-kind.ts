/**
 * What kind of file search is looking at: binary or not (from its first bytes), and
 * whether its line ends include CRLF (from its text). The one rule: the line-end answer
 * agrees with `fileText`'s counts (`crlf`, `lf`), only without building its lines.
 */

/** How far into a file to look for a NUL byte. */
export const BINARY_SNIFF_BYTES = 8192;

/** A NUL byte in the first 8 KB: the file is binary and is not searched. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) !== -1;
}

const CR = 0x0d;

/** Which kinds of line end a walk over a text's LFs has passed. */
export interface EndsSeen {
  readonly crlf: boolean;
  readonly bareLf: boolean;
}

/**
 * `'CRLF'` when every line end of the decoded text is CRLF, `'mixed'` when some are and
 * some are a bare LF, undefined when none is CRLF — as `fileText(text).lineEndings` says
 * where it has a CRLF end, without building its lines. A walk that has already passed the
 * LFs before `from` (a line's start) passes what it saw, and only the rest is read.
 */
export function crlfEnds(text: string, from = 0, seen: EndsSeen = { crlf: false, bareLf: false }): 'CRLF' | 'mixed' | undefined {
  const crlf = seen.crlf || text.indexOf('\r\n', from) !== -1;
  if (!crlf) return undefined;
  if (seen.bareLf) return 'mixed';
  for (let lf = text.indexOf('\n', from); lf !== -1; lf = text.indexOf('\n', lf + 1)) {
    if (text.charCodeAt(lf - 1) !== CR) return 'mixed';
  }
  return 'CRLF';
}
