/**
 * A held directory: an open descriptor every effect acts relative to, so a directory
 * that is renamed or swapped for a symlink after it was opened cannot send an effect
 * elsewhere. The one rule: a name given to these methods is one path component, never
 * followed where it is a symlink (`O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`). Where `bun:ffi`
 * has no libc calls, {@link openRoot} gives directories held by path instead, with the
 * same interface and the checks of a path walk (racy, as the host README says).
 */
import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  type BigIntStats,
  unlinkSync,
} from 'node:fs';
import { type DirEntry, type Libc, libc, O, type StatInfo } from './libc.ts';
import { belowFtl } from './one-shot.ts';

/** How a file is opened: to read (never blocking on a FIFO), or created anew to write. */
export type OpenPurpose = 'read' | 'create';

/** One directory, held open. */
export interface HeldDir {
  /** A stat of `name` here, not following a symlink; null when there is none. */
  lstat(name: string): StatInfo | null;
  /** Opens the file `name` (never through a symlink); a descriptor for `node:fs` calls. */
  openFile(name: string, purpose: OpenPurpose, mode?: number): number;
  /**
   * The regular file `name` read whole into `into` from `at` with the guards of a careful
   * read (`Libc.readWholeAt`): its length; -2 where it does not fit there; -1 where
   * anything is unusual (then read it the careful way). `listed`: this directory's
   * listing just recorded `name` as a regular file, which stands for the name's stat (see
   * `Libc.readWholeAt`). Absent where the directory is held by path (the fallback).
   */
  readonly readWhole?: (name: string, into: Uint8Array, at: number, maxBytes: number, listed?: boolean) => number;
  /** The subdirectory `name`, held (fails with ENOTDIR or ELOOP where it is a symlink). */
  openDir(name: string): HeldDir;
  mkdir(name: string): void;
  /** Renames within this directory. */
  rename(from: string, to: string): void;
  /**
   * Swaps two names in this directory atomically, and renames only where nothing is at
   * the target: null where the system has neither (the fallback), so a caller checks
   * and then renames instead.
   */
  readonly atomic: { exchange(a: string, b: string): void; renameNoReplace(from: string, to: string): void } | null;
  unlink(name: string): void;
  readlink(name: string): string;
  /** The entries of this directory, each with the type the directory records for it. */
  entries(): DirEntry[];
  /** Fsyncs the directory (ignored where the file system refuses). */
  sync(): void;
  close(): void;
}

/** A stat of an open descriptor, as {@link StatInfo}. */
export const fstatInfo = (fd: number): StatInfo => (byDescriptor ? byDescriptor.fstat(fd) : infoOf(fstatSync(fd, { bigint: true })));

function infoOf(st: BigIntStats): StatInfo {
  const type: StatInfo['type'] = st.isFile()
    ? 'file'
    : st.isDirectory()
      ? 'directory'
      : st.isSymbolicLink()
        ? 'symlink'
        : st.isFIFO()
          ? 'fifo'
          : st.isSocket()
            ? 'socket'
            : st.isCharacterDevice()
              ? 'character device'
              : st.isBlockDevice()
                ? 'block device'
                : 'unknown';
  const ns = 1_000_000_000n;
  return {
    type,
    dev: Number(st.dev),
    ino: Number(st.ino),
    mode: Number(st.mode) & 0o7777,
    size: Number(st.size),
    mtimeSec: Number(st.mtimeNs / ns),
    mtimeNsec: Number(st.mtimeNs % ns),
    ctimeSec: Number(st.ctimeNs / ns),
    ctimeNsec: Number(st.ctimeNs % ns),
  };
}

function entryOf(d: Dirent): DirEntry {
  const type: DirEntry['type'] = d.isFile()
    ? 'file'
    : d.isDirectory()
      ? 'directory'
      : d.isSymbolicLink()
        ? 'symlink'
        : d.isFIFO() || d.isSocket() || d.isCharacterDevice() || d.isBlockDevice()
          ? 'other'
          : 'unknown';
  return { name: d.name, type };
}

function syncFd(fd: number): void {
  try {
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename is then as durable as they allow.
  }
}

const DIR_FLAGS = O.RDONLY | O.DIRECTORY | O.NOFOLLOW | O.CLOEXEC;

/**
 * A directory held by descriptor, its calls on the prototype: a walk holds one per
 * directory it lists (8,500 in a large tree), so none carries a closure per call. It
 * swaps and renames atomically itself (`atomic` is the directory).
 */
