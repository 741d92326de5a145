/**
 * Whether bytes are a binary file: a NUL byte in the first 8,000 bytes, as git decides.
 * Invalid UTF-8 is still text (a read shows it with a note, SPEC §1).
 */

/** True when `bytes` hold a NUL byte in their first 8,000 bytes. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 8000);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}
