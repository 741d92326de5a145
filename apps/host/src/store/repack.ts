/**
 * A blob packed again for grep: a zstd frame whose literals are kept as they are, not
 * Huffman-coded, and whose matches are seven bytes or longer. Unpacking such a frame
 * copies its literals instead of decoding them, and builds no Huffman table a frame — most
 * of the cost of unpacking a small blob. Over the bench store's 37,955 blobs (one thread,
 * libzstd): unpacking every one 215 → 159 ms, the packed bytes 66.9 → 72.5 MB (level 1
 * with Huffman-coded literals, as a sync packs, against level 3 with raw ones); the host
 * README, "Text packed again, its literals raw".
 *
 * The one rule: a repacked frame is any zstd decoder's frame (Bun's reads it; the row's
 * codec stays `zstd`), and it is only ever the blob's own bytes — each is unpacked by
 * Bun's decoder and compared before it is handed out; undefined (the blob kept as it is)
 * where libzstd can't be loaded, where anything fails, where the check does not agree, or
 * where the frame would not save an eighth of the text (`packBlob`'s rule, `packsEnough`).
 */
import { ptr } from 'bun:ffi';
import { packsEnough } from './blob-codec.ts';
import { libzstd, ZSTD_C_COMPRESSION_LEVEL, ZSTD_C_LITERAL_COMPRESSION_MODE, ZSTD_C_MIN_MATCH, ZSTD_PS_DISABLE } from './libzstd.ts';

/**
 * zstd's level for a repacked blob, and its shortest match (zstd's longest such limit).
 * Unpacking copies a match at a time, so fewer and longer matches unpack sooner: over the
 * bench store's blobs, level 3 with zstd's own shortest match 164 ms, level 6 with 7 bytes
 * 131–134 ms (level 9 127–132, with a context kept four times larger), each packing within
 * 1% of 72.5 MB; level 1 with raw literals packs a tenth larger. The host README, "Longer
 * matches".
 */
export const REPACK_LEVEL = 6;
const REPACK_MIN_MATCH = 7;

/** One thread's buffer to compress into, grown to the largest frame met up to {@link SCRATCH_MOST}; a larger one gets its own. */
let scratch = new Uint8Array(0);
const SCRATCH_MOST = 4 << 20;

/** `bytes` packed again with raw literals (see the rule above), or undefined: keep the blob as it is. */
export function repackBlob(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.length === 0) return undefined;
  const z = libzstd()?.compression ?? null;
  const cctx = z?.cctx() ?? null;
  if (z === null || cctx === null) return undefined;
  try {
    const bound = Number(z.compressBound(bytes.length));
    if (scratch.length < bound && bound <= SCRATCH_MOST) scratch = new Uint8Array(bound);
    const out = scratch.length >= bound ? scratch : new Uint8Array(bound);
    if (z.isError(z.reset(cctx))) return undefined;
    if (z.isError(z.setParameter(cctx, ZSTD_C_COMPRESSION_LEVEL, REPACK_LEVEL))) return undefined;
    if (z.isError(z.setParameter(cctx, ZSTD_C_LITERAL_COMPRESSION_MODE, ZSTD_PS_DISABLE))) return undefined;
    if (z.isError(z.setParameter(cctx, ZSTD_C_MIN_MATCH, REPACK_MIN_MATCH))) return undefined;
    const code = z.compress(cctx, ptr(out), out.length, bytes, bytes.length);
    if (z.isError(code)) return undefined;
    const n = Number(code);
    if (!packsEnough(bytes.length, n)) return undefined;
    const frame = out.slice(0, n);
    // Checked by Bun's own zstd, which every reader falls back to, not only by the library that made it.
    const back = Bun.zstdDecompressSync(frame);
    return back.equals(bytes) ? frame : undefined;
  } catch {
    return undefined;
  }
}
