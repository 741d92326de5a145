/**
 * Unpacking blobs into one buffer used again and again, for a grep Worker that unpacks
 * thousands of candidates a search and keeps few of them: through libzstd (`bun:ffi`),
 * with one decompression context, into a buffer that grows to the largest blob met.
 * `Bun.zstdDecompressSync` makes a new buffer and a new context for every blob; over a
 * broad regex's 8,700 candidates (167 MB unpacked) it took 225 ms warm and 560 ms in a
 * fresh process, against 160–180 ms into one buffer (the host README, "Where a warm regex
 * grep's time goes").
 *
 * The one rule: what `unpack` answers is `unpackBlob`'s bytes, byte for byte; where
 * libzstd can't be loaded, where a frame does not say its size, or where anything is
 * doubtful (a size that does not agree), it answers `unpackBlob`'s own bytes instead. An
 * answer that is a view of the buffer ({@link UnpackArena.holds}) lasts until the next
 * `unpack`: a caller that keeps the bytes copies them.
 */
import { ptr } from 'bun:ffi';
import { unpackBlob } from './blob-codec.ts';
import { libzstd } from './libzstd.ts';

/**
 * The largest blob unpacked into the buffer (which grows to it and stays so); a larger
 * one gets bytes of its own, garbage once passed, so a Worker does not keep a huge
 * buffer for one huge file.
 */
const LARGEST = 16 << 20;

/** One thread's buffer to unpack into. */
export class UnpackArena {
  private buffer = new Uint8Array(1 << 20);

  /** Whether `bytes` is a view of this arena's buffer (valid until the next `unpack`). */
  holds(bytes: Uint8Array): boolean {
    return bytes.buffer === this.buffer.buffer;
  }

  /** A blob's bytes from what a row keeps: a view of the buffer where libzstd unpacked it, else bytes of their own. */
  unpack(codec: string, packed: Uint8Array): Uint8Array {
    const z = codec === 'zstd' && packed.length > 0 ? libzstd() : null;
    const dctx = z?.dctx() ?? null;
    if (z === null || dctx === null) return unpackBlob(codec, packed);
    const size = Number(z.contentSize(packed, packed.length));
    // libzstd's "unknown" and "error" sizes are near 2^64.
    if (!(size >= 0 && size <= LARGEST)) return unpackBlob(codec, packed);
    if (size === 0) return new Uint8Array(0);
    if (size > this.buffer.length) this.buffer = new Uint8Array(Math.max(size, this.buffer.length * 2));
    const n = Number(z.decompress(dctx, ptr(this.buffer), this.buffer.length, packed, packed.length));
    // A size that does not agree (an error code is near 2^64): unpacked as `unpackBlob` would, which says what is wrong.
    if (n !== size) return unpackBlob(codec, packed);
    return this.buffer.subarray(0, n);
  }
}
