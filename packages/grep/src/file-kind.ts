/**
 * Whether a text's line ends include CRLF (decoded, or as its bytes), without building its lines. The one
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

/**
 * {@link crlfEnds} of the text the bytes decode to, read from the bytes: a CR and an LF
 * are single ASCII bytes in UTF-8, which decoding never joins to a neighbour.
 */
export function crlfEndsOfBytes(bytes: Uint8Array): 'CRLF' | 'mixed' | undefined {
  if (bytes.indexOf(CR) === -1) return undefined;
  let crlf = false;
  let bare = false;
  for (let lf = bytes.indexOf(0x0a); lf !== -1; lf = bytes.indexOf(0x0a, lf + 1)) {
    if (lf > 0 && bytes[lf - 1] === CR) crlf = true;
    else bare = true;
    if (crlf && bare) return 'mixed';
  }
  return crlf ? 'CRLF' : undefined;
}
