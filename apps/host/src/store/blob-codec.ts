/**
 * How a blob's bytes are kept in the store: compressed with zstd (which Bun ships) where
 * that saves space, else as they are; the codec is recorded on each row. The one rule:
 * `unpackBlob(packBlob(b))` is `b`, byte for byte, whatever the bytes.
 */

/** How a row's bytes are coded. */
export type BlobCodec = 'raw' | 'zstd';

/** Blobs shorter than this stay raw: a frame's overhead would eat what it saves. */
const MIN_PACKED = 64;
/** zstd's level: 3 (its default) packs source text about 4:1 at hundreds of MB/s. */
const LEVEL = 3;

/** The bytes to keep for a blob, and their codec. */
export function packBlob(bytes: Uint8Array): { codec: BlobCodec; bytes: Uint8Array } {
  if (bytes.length < MIN_PACKED) return { codec: 'raw', bytes };
  const packed = Bun.zstdCompressSync(bytes, { level: LEVEL });
  // Only where it saves at least an eighth: text that doesn't pack is read back faster raw.
  return packed.length <= bytes.length - (bytes.length >> 3) ? { codec: 'zstd', bytes: packed } : { codec: 'raw', bytes };
}

/** {@link packBlob}, compressed on Bun's thread pool: the same bytes and codec, the calling thread left free meanwhile. */
export async function packBlobSoon(bytes: Uint8Array): Promise<{ codec: BlobCodec; bytes: Uint8Array }> {
  if (bytes.length < MIN_PACKED) return { codec: 'raw', bytes };
  const packed = await Bun.zstdCompress(bytes, { level: LEVEL });
  return packed.length <= bytes.length - (bytes.length >> 3) ? { codec: 'zstd', bytes: packed } : { codec: 'raw', bytes };
}

/** A blob's bytes from what a row keeps. */
export function unpackBlob(codec: string, bytes: Uint8Array): Uint8Array {
  if (codec === 'raw') return bytes;
  if (codec === 'zstd') {
    // A view of the Buffer Bun returns, not a copy of it.
    const out = Bun.zstdDecompressSync(bytes);
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  }
  throw new Error(`a blob is kept with the codec "${codec}", which this ws does not know`);
}
