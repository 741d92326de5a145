/**
 * libzstd through `bun:ffi`, for what Bun's own zstd does not offer: a decompression
 * context kept for a thread's life (`unpack-arena.ts`) and compression with parameters
 * beyond a level (`repack.ts`). Bound once a thread, on first use. The one rule: null
 * where libzstd can't be loaded here (or `WS_ZSTD_FALLBACK=1`), and every caller then
 * does what Bun's zstd does — a store never needs libzstd to be read; and a libzstd that
 * unpacks but lacks the compression calls (older than 1.4) still unpacks.
 */
import { dlopen, FFIType } from 'bun:ffi';

/** The calls ws makes; sizes and codes are `size_t` (an error code is near 2^64). */
export interface Libzstd {
  readonly contentSize: (src: Uint8Array, length: number) => bigint | number;
  readonly decompress: (dctx: unknown, dst: unknown, capacity: number, src: Uint8Array, length: number) => bigint | number;
  /** This thread's decompression context (made on first use, kept for the thread's life: about 100 KiB); null where it could not be made. */
  readonly dctx: () => unknown;
  /** The compression calls, or null where this libzstd lacks them. */
  readonly compression: Compression | null;
}

/** libzstd's compression with parameters (`ZSTD_compress2`). */
export interface Compression {
  /** This thread's compression context (made on first use, kept: up to about 3.5 MiB at level 6, once a blob of a megabyte or more was packed); null where it could not be made. */
  readonly cctx: () => unknown;
  readonly reset: (cctx: unknown) => bigint | number;
  readonly setParameter: (cctx: unknown, parameter: number, value: number) => bigint | number;
  readonly compress: (cctx: unknown, dst: unknown, capacity: number, src: Uint8Array, length: number) => bigint | number;
  readonly compressBound: (length: number) => bigint | number;
  readonly isError: (code: bigint | number) => boolean;
}

/** `ZSTD_cParameter` values (zstd.h; the literal mode is among its experimental ones, stable since 1.4). */
export const ZSTD_C_COMPRESSION_LEVEL = 100;
export const ZSTD_C_MIN_MATCH = 105;
export const ZSTD_C_LITERAL_COMPRESSION_MODE = 1002;
/** `ZSTD_ps_disable`: literals kept as they are, not Huffman-coded. */
export const ZSTD_PS_DISABLE = 2;
/** `ZSTD_reset_session_and_parameters`. */
const RESET_ALL = 3;

/** The library's name where it is looked for. */
export const LIBZSTD = process.platform === 'darwin' ? 'libzstd.1.dylib' : 'libzstd.so.1';

let bound: Libzstd | null | undefined;

/** libzstd's calls, or null where it can't be loaded (see the rule above). */
export function libzstd(): Libzstd | null {
  if (bound !== undefined) return bound;
  bound = null;
  if (process.env.WS_ZSTD_FALLBACK === '1') return bound;
  try {
    const d = dlopen(LIBZSTD, {
      ZSTD_createDCtx: { args: [], returns: FFIType.ptr },
      ZSTD_getFrameContentSize: { args: [FFIType.ptr, FFIType.u64], returns: FFIType.u64 },
      ZSTD_decompressDCtx: { args: [FFIType.ptr, FFIType.ptr, FFIType.u64, FFIType.ptr, FFIType.u64], returns: FFIType.u64 },
    }).symbols;
    let dctx: unknown;
    let compression: Compression | null | undefined;
    bound = {
      contentSize: (src, length) => d.ZSTD_getFrameContentSize(src, length),
      decompress: (dc, dst, capacity, src, length) => d.ZSTD_decompressDCtx(dc as never, dst as never, capacity, src, length),
      dctx: () => {
        dctx ??= d.ZSTD_createDCtx();
        return dctx;
      },
      // Bound on first use: grep's Workers only unpack.
      get compression() {
        // Once: a library that lacks the calls is not asked again.
        if (compression === undefined) compression = compressionOf(LIBZSTD);
        return compression;
      },
    };
  } catch {
    // No libzstd here: the callers do as Bun's zstd does.
  }
  return bound;
}

/** The compression calls of the library `name`, bound apart from its decompression ones; null where it lacks them. */
export function compressionOf(name: string): Compression | null {
  try {
    const c = dlopen(name, {
      ZSTD_createCCtx: { args: [], returns: FFIType.ptr },
      ZSTD_CCtx_reset: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.u64 },
      ZSTD_CCtx_setParameter: { args: [FFIType.ptr, FFIType.i32, FFIType.i32], returns: FFIType.u64 },
      ZSTD_compress2: { args: [FFIType.ptr, FFIType.ptr, FFIType.u64, FFIType.ptr, FFIType.u64], returns: FFIType.u64 },
      ZSTD_compressBound: { args: [FFIType.u64], returns: FFIType.u64 },
      ZSTD_isError: { args: [FFIType.u64], returns: FFIType.u32 },
    }).symbols;
    let cctx: unknown;
    return {
      cctx: () => {
        cctx ??= c.ZSTD_createCCtx();
        return cctx;
      },
      reset: (cc) => c.ZSTD_CCtx_reset(cc as never, RESET_ALL),
      setParameter: (cc, parameter, value) => c.ZSTD_CCtx_setParameter(cc as never, parameter, value),
      compress: (cc, dst, capacity, src, length) => c.ZSTD_compress2(cc as never, dst as never, capacity, src, length),
      compressBound: (length) => c.ZSTD_compressBound(length),
      isError: (code) => c.ZSTD_isError(code) !== 0,
    };
  } catch {
    return null;
  }
}
