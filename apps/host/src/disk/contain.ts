/**
 * Where the configuration's paths are: the inside-the-root check on absolute paths, and
 * the stats the config needs of mount roots and the store path. The one rule: roots are
 * compared as real paths (symlinks resolved), so a store inside a mount is always seen
 * as inside it. Paths a tool names are contained by the disk port (`disk-port.ts`).
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** True when `inner` is `outer` or lies beneath it (both absolute, real). */
export function isInside(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/** `inner` relative to `outer`, `/`-separated, where it lies inside; else undefined. */
export function insideRel(outer: string, inner: string): string | undefined {
  return isInside(outer, inner) ? relative(outer, inner).split(sep).join('/') : undefined;
}

/** What is at an absolute path (following symlinks unless `follow` is false). */
export function kindAt(abs: string, follow = true): 'directory' | 'file' | 'missing' | 'other' {
  try {
    const st = follow ? statSync(abs) : lstatSync(abs);
    return st.isDirectory() ? 'directory' : st.isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}

/** The real path of `abs`, or `abs` where it cannot be resolved. */
export function realOrSame(abs: string): string {
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/** `abs` with its existing directories' symlinks resolved (the file itself may not exist yet). */
export function realParents(abs: string): string {
  const dir = dirname(abs);
  if (dir === abs) return abs;
  return resolve(kindAt(dir) !== 'missing' ? realOrSame(dir) : realParents(dir), basename(abs));
}
