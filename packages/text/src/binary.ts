/**
 * The one rule for telling a binary file from text, shared by every package that asks
 * (grep passes a binary file over, reconcile never stores one as text, read shows text
 * only): a NUL byte in the first 8 KB. The one rule: every caller asks this function,
 * so a file grep skips as binary is never stored or read as text, and the other way round.
 */

/** How many bytes from the start are looked at for a NUL: 8 KB (8,192 bytes). */
export const BINARY_SNIFF_BYTES = 8192;

/** True when `bytes` hold a NUL byte in their first {@link BINARY_SNIFF_BYTES}. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) !== -1;
}
