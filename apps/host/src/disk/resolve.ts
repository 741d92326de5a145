/**
 * From a mount-relative path to a held directory and one name in it, component by
 * component from the root's descriptor. The one rule: a component is opened without
 * following a symlink; a symlink is followed only where the mount follows links, by
 * reading it and starting again from the root with its target spelled out, so every
 * directory on the way is one this walk opened itself — never a path string looked up
 * again after the check.
 */
import { type HeldDir, openRoot } from './held.ts';

/** Where a path resolved to, or why it did not. */
export type Resolved =
  /** `dir` holds `name`; `rel` is the path with every followed link spelled out. The caller closes `dir`. */
  | { readonly ok: true; readonly dir: HeldDir; readonly name: string; readonly rel: string }
  | { readonly ok: false; readonly why: 'missing' | 'not-a-directory' | 'link' | 'outside' | 'loop' };

/** How to resolve. */
export interface ResolveOptions {
  /** The mount follows symlinks that stay inside it. */
  readonly follow: boolean;
  /** Make missing directories on the way (for a write). */
  readonly create: boolean;
  /** Follow a symlink at the last component too (where `follow`). */
  readonly followLeaf: boolean;
}

const MAX_HOPS = 40;

/** `parts` with a link's target put in place of the link, or null where it climbs out of the root. */
function spliced(root: string, done: readonly string[], target: string, rest: readonly string[]): string[] | null {
  let base: string[];
  let tail: string;
  if (target.startsWith('/')) {
    if (target !== root && !target.startsWith(`${root}/`)) return null;
    base = [];
    tail = target.slice(root.length);
  } else {
    base = [...done];
    tail = target;
  }
  for (const part of [...tail.split('/'), ...rest]) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (base.length === 0) return null;
      base.pop();
    } else {
      base.push(part);
    }
  }
  return base;
}

function isLinkError(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'ENOTDIR' || code === 'ELOOP';
}

/**
 * Resolves `rel` (non-empty, already free of `..` and leading `/`) under `root` (a real,
 * absolute path). On success the caller owns `dir` and must close it.
 */
export function resolvePath(root: string, rel: string, options: ResolveOptions): Resolved {
  let parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  for (let hops = 0; hops <= MAX_HOPS; hops++) {
    const step = walkParts(root, parts, options);
    if (step.kind === 'done') return step.resolved;
    const next = spliced(root, step.done, step.target, step.rest);
    if (next === null) return { ok: false, why: 'outside' };
    if (next.length === 0) return { ok: false, why: 'not-a-directory' }; // a link to the root where a file is named
    parts = next;
  }
  return { ok: false, why: 'loop' };
}

type Step =
  | { readonly kind: 'done'; readonly resolved: Resolved }
  | { readonly kind: 'link'; readonly done: string[]; readonly target: string; readonly rest: string[] };

/** One walk from the root: done, or a link to follow (read through its held directory). */
function walkParts(root: string, parts: readonly string[], options: ResolveOptions): Step {
  let cur = openRoot(root);
  let handed = false;
  const done: string[] = [];
  try {
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i];
      if (i === parts.length - 1) {
        if (options.follow && options.followLeaf && cur.lstat(name)?.type === 'symlink') {
          return { kind: 'link', done, target: cur.readlink(name), rest: [] };
        }
        handed = true;
        return { kind: 'done', resolved: { ok: true, dir: cur, name, rel: [...done, name].join('/') } };
      }
      let next: HeldDir;
      try {
        next = cur.openDir(name);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'ENOENT' && options.create) {
          try {
            cur.mkdir(name);
          } catch (made) {
            if ((made as { code?: string }).code !== 'EEXIST') throw made;
          }
          next = cur.openDir(name);
        } else if (code === 'ENOENT') {
          return { kind: 'done', resolved: { ok: false, why: 'missing' } };
        } else if (isLinkError(err)) {
          if (cur.lstat(name)?.type !== 'symlink') return { kind: 'done', resolved: { ok: false, why: 'not-a-directory' } };
          if (!options.follow) return { kind: 'done', resolved: { ok: false, why: 'link' } };
          return { kind: 'link', done, target: cur.readlink(name), rest: parts.slice(i + 1) };
        } else {
          throw err;
        }
      }
      cur.close();
      cur = next;
      done.push(name);
    }
    throw new Error('resolvePath: an empty path has no parent');
  } finally {
    if (!handed) cur.close();
  }
}

/**
 * Opens the directory `rel` (`''`: the root) held, following a symlink at its end
 * where the mount does. The caller closes it.
 */
export function openDirectory(root: string, rel: string, follow: boolean): { ok: true; dir: HeldDir; rel: string } | Exclude<Resolved, { ok: true }> {
  if (rel === '') return { ok: true, dir: openRoot(root), rel: '' };
  const r = resolvePath(root, rel, { follow, create: false, followLeaf: true });
  if (!r.ok) return r;
  try {
    return { ok: true, dir: r.dir.openDir(r.name), rel: r.rel };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT') return { ok: false, why: 'missing' };
    if (isLinkError(err)) return { ok: false, why: r.dir.lstat(r.name)?.type === 'symlink' ? 'link' : 'not-a-directory' };
    throw err;
  } finally {
    r.dir.close();
  }
}
