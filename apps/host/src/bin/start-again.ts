/**
 * A process that starts itself again with one option of Bun's runtime set, read from the
 * environment before any script runs and not settable after. Two commands do:
 *
 * - **A server keeps the pages its allocator frees** (`ws mcp`, `ws serve`). Bun's
 *   allocator (mimalloc) returns freed pages to the system whenever the process idles, so
 *   a server that waits a second between tool calls takes every page of its next grep
 *   afresh — a minor page fault each, some 10 µs on a virtual machine, about 16,000 of
 *   them for a regex over the bench tree against 3,000 back to back. Started with
 *   `MIMALLOC_PURGE_DELAY=-1`, freed pages stay with the process and the next call reuses
 *   them. Its resident set stays at its high-water mark instead of falling back when idle.
 * - **A one-shot grep runs without JavaScriptCore's top tier** (`ws call grep`). FTL, the
 *   optimizing compiler's last tier, compiled 57–66 of a common word's grep functions on
 *   the bench tree, some 400 ms on the compiler's threads; in a process that lives a second
 *   or two it gives back less than it costs, on two cores above all, and its compilations
 *   leave 5–9 MiB more resident. Started with `BUN_JSC_useFTLJIT=0`, the grep's code stops
 *   at the tier below (DFG). A server, whose greps run over and over, keeps it.
 *
 * The replacement is `execve`: the same process, its descriptors and its arguments. A value
 * the user set for the option, any value, is kept and nothing is replaced, so
 * `MIMALLOC_PURGE_DELAY=10` (mimalloc's own default) gives a server's pages back as before
 * and `BUN_JSC_useFTLJIT=1` keeps a grep's top tier.
 *
 * Linux only, where `/proc/self/environ` and `/proc/self/cmdline` give the environment
 * and the arguments the process was started with, byte for byte (Bun adds a `.env`
 * file's values to `process.env`; they are not passed on as if the user had set them).
 * Where anything fails, the process runs on as it is.
 */

import { grepsOnce, servesMcp } from '../cli-args.ts';

/** The option mimalloc reads from the environment at start, and a server's value of it. */
export const KEEP_PAGES = ['MIMALLOC_PURGE_DELAY', '-1'] as const;
/** The option JavaScriptCore reads from the environment at start, and a one-shot grep's value of it. */
export const NO_TOP_TIER = ['BUN_JSC_useFTLJIT', '0'] as const;

/**
 * Whether the Bun of `version` takes {@link NO_TOP_TIER}. Bun refuses to start at all with a
 * `BUN_JSC_` option its JavaScriptCore does not know ("invalid JSC environment variable",
 * exit 1), and says those options may change between releases: a process started again
 * with one that had gone would be a grep that fails. So only Bun 1, which ws requires and
 * is tested on (`test/start-again.test.ts` starts the running Bun with the option), is
 * given it; any other runs the grep as started.
 */
export function takesTopTierOption(version: string): boolean {
  return /^1\.\d+\.\d+/.test(version);
}

/**
 * The environment the process started with and `name=value`, or null where the user set
 * `name`. `environ` is `/proc/self/environ` read as Latin-1, a character a byte, so every
 * value goes back byte for byte.
 */
export function environmentWith(environ: string, [name, value]: readonly [string, string]): string[] | null {
  const vars = environ.split('\0').filter((v) => v !== '');
  if (vars.some((v) => v.startsWith(`${name}=`))) return null;
  return [...vars, `${name}=${value}`];
}

/**
 * Starts the process again with the option its command runs with, where it has one: a
 * server keeps its freed pages, a one-shot grep (on a Bun that takes the option) runs
 * without the top tier; any other command runs as started. Called first by both ways in:
 * the bin's entry and `src/cli.ts` run as a script.
 */
export function startAgainFor(argv: readonly string[]): void {
  if (servesMcp(argv)) startAgainWith(KEEP_PAGES);
  else if (grepsOnce(argv) && takesTopTierOption(Bun.version)) startAgainWith(NO_TOP_TIER);
}

/**
 * Replaces this process with itself started with `option` set, where it can (a server
 * with {@link KEEP_PAGES}, a one-shot grep with {@link NO_TOP_TIER}). It reads `/proc`
 * through libc, as it calls `execve`: `node:fs` alone would add some 6 ms to the start,
 * which the process about to be replaced would pay. The four symbols are bound here, not
 * through `src/disk/libc.ts`, whose binding (a dozen symbols, each compiled when bound)
 * the bin's small entry would carry and pay for whole.
 */
export function startAgainWith(option: readonly [string, string]): void {
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
    const env = environmentWith(environ, option);
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
    // Reached only where execve failed: the process runs on as started.
    held.length = 0;
  } catch {
    // bun:ffi or libc unavailable: the same.
  }
}
