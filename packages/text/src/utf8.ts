/**
 * Where a file's bytes are not UTF-8, and where characters of its decoded text sit in
 * the bytes: what a byte-exact edit needs to replace the bytes of the text it matched
 * and keep every other byte. The one rule: it decodes exactly as `TextDecoder('utf-8')`
 * does (the Encoding Standard's decoder: one U+FFFD for each maximal invalid subpart),
 * so its text indexes are `fileText`'s.
 */

/** One byte sequence that is not UTF-8: the U+FFFD standing for it and the bytes it stands for. */
export interface InvalidSequence {
  /** The index in the decoded text of the U+FFFD that stands for it. */
  readonly at: number;
  /** Where its bytes begin. */
  readonly byte: number;
  /** How many bytes it covers (1 to 3). */
  readonly length: number;
}

/** The invalid sequences of some bytes, and the byte offsets asked for. */
export interface Utf8Layout {
  /** Every invalid sequence, in order; empty for valid UTF-8. */
  readonly invalid: readonly InvalidSequence[];
  /** For each text index asked for, the byte offset where that character begins (the byte length for the text's end). */
  readonly offsets: Int32Array;
}

/**
 * Decodes `bytes` as TextDecoder would (a BOM counts as the character U+FEFF), noting
 * every invalid sequence and the byte offset of each text index in `at` (ascending).
 */
export function utf8Layout(bytes: Uint8Array, at: ArrayLike<number> = []): Utf8Layout {
  const invalid: InvalidSequence[] = [];
  const offsets = new Int32Array(at.length);
  const n = bytes.length;
  let q = 0;
  let unit = 0;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    while (q < at.length && at[q] <= unit) offsets[q++] = i;
    if (b < 0x80) {
      unit++;
      i++;
      continue;
    }
    let need: number;
    let lower = 0x80;
    let upper = 0xbf;
    let cp: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      if (b === 0xe0) lower = 0xa0;
      if (b === 0xed) upper = 0x9f;
      need = 2;
      cp = b & 0x0f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      if (b === 0xf0) lower = 0x90;
      if (b === 0xf4) upper = 0x8f;
      need = 3;
      cp = b & 0x07;
    } else {
      invalid.push({ at: unit++, byte: i, length: 1 });
      i++;
      continue;
    }
    let j = i + 1;
    let seen = 0;
    while (seen < need && j < n) {
      const c = bytes[j];
      if (c < lower || c > upper) break;
      lower = 0x80;
      upper = 0xbf;
      cp = (cp << 6) | (c & 0x3f);
      seen++;
      j++;
    }
    if (seen < need) {
      // The sequence so far is one U+FFFD; the byte that broke it is read afresh.
      invalid.push({ at: unit++, byte: i, length: j - i });
    } else {
      unit += cp >= 0x10000 ? 2 : 1;
    }
    i = j;
  }
  while (q < at.length) offsets[q++] = n;
  return { invalid, offsets };
}
