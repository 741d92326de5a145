/**
 * The stats a quiet sync is checked against (the host README, "A quiet sync"): every
 * directory a whole walk entered (the root first), the ignore files in them, and every
 * file it found, each with the fields of its stat that change when it does. The one
 * rule: the stats say the tree is as that walk saw it, or they are not kept. A directory's
 * stat is taken after the walk, and kept only where neither its mtime nor its ctime is
 * within the timestamp granularity (and the clock's slack) of the walk's start: a name
 * added, removed or renamed in it since the walk listed it would have set both to a later
 * tick. The same holds of an ignore file, read during the walk. A file's stat is the one
 * the walk took, from its fingerprint, and only a fingerprint that vouches for the bytes
 * (not racy) is kept. Checking is one `fstatat` per entry from the root, into one buffer:
 * no object is made per file. Any difference, or anything that cannot be stat'd, and the
 * tree is not quiet (the caller passes over it as always).
 */
import { ptr } from 'bun:ffi';
import { CLOCK_SLACK_MS } from './fingerprint.ts';
import { IGNORE_FILES } from './ignore-files.ts';
import { libc, O } from './libc.ts';

/** What a whole walk saw: its files (with the fingerprints of their stats) and the directories it entered. */
export interface WalkSeen {
  readonly files: readonly { readonly path: string; readonly meta: { readonly mode: number | null; readonly fingerprint: string } }[];
  readonly directories: readonly string[];
  readonly passedOver: readonly { readonly path: string }[];
}

/**
 * Whether a pass that decided `reported` paths one by one and `counted` more by count
 * (unchanged walked files) decided on what the walk saw alone: every walked file among
 * them, and every other path one the walk would have met had it been there — none at or
 * beneath a name the walk passed over (a pass looks at those by name, beyond the stats).
 */
export function decidedOnWalk(seen: WalkSeen, reported: readonly string[], counted: number): boolean {
  const named = new Set(reported);
  const walked = new Set<string>();
  for (const f of seen.files) if (named.has(f.path)) walked.add(f.path);
  if (counted + walked.size !== seen.files.length) return false;
  if (walked.size === named.size) return true;
  const passed = new Set(seen.passedOver.map((p) => p.path));
  for (const path of named) {
    if (walked.has(path)) continue;
    for (let p = path; p !== ''; p = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '') if (passed.has(p)) return false;
  }
  return true;
}

/** The first word of a packed set of stats: its format. */
const MAGIC = 0x32717377; // "wsq2"
/** Header words: the format, the number of entries. */
const HEAD = 2;
/**
 * Words an entry: where the end of its path starts (bytes from the start); its kind (2
 * bits), how many bytes of the path before it its path begins with (14 bits) and how many
 * follow (16 bits); then the stat's device (2), inode (2), size (2), mtime seconds (2) and
 * nanoseconds (1), ctime seconds (2) and nanoseconds (1), and the whole `st_mode` (1).
 * Paths come in order and share most of their bytes with the one before: kept so, the
 * stats of a 40,000-file tree are half the bytes to unpack and hold.
 */
const ENTRY = 15;
/** The longest path kept, in bytes (with its NUL, the buffer it is put together in). */
const PATH_MAX = 4095;
const DIRECTORY = 0;
const FILE = 1;
/** An ignore file: compared whole, like a directory (its stat is one taken here). */
const IGNORE_FILE = 2;
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

const encoder = new TextEncoder();

/** The stat buffer's words (`struct stat` as 32-bit words) an entry's fields are read from, in the entry's order. */
function statWords(modeAt: number): readonly number[] {
  return [0, 1, 2, 3, 12, 13, 22, 23, 24, 26, 27, 28, modeAt / 4];
}

/** A stat taken into `words` (40 words), or false. */
type Stat = (path: number) => boolean;

/** `fstatat` from `rootFd` of the NUL-terminated path at `at`, into one buffer read as words. */
function statter(rootFd: number, base: number, out: Uint32Array): Stat {
  const c = libc as NonNullable<typeof libc>;
  const outPtr = ptr(out);
  return (at) => c.statRaw(rootFd, base + at, outPtr) === 0;
}

