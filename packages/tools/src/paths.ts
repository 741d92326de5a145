/**
 * Mount-prefixed paths: `work/src/a.ts` is `src/a.ts` inside mount `work`. The one rule:
 * nothing reaches a mount unless it is normalized (`/`-separated, no `.` or empty
 * segments) and stays inside it — `..`, absolute paths, backslashes, NUL, and paths no
 * file system takes (over 4,096 characters, or a name over 255 bytes) are refused here,
 * before any mount is asked; so a path a sentence repeats whole is never longer.
 */
import type { Mount, Workspace } from './workspace.ts';
import { absolutePath, backslashPath, nameTooLong, noSuchMount, nulInPath, parentSegment, pathTooLong, unknownMount } from './errors.ts';

/** The longest path any file system here takes (Linux's PATH_MAX): a longer one names no file. */
export const PATH_MAX_CHARS = 4096;
/** The longest name of one file or directory (NAME_MAX), in bytes. */
export const NAME_MAX_BYTES = 255;

const encoder = new TextEncoder();

/** A path inside one mount. */
export interface Located {
  readonly mount: Mount;
  /** Mount-relative, `''` for the mount's root. */
  readonly rel: string;
  /** The normalized mount-prefixed path, as answers show it. */
  readonly path: string;
}

/** A located path, or the sentence that refuses it. */
export type Location = ({ readonly ok: true } & Located) | { readonly ok: false; readonly message: string };

/** The mount-prefixed path of `rel` inside mount `mount` (`rel` `''`: the mount itself). */
export function prefixed(mount: string, rel: string): string {
  return rel === '' ? mount : `${mount}/${rel}`;
}

/** The mount a sentence's example path names: the workspace's first. */
export function exampleMount(workspace: Workspace): string {
  return workspace.mounts[0]?.name ?? 'work';
}

/**
 * Splits and checks a path's segments, or gives the sentence that refuses it (`absolute`
 * where that is why); `example` names a mount for the sentences' examples.
 */
function segments(raw: string, example: string): { ok: true; parts: string[] } | { ok: false; message: string; absolute?: true } {
  if (raw.length > PATH_MAX_CHARS) return { ok: false, message: pathTooLong(raw, PATH_MAX_CHARS) };
  if (raw.includes('\0')) return { ok: false, message: nulInPath(raw) };
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) return { ok: false, message: absolutePath(raw, example), absolute: true };
  if (raw.includes('\\')) return { ok: false, message: backslashPath(raw, example) };
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return { ok: false, message: parentSegment(raw, example) };
  const long = parts.find((p) => encoder.encode(p).length > NAME_MAX_BYTES);
  if (long !== undefined) return { ok: false, message: nameTooLong(long, NAME_MAX_BYTES) };
  return { ok: true, parts };
}

/**
 * The mount paths an absolute path names: for each mount whose directory holds it, the
 * mount's name and the rest of the path — where the rest is itself a path the tools take
 * (no `..`, nothing else refused). A guess only: the path is refused with it, never read.
 */
function absoluteGuesses(workspace: Workspace, raw: string): string[] {
  const guesses: string[] = [];
  for (const m of workspace.mounts) {
    const root = m.root?.replace(/\/+$/, '');
    if (root === undefined || root === '' || !root.startsWith('/')) continue;
    if (raw !== root && !raw.startsWith(`${root}/`)) continue;
    const rest = segments(raw.slice(root.length).replace(/^\/+/, ''), m.name);
    if (rest.ok) guesses.push(prefixed(m.name, rest.parts.join('/')));
  }
  return guesses;
}

/** Finds the mount a mount-prefixed path names and the path inside it. */
export function locate(workspace: Workspace, raw: string): Location {
  const example = exampleMount(workspace);
  const split = segments(raw, example);
  if (!split.ok) {
    const guesses = split.absolute ? absoluteGuesses(workspace, raw) : [];
    return guesses.length === 0 ? { ok: false, message: split.message } : { ok: false, message: absolutePath(raw, example, guesses) };
  }
  const [name, ...rest] = split.parts;
  const mount = workspace.mounts.find((m) => m.name === name);
  if (mount === undefined) {
    const names = workspace.mounts.map((m) => m.name);
    // With one mount, the path as meant is the whole path inside it (the mount's name left
    // out) or, where it has more parts, the rest of it (another mount's name put first,
    // such as the examples' "work"): both are offered, so one of them names the file.
    const guesses =
      names.length !== 1 || split.parts.length === 0
        ? []
        : [prefixed(names[0], split.parts.join('/')), ...(rest.length > 0 ? [prefixed(names[0], rest.join('/'))] : [])];
    return { ok: false, message: unknownMount(raw, name ?? '', names, guesses, example) };
  }
  const rel = rest.join('/');
  return { ok: true, mount, rel, path: prefixed(mount.name, rel) };
}

/** The mount named `name`, or the sentence saying there is none. */
export function mountNamed(workspace: Workspace, name: string): { ok: true; mount: Mount } | { ok: false; message: string } {
  const mount = workspace.mounts.find((m) => m.name === name);
  if (mount) return { ok: true, mount };
  return { ok: false, message: noSuchMount(name, workspace.mounts.map((m) => m.name)) };
}
