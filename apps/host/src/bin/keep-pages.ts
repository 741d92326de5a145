/**
 * A long-running server keeps the pages its allocator frees (`ws mcp`, `ws serve`).
 *
 * Bun's allocator (mimalloc) returns freed pages to the system whenever the process
 * idles, so a server that waits a second between tool calls takes every page of its next
 * grep afresh — a minor page fault each, some 10 µs on a virtual machine, about 16,000 of
 * them for a regex over the bench tree against 3,000 back to back. mimalloc reads its
 * options once, from the environment, before any script runs, so a server started
 * without `MIMALLOC_PURGE_DELAY` replaces itself (`execve`: the same process, its
 * descriptors and its arguments) with one started with `MIMALLOC_PURGE_DELAY=-1`: freed
 * pages stay with the process and the next call reuses them. Its resident set stays at
 * its high-water mark instead of falling back when idle. A value set by the user, any
 * value, is kept and nothing is replaced, so `MIMALLOC_PURGE_DELAY=10` (mimalloc's own
 * default) gives the pages back as before.
 *
 * Linux only, where `/proc/self/environ` and `/proc/self/cmdline` give the environment
 * and the arguments the process was started with, byte for byte (Bun adds a `.env`
 * file's values to `process.env`; they are not passed on as if the user had set them).
 * Where anything fails, the server runs on as it is.
 */

/** The option mimalloc reads from the environment at start. */
const PURGE_DELAY = 'MIMALLOC_PURGE_DELAY';

/**
 * The environment the process started with and `MIMALLOC_PURGE_DELAY=-1`, or null where
 * the user set the option. `environ` is `/proc/self/environ` read as Latin-1, a character
 * a byte, so every value goes back byte for byte.
 */
export function environmentKeepingPages(environ: string): string[] | null {
  const vars = environ.split('\0').filter((v) => v !== '');
  if (vars.some((v) => v.startsWith(`${PURGE_DELAY}=`))) return null;
  return [...vars, `${PURGE_DELAY}=-1`];
}

/**
 * Replaces this process with itself started with `MIMALLOC_PURGE_DELAY=-1`, where it can.
 * It reads `/proc` through libc, as it calls `execve`: `node:fs` alone would add some
 * 6 ms to the server's start, which the process about to be replaced would pay. The four
 * symbols are bound here, not through `src/disk/libc.ts`, whose binding (a dozen symbols,
 * each compiled when bound) the bin's small entry would carry and pay for whole.
 */
export function keepFreedPages(): void {
  if (process.platform !== 'linux') return;
  // Bun's --cwd has moved the process already; started again, the flag would move it twice.
  if (process.execArgv.some((flag) => flag.startsWith('--cwd'))) return;
  try {
    const { dlopen, FFIType, ptr } = require('bun:ffi') as typeof import('bun:ffi');
    const i32 = FFIType.i32;
    const { symbols: libc } = dlopen('libc.so.6', {
      open: { args: [FFIType.ptr, i32], returns: i32 },
      read: { args: [i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
      close: { args: [i32], returns: i32 },
      execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: i32 },
    });
    const readProc = (name: string): string | null => {
      const fd = libc.open(ptr(Buffer.from(`/proc/self/${name}\0`)), 0);
      if (fd < 0) return null;
      const parts: Buffer[] = [];
      for (;;) {
        const chunk = Buffer.alloc(65536);
        const n = Number(libc.read(fd, ptr(chunk), chunk.length));
        if (n < 0) {
          libc.close(fd);
          return null;
        }
        if (n === 0) break;
        parts.push(chunk.subarray(0, n));
      }
      libc.close(fd);
      return Buffer.concat(parts).toString('latin1');
    };
    const environ = readProc('environ');
    const cmdline = readProc('cmdline');
    if (environ === null || cmdline === null) return;
    const env = environmentKeepingPages(environ);
    // The arguments as started, byte for byte: Bun's flags, the script and its arguments.
    const argv = cmdline.split('\0').slice(0, -1);
    if (env === null || argv.length === 0) return;
    // Each string and both arrays stay referenced here until execve, which reads them.
    const held: Buffer[] = [];
    const array = (items: readonly string[]): BigUint64Array => {
      const a = new BigUint64Array(items.length + 1);
      items.forEach((s, i) => {
        const b = Buffer.from(`${s}\0`, 'latin1');
        held.push(b);
        a[i] = BigInt(ptr(b));
      });
      return a;
    };
    const path = Buffer.from(`${process.execPath}\0`, 'utf8');
    const argvArray = array(argv);
    const envArray = array(env);
    libc.execve(ptr(path), ptr(argvArray), ptr(envArray));
    // Reached only where execve failed: the server runs on, its pages given back as before.
    held.length = 0;
  } catch {
    // bun:ffi or libc unavailable: the same.
  }
}