/** The root, opened to stat beneath it; null where it cannot be. */
function openRootFd(root: string): number | null {
  if (libc === null) return null;
  try {
    return libc.openat(-1, root, O.RDONLY | O.DIRECTORY | O.NOFOLLOW | O.CLOEXEC);
  } catch {
    return null;
  }
}

/**
 * The stats of what a whole walk of `root` saw, packed; null where they cannot say the
 * tree is as the walk saw it (a directory or ignore file changed around the walk, a racy
 * or coarse fingerprint, anything that cannot be stat'd, no `fstatat` here).
 * `startedMs`: when the walk began, by the clock stats are compared with.
 */
export function quietStats(root: string, seen: WalkSeen, startedMs: number, granularityMs: number, ignoreFiles: boolean): Uint8Array | null {
  const c = libc;
  if (c === null) return null;
  const before = startedMs - granularityMs - CLOCK_SLACK_MS;
  // Directories and ignore files are stat'd now (a few thousand); files' stats come from
  // their fingerprints. Everything goes straight into one body, made once: a record of
  // 40,000 files makes no object per file.
  const dirs = ['', ...seen.directories];
  // The directories and ignore files kept: their paths and kinds, and 13 stat words each.
  const nearPaths: string[] = [];
  const nearKinds: number[] = [];
  const nearStats = new Uint32Array(dirs.length * (ignoreFiles ? 1 + IGNORE_FILES.length : 1) * 13);
  const rootFd = openRootFd(root);
  if (rootFd === null) return null;
  const cur = new Uint8Array(new ArrayBuffer(PATH_MAX + 1));
  try {
    const out = new Uint32Array(new ArrayBuffer(160));
    const stat = statter(rootFd, ptr(cur), out);
    const fields = statWords(c.modeAt);
    const secondsOf = (lo: number, hi: number) => hi * 4294967296 + lo;
    /** Stats `path` here and keeps it; false where it cannot vouch (gone, not what it should be, changed around the walk). */
    const keep = (path: string, kind: number): boolean | 'absent' => {
      const written = encodePath(path, cur);
      if (written < 0) return false;
      cur[written] = 0;
      if (!stat(0)) return kind === IGNORE_FILE ? 'absent' : false; // no ignore file there: the rules read none either
      const mode = out[c.modeAt / 4];
      if (kind === DIRECTORY && (mode & S_IFMT) !== S_IFDIR) return false;
      // Changed since before the walk began (or in the future): the walk may not have seen it as it is.
      const mMs = secondsOf(out[22], out[23]) * 1000 + out[24] / 1e6;
      const cMs = secondsOf(out[26], out[27]) * 1000 + out[28] / 1e6;
      if (mMs >= before || cMs >= before) return false;
      const at = 13 * nearPaths.length;
      for (let k = 0; k < 13; k++) nearStats[at + k] = out[fields[k]];
      nearPaths.push(path);
      nearKinds.push(kind);
      return true;
    };
    for (const dir of dirs) if (keep(dir === '' ? '.' : dir, DIRECTORY) !== true) return null;
    if (ignoreFiles) {
      for (const dir of dirs) for (const file of IGNORE_FILES) if (keep(dir === '' ? file : `${dir}/${file}`, IGNORE_FILE) === false) return null;
    }
  } finally {
    c.close(rootFd);
  }
  const files = seen.files;
  const near = nearPaths.length;
  const count = near + files.length;
  const pathOf = (i: number) => (i < near ? nearPaths[i] : files[i - near].path);
  // Each path's bytes after those it shares with the path before it: counted first, so the
  // body is made at its size (a body made larger and cut was some 10 MB more to hold).
  const scratch = [new Uint8Array(new ArrayBuffer(PATH_MAX + 1)), cur];
  const front = (visit: (i: number, bytes: Uint8Array, shared: number, length: number) => void): boolean => {
    let prevLength = 0;
    for (let i = 0; i < count; i++) {
      const prev = scratch[(i + 1) & 1];
      const next = scratch[i & 1];
      const path = pathOf(i);
      const written = encodePath(path, next);
      if (written < 0) return false;
      let shared = 0;
      while (shared < written && shared < prevLength && next[shared] === prev[shared]) shared++;
      for (let k = shared; k < written; k++) if (next[k] === 0) return false;
      visit(i, next, shared, written);
      prevLength = written;
    }
    return true;
  };
  let tails = 0;
  if (!front((_i, _bytes, shared, length) => (tails += length - shared))) return null;
  const entriesEnd = 4 * (HEAD + ENTRY * count);
  const body = new Uint8Array(new ArrayBuffer(entriesEnd + tails));
  const words = new Uint32Array(body.buffer, 0, entriesEnd / 4);
  words[0] = MAGIC;
  words[1] = count;
  let at = entriesEnd;
  front((i, bytes, shared, length) => {
    const w = HEAD + ENTRY * i;
    words[w] = at;
    words[w + 1] = (i < near ? nearKinds[i] : FILE) | (shared << 2) | ((length - shared) << 16);
    for (let k = shared; k < length; k++) body[at + k - shared] = bytes[k];
    at += length - shared;
  });
  for (let i = 0; i < near; i++) for (let k = 0; k < 13; k++) words[HEAD + ENTRY * i + 2 + k] = nearStats[13 * i + k];
  const parsed = new Float64Array(6);
  for (let j = 0; j < files.length; j++) {
    const i = near + j;
    const f = files[j];
    if (f.meta.mode === null || !fingerprintStat(f.meta.fingerprint, parsed)) return null;
    // Device unknown (a fingerprint leaves it out): the directories' devices vouch for the file system.
    const w = HEAD + ENTRY * i + 2;
    words[w] = 0;
    words[w + 1] = 0;
    for (let k = 0; k < 3; k++) {
      words[w + 2 + 2 * k] = parsed[k] % 4294967296; // inode, size, mtime seconds: low and high words
      words[w + 3 + 2 * k] = Math.floor(parsed[k] / 4294967296);
    }
    words[w + 8] = parsed[3];
    words[w + 9] = parsed[4] % 4294967296;
    words[w + 10] = Math.floor(parsed[4] / 4294967296);
    words[w + 11] = parsed[5];
    words[w + 12] = S_IFREG | f.meta.mode;
  }
  return body;
}

