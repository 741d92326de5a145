/**
 * Walking a mount's tree without holding it: a plain recursion over held directories
 * that tells its caller of files and directories in path order (plain string order of
 * the mount-relative paths; a directory just before what it holds), and counts what it
 * passed over. The one rule: a walk never leaves the root and never opens a file — it
 * only lists directories and stats names in them, so a FIFO or a device is never read.
 */
import { isLeftover, TEMP_PREFIX } from './boundary.ts';
import type { HeldDir } from './held.ts';
import type { DirEntry, StatInfo } from './libc.ts';
import { openDirectory, resolvePath } from './resolve.ts';
import type { PassedOverReason, WalkRules } from './rules.ts';
import { describeFsError } from './sentences.ts';
import { belowFtl, belowFtlNow } from './one-shot.ts';

/** What a walk passed over and could not read, filled in as it goes. */
export interface WalkTally {
  readonly passedOver: Record<string, number>;
  /** Directories it could not read, with why. */
  readonly unreadable: { path: string; reason: string }[];
  /** Set when the walk stopped at its cap. */
  incomplete?: string;
}

/** Options for one walk. */
export interface WalkOptions {
  readonly root: string;
  /** Where to start, mount-relative (`''`: the root). Must be a directory. */
  readonly from: string;
  readonly rules: WalkRules;
  readonly followSymlinks: boolean;
  /** Stop after this many entries; the tally then says the walk is incomplete. */
  readonly cap: number;
  /** Only the directory itself, not beneath it. */
  readonly shallow?: boolean;
  /** Told of each name passed over, beside the count (a pass looks at held paths there). */
  readonly onPassOver?: (path: string, reason: PassedOverReason, directory: boolean) => void;
  /**
   * Told of each ws temporary file met, instead of removing the leftovers here: a walk in
   * a Worker cannot know which temporary files its process is writing (see `isLeftover`).
   */
  readonly onTemporary?: (path: string, mtimeMs: number) => void;
  /** `from` is a directory another walk listed: where it is gone, count it as vanished (as that walk would have). */
  readonly fromListed?: boolean;
  /**
   * The directory `from`, held by the caller (opened from its held parent as a walk opens
   * a directory, never through a link, where the mount follows none): listed from it, not
   * opened from the root again, and left open for the caller.
   */
  readonly fromDir?: HeldDir;
  /**
   * Only the names are wanted (a search reads each file anyway, with a stat of its own):
   * a file its directory records as regular is told without a stat (`info` null), so a
   * walk costs a listing a directory, not a stat a file. A ws temporary file is still
   * stat'd (its age says whether it is a leftover), and an entry of unknown type too.
   */
  readonly namesOnly?: boolean;
}

/** A new, empty tally. */
export function newTally(): WalkTally {
  return { passedOver: {}, unreadable: [] };
}

/**
 * What a walk tells of one entry: a file with its stat (null where the walk is `namesOnly`
 * and needed none), or a directory; and the directory that holds it, with its name there —
 * a search reads the file from that held directory while the walk holds it (`HeldDir.readWhole`).
 */
export type Visit = (path: string, kind: 'file' | 'directory', info: StatInfo | null, dir: HeldDir, name: string) => void;

/** An entry as classified; a directory reached through a followed link is opened from the root again. */
type Found = { kind: 'file'; info: StatInfo | null } | { kind: 'directory'; viaLink: boolean } | { kind: 'other' } | { kind: 'gone' };

/** A regular file told by name alone (`namesOnly`). */
const NAMED_FILE: Found = { kind: 'file', info: null };

function found(info: StatInfo | null, viaLink: boolean): Found {
  if (info === null) return { kind: 'gone' };
  if (info.type === 'file') return { kind: 'file', info };
  if (info.type === 'directory') return { kind: 'directory', viaLink };
  return { kind: 'other' };
}

/** A symlink's target where the mount follows links and it stays inside; else why it is passed over. */
function throughLink(root: string, rel: string): Found | PassedOverReason {
  const r = resolvePath(root, rel, { follow: true, create: false, followLeaf: true });
  if (!r.ok) return r.why === 'outside' ? 'symbolic link leading outside the mount' : 'not a regular file or directory';
  try {
    return found(r.dir.lstat(r.name), true);
  } finally {
    r.dir.close();
  }
}

