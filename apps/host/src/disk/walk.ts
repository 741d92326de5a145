/**
 * Walking a mount's tree without holding it: a generator that yields files and
 * directories, files in path order (plain string order of the mount-relative paths;
 * a directory just before what it holds), and
 * counts what it passed over. The one rule: a walk never leaves the root and never
 * reads a file's bytes — the caller decides what to read.
 */
import { type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import { isInside } from './contain.ts';
import type { PassedOverReason, WalkRules } from './rules.ts';

/** One thing a walk found. */
export interface WalkEntry {
  /** Mount-relative, `/`-separated. */
  readonly path: string;
  readonly kind: 'file' | 'directory';
}

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
}

/** A new, empty tally. */
export function newTally(): WalkTally {
  return { passedOver: {}, unreadable: [] };
}


/** Why a system error stopped a read, in words. */
export function describeFsError(err: unknown): string {
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOENT':
      return 'it vanished while being read';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ELOOP':
      return 'too many symbolic links';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Walks beneath `from`, telling `visit` of each entry in path order and counting what it
 * passes over into `tally`. A plain recursion (no generators): a walk of a large mount
 * runs this once per entry, so it stays cheap.
 */
export function visitTree(options: WalkOptions, tally: WalkTally, visit: (path: string, kind: 'file' | 'directory') => void): void {
  const { root, rules, followSymlinks, cap } = options;
  let seen = 0;
  const visited = new Set<string>();
  const count = (reason: PassedOverReason, path: string, directory: boolean) => {
    tally.passedOver[reason] = (tally.passedOver[reason] ?? 0) + 1;
    options.onPassOver?.(path, reason, directory);
  };

  const dir = (rel: string): boolean => {
    const abs = rel === '' ? root : `${root}/${rel}`;
    if (followSymlinks) {
      const real = realpathSync(abs);
      if (visited.has(real)) return true;
      visited.add(real);
    }
    let dirents: Dirent[];
    try {
      dirents = readdirSync(abs, { withFileTypes: true });
    } catch (err) {
      // A directory that is gone holds nothing (what was beneath it is absent); one
      // that is there but cannot be read is a region the walk could not see.
      const code = (err as { code?: string }).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') tally.unreadable.push({ path: rel, reason: describeFsError(err) });
      return true;
    }
    const prefix = rel === '' ? '' : `${rel}/`;
    // Sort keys: a "/" after each subdirectory's name makes the depth-first order the
    // plain string order of whole paths.
    const keys: string[] = [];
    const kinds = new Map<string, 'file' | 'directory'>();
    for (const d of dirents) {
      const childRel = prefix + d.name;
      let kind: 'file' | 'directory' | undefined;
      if (d.isFile()) kind = 'file';
      else if (d.isDirectory()) kind = 'directory';
      else if (d.isSymbolicLink()) {
        if (!followSymlinks) {
          count('symbolic link (the mount does not follow links)', childRel, false);
          continue;
        }
        try {
          const real = realpathSync(`${abs}/${d.name}`);
          if (!isInside(root, real)) {
            count('symbolic link leading outside the mount', childRel, false);
            continue;
          }
          const st = statSync(real);
          kind = st.isFile() ? 'file' : st.isDirectory() ? 'directory' : undefined;
        } catch {
          kind = undefined;
        }
      }
      if (kind === undefined) {
        count('not a regular file or directory', childRel, false);
        continue;
      }
      const reason = rules.passOver(childRel, kind === 'directory');
      if (reason !== undefined) {
        count(reason, childRel, kind === 'directory');
        continue;
      }
      const key = kind === 'directory' ? `${d.name}/` : d.name;
      keys.push(key);
      kinds.set(key, kind);
    }
    keys.sort();
    for (const key of keys) {
      if (seen >= cap) {
        tally.incomplete ??= `the walk stopped after ${cap} entries (the cap); narrow it to a directory`;
        return false;
      }
      seen++;
      const kind = kinds.get(key)!;
      const childRel = prefix + (kind === 'directory' ? key.slice(0, -1) : key);
      visit(childRel, kind);
      if (kind === 'directory' && !options.shallow && !dir(childRel)) return false;
    }
    return true;
  };

  dir(options.from);
}

/** Every entry beneath `from`, in path order (see {@link visitTree}). */
export function walk(options: WalkOptions, tally: WalkTally): WalkEntry[] {
  const entries: WalkEntry[] = [];
  visitTree(options, tally, (path, kind) => entries.push({ path, kind }));
  return entries;
}