/**
 * `path` as UTF-8 into `into` (of {@link PATH_MAX} + 1 bytes): its length, or -1 where it
 * does not fit. An ASCII path a byte at a time, so 40,000 of them make no object each.
 */
function encodePath(path: string, into: Uint8Array): number {
  const n = path.length;
  if (n > PATH_MAX) return -1;
  for (let i = 0; i < n; i++) {
    const ch = path.charCodeAt(i);
    if (ch >= 0x80) {
      const { written, read } = encoder.encodeInto(path, into.subarray(0, PATH_MAX));
      return read === n ? written : -1;
    }
    into[i] = ch;
  }
  return n;
}

/** The separators after each field of a fingerprint, in order: ':' ':' '.' ':' '.', then its end. */
const SEPARATORS = [58, 58, 46, 58, 46, -1];

/**
 * A fingerprint's stat (`ino:size:sec.nsec:sec.nsec`, see `fingerprint.ts`) into `out`:
 * inode, size, mtime seconds, mtime nanoseconds, ctime seconds, ctime nanoseconds. False
 * where it is racy (a `~` suffix) or not of that form. Read a character at a time: no
 * string is made.
 */
function fingerprintStat(fp: string, out: Float64Array): boolean {
  let field = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= fp.length; i++) {
    const ch = i < fp.length ? fp.charCodeAt(i) : -1;
    if (ch >= 48 && ch <= 57) {
      value = value * 10 + (ch - 48);
      digits++;
      continue;
    }
    if (ch !== SEPARATORS[field] || digits === 0 || digits > 15) return false;
    out[field++] = value;
    value = 0;
    digits = 0;
    if (ch === -1) return out[3] < 1e9 && out[5] < 1e9;
  }
  return false;
}

/**
 * Entries a thread takes at a time in a shared check ({@link stillQuiet}'s `share`): few
 * enough that two threads finish within a few milliseconds of each other, many enough
 * that taking them costs nothing beside their stats.
 */
export const SHARE_CHUNK = 512;

/**
 * The fewest entries a check is shared for (and only then does a one-shot command start a
 * Worker for it): one thread checks 4,096 in some 15 ms, a Worker takes longer than that to
 * start, and a sync of a small tree took 60 ms alone against 94 ms with one. Mutable for
 * tests only.
 */
export const QUIET_SHARING = { from: 4096 };

