/**
 * The few libc calls that act relative to a held directory (`openat`, `mkdirat`,
 * `renameat`, `unlinkat`, `fstatat`, `readlinkat`, `getdents64`), through `bun:ffi`, on Linux x86-64
 * and arm64 with glibc 2.33 or later (where `fstatat` is a symbol of its own). The one
 * rule: a failure throws an `Error` with the errno's name as `code`, as `node:fs` does,
 * so callers read both kinds of error alike. Where the calls are not available,
 * {@link libc} is null and the disk works through path checks (see the host README).
 */
import { dlopen, FFIType, ptr, read } from 'bun:ffi';
import { belowFtl } from './one-shot.ts';

/** A stat as the disk uses it: the file's type, identity, and times as whole seconds and nanoseconds. */
export interface StatInfo {
  readonly type: 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'character device' | 'block device' | 'unknown';
  readonly dev: number;
  readonly ino: number;
  /** Permission bits. */
  readonly mode: number;
  readonly size: number;
  readonly mtimeSec: number;
  readonly mtimeNsec: number;
  readonly ctimeSec: number;
  readonly ctimeNsec: number;
}

/** A directory entry as a listing gives it: its name, and its type where the directory records it. */
export interface DirEntry {
  readonly name: string;
  readonly type: 'file' | 'directory' | 'symlink' | 'other' | 'unknown';
}

/** Open flags, Linux values. */
export const O = {
  RDONLY: 0,
  WRONLY: 0o1,
  CREAT: 0o100,
  EXCL: 0o200,
  NONBLOCK: 0o4000,
  DIRECTORY: 0o200000,
  NOFOLLOW: 0o400000,
  CLOEXEC: 0o2000000,
} as const;

const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
const AT_EMPTY_PATH = 0x1000;
const AT_REMOVEDIR = 0x200;

const ERRNO: Record<number, string> = {
  1: 'EPERM',
  2: 'ENOENT',
  5: 'EIO',
  6: 'ENXIO',
  9: 'EBADF',
  12: 'ENOMEM',
  13: 'EACCES',
  16: 'EBUSY',
  17: 'EEXIST',
  18: 'EXDEV',
  20: 'ENOTDIR',
  21: 'EISDIR',
  22: 'EINVAL',
  23: 'ENFILE',
  24: 'EMFILE',
  26: 'ETXTBSY',
  27: 'EFBIG',
  28: 'ENOSPC',
  30: 'EROFS',
  36: 'ENAMETOOLONG',
  39: 'ENOTEMPTY',
  38: 'ENOSYS',
  40: 'ELOOP',
  95: 'EOPNOTSUPP',
  122: 'EDQUOT',
};

/** An error shaped as `node:fs` shapes them. */
export function sysError(errno: number, call: string, name: string): Error & { code: string } {
  const code = ERRNO[errno] ?? `E${errno}`;
  return Object.assign(new Error(`${code}: ${call} "${name}"`), { code, errno });
}

function typeOf(mode: number): StatInfo['type'] {
  switch (mode & 0o170000) {
    case 0o100000:
      return 'file';
    case 0o040000:
      return 'directory';
    case 0o120000:
      return 'symlink';
    case 0o010000:
      return 'fifo';
    case 0o140000:
      return 'socket';
    case 0o020000:
      return 'character device';
    case 0o060000:
      return 'block device';
    default:
      return 'unknown';
  }
}