/** What one directory entry is, from its type and (for a file) a stat; never opened. */
function classify(root: string, followSymlinks: boolean, dir: HeldDir, d: DirEntry, rel: string, namesOnly: boolean): Found | PassedOverReason {
  const hint = d.type;
  if (namesOnly && hint === 'file' && !d.name.startsWith(TEMP_PREFIX)) return NAMED_FILE;
  if (hint === 'other') return 'not a regular file or directory';
  if (hint === 'symlink' && !followSymlinks) return 'symbolic link (the mount does not follow links)';
  if (hint === 'symlink') return throughLink(root, rel);
  if (hint === 'directory') return { kind: 'directory', viaLink: false };
  return found(dir.lstat(d.name), false);
}

/** Whether a listing holds `name`: a loop of its own, not `Array.prototype.some` (a builtin every caller shares, which FTL compiled in a one-shot sync). */
function holds(entries: readonly DirEntry[], name: string): boolean {
  for (const d of entries) if (d.name === name) return true;
  return false;
}

belowFtl(found, classify, holds);

/**
 * Walks beneath `from`, telling `visit` of each entry in path order and counting what it
 * passes over into `tally`. Stale temporary files it meets are removed (see
 * {@link isLeftover}). A directory that vanishes mid-walk holds nothing; one that cannot
 * be read is recorded in `tally.unreadable`, and the walk goes on.
 */
export function visitTree(options: WalkOptions, tally: WalkTally, visit: Visit): void {
  const { root, rules, followSymlinks, cap } = options;
  const namesOnly = options.namesOnly === true;
  let seen = 0;
  const visited = new Set<string>();
  const nowMs = Date.now();
  const count = (reason: PassedOverReason, path: string, directory: boolean) => {
    tally.passedOver[reason] = (tally.passedOver[reason] ?? 0) + 1;
    options.onPassOver?.(path, reason, directory);
  };

  const list = belowFtlNow((dir: HeldDir, rel: string): boolean => {
    const prefix = rel === '' ? '' : `${rel}/`;
    // Sort keys: a "/" after each subdirectory's name makes the depth-first order the
    // plain string order of whole paths. Each key's entry: its path (made once, told to
    // `visit` as the rules were asked of it) and what it is.
    const keys: string[] = [];
    const at = new Map<string, number>();
    const paths: string[] = [];
    const names: string[] = [];
    const kinds: (Found & { kind: 'file' | 'directory' })[] = [];
    const entries = dir.entries();
    rules.listed?.(rel, { has: (name) => holds(entries, name) });
    const passOver = rules.inDirectory?.(rel) ?? ((_name: string, path: string, isDir: boolean) => rules.passOver(path, isDir));
    for (const d of entries) {
      const childRel = prefix + d.name;
      let f: Found | PassedOverReason;
      try {
        f = classify(root, followSymlinks, dir, d, childRel, namesOnly);
      } catch (err) {
        tally.unreadable.push({ path: childRel, reason: describeFsError(err) });
        continue;
      }
      if (typeof f === 'string') {
        count(f, childRel, false);
        continue;
      }
      if (f.kind === 'gone') continue;
      if (f.kind === 'other') {
        count('not a regular file or directory', childRel, false);
        continue;
      }
      if (f.kind === 'file' && f.info !== null && d.name.startsWith(TEMP_PREFIX) && options.onTemporary !== undefined) {
        options.onTemporary(childRel, f.info.mtimeSec * 1000);
      } else if (f.kind === 'file' && f.info !== null && d.name.startsWith(TEMP_PREFIX) && isLeftover(d.name, f.info.mtimeSec * 1000, nowMs)) {
        try {
          dir.unlink(d.name);
        } catch {
          // Another sweep took it, or it cannot be removed: it is passed over either way.
        }
      }
      const reason = passOver(d.name, childRel, f.kind === 'directory');
      if (reason !== undefined) {
        count(reason, childRel, f.kind === 'directory');
        continue;
      }
      const key = f.kind === 'directory' ? `${d.name}/` : d.name;
      keys.push(key);
      at.set(key, paths.length);
      paths.push(childRel);
      names.push(d.name);
      kinds.push(f);
    }
    keys.sort();
    for (const key of keys) {
      if (seen >= cap) {
        tally.incomplete ??= `the walk stopped after ${cap} entries (the cap); narrow it to a directory`;
        return false;
      }
      seen++;
      const i = at.get(key) as number;
      const f = kinds[i];
      const childRel = paths[i];
      visit(childRel, f.kind, f.kind === 'file' ? f.info : null, dir, names[i]);
      if (f.kind === 'directory' && !options.shallow && !enter(f.viaLink ? null : dir, childRel)) return false;
    }
    return true;
  });

  /** Enters `rel`: from its held parent (never through a link there), or from the root where a link led to it. */
  const enter = (parent: HeldDir | null, rel: string): boolean => {
    let dir: HeldDir;
    const given = parent === null && rel === options.from ? options.fromDir : undefined;
    try {
      if (given !== undefined) {
        dir = given;
      } else if (parent !== null) {
        dir = parent.openDir(rel.slice(rel.lastIndexOf('/') + 1));
      } else {
        const opened = openDirectory(root, rel, followSymlinks);
        if (!opened.ok) {
          if (rel !== options.from || options.fromListed) count('a directory that vanished during the walk', rel, true);
          return true;
        }
        dir = opened.dir;
      }
    } catch (err) {
      // A directory that is gone (or was swapped for a link or a file) holds nothing now:
      // it is counted, and a pass looks at what it held there by name.
      const code = (err as { code?: string }).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ELOOP') tally.unreadable.push({ path: rel, reason: describeFsError(err) });
      else if (rel !== options.from || options.fromListed) count('a directory that vanished during the walk', rel, true);
      return true;
    }
    try {
      if (followSymlinks) {
        const me = dir.lstat('.');
        const id = me ? `${me.dev}:${me.ino}` : rel;
        if (visited.has(id)) return true;
        visited.add(id);
      }
      return list(dir, rel);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') tally.unreadable.push({ path: rel, reason: describeFsError(err) });
      return true;
    } finally {
      if (dir !== given) dir.close();
    }
  };

  enter(null, options.from);
}

