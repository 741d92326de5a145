/**
 * Whether bytes are a binary file: a NUL byte in the first 8 KB (8,192 bytes) — the same
 * rule `@ws/grep` uses, so a file grep passes over as binary is never stored as text.
 * Invalid UTF-8 is still text (a read shows it with a note: the README's "Decisions", Binary).
 */

/** Bytes looked at when telling binary from text: the first 8 KB. */
export const BINARY_PROBE_BYTES = 8192;

/** True when `bytes` hold a NUL byte in their first 8 KB. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_PROBE_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}