/** The calls, bound; null where this platform has none of them. */
export interface Libc {
  /** Opens `name` relative to `dirfd` (-1: an absolute path); returns the descriptor. */
  openat(dirfd: number, name: string, flags: number, mode?: number): number;
  mkdirat(dirfd: number, name: string, mode: number): void;
  renameat(fromDir: number, from: string, toDir: number, to: string): void;
  /** Swaps two names atomically (Linux `renameat2` with RENAME_EXCHANGE). */
  exchangeat(fromDir: number, from: string, toDir: number, to: string): void;
  /** Renames only where nothing is at `to` (RENAME_NOREPLACE); EEXIST otherwise. */
  renameNoReplaceAt(fromDir: number, from: string, toDir: number, to: string): void;
  unlinkat(dirfd: number, name: string, directory: boolean): void;
  /** A stat of `name` in `dirfd`, not following a symlink there; null when it does not exist. */
  lstatat(dirfd: number, name: string): StatInfo | null;
  /** A stat of an open descriptor. */
  fstat(fd: number): StatInfo;
  readlinkat(dirfd: number, name: string): string;
  /**
   * The entries of the open directory `fd` from its start (`getdents64`), `.` and `..`
   * left out, each with the type the directory records (`unknown` where it records none:
   * a stat tells). `rewind: false` where nothing has read `fd` since it was opened (no seek to its start).
   */
  readDirectory(fd: number, rewind?: boolean): DirEntry[];
  /**
   * `fstatat` as it is, not following a symlink at the path's end, for a sweep that makes
   * no object per stat: `name` points at a NUL-terminated path, `out` at 160 bytes the
   * stat is written to (`struct stat`: device at 0, inode at 8, size at 48, mtime at 88
   * and ctime at 104, each seconds then nanoseconds, 8 bytes apiece; the mode at
   * {@link Libc.modeAt}). 0, or -1 where it failed.
   */
  statRaw(dirfd: number, name: number, out: number): number;
  /** Where `struct stat` keeps the mode (4 bytes) on this machine. */
  readonly modeAt: number;
  /** Closes a descriptor (as `closeSync`, without its checks: a walk closes one per directory). */
  close(fd: number): void;
  /**
   * Reads the regular file `name` in `dirfd` whole into `into` from `at`, as a careful read
   * does — a stat of the name first (a regular file, not a link: nothing else is opened),
   * opened without following a link or blocking, read at offsets (a FIFO swapped in
   * meanwhile is never read from), and a stat of the descriptor after showing the very
   * file the name's stat showed, unchanged (device, inode, size, times) — but with no
   * object made for any of it: a grep reads every file of a tree so. Its
   * length; -2 where it is a plain file that does not fit in `into` from `at` (nothing is
   * read); -1 wherever anything else is unusual (not a regular file, empty, over
   * `maxBytes`, changed, any failure): the caller then reads it the careful way, which
   * says why. `listed`: the directory's listing recorded `name` as a regular file a moment
   * ago (a walk reading the files of the directory it just listed), so that record stands
   * for the name's stat — the file is opened first and its descriptor stated before the
   * read as after it: one path looked up a file, not two; anything but a regular file
   * swapped in since is closed unread.
   */
  readWholeAt(dirfd: number, name: string, into: Uint8Array, at: number, maxBytes: number, listed?: boolean): number;
  /**
   * Takes a read lease on `fd` (opened read-only), its break signalled with SIGWINCH
   * (ignored by default) rather than SIGIO (which would end the process): `held` where
   * nobody has the file open for writing — until `fd` is closed, no one can open it to
   * write without waiting for that — `writers` where someone does, `unavailable` where
   * the system gives no lease (another user's file, a file system without leases).
   */
  leaseRead(fd: number): 'held' | 'writers' | 'unavailable';
}

const F_SETSIG = 10;
const F_SETLEASE = 1024;
const F_RDLCK = 0;
const SIGWINCH = 28;

const encoder = new TextEncoder();
/** A character past ASCII (in a name decoded as Latin-1: a byte of 0x80 or more). */
const NOT_ASCII = /[^\x00-\x7f]/;
function cstr(s: string): Uint8Array {
  const bytes = encoder.encode(`${s}\0`);
  return bytes;
}

