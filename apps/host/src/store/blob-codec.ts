/**
 * How a blob's bytes are kept in the store: compressed with zstd (which Bun ships) where
 * that saves space, else as they are; the codec is recorded on each row. The one rule:
 * `unpackBlob(packBlob(b))` is `b`, byte for byte, whatever the bytes.
 */

/** How a row's bytes are coded. */
export type BlobCodec = 'raw' | 'zstd';

/**
 * Blobs shorter than this stay raw: a frame's overhead eats what it saves (source text
 * under 512 bytes packs about 1.4:1, a few hundred bytes a file), and a first sync's
 * tenth of a second of calls is dearer.
 */
const MIN_PACKED = 512;
/**
 * zstd's level: 1, its fastest. The bench tree's 261 MB of source text packs 3.7:1 at
 * level 1 against 3.8:1 at level 3 (a store about 3% larger) for three quarters of the
 * CPU: 1.1 s against 1.5 s over its 42,000 files, a fifth of a first sync's CPU.
 */
const LEVEL = 1;
/**
 * Blobs shorter than this are compressed on the calling thread even by
 * {@link packBlobSoon}: handing one to the thread pool and back costs about 15 µs, more
 * than zstd spends on 4 KiB.
 */
const MIN_OFF_THREAD = 4096;

/** The bytes to keep for a blob, and their codec. */
export function packBlob(bytes: Uint8Array): { codec: BlobCodec; bytes: Uint8Array } {
  if (bytes.length < MIN_PACKED) return { codec: 'raw', bytes };
  return chosen(bytes, Bun.zstdCompressSync(bytes, { level: LEVEL }));
}

/** {@link packBlob}, compressed on Bun's thread pool where the blob is large enough: the same bytes and codec, the calling thread left free meanwhile. */
export async function packBlobSoon(bytes: Uint8Array): Promise<{ codec: BlobCodec; bytes: Uint8Array }> {
  if (bytes.length < MIN_OFF_THREAD) return packBlob(bytes);
  return chosen(bytes, await Bun.zstdCompress(bytes, { level: LEVEL }));
}

/** Whether `packed` bytes of a blob of `size` save at least an eighth: text that packs less is read back faster raw. */
export function packsEnough(size: number, packed: number): boolean {
  return packed <= size - (size >> 3);
}

/** The packed bytes where they save at least an eighth ({@link packsEnough}), else the raw ones. */
function chosen(bytes: Uint8Array, packed: Uint8Array): { codec: BlobCodec; bytes: Uint8Array } {
  return packsEnough(bytes.length, packed.length) ? { codec: 'zstd', bytes: packed } : { codec: 'raw', bytes };
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
