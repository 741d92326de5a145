/** How the host tells a binary file: a NUL byte in its first 8,000 bytes, as git does. */

/** Bytes looked at when telling binary from text. */
export const BINARY_PROBE_BYTES = 8000;

/** True when the bytes hold a NUL within the first 8,000. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_PROBE_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}
