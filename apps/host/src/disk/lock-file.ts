/**
 * A file lock the kernel keeps: `flock(2)` through `bun:ffi`, never blocking (every
 * attempt is `LOCK_NB`; a caller that must wait polls). The one rule: a lock file is never
 * removed — the lock is the open file's, and the kernel drops it when its holder closes
 * the file or dies, so there is no owner to take over and nothing stale to clean.
 * Linux and macOS; elsewhere (no `flock` in the C library) opening one throws a sentence.
 */
import { dlopen, FFIType, read } from 'bun:ffi';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

const LOCK_SH = 1;
const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
/** `EWOULDBLOCK`: Linux 11, macOS 35. `EINTR` is 4 on both. */
const WOULD_BLOCK = process.platform === 'darwin' ? 35 : 11;
const INTERRUPTED = 4;

interface Libc {
  flock(fd: number, operation: number): number;
  errno(): number;
}

let libc: Libc | undefined;

function loadLibc(): Libc {
  if (libc !== undefined) return libc;
  const darwin = process.platform === 'darwin';
  const errnoName = darwin ? '__error' : '__errno_location';
  const lib = dlopen(darwin ? '/usr/lib/libSystem.B.dylib' : 'libc.so.6', {
    flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    [errnoName]: { args: [], returns: FFIType.ptr },
  });
  const where = lib.symbols[errnoName] as () => number | null;
  libc = {
    flock: (fd, op) => lib.symbols.flock(fd, op) as number,
    errno: () => {
      const at = where();
      return at === null ? 0 : read.i32(at, 0);
    },
  };
  return libc;
}

/** One open lock file: its own open file description, so two in one process exclude each other too. */
export interface LockFile {
  readonly path: string;
  /** Takes the exclusive lock if nobody holds it in any mode; false if someone does. */
  tryExclusive(): boolean;
  /** Takes a shared lock unless someone holds it exclusively; false if someone does. */
  tryShared(): boolean;
  /** Drops whatever this file holds. */
  unlock(): void;
  /** Drops the lock and closes the file. */
  close(): void;
}

/** Opens (creating where missing, with its directory) the lock file at `path`. */
export function openLockFile(path: string): LockFile {
  const c = loadLibc();
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'a', 0o644);
  let open = true;
  const attempt = (op: number): boolean => {
    for (;;) {
      if (c.flock(fd, op | LOCK_NB) === 0) return true;
      const errno = c.errno();
      if (errno === WOULD_BLOCK) return false;
      if (errno !== INTERRUPTED) throw new Error(`locking ${path} failed (errno ${errno})`);
    }
  };
  return {
    path,
    tryExclusive: () => attempt(LOCK_EX),
    tryShared: () => attempt(LOCK_SH),
    unlock() {
      if (open) c.flock(fd, LOCK_UN);
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd); // closing the description drops its lock
    },
  };
}
