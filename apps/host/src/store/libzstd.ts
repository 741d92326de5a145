/**
 * libzstd through `bun:ffi`, for what Bun's own zstd does not offer: a decompression
 * context kept for a thread's life (`unpack-arena.ts`) and compression with parameters
 * beyond a level (`repack.ts`). Bound once a thread, on first use. The one rule: null
 * where libzstd can't be loaded here (or `WS_ZSTD_FALLBACK=1`), and every caller then
 * does what Bun's zstd does — a store never needs libzstd to be read.
 */
import { dlopen, FFIType } from 'bun:ffi';

/** The calls ws makes; sizes and codes are `size_t` (an error code is near 2^64). */
export interface Libzstd {
  readonly contentSize: (src: Uint8Array, length: number) => bigint | number;
  readonly decompress: (dctx: unknown, dst: unknown, capacity: number, src: Uint8Array, length: number) => bigint | number;
  /** This thread's decompression context (made on first use, kept for the thread's life: about 100 KiB); null where it could not be made. */
  readonly dctx: () => unknown;
  /** This thread's compression context (made on first use, kept: some 1 MiB at level 3); null where it could not be made. */
  readonly cctx: () => unknown;
  readonly reset: (cctx: unknown) => bigint | number;
  readonly setParameter: (cctx: unknown, parameter: number, value: number) => bigint | number;
  readonly compress: (cctx: unknown, dst: unknown, capacity: number, src: Uint8Array, length: number) => bigint | number;
  readonly compressBound: (length: number) => bigint | number;
  readonly isError: (code: bigint | number) => boolean;
}

/** `ZSTD_cParameter` values (zstd.h; the literal mode is among its experimental ones, stable since 1.4). */
export const ZSTD_C_COMPRESSION_LEVEL = 100;
export const ZSTD_C_LITERAL_COMPRESSION_MODE = 1002;
/** `ZSTD_ps_disable`: literals kept as they are, not Huffman-coded. */
export const ZSTD_PS_DISABLE = 2;
/** `ZSTD_reset_session_and_parameters`. */
const RESET_ALL = 3;

let bound: Libzstd | null | undefined;

/** libzstd's calls, or null where it can't be loaded (see the rule above). */
export function libzstd(): Libzstd | null {
  if (bound !== undefined) return bound;
  bound = null;
  if (process.env.WS_ZSTD_FALLBACK === '1') return bound;
  try {
    const lib = dlopen(process.platform === 'darwin' ? 'libzstd.1.dylib' : 'libzstd.so.1', {
      ZSTD_createDCtx: { args: [], returns: FFIType.ptr },
      ZSTD_getFrameContentSize: { args: [FFIType.ptr, FFIType.u64], returns: FFIType.u64 },
      ZSTD_decompressDCtx: { args: [FFIType.ptr, FFIType.ptr, FFIType.u64, FFIType.ptr, FFIType.u64], returns: FFIType.u64 },
      ZSTD_createCCtx: { args: [], returns: FFIType.ptr },
      ZSTD_CCtx_reset: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.u64 },
      ZSTD_CCtx_setParameter: { args: [FFIType.ptr, FFIType.i32, FFIType.i32], returns: FFIType.u64 },
      ZSTD_compress2: { args: [FFIType.ptr, FFIType.ptr, FFIType.u64, FFIType.ptr, FFIType.u64], returns: FFIType.u64 },
      ZSTD_compressBound: { args: [FFIType.u64], returns: FFIType.u64 },
      ZSTD_isError: { args: [FFIType.u64], returns: FFIType.u32 },
    });
    const s = lib.symbols;
    let dctx: unknown;
    let cctx: unknown;
    bound = {
      contentSize: (src, length) => s.ZSTD_getFrameContentSize(src, length),
      decompress: (d, dst, capacity, src, length) => s.ZSTD_decompressDCtx(d as never, dst as never, capacity, src, length),
      dctx: () => {
        dctx ??= s.ZSTD_createDCtx();
        return dctx;
      },
      cctx: () => {
        cctx ??= s.ZSTD_createCCtx();
        return cctx;
      },
      reset: (c) => s.ZSTD_CCtx_reset(c as never, RESET_ALL),
      setParameter: (c, parameter, value) => s.ZSTD_CCtx_setParameter(c as never, parameter, value),
      compress: (c, dst, capacity, src, length) => s.ZSTD_compress2(c as never, dst as never, capacity, src, length),
      compressBound: (length) => s.ZSTD_compressBound(length),
      isError: (code) => s.ZSTD_isError(code) !== 0,
    };
  } catch {
    // No libzstd here: the callers do as Bun's zstd does.
  }
  return bound;
}