/** One thing a walk found. */
export interface WalkEntry {
  /** Mount-relative, `/`-separated. */
  readonly path: string;
  readonly kind: 'file' | 'directory';
  /** The file's stat (null for a directory). */
  readonly info: StatInfo | null;
}

/** Every entry beneath `from`, in path order (see {@link visitTree}). */
export function walk(options: WalkOptions, tally: WalkTally): WalkEntry[] {
  const entries: WalkEntry[] = [];
  visitTree(options, tally, (path, kind, info) => entries.push({ path, kind, info }));
  return entries;
}

/**
 * Removes ws's leftover temporary files beneath the root (see {@link isLeftover}): names
 * only, no file is opened, directories a walk passes over are not entered, symlinks are
 * not followed. Faults are ignored: a sweep is tidying, never a reason to fail.
 */
export function sweepTree(root: string, rules: WalkRules): void {
  const nowMs = Date.now();
  const sweep = (dir: HeldDir, rel: string) => {
    const prefix = rel === '' ? '' : `${rel}/`;
    for (const d of dir.entries()) {
      if (d.type === 'directory') {
        if (rules.passOver(prefix + d.name, true) !== undefined) continue;
        let sub: HeldDir;
        try {
          sub = dir.openDir(d.name);
        } catch {
          continue;
        }
        try {
          sweep(sub, prefix + d.name);
        } catch {
          // unreadable: nothing to tidy there
        } finally {
          sub.close();
        }
      } else if (d.name.startsWith(TEMP_PREFIX)) {
        try {
          const st = dir.lstat(d.name);
          if (st?.type === 'file' && isLeftover(d.name, st.mtimeSec * 1000, nowMs)) dir.unlink(d.name);
        } catch {
          // gone, or not ours to remove
        }
      }
    }
  };
  try {
    const opened = openDirectory(root, '', false);
    if (!opened.ok) return;
    try {
      sweep(opened.dir, '');
    } finally {
      opened.dir.close();
    }
  } catch {
    // The root is missing or unreadable: locateRoot says so where it matters.
  }
}
