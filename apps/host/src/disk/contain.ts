/**
 * Keeping every path inside its mount. The one rule: a path is resolved against the
 * real root and refused if the real place it names lies outside — checked when a tool
 * names it and again at the point of effect, since a symlink can appear in between.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

/** Where a mount-relative path lands on disk, or why it may not be used. */
export type Contained = { readonly ok: true; readonly abs: string } | { readonly ok: false; readonly reason: string };

/** True when `inner` is `outer` or lies beneath it (both absolute, real). */
export function isInside(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/** The real path of `abs`, or of its nearest existing ancestor joined with the rest. */
function realOrNearest(abs: string): string {
  let rest = '';
  let at = abs;
  for (;;) {
    try {
      const real = realpathSync(at);
      return rest === '' ? real : join(real, rest);
    } catch {
      const up = dirname(at);
      if (up === at) return abs;
      rest = rest === '' ? at.slice(up.length + 1) : join(at.slice(up.length + 1), rest);
      at = up;
    }
  }
}

/**
 * Resolves a mount-relative path (`src/a.ts`, `''` for the root) under `root` (a real
 * path). Refuses `..`, absolute paths, and symlinks: any link on the way when the mount
 * does not follow links, a link that leads outside the root when it does.
 */
export function containPath(root: string, rel: string, followSymlinks: boolean): Contained {
  if (isAbsolute(rel) || rel.split('/').some((part) => part === '..')) {
    return { ok: false, reason: `"${rel}" leaves the mount; use a path inside it, without ".." or a leading "/".` };
  }
  const abs = rel === '' ? root : join(root, rel);
  const real = realOrNearest(abs);
  if (real === abs) return { ok: true, abs };
  if (!followSymlinks) {
    return { ok: false, reason: `"${rel}" passes through a symbolic link, and this mount does not follow links.` };
  }
  if (!isInside(root, real)) {
    return { ok: false, reason: `"${rel}" is a symbolic link to a place outside the mount, so it is refused.` };
  }
  return { ok: true, abs };
}
