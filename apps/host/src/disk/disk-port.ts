/**
 * The host's disk for one mount: `@ws/reconcile`'s DiskPort plus containment and what
 * listings need, over held directories (see `resolve.ts`). The one rule: every effect
 * resolves its path once, from the root's descriptor, and acts on what that resolution
 * holds — it checks that disk still holds what the decision saw just before it acts, and
 * it only ever opens regular files (a FIFO or a device is refused from a stat, unopened).
 */
import { accessSync, closeSync, constants, fsyncSync, readSync, statSync, writeSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { DiskPort, Expectation, FileMeta, Observation, Reading, RootLocation, UnlinkResult, Walk, WriteResult } from '@ws/reconcile';
import { type Boundary, boundary, doneWriting, tempName } from './boundary.ts';
import { fileMeta, probeGranularity, sameFile, sameFileMoved, sameStat, type TimeKeeping } from './fingerprint.ts';
import { fstatInfo, type HeldDir, holdsByDescriptor, openRoot } from './held.ts';
import { libc, type StatInfo } from './libc.ts';
import { openDirectory, resolvePath, type Resolved } from './resolve.ts';
import type { WalkRules, WalkRulesSpec } from './rules.ts';
import { describeFsError, diskWords } from './sentences.ts';
import { newTally, sweepTree, visitTree } from './walk.ts';
import { belowFtlNow } from './one-shot.ts';
import { walkInParallel, walkWorkers } from './walk-parallel.ts';
import { decidedOnWalk, quietStats, stillQuiet, type WalkSeen } from './quiet.ts';

/** What a disk port needs to know about its mount. */
export interface DiskOptions {
  /** The mount root: absolute and real. */
  readonly root: string;
  readonly rules: WalkRules;
  readonly followSymlinks: boolean;
  /** Most files one walk returns before it says it is incomplete. */
  readonly walkCap: number;
  /** The store's database, mount-relative, where it lies inside this mount. */
  readonly storeRel?: string;
  /** `mount.protect`: gitignore patterns an agent may read but never change. */
  readonly protect?: readonly string[];
  /** The mount's name, for the paths its sentences show (`work/a.txt`). */
  readonly mount?: string;
  /** The file system's timestamp granularity in ms; learned from the root's times where not given. */
  readonly timestampGranularityMs?: number;
  /** Keep times as a coarse file system would (truncated to this many ms): tests simulate one so. */
  readonly coarseTimesMs?: number;
  /** False: check, then plain rename (no exchange-then-verify); the benchmark's reference. */
  readonly replaceGuard?: boolean;
}

/** Why a tool names a path: to look at it, or to change it (protected paths refuse that). */
export type Purpose = 'read' | 'change';

/** A path inside the mount, or the sentence refusing it. */
export type Containment = { readonly ok: true; readonly abs: string } | { readonly ok: false; readonly message: string };

/** What is at a path, without opening it. */
export type PathKind =
  | { readonly kind: 'absent' }
  | { readonly kind: 'file'; readonly meta: FileMeta }
  | { readonly kind: 'directory' }
  /** Something that is not read: a FIFO, socket, device or symlink, or a path refused; `reason` is a clause. */
  | { readonly kind: 'other'; readonly reason: string };

/**
 * What a change expects at the point of effect: the fingerprint, as `@ws/reconcile`'s
 * port says, and, where given, the very bytes (`expectBytes`): the file that comes out
 * of the exchange (or is moved aside) is then compared byte for byte, so a save whose
 * timestamps cannot tell it apart (same size, same tick) is caught too.
 */
export interface HostExpectation {
  readonly expect: Expectation;
  readonly expectBytes?: Uint8Array;
}

/** The host's disk for one mount. */
export interface HostDisk extends DiskPort {
  readonly root: string;
  /** {@link DiskPort.write}, compare-and-swap on the bytes too where `expectBytes` is given. */
  write(path: string, bytes: Uint8Array, options: { readonly mode: number | null } & HostExpectation): Promise<WriteResult>;
  /** {@link DiskPort.unlink}, compare-and-swap on the bytes too where `expectBytes` is given. */
  unlink(path: string, options: HostExpectation): Promise<UnlinkResult>;
  /**
   * Checks a path a tool names: inside the root (no `..`, no leading `/`, no symlink
   * leading out, none at all where the mount does not follow links), not ws's own file,
   * and for `change` not protected by `mount.protect`. Refusals are whole sentences.
   */
  contain(path: string, purpose: Purpose): Containment;
  /** What is at `path` (symlinks followed only where the mount follows them). Synchronous: one stat. */
  kindOf(path: string): PathKind;
  /**
   * A walk; `shallow`: the directory's own entries only (a listing that is not recursive).
   * Each walk reads the ignore files as they are now; `continuing`: this walk is a part of
   * one begun by a walk just before (a search's walk in parts, see `walkInParts`), and
   * reads them as that walk did — one logical walk reads each ignore file once, not once
   * a part (a grep's 1,400 parts stat'd the root's `.gitignore` 1,400 times).
   */
  walk(dir: string, options?: { readonly shallow?: boolean; readonly continuing?: boolean }): Promise<Walk>;
  /**
   * {@link walk} for a search, which reads every file it finds anyway (with a stat of its
   * own): the same files, directories and counts, but a file its directory records as
   * regular is not stat'd, so its size is unknown (undefined). One walk (or one part of a
   * walk in parts) on this thread.
   */
  walkNames?(dir: string, options?: { readonly shallow?: boolean; readonly continuing?: boolean }): Promise<NameWalk>;
  /**
   * Told that a caller walked all of `dir` in parts, each complete and readable (a
   * search's walk): where `dir` is the root, that is a whole walk, and the deferred sweep
   * of leftovers is not needed (see {@link diskPort}).
   */
  walkedWhole?(dir: string): void;
  /**
   * Runs `fn` with every whole walk it makes on this thread, none split among Workers (see
   * `walk-parallel.ts`): a one-shot grep's pass, whose peak memory a walk's Worker would
   * raise by its heap (11–13 MiB on the bench tree), for a grep 5–15% sooner.
   */
  oneThread<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Up to `length` bytes of a regular file from byte `start` (fewer at its end), for a
   * file too large to read whole: the same guards as `read` (a stat first, regular files
   * only, opened non-blocking from the held directory, no symlink where the mount follows
   * none), with the file's metadata as it stood around the read. A file that changes
   * while the stretch is read is looked at again, then reported as changing, never mixed.
   * `into`: a buffer to read into where it is long enough (the bytes returned are then a
   * view of it), so a caller streaming a file reuses one buffer.
   */
  readRange(path: string, start: number, length: number, into?: Uint8Array): Promise<RangeReading>;
  /**
   * Why a walk from the root passes over the directory `dir` (by its own name or an
   * ancestor's: `ignored by .gitignore: build/`), or undefined where it does not; a walk
   * started at such a directory still passes over all it holds.
   */
  passedOver(dir: string): string | undefined;
  /**
   * Files read whole, in order, each answered as `read` answers it (the same guards, the
   * same readings) — but the directories they are in are held once for the files in
   * them, not walked to again from the root for each (a search reads thousands).
   */
  readMany(paths: readonly string[], maxBytes: number): Promise<Reading[]>;
  /** This disk as plain data, for {@link diskReader} in another thread (grep's Workers). */
  readonly readerSpec: ReaderSpec;
  /**
   * What a thread needs to walk a part of this disk's tree as its own walks do, and read
   * each file from the directory the walk holds (`grep/part-search.ts`): the root, the
   * rules as plain data, the walk's cap; and the walk a search is (`walk`, new for each
   * call: the rules are made once a walk). Absent where a walk follows links, where the
   * rules are not plain data, or where the system calls a held read needs are not bound.
   */
  partSpec?(): { readonly root: string; readonly rules: WalkRulesSpec; readonly cap: number; readonly walk: number } | undefined;
  /**
   * Keeps the whole walks of the root from now until {@link quietStats} (the last one
   * made): a sync that may keep a quiet record. Otherwise none is kept (a walk's files are
   * some 10 MB on a 40,000-file tree).
   */
  keepWholeWalks(): void;
  /**
   * The stats of what the last whole walk of the root kept saw, packed (`quiet.ts`), for a
   * quiet sync's record; null where they cannot vouch for it (see `quietStats`), where no
   * whole walk was kept, where the pass did not decide on that walk alone (its `reported`
   * paths and `counted` unchanged files: see `decidedOnWalk`), or where the mount follows
   * links. Keeps no more walks; `decided` undefined: only that.
   */
  quietStats(decided?: { readonly reported: readonly string[]; readonly counted: number }): Uint8Array | null;
  /**
   * True where every entry of `stats` (from {@link quietStats}) stats as it did: the tree
   * is as that walk saw it. With `share`, only the entries this thread takes of a check
   * shared with another (`quiet.ts`, `stillQuiet`).
   */
  stillQuiet(stats: Uint8Array, share?: Int32Array): boolean;
  /**
   * The root another thread may check `stats` under (`quiet.ts`'s `stillQuiet` there gives
   * what {@link stillQuiet} gives here); null where only this disk may say (it follows links).
   */
  readonly quietRoot: string | null;
}

/** A walk's answer where only the names were wanted ({@link HostDisk.walkNames}). */
export type NameWalk = Omit<Walk, 'files'> & { readonly files: readonly { readonly path: string; readonly size: number | undefined }[] };

/** What reading a mount's files needs of its disk, as plain data (it crosses to a Worker). */
export type ReaderSpec = Pick<DiskOptions, 'root' | 'followSymlinks' | 'storeRel' | 'protect' | 'mount' | 'coarseTimesMs'> & {
  readonly timestampGranularityMs: number;
};

/** A mount's files, read from another thread (grep's Workers) with the guards and answers of its disk's `readMany`. */
export interface DiskReader {
  /**
   * As the disk's `readMany`; with `into`, the files are read one after another into it
   * where they fit (each reading's bytes a view of it, valid until the caller reuses it),
   * the rest into bytes of their own.
   */
  readMany(paths: readonly string[], maxBytes: number, into?: Uint8Array): Promise<Reading[]>;
  /**
   * {@link readMany} for a search, which wants only the bytes, in what `into` holds: the
   * first of `paths` read one after another, as many as fit in `into` (at least one: a
   * first file larger than `into` is read into bytes of its own) — the caller asks again
   * for the rest. A plain regular file (at most `maxBytes`, not empty, not changing) comes
   * as `{ kind: 'read', bytes }`, a view of `into` read with every guard of a careful read
   * but no stat or metadata object made for it (`HeldDir.readWhole`); any other as
   * `readMany` reads it. The same files, the same bytes, the same answers.
   */
  readForSearch(paths: readonly string[], maxBytes: number, into: Uint8Array): Promise<SearchReading[]>;
}

/** What {@link DiskReader.readForSearch} found for one path: the bytes of a plain file, or a reading as `readMany` gives it. */
export type SearchReading = { readonly kind: 'read'; readonly bytes: Uint8Array } | Reading;

/** What a ranged read found: the bytes and the file's metadata, or why not. */
export type RangeReading =
  | { readonly kind: 'file'; readonly meta: FileMeta; readonly bytes: Uint8Array }
  | { readonly kind: 'absent' }
  | { readonly kind: 'unobservable'; readonly reason: string };

/** A resolved leaf, for one effect. */
type Leaf = { readonly ok: true; readonly dir: HeldDir; readonly name: string; readonly held?: boolean } | { readonly ok: false; readonly message: string } | { readonly ok: 'missing' };

/** One mount's disk, as the functions below share it. */
interface Disk {
  readonly options: DiskOptions;
  readonly bounds: Boundary;
  readonly time: TimeKeeping;
  /** The bytes recent reads saw, by the racy fingerprint each answered with (see {@link remember}). */
  readonly racyReads: Map<string, Uint8Array>;
  /** Directories recent reads resolved, by mount-relative path, least recently used first (see {@link READ_DIR_MS}). */
  readDirs?: Map<string, ReadDir>;
  readDirsTimer?: ReturnType<typeof setTimeout>;
  /** The deferred whole-tree sweep of leftovers (see {@link SWEEP_DELAY_MS}). */
  sweep?: ReturnType<typeof setTimeout>;
  /** The number of the last walk begun here (a walk `continuing` it is a part of it), for the walk's Workers. */
  walk?: number;
  /** How many callers asked for walks on this thread alone ({@link HostDisk.oneThread}) and are not yet done. */
  alone?: number;
  /** Directories the parts of a walk in parts were listed from, held for its next parts (see {@link WALK_DIR_MS}). */
  walkDirs?: BatchDirs;
  walkDirsTimer?: ReturnType<typeof setTimeout>;
  /** Keep the next whole walks of the root (see {@link HostDisk.keepWholeWalks}). */
  keepWhole?: boolean;
  /** The last whole walk of the root kept, and when it began, until {@link HostDisk.quietStats} takes it. */
  lastWhole?: { readonly seen: WalkSeen; readonly startedMs: number };
}

/** Walks begun in this process, so each has a number of its own (see `WalkTask.walk`). */
let walksBegun = 0;

/** How many racy reads' bytes a disk keeps, and how many bytes in all. */
const RACY_READS = 512;
const RACY_READ_BYTES = 32 << 20;

/**
 * Keeps the bytes a read saw under a racy fingerprint (unique to that read): a change
 * later expecting that fingerprint is then compared byte for byte at the point of
 * effect, since the fingerprint itself vouches for nothing (a same-size save in place
 * within the tick keeps every field). Oldest first out.
 */
function remember(disk: Disk, reading: Reading, into: Uint8Array | undefined): void {
  if (reading.kind !== 'file' || reading.bytes === null || !reading.meta.fingerprint.includes('~')) return;
  if (reading.bytes.length > RACY_READ_BYTES / 4) return;
  // Bytes read into the caller's buffer are the caller's to overwrite: a copy is kept.
  disk.racyReads.set(reading.meta.fingerprint, into !== undefined && reading.bytes.buffer === into.buffer ? reading.bytes.slice() : reading.bytes);
  let total = 0;
  for (const b of disk.racyReads.values()) total += b.length;
  for (const [fp, b] of disk.racyReads) {
    if (disk.racyReads.size <= RACY_READS && total <= RACY_READ_BYTES) break;
    disk.racyReads.delete(fp);
    total -= b.length;
  }
}

/** The expectation with the bytes a racy read saw, where the change names none. */
function withRacyBytes(disk: Disk, expect: HostExpectation): HostExpectation {
  if (expect.expectBytes !== undefined || expect.expect.kind !== 'file') return expect;
  const saw = disk.racyReads.get(expect.expect.fingerprint);
  return saw === undefined ? expect : { expect: expect.expect, expectBytes: saw };
}

function metaOf(disk: Disk, st: StatInfo): FileMeta {
  return fileMeta(disk.time, st);
}

function leaves(rel: string): boolean {
  return isAbsolute(rel) || rel.split('/').some((part) => part === '..');
}

/** A path as sentences show it: mount-prefixed where the mount is named. */
function shown(disk: Disk, rel: string): string {
  return disk.options.mount === undefined ? rel : `${disk.options.mount}/${rel}`;
}

function refusal(rel: string, why: Exclude<Resolved, { ok: true }>['why']): Leaf {
  if (why === 'missing' || why === 'not-a-directory') return { ok: 'missing' };
  if (why === 'link') return { ok: false, message: diskWords.throughLink(rel) };
  if (why === 'outside') return { ok: false, message: diskWords.outside(rel) };
  return { ok: false, message: diskWords.loop(rel) };
}

/** The boundary's sentence for a path (as named, and as resolved), or null. */
function bounded(disk: Disk, shown: string, rel: string, purpose: Purpose): string | null {
  if (disk.bounds.own(rel)) return diskWords.ownFile(shown);
  if (purpose === 'change' && disk.bounds.protects(rel)) return diskWords.protectedPath(shown);
  return null;
}

/** `a//b/./c` as `a/b/c`: the one spelling every check and the resolution see. */
function normal(path: string): string {
  return path
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

/** A path no check changes: not empty, no `/` first or last, no empty, `.` or `..` part. */
const PLAIN = /^(?!\.\.?(?:\/|$))[^/]+(?:\/(?!\.\.?(?:\/|$))[^/]+)*$/;

/** `named` checked and spelled as every check and resolution see it, or the sentence refusing it. */
function checked(disk: Disk, named: string, purpose: Purpose): { ok: true; path: string } | { ok: false; message: string } {
  // A plain path (what a walk gives: each of a first sync's tens of thousands) needs no respelling.
  const plain = PLAIN.test(named);
  if (!plain && leaves(named)) return { ok: false, message: diskWords.leaves(shown(disk, named)) };
  const path = plain ? named : normal(named);
  if (!plain && (path === '' || leaves(path))) return { ok: false, message: path === '' ? diskWords.directoryThere : diskWords.leaves(shown(disk, path)) };
  // A NUL would end the name the system sees early, past every check made on the whole.
  if (path.includes('\0')) return { ok: false, message: diskWords.nulInPath(shown(disk, path)) };
  const own = bounded(disk, shown(disk, path), path, purpose);
  if (own !== null) return { ok: false, message: own };
  return { ok: true, path };
}

/** Resolves `path` for one effect: the held directory and the name in it, or why not. */
function locate(disk: Disk, named: string, purpose: Purpose, how: { create: boolean; followLeaf: boolean }): Leaf {
  const c = checked(disk, named, purpose);
  if (!c.ok) return c;
  const { path } = c;
  const { root, followSymlinks } = disk.options;
  const r = resolvePath(root, path, { follow: followSymlinks, create: how.create, followLeaf: how.followLeaf });
  if (!r.ok) return refusal(shown(disk, path), r.why);
  const resolved = r.rel === path ? null : bounded(disk, shown(disk, path), r.rel, purpose);
  if (resolved !== null) {
    r.dir.close();
    return { ok: false, message: resolved };
  }
  return { ok: true, dir: r.dir, name: r.name };
}

/**
 * How long a directory a read resolved stays held for the next reads in it, in ms, and
 * how many are held at once. A sync reads thousands of files in a few hundred
 * directories: resolving each file's path from the root again (an open and a close per
 * component) was a fifth of a first sync. A read through a directory held this long is
 * a read made up to this long ago, which a pass already allows for (every effect
 * resolves its path afresh and checks the fingerprint the read gave); the held
 * directories are let go after it, and at every effect and walk.
 */
const READ_DIR_MS = 250;
const READ_DIRS = 64;

/** A directory held for reads (see {@link READ_DIR_MS}): its resolved path and when it was opened. */
interface ReadDir {
  readonly dir: HeldDir;
  readonly rel: string;
  readonly at: number;
}

/** The directories held for reads, by mount-relative path (made at the first read). */
function readDirsOf(disk: Disk): Map<string, ReadDir> {
  disk.readDirs ??= new Map();
  return disk.readDirs;
}

/** Lets every directory held for reads go. */
function dropReadDirs(disk: Disk): void {
  if (disk.readDirs === undefined) return;
  for (const held of disk.readDirs.values()) held.dir.close();
  disk.readDirs.clear();
  if (disk.readDirsTimer !== undefined) clearTimeout(disk.readDirsTimer);
  disk.readDirsTimer = undefined;
}

/**
 * Opens the directory `rel` for reads: where the mount follows no links, from the nearest
 * directory above it held for reads, or the root (each component opened as a walk opens
 * it, never through a link), and each directory opened on the way is held too — a first
 * sync reads a tree depth first, so the next directory's ancestors are mostly these (one
 * open per directory, not one per component of each). Else from the root.
 */
function openReadDir(disk: Disk, rel: string, now: number): { ok: true; dir: HeldDir; rel: string } | Exclude<Resolved, { ok: true }> {
  const { root, followSymlinks } = disk.options;
  if (!followSymlinks && rel !== '') {
    const heldDirs = readDirsOf(disk);
    let cut = rel.lastIndexOf('/');
    let above: HeldDir | undefined;
    for (; cut > 0; cut = rel.lastIndexOf('/', cut - 1)) {
      const held = heldDirs.get(rel.slice(0, cut));
      if (held !== undefined && now - held.at < READ_DIR_MS) {
        above = held.dir;
        touch(heldDirs, rel.slice(0, cut), held);
        break;
      }
    }
    if (above === undefined) {
      cut = -1;
      const top = heldDirs.get('');
      if (top !== undefined && now - top.at < READ_DIR_MS) above = top.dir;
    }
    const opened: { rel: string; dir: HeldDir }[] = [];
    try {
      let dir: HeldDir = above ?? openRoot(root);
      if (above === undefined) opened.push({ rel: '', dir });
      for (let at = cut + 1; at < rel.length; ) {
        const end = rel.indexOf('/', at);
        const stop = end < 0 ? rel.length : end;
        dir = dir.openDir(rel.slice(at, stop));
        opened.push({ rel: rel.slice(0, stop), dir });
        at = stop + 1;
      }
    } catch (err) {
      for (const o of opened) o.dir.close();
      const code = (err as { code?: string }).code;
      if (code === 'ENOENT') return { ok: false, why: 'missing' };
      // A link or a file on the way: the root's resolution says which.
      if (code !== 'ENOTDIR' && code !== 'ELOOP') throw err;
      return openDirectory(root, rel, followSymlinks);
    }
    const last = opened.pop() as { rel: string; dir: HeldDir };
    // The ones on the way are held for the next reads; the last is the caller's to hold.
    for (const o of opened) {
      const was = heldDirs.get(o.rel);
      if (was !== undefined) {
        heldDirs.delete(o.rel);
        was.dir.close();
      }
      heldDirs.set(o.rel, { dir: o.dir, rel: o.rel, at: now });
    }
    return { ok: true, dir: last.dir, rel };
  }
  return openDirectory(root, rel, followSymlinks);
}

/** Marks a held directory as used just now: the last to be let go when too many are held (its hold still runs from its opening). */
function touch(heldDirs: Map<string, ReadDir>, rel: string, held: ReadDir): ReadDir {
  heldDirs.delete(rel);
  heldDirs.set(rel, held);
  return held;
}

/** The held directory `parent` (mount-relative, as named) for a read, from those held or opened now; or why not. */
function readDir(disk: Disk, parent: string): ReadDir | { readonly why: Exclude<Resolved, { ok: true }>['why'] } {
  const now = performance.now();
  const heldDirs = readDirsOf(disk);
  const held = heldDirs.get(parent);
  if (held !== undefined) {
    if (now - held.at < READ_DIR_MS) return touch(heldDirs, parent, held);
    heldDirs.delete(parent);
    held.dir.close();
  }
  const opened = openReadDir(disk, parent, now);
  if (!opened.ok) return opened;
  const fresh: ReadDir = { dir: opened.dir, rel: opened.rel, at: now };
  heldDirs.set(parent, fresh);
  while (heldDirs.size > READ_DIRS) {
    const [oldest, first] = heldDirs.entries().next().value as [string, ReadDir];
    heldDirs.delete(oldest);
    first.dir.close();
  }
  if (disk.readDirsTimer === undefined) {
    disk.readDirsTimer = setTimeout(() => dropReadDirs(disk), READ_DIR_MS);
    (disk.readDirsTimer as { unref?: () => void }).unref?.();
  }
  return fresh;
}

/**
 * {@link locate} for a read, its directory held for the next reads there (see
 * {@link READ_DIR_MS}). `held`: the directory is not the caller's to close. A symlink at
 * the leaf where the mount follows links is resolved by {@link locate}, as are names a
 * followed link on the way spells differently.
 */
function locateRead(disk: Disk, named: string): Leaf {
  const c = checked(disk, named, 'read');
  if (!c.ok) return c;
  const { path } = c;
  const cut = path.lastIndexOf('/');
  const parent = cut < 0 ? '' : path.slice(0, cut);
  const name = path.slice(cut + 1);
  const got = readDir(disk, parent);
  if (!('dir' in got)) return refusal(shown(disk, path), got.why);
  if (got.rel !== parent) return locate(disk, named, 'read', { create: false, followLeaf: true });
  return { ok: true, dir: got.dir, name, held: true };
}

function contain(disk: Disk, path: string, purpose: Purpose): Containment {
  if (leaves(path)) return { ok: false, message: diskWords.leaves(shown(disk, path)) };
  const abs = normal(path) === '' ? disk.options.root : `${disk.options.root}/${normal(path)}`;
  if (normal(path) === '') return { ok: true, abs };
  try {
    const where = locate(disk, path, purpose, { create: false, followLeaf: true });
    if (where.ok === false) return where;
    if (where.ok === true) {
      const link = !disk.options.followSymlinks && where.dir.lstat(where.name)?.type === 'symlink';
      where.dir.close();
      if (link) return { ok: false, message: diskWords.throughLink(shown(disk, path)) };
    }
  } catch {
    // An unreadable directory on the way: the effect itself will say why.
  }
  return { ok: true, abs };
}

/** What is at `name` in `dir`, as an observation (symlinks and other non-files are unobservable). */
function observeIn(disk: Disk, dir: HeldDir, name: string): Observation {
  const st = dir.lstat(name);
  if (st === null) return { kind: 'absent' };
  if (st.type === 'file') return { kind: 'file', meta: metaOf(disk, st) };
  if (st.type === 'symlink') return { kind: 'unobservable', reason: diskWords.isLink };
  return { kind: 'unobservable', reason: notAFile(st.type) };
}

/** Why what is there, not a regular file (nor a link, which each caller words), is not read. */
function notAFile(type: StatInfo['type']): string {
  return type === 'directory' ? diskWords.directoryThere : diskWords.notRegular(type);
}

/** Why a symlink where a file is read is not read. */
function linkClause(disk: Disk): string {
  return disk.options.followSymlinks ? diskWords.danglingOrOutsideLink : diskWords.linkNotFollowed;
}

/** Where a followed path found nothing: a link that leads nowhere is not "absent" (a file must not replace it unseen). */
function danglingOr(disk: Disk, path: string, absent: PathKind): PathKind {
  if (!disk.options.followSymlinks) return absent;
  const where = locate(disk, path, 'read', { create: false, followLeaf: false });
  if (where.ok !== true) return absent;
  try {
    return where.dir.lstat(where.name)?.type === 'symlink' ? { kind: 'other', reason: diskWords.danglingOrOutsideLink } : absent;
  } finally {
    where.dir.close();
  }
}

function kindOf(disk: Disk, path: string): PathKind {
  if (normal(path) === '' && !leaves(path)) return { kind: 'directory' };
  try {
    const where = locate(disk, path, 'read', { create: false, followLeaf: true });
    if (where.ok === 'missing') return danglingOr(disk, path, { kind: 'absent' });
    if (where.ok === false) return { kind: 'other', reason: where.message };
    try {
      const st = where.dir.lstat(where.name);
      if (st === null) return danglingOr(disk, path, { kind: 'absent' });
      if (st.type === 'file') return { kind: 'file', meta: metaOf(disk, st) };
      if (st.type === 'directory') return { kind: 'directory' };
      return { kind: 'other', reason: st.type === 'symlink' ? linkClause(disk) : diskWords.notRegular(st.type) };
    } finally {
      where.dir.close();
    }
  } catch (err) {
    return { kind: 'other', reason: describeFsError(err) };
  }
}

function stat(disk: Disk, path: string): Observation {
  const k = kindOf(disk, path);
  if (k.kind === 'absent' || k.kind === 'file') return k;
  return { kind: 'unobservable', reason: k.kind === 'directory' ? diskWords.directoryThere : k.reason };
}

/**
 * A buffer of `size` bytes for a read to fill, not zeroed first (a first sync reads
 * hundreds of MB; a short read is thrown away whole). Its memory is its own, never a
 * shared pool's: a reading's bytes may be handed to another thread.
 */
function unfilled(size: number): Uint8Array {
  const b = Buffer.allocUnsafeSlow(size);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** Reads an open regular file whole (into `into` where it fits); null when it changed while it was read. */
function readOpen(disk: Disk, fd: number, maxBytes: number, into?: Uint8Array, stated?: StatInfo): Reading | null {
  // The name's stat, where the caller took one of a regular file that fits, stands for the
  // descriptor's before the read (one system call fewer a file: a first sync reads tens of
  // thousands). The reads are at offsets, which a FIFO or a directory swapped in meanwhile
  // refuses; the descriptor's stat after shows the same file as the name's (device, inode,
  // type, size, times), or nothing read is used.
  const byName = stated !== undefined && stated.type === 'file' && stated.size <= maxBytes;
  const before = byName ? stated : fstatInfo(fd);
  if (before.type !== 'file') return { kind: 'unobservable', reason: notAFile(before.type) };
  const meta = metaOf(disk, before);
  if (meta.size > maxBytes) return { kind: 'file', meta, bytes: null };
  const bytes = into !== undefined && into.length >= meta.size ? into.subarray(0, meta.size) : unfilled(meta.size);
  let off = 0;
  try {
    while (off < bytes.length) {
      const n = readSync(fd, bytes, off, bytes.length - off, off);
      if (n === 0) break;
      off += n;
    }
  } catch (err) {
    // Opened after the name's stat, something else may have been opened (a FIFO, a
    // directory): it changed, and the next look says what it is.
    if (byName) return null;
    throw err;
  }
  if (off !== bytes.length) return null;
  const after = fstatInfo(fd);
  return after.type === 'file' && after.dev === before.dev && sameStat(before, after) ? { kind: 'file', meta, bytes } : null;
}

/** True where the regular file `name` in `dir` holds exactly `bytes` now (read through one descriptor). */
function holds(disk: Disk, dir: HeldDir, name: string, bytes: Uint8Array): boolean {
  const st = dir.lstat(name);
  if (st === null || st.type !== 'file' || st.size !== bytes.length) return false;
  const fd = dir.openFile(name, 'read');
  try {
    const got = readOpen(disk, fd, bytes.length);
    return got !== null && got.kind === 'file' && got.bytes !== null && Buffer.compare(got.bytes, bytes) === 0;
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks the file that came out of an exchange (or was moved aside) as `name`: it is the
 * file `expect` names (and holds `expectBytes`, where given), and no other process holds
 * it open for writing. The last closes the window a fingerprint leaves: a writer that
 * opened the file before the exchange and writes after the check would write into a file
 * no name leads to. Where the system gives a read lease, the check is made under it, so
 * no writer can appear while it runs; where it gives none, the check is made as it is.
 */
function cameOut(disk: Disk, dir: HeldDir, name: string, { expect, expectBytes }: HostExpectation): boolean {
  if (expect.kind !== 'file') return false;
  const out = dir.lstat(name);
  if (out?.type !== 'file' || !sameFileMoved(metaOf(disk, out).fingerprint, expect.fingerprint)) return false;
  if (libc === null) return expectBytes === undefined || holds(disk, dir, name, expectBytes);
  const fd = dir.openFile(name, 'read');
  try {
    if (libc.leaseRead(fd) === 'writers') return false;
    if (expectBytes === undefined) return true;
    const got = readOpen(disk, fd, expectBytes.length);
    return got !== null && got.kind === 'file' && got.bytes !== null && Buffer.compare(got.bytes, expectBytes) === 0;
  } finally {
    closeSync(fd); // lets the lease go
  }
}

/** One look at a file: final, changing while read, or empty just now (perhaps a save caught between truncate and write). */
type Look = { readonly kind: 'final' | 'emptied'; readonly reading: Reading } | { readonly kind: 'changing' };

/** What a look finds where there is no file to read: nothing, or why it cannot be read. */
type NoFile = { readonly kind: 'absent' } | { readonly kind: 'unobservable'; readonly reason: string };

/**
 * Opens `path` to read it, from its held directory: a stat first, so a FIFO or a device
 * is refused without being opened at all; `read` gets the open descriptor (closed after)
 * and that stat, `none` what was found where there is no regular file to read.
 */
function withReadable<T>(disk: Disk, path: string, none: (found: NoFile) => T, read: (fd: number, stated: StatInfo) => T): T {
  try {
    let where = locateRead(disk, path);
    if (where.ok === true && disk.options.followSymlinks && where.dir.lstat(where.name)?.type === 'symlink') {
      where = locate(disk, path, 'read', { create: false, followLeaf: true });
    }
    if (where.ok === 'missing') return none({ kind: 'absent' });
    if (where.ok === false) return none({ kind: 'unobservable', reason: where.message });
    const held = where.held === true;
    try {
      // No fingerprint made here: a read makes one from this stat or the descriptor's.
      const stated = where.dir.lstat(where.name);
      const type = stated?.type;
      if (stated === null || type === undefined) return none({ kind: 'absent' });
      if (type !== 'file') {
        if (type === 'symlink') return none({ kind: 'unobservable', reason: linkClause(disk) });
        return none({ kind: 'unobservable', reason: notAFile(type) });
      }
      const fd = where.dir.openFile(where.name, 'read');
      try {
        return read(fd, stated);
      } finally {
        closeSync(fd);
      }
    } finally {
      if (!held) where.dir.close();
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT') return none({ kind: 'absent' });
    if (code === 'ELOOP') return none({ kind: 'unobservable', reason: diskWords.danglingOrOutsideLink });
    return none({ kind: 'unobservable', reason: describeFsError(err) });
  }
}

function readOnce(disk: Disk, path: string, maxBytes: number, into: Uint8Array | undefined): Look {
  return withReadable<Look>(
    disk,
    path,
    (found) => ({ kind: 'final', reading: found }),
    (fd, stated) => {
      const got = readOpen(disk, fd, maxBytes, into, stated);
      if (got === null) return { kind: 'changing' };
      const racy = got.kind === 'file' && got.meta.size === 0 && got.meta.fingerprint.includes('~');
      return { kind: racy ? 'emptied' : 'final', reading: got };
    },
  );
}

/** Reads `length` bytes from `start` of an open regular file; null when it changed while it was read. */
function readOpenRange(disk: Disk, fd: number, start: number, length: number, into: Uint8Array | undefined): RangeReading | null {
  const before = fstatInfo(fd);
  if (before.type !== 'file') return { kind: 'unobservable', reason: notAFile(before.type) };
  const meta = metaOf(disk, before);
  const want = Math.max(0, Math.min(length, meta.size - start));
  const bytes = into !== undefined && into.length >= want ? into.subarray(0, want) : new Uint8Array(want);
  let off = 0;
  while (off < bytes.length) {
    const n = readSync(fd, bytes, off, bytes.length - off, start + off);
    if (n === 0) break;
    off += n;
  }
  return off === bytes.length && sameStat(before, fstatInfo(fd)) ? { kind: 'file', meta, bytes } : null;
}

/** One look at a stretch of a file: what it found, or null where the file was changing. */
function readRangeOnce(disk: Disk, path: string, start: number, length: number, into: Uint8Array | undefined): RangeReading | null {
  return withReadable<RangeReading | null>(disk, path, (found) => found, (fd) => readOpenRange(disk, fd, start, length, into));
}

/** A stretch of a file, looked at again (as `readFile` does) while it is changing. */
async function readRange(disk: Disk, path: string, start: number, length: number, into: Uint8Array | undefined): Promise<RangeReading> {
  for (let attempt = 0; ; attempt++) {
    const got = readRangeOnce(disk, path, start, length, into);
    if (got !== null) return got;
    if (attempt >= SETTLE_MS.length) return { kind: 'unobservable', reason: diskWords.keptChanging };
    await Bun.sleep(SETTLE_MS[attempt]);
  }
}

/** Waits between looks at a file that is changing (or was emptied just now): bounded, 17 ms in all. */
const SETTLE_MS = [2, 5, 10];

/**
 * Reads a file whole. A file that changes while it is read, or was emptied within the
 * timestamp granularity (a save caught between its truncate and its write), is looked
 * at again after a short settle; one that keeps changing is unobservable, one that stays
 * empty is empty.
 */
async function readFile(disk: Disk, path: string, maxBytes: number, into?: Uint8Array): Promise<Reading> {
  for (let attempt = 0; ; attempt++) {
    const look = readOnce(disk, path, maxBytes, into);
    if (look.kind === 'final') {
      remember(disk, look.reading, into);
      return look.reading;
    }
    if (attempt >= SETTLE_MS.length) return look.kind === 'emptied' ? look.reading : { kind: 'unobservable', reason: diskWords.keptChanging };
    await Bun.sleep(SETTLE_MS[attempt]);
  }
}

/**
 * How many directories a `readMany` keeps open at once: the parents of its files and the
 * directories on the way to them (a walk's files come a directory at a time, depth
 * first, so the next parent's ancestors are mostly held already).
 */
const HELD_DIRS = 32;

/** A directory `readMany` holds: open, with its path as resolved (links spelled out), or null where it could not be. */
type HeldParent = { readonly dir: HeldDir; readonly rel: string } | null;

/** The directories one `readMany` holds, by mount-relative path as named, least recently used first. */
type BatchDirs = Map<string, HeldParent>;

/** Holds `rel` in `dirs` (or its failure, as null), letting the least recently used go past {@link HELD_DIRS}. */
function holdIn(dirs: BatchDirs, rel: string, held: HeldParent): HeldParent {
  dirs.set(rel, held);
  while (dirs.size > HELD_DIRS) {
    const [oldest, first] = dirs.entries().next().value as [string, HeldParent];
    dirs.delete(oldest);
    first?.dir.close();
  }
  return held;
}

/**
 * The directory `rel` for a batch's reads, where the mount follows no links: from the
 * nearest directory above it that the batch holds, or the root, one component at a time
 * (each opened as a walk opens it, `O_NOFOLLOW | O_DIRECTORY`, never through a link), and
 * each directory opened on the way is held too. Null where a component is missing, a
 * link, not a directory, or fails: the file is then read as `read` reads it alone.
 */
function batchDir(disk: Disk, dirs: BatchDirs, rel: string): HeldParent {
  const got = dirs.get(rel);
  if (got !== undefined) {
    dirs.delete(rel);
    dirs.set(rel, got);
    return got;
  }
  let cut = rel.lastIndexOf('/');
  let from: HeldDir | undefined;
  for (; cut > 0; cut = rel.lastIndexOf('/', cut - 1)) {
    const above = dirs.get(rel.slice(0, cut));
    if (above === null) return holdIn(dirs, rel, null);
    if (above !== undefined) {
      dirs.delete(rel.slice(0, cut));
      dirs.set(rel.slice(0, cut), above);
      from = above.dir;
      break;
    }
  }
  if (from === undefined) {
    cut = -1;
    const top = dirs.get('');
    if (top === null) return null;
    if (top !== undefined) from = top.dir;
    else {
      try {
        from = (holdIn(dirs, '', { dir: openRoot(disk.options.root), rel: '' }) as { dir: HeldDir }).dir;
      } catch {
        return holdIn(dirs, '', null);
      }
    }
    if (rel === '') return dirs.get('') ?? null;
  }
  let dir = from;
  for (let at = cut + 1; at < rel.length; ) {
    const end = rel.indexOf('/', at);
    const stop = end < 0 ? rel.length : end;
    const here = rel.slice(0, stop);
    try {
      dir = (holdIn(dirs, here, { dir: dir.openDir(rel.slice(at, stop)), rel: here }) as { dir: HeldDir }).dir;
    } catch {
      // Missing, a link, a file, or unreadable: the paths beneath are read alone, which says why.
      return holdIn(dirs, here, null);
    }
    at = stop + 1;
  }
  return dirs.get(rel) ?? null;
}

/** The parent directory of `path` for a batch's reads (see {@link batchDir}; where links are followed, resolved from the root). */
function batchParent(disk: Disk, dirs: BatchDirs, parentRel: string): HeldParent {
  if (!disk.options.followSymlinks) return batchDir(disk, dirs, parentRel);
  const got = dirs.get(parentRel);
  if (got !== undefined) return got;
  let parent: HeldParent;
  try {
    const opened = openDirectory(disk.options.root, parentRel, true);
    parent = opened.ok ? { dir: opened.dir, rel: opened.rel } : null;
  } catch {
    parent = null;
  }
  return holdIn(dirs, parentRel, parent);
}

/**
 * One file read from its held parent, or null where anything is unusual — a name that
 * needs checking, a boundary, no regular file there, a file changing or emptied just
 * now, any failure — and `readFile` decides it as it would alone.
 */
function readHeld(disk: Disk, dirs: BatchDirs, named: string, maxBytes: number, into: Uint8Array | undefined): Reading | null {
  let path = named;
  if (!PLAIN.test(named)) {
    if (leaves(named) || named.includes('\0')) return null;
    path = normal(named);
    if (path === '' || leaves(path)) return null;
  } else if (named.includes('\0')) return null;
  const slash = path.lastIndexOf('/');
  const parentRel = slash < 0 ? '' : path.slice(0, slash);
  const name = path.slice(slash + 1);
  const parent = batchParent(disk, dirs, parentRel);
  if (parent === null) return null;
  const resolved = parent.rel === parentRel ? path : parent.rel === '' ? name : `${parent.rel}/${name}`;
  if (bounded(disk, path, path, 'read') !== null || (resolved !== path && bounded(disk, path, resolved, 'read') !== null)) return null;
  try {
    // The name's stat picks the regular files and stands for the descriptor's before the
    // read; its stat after makes sure what was read is that file (`readOpen`).
    const stated = parent.dir.lstat(name);
    if (stated?.type !== 'file') return null;
    const fd = parent.dir.openFile(name, 'read');
    let got: Reading | null;
    try {
      got = readOpen(disk, fd, maxBytes, into, stated);
    } finally {
      closeSync(fd);
    }
    if (got === null || (got.kind === 'file' && got.meta.size === 0 && got.meta.fingerprint.includes('~'))) return null;
    remember(disk, got, into);
    return got;
  } catch {
    return null;
  }
}

/**
 * {@link DiskReader.readForSearch}: each plain path read whole from its held parent
 * (`HeldDir.readWhole`) where the file is plain and fits; any other as {@link readMany}
 * reads it (its checks say why, or read it otherwise); up to the first that does not fit
 * in what is left of `into`.
 */
async function readForSearch(disk: Disk, paths: readonly string[], maxBytes: number, into: Uint8Array): Promise<SearchReading[]> {
  const dirs: BatchDirs = new Map();
  const out: SearchReading[] = [];
  let at = 0;
  try {
    for (const path of paths) {
      if (PLAIN.test(path) && !path.includes('\0')) {
        const slash = path.lastIndexOf('/');
        const parentRel = slash < 0 ? '' : path.slice(0, slash);
        const parent = batchParent(disk, dirs, parentRel);
        if (parent !== null && parent.rel === parentRel && parent.dir.readWhole !== undefined && bounded(disk, path, path, 'read') === null) {
          const n = parent.dir.readWhole(path.slice(slash + 1), into, at, maxBytes);
          if (n > 0) {
            out.push({ kind: 'read', bytes: into.subarray(at, at + n) });
            at += n;
            continue;
          }
          // The rest waits for the caller's next call, when `into` is free again.
          if (n === -2 && at > 0) break;
        }
      }
      const free = into.subarray(at);
      const got = readHeld(disk, dirs, path, maxBytes, free) ?? (await readFile(disk, path, maxBytes, free));
      out.push(got);
      if (got.kind === 'file' && got.bytes !== null && got.bytes.length > 0) {
        if (got.bytes.buffer === into.buffer) at += got.bytes.length;
        // A file of its own (it did not fit) goes alone, as a first file too large for `into` does.
        else break;
      }
    }
  } finally {
    for (const held of dirs.values()) held?.dir.close();
  }
  return out;
}

async function readMany(disk: Disk, paths: readonly string[], maxBytes: number, into?: Uint8Array): Promise<Reading[]> {
  const dirs: BatchDirs = new Map();
  const out: Reading[] = [];
  // What is left of `into`: each file read into it takes the next stretch.
  let free = into;
  try {
    for (const path of paths) {
      const got = readHeld(disk, dirs, path, maxBytes, free) ?? (await readFile(disk, path, maxBytes, free));
      if (free !== undefined && got.kind === 'file' && got.bytes !== null && got.bytes.buffer === free.buffer && got.bytes.length > 0) {
        free = free.subarray(got.bytes.length);
      }
      out.push(got);
    }
  } finally {
    for (const held of dirs.values()) held?.dir.close();
  }
  return out;
}

function matches(now: Observation, expect: Expectation): boolean {
  switch (expect.kind) {
    case 'any':
      return true;
    case 'absent':
      return now.kind === 'absent';
    case 'file':
      return now.kind === 'file' && sameFile(now.meta.fingerprint, expect.fingerprint);
  }
}

/** Disk at the point of effect: refused when it no longer matches, failed where no file may go. */
function checkEffect(now: Observation, expect: Expectation): WriteResult | null {
  // A link is never replaced, whatever was expected: a link is not what any decision saw.
  if (now.kind === 'unobservable' && now.reason === diskWords.isLink) return { kind: 'failed', reason: now.reason };
  if (!matches(now, expect)) return { kind: 'refused', now };
  if (now.kind === 'unobservable') return { kind: 'failed', reason: now.reason };
  return null;
}

function writeBytes(fd: number, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
  fsyncSync(fd);
}

/** True where the system refused an atomic rename flag this file system lacks (then the plain rename is used). */
function unsupported(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'EINVAL' || code === 'ENOSYS' || code === 'EOPNOTSUPP';
}

/**
 * Puts the written temporary file `tmp` in as `name`, as the kernel allows most narrowly:
 * over a file, exchanged in and the file that came out checked against `expect` (put
 * back on a mismatch); where nothing is expected, renamed only if nothing appeared;
 * elsewhere, checked and then renamed. Null when done; else why not (tmp then still
 * exists, or has been removed along with a put-back file's stand-in).
 */
function putIn(disk: Disk, dir: HeldDir, tmp: string, name: string, { expect, expectBytes }: HostExpectation): WriteResult | null {
  const stop = checkEffect(observeIn(disk, dir, name), expect);
  if (stop !== null) return stop;
  const atomic = disk.options.replaceGuard === false ? null : dir.atomic;
  if (atomic === null && expectBytes !== undefined && !holds(disk, dir, name, expectBytes)) return { kind: 'refused', now: observeIn(disk, dir, name) };
  try {
    if (atomic !== null && expect.kind === 'absent') {
      atomic.renameNoReplace(tmp, name);
      return null;
    }
    if (atomic !== null && expect.kind === 'file') {
      const ours = dir.lstat(tmp);
      atomic.exchange(tmp, name);
      if (cameOut(disk, dir, tmp, { expect, expectBytes })) {
        dir.unlink(tmp);
        return null;
      }
      // A save landed between the check and the exchange: put it back, unless another already replaced ours.
      const now = dir.lstat(name);
      if (ours !== null && now !== null && now.ino === ours.ino) atomic.exchange(tmp, name);
      return { kind: 'refused', now: observeIn(disk, dir, name) };
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EEXIST' || code === 'ENOENT') return { kind: 'refused', now: observeIn(disk, dir, name) };
    if (!unsupported(err)) throw err;
  }
  dir.rename(tmp, name);
  return null;
}

function writeFile(disk: Disk, path: string, bytes: Uint8Array, mode: number | null, expect: HostExpectation): WriteResult {
  dropReadDirs(disk);
  dropWalkDirs(disk);
  let where: Leaf;
  try {
    where = locate(disk, path, 'change', { create: true, followLeaf: false });
  } catch (err) {
    return { kind: 'failed', reason: describeFsError(err) };
  }
  if (where.ok === 'missing') return { kind: 'failed', reason: diskWords.parentNotDirectory };
  if (where.ok === false) return { kind: 'failed', reason: where.message };
  const { dir, name } = where;
  const tmp = tempName(name);
  let made = false;
  try {
    const fd = dir.openFile(tmp, 'create', mode ?? 0o644);
    made = true;
    try {
      writeBytes(fd, bytes);
    } finally {
      closeSync(fd);
    }
    // The point of effect, in the very directory held.
    const stop = putIn(disk, dir, tmp, name, expect);
    if (stop !== null) return stop;
    made = false;
    const st = dir.lstat(name);
    if (st === null || st.type !== 'file') return { kind: 'failed', reason: describeFsError({ code: 'ENOENT' }) };
    return { kind: 'done', meta: metaOf(disk, st) };
  } catch (err) {
    return { kind: 'failed', reason: describeFsError(err) };
  } finally {
    if (made) {
      try {
        dir.unlink(tmp);
      } catch {
        // Gone already; a later walk sweeps what is left.
      }
    }
    doneWriting(tmp);
    dir.close();
  }
}

/**
 * Removes `name` where it holds what `expect` says: moved aside first (only where nothing
 * else took the aside name), the file moved checked, then removed — or moved back.
 */
function removeChecked(disk: Disk, dir: HeldDir, name: string, { expect, expectBytes }: HostExpectation): UnlinkResult {
  const now = observeIn(disk, dir, name);
  const stop = checkEffect(now, expect);
  if (stop !== null) return stop as UnlinkResult;
  if (now.kind === 'absent') return { kind: 'done' };
  const atomic = disk.options.replaceGuard === false ? null : dir.atomic;
  if (atomic === null || expect.kind !== 'file') {
    if (expectBytes !== undefined && !holds(disk, dir, name, expectBytes)) return { kind: 'refused', now: observeIn(disk, dir, name) };
    dir.unlink(name);
    return { kind: 'done' };
  }
  const aside = tempName(name);
  try {
    atomic.renameNoReplace(name, aside);
    if (cameOut(disk, dir, aside, { expect, expectBytes })) {
      dir.unlink(aside);
      return { kind: 'done' };
    }
    // A save landed meanwhile: put it back (a newer file made at the name in between wins, and the moved one goes).
    try {
      atomic.renameNoReplace(aside, name);
    } catch {
      dir.unlink(aside);
    }
    return { kind: 'refused', now: observeIn(disk, dir, name) };
  } catch (err) {
    if (!unsupported(err)) throw err;
    dir.unlink(name);
    return { kind: 'done' };
  } finally {
    doneWriting(aside);
  }
}

function unlinkFile(disk: Disk, path: string, expect: HostExpectation): UnlinkResult {
  dropReadDirs(disk);
  dropWalkDirs(disk);
  let where: Leaf;
  try {
    where = locate(disk, path, 'change', { create: false, followLeaf: false });
  } catch (err) {
    return { kind: 'failed', reason: describeFsError(err) };
  }
  if (where.ok === 'missing') return matches({ kind: 'absent' }, expect.expect) ? { kind: 'done' } : { kind: 'refused', now: { kind: 'absent' } };
  if (where.ok === false) return { kind: 'failed', reason: where.message };
  try {
    return removeChecked(disk, where.dir, where.name, expect);
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return { kind: 'done' };
    return { kind: 'failed', reason: describeFsError(err) };
  } finally {
    where.dir.close();
  }
}

/** The first rule that passes over `dir` or a directory above it, shallowest first. */
function passedOverDir(rules: WalkRules, dir: string): string | undefined {
  if (dir === '') return undefined;
  for (let cut = dir.indexOf('/'); ; cut = dir.indexOf('/', cut + 1)) {
    const reason = rules.passOver(cut < 0 ? dir : dir.slice(0, cut), true);
    if (reason !== undefined) return reason;
    if (cut < 0) return undefined;
  }
}

/**
 * How long the directories a walk in parts listed its parts from stay held for its next
 * parts, in ms (at most {@link HELD_DIRS} at once): a search's walk comes in about 1,400
 * parts, each of which opened its directory from the root twice (to check it, then to
 * list it). A part listed through a directory held this long is listed as it is now,
 * from where that directory is now — what a walk that took this long does anyway. Let go
 * at the next walk that is not a part, and at every effect.
 */
const WALK_DIR_MS = 1_000;

/** Lets the directories held for a walk's parts go. */
function dropWalkDirs(disk: Disk): void {
  if (disk.walkDirs !== undefined) for (const held of disk.walkDirs.values()) held?.dir.close();
  disk.walkDirs = undefined;
  if (disk.walkDirsTimer !== undefined) clearTimeout(disk.walkDirsTimer);
  disk.walkDirsTimer = undefined;
}

/**
 * The directory `from` of a part of a walk in parts, held: from the directories the
 * walk's earlier parts were listed from (see {@link batchDir}: never through a link), or
 * null where it is not a plain path inside, is ws's own, or cannot be opened so — the
 * part is then checked and opened from the root, which says why.
 */
function walkPartDir(disk: Disk, from: string): HeldDir | null {
  if (disk.options.followSymlinks || !holdsByDescriptor || from === '' || !checked(disk, from, 'read').ok || !PLAIN.test(from)) return null;
  if (disk.walkDirs === undefined) {
    disk.walkDirs = new Map();
    disk.walkDirsTimer = setTimeout(() => dropWalkDirs(disk), WALK_DIR_MS);
    (disk.walkDirsTimer as { unref?: () => void }).unref?.();
  }
  return batchDir(disk, disk.walkDirs, from)?.dir ?? null;
}

function walkDir(disk: Disk, dir: string, shallow: boolean, continuing = false): Walk {
  const files: { path: string; meta: FileMeta }[] = [];
  const rest = walkDirWith(disk, dir, shallow, continuing, false, (path, info) => {
    if (info !== null) files.push({ path, meta: metaOf(disk, info) });
  });
  return { files, ...rest };
}

/** {@link HostDisk.walkNames}: {@link walkDir} with the files' names alone (and a size where a stat was made). */
function walkNames(disk: Disk, dir: string, shallow: boolean, continuing: boolean): NameWalk {
  const files: { path: string; size: number | undefined }[] = [];
  const rest = walkDirWith(disk, dir, shallow, continuing, true, (path, info) => {
    files.push({ path, size: info === null ? undefined : info.size });
  });
  return { files, ...rest };
}

function walkDirWith(disk: Disk, dir: string, shallow: boolean, continuing: boolean, namesOnly: boolean, onFile: (path: string, info: StatInfo | null) => void): Omit<Walk, 'files'> {
  dropReadDirs(disk);
  if (!continuing) dropWalkDirs(disk);
  const { root, rules, followSymlinks, walkCap } = disk.options;
  const tally = newTally();
  const directories: string[] = [];
  const passedOver: { path: string; reason: string; directory: boolean }[] = [];
  if (continuing) putOffSweep(disk);
  const fromDir = continuing ? walkPartDir(disk, dir) : null;
  if (fromDir === null) {
    const where = contain(disk, dir, 'read');
    if (!where.ok) return { directories, passedOver, unreadable: [{ path: dir, reason: where.message }], incomplete: null };
  }
  // Each walk reads the ignore files as they are now: a .gitignore edited while a server runs counts from the next walk.
  if (!continuing || disk.walk === undefined) {
    rules.renew?.();
    disk.walk = ++walksBegun;
  }
  visitTree(
    {
      root,
      from: normal(dir),
      rules,
      followSymlinks,
      cap: walkCap,
      shallow,
      onPassOver: (path, reason, directory) => passedOver.push({ path, reason, directory }),
      ...(fromDir === null ? {} : { fromDir }),
      ...(namesOnly ? { namesOnly } : {}),
    },
    tally,
    belowFtlNow((path: string, kind: 'file' | 'directory', info: StatInfo | null) => {
      if (kind === 'directory') directories.push(path);
      else onFile(path, info);
    }),
  );
  // A whole walk removed every leftover it met, as the deferred sweep would: the sweep is not needed.
  if (normal(dir) === '' && !shallow && tally.incomplete === undefined && tally.unreadable.length === 0) cancelSweep(disk);
  return { directories, passedOver, unreadable: tally.unreadable, incomplete: tally.incomplete ?? null };
}

/**
 * Where a whole walk may split its subtrees among Workers (see `walk-parallel.ts`): not a
 * part of a walk in parts (`continuing`), directories held by descriptor, links not followed (a followed link may lead into
 * another Worker's subtree, which one walk would not enter twice), and rules a Worker
 * can make again from their spec. Anywhere else, or past the cap, one thread walks.
 */
async function walkSoon(disk: Disk, dir: string, shallow: boolean, continuing: boolean): Promise<Walk> {
  const { root, rules, followSymlinks, walkCap } = disk.options;
  const spec = rules.spec;
  const workers = (disk.alone ?? 0) > 0 ? 0 : walkWorkers();
  // A part of a walk in parts (a search's) is walked here: the search's own Workers read
  // and search the parts already walked meanwhile, so Workers of the walk's own would only
  // compete with them for the cores (on 2 cores a grep of 42,000 files took 0.5 s more CPU
  // with them, and was no sooner done).
  if (shallow || continuing || followSymlinks || spec === undefined || !holdsByDescriptor || workers === 0) {
    const startedMs = disk.time.now();
    const walked = walkDir(disk, dir, shallow, continuing);
    if (disk.keepWhole === true && !shallow && !continuing && normal(dir) === '') disk.lastWhole = { seen: walked, startedMs };
    return walked;
  }
  dropReadDirs(disk);
  dropWalkDirs(disk);
  const where = contain(disk, dir, 'read');
  if (!where.ok) return { files: [], directories: [], passedOver: [], unreadable: [{ path: dir, reason: where.message }], incomplete: null };
  if (!continuing || disk.walk === undefined) {
    rules.renew?.();
    disk.walk = ++walksBegun;
  }
  const from = normal(dir);
  const startedMs = disk.time.now();
  const walked = await walkInParallel({ root, from, rules: { ...rules, spec }, time: disk.time, cap: walkCap, walk: disk.walk, workers, minEntries: PARALLEL_FROM, metaOf: (info) => metaOf(disk, info) });
  if (walked === null) return walkDir(disk, dir, false, true);
  if (from === '' && walked.unreadable.length === 0) cancelSweep(disk);
  if (disk.keepWhole === true && from === '') disk.lastWhole = { seen: walked, startedMs };
  return { ...walked, incomplete: null };
}

/** Entries in the top levels of a tree from which its walk uses Workers (fewer subtrees than half of `TASKS`). */
const PARALLEL_FROM = 256;

function locateRoot(root: string): RootLocation {
  try {
    const st = statSync(root);
    if (!st.isDirectory()) return { kind: 'unavailable', reason: `the mount root ${root} is not a directory` };
    accessSync(root, constants.R_OK | constants.X_OK); // readable and searchable, without listing it
    return { kind: 'available', identity: `${st.dev}:${st.ino}` };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'unavailable', reason: `the mount root ${root} is missing` };
    return { kind: 'unavailable', reason: `the mount root ${root} cannot be read (${describeFsError(err)})` };
  }
}

/** Fsyncs `dir` and each parent up to the root: a write may have created them. */
function syncUp(disk: Disk, dir: string): void {
  dropReadDirs(disk);
  dropWalkDirs(disk);
  for (let at = dir; ; at = at.includes('/') ? at.slice(0, at.lastIndexOf('/')) : '') {
    try {
      const opened = openDirectory(disk.options.root, at, disk.options.followSymlinks);
      if (opened.ok) {
        opened.dir.sync();
        opened.dir.close();
      }
    } catch {
      // A directory that cannot be opened has nothing of ours to make durable.
    }
    if (at === '') return;
  }
}

/** The mount's time keeping: as given, or learned from the root's own times. */
function timeKeeping(options: DiskOptions): TimeKeeping {
  const coarseMs = options.coarseTimesMs ?? null;
  let granularityMs = options.timestampGranularityMs ?? coarseMs ?? undefined;
  if (granularityMs === undefined) {
    let root: StatInfo | null = null;
    try {
      const dir = openRoot(options.root);
      try {
        root = dir.lstat('.');
      } finally {
        dir.close();
      }
    } catch {
      // unreadable root: assume the coarsest
    }
    granularityMs = probeGranularity(root);
  }
  return { granularityMs, coarseMs, now: Date.now };
}

/**
 * How long after a disk is made its whole-tree sweep of leftovers runs: a one-shot
 * command has answered and gone by then (its walks remove what they meet), and a server
 * sweeps once, early, off the path of its first calls.
 */
const SWEEP_DELAY_MS = 3_000;

/** Sets the deferred sweep to run `ms` from now (see {@link diskPort}). */
function armSweep(disk: Disk, ms: number): void {
  disk.sweep = setTimeout(() => {
    disk.sweep = undefined;
    sweepTree(disk.options.root, disk.options.rules);
  }, ms);
  (disk.sweep as { unref?: () => void }).unref?.();
}

/** The deferred sweep is not needed (a whole walk removed every leftover it would). */
function cancelSweep(disk: Disk): void {
  clearTimeout(disk.sweep);
  disk.sweep = undefined;
}

/**
 * Puts the deferred sweep off while a walk in parts is under way (it would list the whole
 * tree on this thread in the middle of a search): to {@link SWEEP_DELAY_MS} after this
 * part, where it has not run yet. A walk read through to its end makes it needless.
 */
function putOffSweep(disk: Disk): void {
  if (disk.sweep === undefined) return;
  clearTimeout(disk.sweep);
  armSweep(disk, SWEEP_DELAY_MS);
}

/** A walk's rules where nothing walks (a reader only reads). */
const NO_WALK: WalkRules = { passOver: () => undefined };

/** The reading side of a mount's disk, from its {@link ReaderSpec}: no walk, no sweep, no write. */
export function diskReader(spec: ReaderSpec): DiskReader {
  const options: DiskOptions = { ...spec, rules: NO_WALK, walkCap: 0 };
  const disk: Disk = { options, bounds: boundary(spec.storeRel, spec.protect ?? []), time: timeKeeping(options), racyReads: new Map() };
  return {
    readMany: (paths, maxBytes, into) => readMany(disk, paths, maxBytes, into),
    readForSearch: (paths, maxBytes, into) => readForSearch(disk, paths, maxBytes, into),
  };
}

/**
 * The disk of one mount. ws's leftover temporary files (a writer killed mid-write leaves
 * one; see `isLeftover`) are removed by every walk that meets one, and by a sweep of the
 * whole tree {@link SWEEP_DELAY_MS} after the disk is made, where the process still runs:
 * not at once, since a sweep lists every directory of the tree (0.4 s for 40,000 files),
 * which a `ws call` must not pay before it answers — and not at all once a whole walk of
 * the tree has been read through, since that walk removed every leftover the sweep would.
 */
export function diskPort(options: DiskOptions): HostDisk {
  const disk: Disk = {
    options,
    bounds: boundary(options.storeRel, options.protect ?? []),
    time: timeKeeping(options),
    racyReads: new Map(),
  };
  armSweep(disk, SWEEP_DELAY_MS);
  return {
    root: options.root,
    contain: (path, purpose) => contain(disk, path, purpose),
    kindOf: (path) => kindOf(disk, path),
    locateRoot: async () => locateRoot(options.root),
    stat: async (path) => stat(disk, path),
    read: (path, maxBytes, into) => readFile(disk, path, maxBytes, into),
    walk: (dir, walkOptions) => walkSoon(disk, dir, walkOptions?.shallow ?? false, walkOptions?.continuing ?? false),
    walkNames: async (dir, walkOptions) => walkNames(disk, dir, walkOptions?.shallow ?? false, walkOptions?.continuing ?? false),
    walkedWhole: (dir) => {
      if (normal(dir) === '') cancelSweep(disk);
    },
    async oneThread(fn) {
      disk.alone = (disk.alone ?? 0) + 1;
      try {
        return await fn();
      } finally {
        disk.alone -= 1;
      }
    },
    readRange: (path, start, length, into) => readRange(disk, path, start, length, into),
    passedOver: (dir) => passedOverDir(options.rules, normal(dir)),
    readMany: (paths, maxBytes) => readMany(disk, paths, maxBytes),
    partSpec: () => {
      const spec = options.rules.spec;
      if (spec === undefined || options.followSymlinks || libc === null) return undefined;
      return { root: options.root, rules: spec, cap: options.walkCap, walk: ++walksBegun };
    },
    readerSpec: {
      root: options.root,
      followSymlinks: options.followSymlinks,
      ...(options.storeRel === undefined ? {} : { storeRel: options.storeRel }),
      ...(options.protect === undefined ? {} : { protect: options.protect }),
      ...(options.mount === undefined ? {} : { mount: options.mount }),
      ...(options.coarseTimesMs === undefined ? {} : { coarseTimesMs: options.coarseTimesMs }),
      timestampGranularityMs: disk.time.granularityMs,
    },
    write: async (path, bytes, { mode, ...expect }) => writeFile(disk, path, bytes, mode, withRacyBytes(disk, expect)),
    unlink: async (path, expect) => unlinkFile(disk, path, withRacyBytes(disk, expect)),
    syncDirectory: async (dir) => syncUp(disk, dir),
    keepWholeWalks() {
      disk.keepWhole = true;
      disk.lastWhole = undefined;
    },
    quietStats(decided) {
      const last = disk.lastWhole;
      disk.lastWhole = undefined;
      disk.keepWhole = false;
      if (decided === undefined || last === undefined || options.followSymlinks || disk.time.coarseMs !== null) return null;
      if (!decidedOnWalk(last.seen, decided.reported, decided.counted)) return null;
      return quietStats(options.root, last.seen, last.startedMs, disk.time.granularityMs, options.rules.spec?.ignoreFilesRoot !== undefined);
    },
    stillQuiet: (stats, share) => !options.followSymlinks && stillQuiet(options.root, stats, share),
    quietRoot: options.followSymlinks ? null : options.root,
  };
}