/** How many entries the stats hold (0 where they are not stats). */
export function quietEntries(stats: Uint8Array): number {
  if (stats.length < 4 * HEAD) return 0;
  const view = new DataView(stats.buffer, stats.byteOffset, 4 * HEAD);
  return view.getUint32(0, true) === MAGIC ? view.getUint32(4, true) : 0;
}

/**
 * A check two threads share: word 0 the next chunk to take ({@link SHARE_CHUNK} entries),
 * word 1 set where a thread found an entry that is not as it was (the other then stops).
 */
export function quietShare(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(8));
}

/**
 * True where every entry of `packed` (from {@link quietStats}) stats under `root` as it
 * did. With `share` (one {@link quietShare} for all), only the chunks this thread takes
 * are checked, and true says only that they held: the tree holds where every thread that
 * took a chunk says so. A thread that finds a difference says so to the others, which
 * stop and answer false too.
 */
export function stillQuiet(root: string, packed: Uint8Array, share?: Int32Array): boolean {
  const c = libc;
  if (c === null || packed.length < 4 * HEAD) return false;
  // Word-aligned, over an ArrayBuffer whose bytes never move under a pointer: as unpacked where it is that already.
  let body = packed;
  if (packed.byteOffset % 4 !== 0 || packed.byteLength < 4096) {
    body = new Uint8Array(new ArrayBuffer(packed.length));
    body.set(packed);
  }
  const words = new Uint32Array(body.buffer, body.byteOffset, Math.floor(body.length / 4));
  const n = words[1];
  if (words[0] !== MAGIC || 4 * (HEAD + ENTRY * n) > body.length) return false;
  const rootFd = openRootFd(root);
  if (rootFd === null) return false;
  const out = new Uint32Array(new ArrayBuffer(160));
  const name = new Uint8Array(new ArrayBuffer(PATH_MAX + 1));
  const stat = statter(rootFd, ptr(name), out);
  const [dev0, dev1, ino0, ino1, size0, size1, ms0, ms1, mn, cs0, cs1, cn, mode] = statWords(c.modeAt);
  // Where the path in `name` has come to: entry `at`'s path is `name`'s first `length` bytes.
  let at = -1;
  let length = 0;
  /** The path of entry `i` (after `at`) into `name`, each entry's between them spelt out too (a path is the one before it, changed); false where the body is not whole. */
  const spell = (i: number): boolean => {
    for (let j = at + 1; j <= i; j++) {
      const w = HEAD + ENTRY * j;
      const start = words[w];
      const shape = words[w + 1];
      const keep = (shape >>> 2) & 0x3fff;
      const tail = shape >>> 16;
      if (keep > length || keep + tail > PATH_MAX || start + tail > body.length) return false;
      for (let k = 0; k < tail; k++) name[keep + k] = body[start + k];
      length = keep + tail;
    }
    at = i;
    name[length] = 0;
    return true;
  };
  /** Whether entries `from` to `to` (not included) stat as they did. */
  const hold = (from: number, to: number): boolean => {
    for (let i = from; i < to; i++) {
      if (!spell(i) || !stat(0)) return false;
      const w = HEAD + ENTRY * i;
      // A file's device is not kept; a directory's and an ignore file's are.
      if ((words[w + 1] & 3) !== FILE && (out[dev0] !== words[w + 2] || out[dev1] !== words[w + 3])) return false;
      if (
        out[ino0] !== words[w + 4] ||
        out[ino1] !== words[w + 5] ||
        out[size0] !== words[w + 6] ||
        out[size1] !== words[w + 7] ||
        out[ms0] !== words[w + 8] ||
        out[ms1] !== words[w + 9] ||
        out[mn] !== words[w + 10] ||
        out[cs0] !== words[w + 11] ||
        out[cs1] !== words[w + 12] ||
        out[cn] !== words[w + 13] ||
        out[mode] !== words[w + 14]
      ) {
        return false;
      }
    }
    return true;
  };
  try {
    if (share === undefined) return hold(0, n);
    for (;;) {
      if (Atomics.load(share, 1) !== 0) return false;
      const from = Atomics.add(share, 0, 1) * SHARE_CHUNK;
      if (from >= n) return true;
      if (!hold(from, Math.min(n, from + SHARE_CHUNK))) {
        Atomics.store(share, 1, 1);
        return false;
      }
    }
  } finally {
    c.close(rootFd);
  }
}