function bind(): Libc | null {
  if (process.platform !== 'linux' || (process.arch !== 'x64' && process.arch !== 'arm64')) return null;
  if (process.env.WS_DISK_FALLBACK === '1') return null;
  const i32 = FFIType.i32;
  let lib: ReturnType<typeof open>;
  function open() {
    return dlopen('libc.so.6', {
      openat: { args: [i32, FFIType.ptr, i32, FFIType.u32], returns: i32 },
      mkdirat: { args: [i32, FFIType.ptr, FFIType.u32], returns: i32 },
      renameat: { args: [i32, FFIType.ptr, i32, FFIType.ptr], returns: i32 },
      renameat2: { args: [i32, FFIType.ptr, i32, FFIType.ptr, FFIType.u32], returns: i32 },
      unlinkat: { args: [i32, FFIType.ptr, i32], returns: i32 },
      fstatat: { args: [i32, FFIType.ptr, FFIType.ptr, i32], returns: i32 },
      readlinkat: { args: [i32, FFIType.ptr, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
      fcntl: { args: [i32, i32, i32], returns: i32 },
      lseek: { args: [i32, FFIType.i64, i32], returns: FFIType.i64 },
      getdents64: { args: [i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
      pread: { args: [i32, FFIType.ptr, FFIType.u64, FFIType.i64], returns: FFIType.i64 },
      close: { args: [i32], returns: i32 },
      __errno_location: { args: [], returns: FFIType.ptr },
    });
  }
  try {
    lib = open();
  } catch {
    return null;
  }
  const c = lib.symbols;
  // glibc has had getdents64 since 2.30, before fstatat's own symbol (2.33): one library, bound once.
  const getdents = c.getdents64 as unknown as (fd: number, buf: number, size: number) => number | bigint;
  const errno = (): number => read.i32(c.__errno_location() as NonNullable<ReturnType<typeof c.__errno_location>>, 0);
  // struct stat: the mode sits at 24 on x86-64 and at 16 on arm64; the rest lines up.
  const modeAt = process.arch === 'x64' ? 24 : 16;
  const bytes = new Uint8Array(160);
  const view = new DataView(bytes.buffer);
  const bufPtr = ptr(bytes);
  // 64-bit fields read as two 32-bit halves: plain numbers, no BigInt on every stat of a walk.
  const u64 = (at: number) => view.getUint32(at + 4, true) * 4294967296 + view.getUint32(at, true);
  const info = (): StatInfo => {
    const mode = view.getUint32(modeAt, true);
    return {
      type: typeOf(mode),
      dev: u64(0),
      ino: u64(8),
      mode: mode & 0o7777,
      size: u64(48),
      mtimeSec: u64(88),
      mtimeNsec: view.getUint32(96, true),
      ctimeSec: u64(104),
      ctimeNsec: view.getUint32(112, true),
    };
  };
  const dir = (fd: number) => (fd === -1 ? AT_FDCWD : fd);
  // A name goes to the system through one buffer, written in place: no allocation per stat of a walk.
  const nameBytes = new Uint8Array(4096);
  const namePtr = ptr(nameBytes);
  const cname = (s: string): Uint8Array | number => {
    if (s.length * 3 >= nameBytes.length) return cstr(s);
    const { written } = encoder.encodeInto(s, nameBytes);
    nameBytes[written] = 0;
    return namePtr;
  };
  const dents = new Uint8Array(64 * 1024);
  const dentsPtr = ptr(dents);
  const dentsBuffer = Buffer.from(dents.buffer, dents.byteOffset, dents.byteLength);
  const utf8 = new TextDecoder();
  const DT: Record<number, DirEntry['type']> = { 1: 'other', 2: 'other', 4: 'directory', 6: 'other', 8: 'file', 10: 'symlink', 12: 'other' };
  const readDirectory = (fd: number, rewind = true): DirEntry[] => {
    if (rewind && Number(c.lseek(fd, 0, 0)) < 0) throw sysError(errno(), 'seek', String(fd));
    const out: DirEntry[] = [];
    for (;;) {
      const n = Number(getdents(fd, dentsPtr, dents.length));
      if (n < 0) throw sysError(errno(), 'scandir', String(fd));
      if (n === 0) return out;
      // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), then the name and a NUL.
      // The whole buffer as Latin-1 in one native call, each name a slice of it: a name with
      // any byte past ASCII is UTF-8, decoded again from its bytes.
      const all = dentsBuffer.toString('latin1', 0, n);
      for (let off = 0; off < n; ) {
        const reclen = dents[off + 16] | (dents[off + 17] << 8);
        const start = off + 19;
        const end = all.indexOf('\u0000', start);
        off += reclen;
        const bytes = all.slice(start, end);
        const name = NOT_ASCII.test(bytes) ? utf8.decode(dents.subarray(start, end)) : bytes;
        if (name === '.' || name === '..') continue;
        out.push({ name, type: DT[dents[start - 1]] ?? 'unknown' });
      }
    }
  };
  // Two more stat buffers for a whole read: the name's before the open, the descriptor's after the read, compared as bytes.
  // Each over an ArrayBuffer of its own: JavaScriptCore may move a small typed array's
  // bytes (a pointer taken of one then reads stale memory), never an ArrayBuffer's.
  const before = new Uint8Array(new ArrayBuffer(160));
  const beforeView = new DataView(before.buffer);
  const beforePtr = ptr(before);
  const after = new Uint8Array(new ArrayBuffer(160));
  const afterView = new DataView(after.buffer);
  const afterPtr = ptr(after);
  // An empty name, for a stat of the descriptor itself; its pointer taken at each call, so the buffer is held by the function.
  const empty = new Uint8Array(new ArrayBuffer(1));
  const READ_FLAGS = O.RDONLY | O.NOFOLLOW | O.NONBLOCK | O.CLOEXEC;
  /** Whether the stat in `view` is of a regular file. */
  const regular = (view: DataView): boolean => (view.getUint32(modeAt, true) & 0o170000) === 0o100000;
  /** The fields two stats of one unchanged file share: device and inode (16 bytes at 0), size (48), mtime and ctime (88–120). */
  const unchanged = (): boolean => {
    for (let k = 0; k < 16; k++) if (before[k] !== after[k]) return false;
    for (let k = 48; k < 56; k++) if (before[k] !== after[k]) return false;
    for (let k = 88; k < 120; k++) if (before[k] !== after[k]) return false;
    return true;
  };
  const pread = c.pread as unknown as (fd: number, buf: number, count: number, offset: number) => number | bigint;
  const readWholeAt = (dirfd: number, name: string, into: Uint8Array, at: number, maxBytes: number, listed = false): number => {
    // Five calls a file: the name's stat (only a regular file is opened: never a FIFO, whose
    // opening would wake a writer waiting on it), the open, the read, the descriptor's stat,
    // the close. The descriptor's stat after the read shows the same file as the name's
    // did (device, inode, size, times), so what was read is that file as it was stated:
    // not one swapped in or written to meanwhile (a FIFO swapped in is not read from
    // either: a pipe cannot be read at an offset). A file its listing just recorded as
    // regular is opened first and its descriptor stated instead of its name: the same five
    // calls, one path lookup fewer (the name's stat walks the path as the open does).
    const n = cname(name);
    let fd = -1;
    if (listed) {
      fd = c.openat(dir(dirfd), n, READ_FLAGS, 0);
      if (fd < 0) return -1;
      if (c.fstatat(fd, ptr(empty), beforePtr, AT_EMPTY_PATH) < 0 || !regular(beforeView)) {
        c.close(fd);
        return -1;
      }
    } else if (c.fstatat(dir(dirfd), n, beforePtr, AT_SYMLINK_NOFOLLOW) < 0 || !regular(beforeView)) return -1;
    const size = beforeView.getUint32(52, true) * 4294967296 + beforeView.getUint32(48, true);
    const fits = size !== 0 && size <= maxBytes ? (at + size > into.length ? -2 : 0) : -1;
    if (fits < 0) {
      if (fd >= 0) c.close(fd);
      return fits;
    }
    if (fd < 0) fd = c.openat(dir(dirfd), n, READ_FLAGS, 0);
    if (fd < 0) return -1;
    try {
      const base = ptr(into, at);
      let off = 0;
      while (off < size) {
        const got = Number(pread(fd, base + off, size - off, off));
        if (got <= 0) break;
        off += got;
      }
      if (off !== size || c.fstatat(fd, ptr(empty), afterPtr, AT_EMPTY_PATH) < 0 || !regular(afterView) || !unchanged()) return -1;
      return size;
    } finally {
      c.close(fd);
    }
  };
  const link = new Uint8Array(4097);
  const linkPtr = ptr(link);
  const decoder = new TextDecoder();
  const bound: Libc = {
    openat(dirfd, name, flags, mode = 0) {
      const fd = c.openat(dir(dirfd), cname(name), flags, mode);
      if (fd < 0) throw sysError(errno(), 'open', name);
      return fd;
    },
    mkdirat(dirfd, name, mode) {
      if (c.mkdirat(dir(dirfd), cstr(name), mode) < 0) throw sysError(errno(), 'mkdir', name);
    },
    renameat(fromDir, from, toDir, to) {
      if (c.renameat(dir(fromDir), cstr(from), dir(toDir), cstr(to)) < 0) throw sysError(errno(), 'rename', to);
    },
    exchangeat(fromDir, from, toDir, to) {
      if (c.renameat2(dir(fromDir), cstr(from), dir(toDir), cstr(to), 2) < 0) throw sysError(errno(), 'rename', to);
    },
    renameNoReplaceAt(fromDir, from, toDir, to) {
      if (c.renameat2(dir(fromDir), cstr(from), dir(toDir), cstr(to), 1) < 0) throw sysError(errno(), 'rename', to);
    },
    unlinkat(dirfd, name, directory) {
      if (c.unlinkat(dir(dirfd), cstr(name), directory ? AT_REMOVEDIR : 0) < 0) throw sysError(errno(), 'unlink', name);
    },
    lstatat(dirfd, name) {
      if (c.fstatat(dir(dirfd), cname(name), bufPtr, AT_SYMLINK_NOFOLLOW) < 0) {
        const e = errno();
        if (e === 2) return null;
        throw sysError(e, 'stat', name);
      }
      return info();
    },
    fstat(fd) {
      if (c.fstatat(fd, cname(''), bufPtr, AT_EMPTY_PATH) < 0) throw sysError(errno(), 'stat', String(fd));
      return info();
    },
    readlinkat(dirfd, name) {
      const n = Number(c.readlinkat(dir(dirfd), cstr(name), linkPtr, 4096));
      if (n < 0) throw sysError(errno(), 'readlink', name);
      return decoder.decode(link.subarray(0, n));
    },
    readDirectory,
    readWholeAt,
    statRaw: (dirfd, name, out) => c.fstatat(dirfd, name as never, out as never, AT_SYMLINK_NOFOLLOW),
    modeAt,
    close(fd) {
      if (c.close(fd) < 0) {
        const e = errno();
        if (e !== 4) throw sysError(e, 'close', String(fd)); // EINTR: Linux has closed it anyway
      }
    },
    leaseRead(fd) {
      if (c.fcntl(fd, F_SETSIG, SIGWINCH) < 0) return 'unavailable';
      if (c.fcntl(fd, F_SETLEASE, F_RDLCK) === 0) return 'held';
      return errno() === 11 ? 'writers' : 'unavailable'; // EAGAIN: open for writing elsewhere
    },
  };
  // What a walk calls for every entry.
  belowFtl(u64, info, cname, readDirectory, bound.lstatat, bound.openat, bound.close, readWholeAt, regular, unchanged);
  return bound;
}

/** The bound calls, or null where the disk falls back to path checks. */
export const libc: Libc | null = bind();