class FdDir implements HeldDir {
  /** Listed since it was opened: the next listing seeks to its start first. */
  private listed = false;

  constructor(
    private readonly c: Libc,
    private readonly fd: number,
  ) {}

  get atomic(): this {
    return this;
  }

  lstat(name: string): StatInfo | null {
    return this.c.lstatat(this.fd, name);
  }

  openFile(name: string, purpose: OpenPurpose, mode = 0o644): number {
    const flags = purpose === 'read' ? O.RDONLY | O.NOFOLLOW | O.NONBLOCK | O.CLOEXEC : O.WRONLY | O.CREAT | O.EXCL | O.NOFOLLOW | O.CLOEXEC;
    return this.c.openat(this.fd, name, flags, mode);
  }

  openDir(name: string): HeldDir {
    return new FdDir(this.c, this.c.openat(this.fd, name, DIR_FLAGS));
  }

  readWhole(name: string, into: Uint8Array, at: number, maxBytes: number, listed = false): number {
    return this.c.readWholeAt(this.fd, name, into, at, maxBytes, listed);
  }

  mkdir(name: string): void {
    this.c.mkdirat(this.fd, name, 0o777);
  }

  rename(from: string, to: string): void {
    this.c.renameat(this.fd, from, this.fd, to);
  }

  exchange(a: string, b: string): void {
    this.c.exchangeat(this.fd, a, this.fd, b);
  }

  renameNoReplace(from: string, to: string): void {
    this.c.renameNoReplaceAt(this.fd, from, this.fd, to);
  }

  unlink(name: string): void {
    this.c.unlinkat(this.fd, name, false);
  }

  readlink(name: string): string {
    return this.c.readlinkat(this.fd, name);
  }

  // The descriptor itself is listed, never the path it was opened by.
  entries(): DirEntry[] {
    const entries = this.c.readDirectory(this.fd, this.listed);
    this.listed = true;
    return entries;
  }

  sync(): void {
    syncFd(this.fd);
  }

  close(): void {
    this.c.close(this.fd);
  }
}

function pathDir(abs: string): HeldDir {
  const at = (name: string) => `${abs}/${name}`;
  return {
    lstat(name) {
      try {
        return infoOf(lstatSync(at(name), { bigint: true }));
      } catch (err) {
        if ((err as { code?: string }).code === 'ENOENT') return null;
        throw err;
      }
    },
    openFile(name, purpose, mode = 0o644) {
      const flags =
        purpose === 'read'
          ? constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
          : constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
      return openSync(at(name), flags, mode);
    },
    openDir(name) {
      const st = lstatSync(at(name));
      if (st.isSymbolicLink()) throw Object.assign(new Error(`ELOOP: "${name}"`), { code: 'ELOOP' });
      if (!st.isDirectory()) throw Object.assign(new Error(`ENOTDIR: "${name}"`), { code: 'ENOTDIR' });
      return pathDir(at(name));
    },
    mkdir: (name) => mkdirSync(at(name)),
    rename: (from, to) => renameSync(at(from), at(to)),
    atomic: null,
    unlink: (name) => unlinkSync(at(name)),
    readlink: (name) => readlinkSync(at(name)),
    entries: () => readdirSync(abs, { withFileTypes: true }).map(entryOf),
    sync: () => syncDirectoryAt(abs),
    close() {},
  };
}

belowFtl(FdDir.prototype.lstat, FdDir.prototype.entries, FdDir.prototype.openDir);

/** Fsyncs the directory at `abs`, so a rename in it survives power loss (where the file system allows). */
export function syncDirectoryAt(abs: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(abs, 'r');
    syncFd(fd);
  } catch {
    // as in syncFd
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** libc where directories are held by descriptor here (Linux with libc through `bun:ffi`); else null. */
const byDescriptor: Libc | null = libc;

/** True when directories are held by descriptor here. */
export const holdsByDescriptor = byDescriptor !== null;

/** Opens the mount root (an absolute, real path) as a held directory. */
export function openRoot(root: string): HeldDir {
  if (byDescriptor) return new FdDir(byDescriptor, byDescriptor.openat(-1, root, O.RDONLY | O.DIRECTORY | O.CLOEXEC));
  const st = lstatSync(root);
  if (!st.isDirectory()) throw Object.assign(new Error(`ENOTDIR: "${root}"`), { code: 'ENOTDIR' });
  return pathDir(root);
}
