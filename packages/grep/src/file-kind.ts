/**
 * What a file's bytes say before any decoding: binary or not, and whether its line ends
 * include CRLF. CR and LF are ASCII, so in UTF-8 each byte 0x0D or 0x0A is that
 * character of the decoded text, with the same neighbours; the answers agree with
 * `fileText`'s counts (`crlf`, `lf`) without building its lines.
 */

/** How far into a file to look for a NUL byte. */
export const BINARY_SNIFF_BYTES = 8192;

/** A NUL byte in the first 8 KB: the file is binary and is not searched. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) !== -1;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * `'CRLF'` when every line end is CRLF, `'mixed'` when some are and some are a bare LF,
 * undefined when none is CRLF — `fileText(bytes).lineEndings` where it has a CRLF end.
 */
export function crlfEnds(bytes: Uint8Array): 'CRLF' | 'mixed' | undefined {
  let cr = bytes.indexOf(CR);
  while (cr !== -1 && bytes[cr + 1] !== LF) cr = bytes.indexOf(CR, cr + 1);
  if (cr === -1) return undefined;
  for (let lf = bytes.indexOf(LF); lf !== -1; lf = bytes.indexOf(LF, lf + 1)) {
    if (bytes[lf - 1] !== CR) return 'mixed';
  }
  return 'CRLF';
}
