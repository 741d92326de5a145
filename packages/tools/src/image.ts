/**
 * Images read can show: PNG, JPEG, GIF and WebP, told by their first bytes, never by the
 * file's name. The one rule: an image is shown whole or not at all — its base64 counts
 * against the budget like any other answer.
 */

/** The MIME type of an image read shows, or undefined for any other bytes. */
export function imageType(bytes: Uint8Array): string | undefined {
  const at = (i: number, ...values: number[]) => values.every((v, k) => bytes[i + k] === v);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return undefined;
}

/** Characters the base64 of `size` bytes takes. */
export function base64Length(size: number): number {
  return 4 * Math.ceil(size / 3);
}

/** The bytes as base64 (built on `btoa`, which every runtime ws supports has). */
export function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
