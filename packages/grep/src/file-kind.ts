/**
 * Whether a decoded text's line ends include CRLF, without building its lines. The one
 * rule: the answer agrees with `fileText`'s counts (`crlf`, `lf`). (Binary or not is
 * `@ws/text`'s `looksBinary`, the one rule every package asks.)
 */

const CR = 0x0d;

/**
 * `'CRLF'` when every line end of the decoded text is CRLF, `'mixed'` when some are and
 * some are a bare LF, undefined when none is CRLF — as `fileText(text).lineEndings` says
 * where it has a CRLF end, without building its lines.
 */
export function crlfEnds(text: string): 'CRLF' | 'mixed' | undefined {
  if (text.indexOf('\r\n') === -1) return undefined;
  for (let lf = text.indexOf('\n'); lf !== -1; lf = text.indexOf('\n', lf + 1)) {
    if (text.charCodeAt(lf - 1) !== CR) return 'mixed';
  }
  return 'CRLF';
}
