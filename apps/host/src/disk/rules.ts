/**
 * What a walk passes over, and why. The one rule: every name a walk skips is counted
 * under a reason a person recognizes, so a sync that took in nothing can say what it
 * did not look at. A named pass (a tool naming the path) ignores these rules.
 */
import ignore, { type Ignore } from 'ignore';
import { boundary, TEMP_PREFIX, WS_DIRECTORY } from './boundary.ts';

/** Why a walk passed over a name. */
export type PassedOverReason =
  | 'ignored by the mount\u2019s rules'
  | 'editor swap or backup file'
  | 'version control or dependency directory'
  | 'the ws store'
  | 'ws temporary file'
  | 'symbolic link (the mount does not follow links)'
  | 'symbolic link leading outside the mount'
  | 'not a regular file or directory'
  | 'a directory that vanished during the walk';

/**
 * Editors' swap, backup and lock files — `*.swp`, `*.swo`, `*.swx`, `*~`, `.#*`, `#*#` and
 * vim's `4913` — checked by hand: a walk asks this of every file.
 */
function isEditorFile(name: string): boolean {
  return (
    name.endsWith('.swp') ||
    name.endsWith('.swo') ||
    name.endsWith('.swx') ||
    name.endsWith('~') ||
    name.startsWith('.#') ||
    (name.length > 1 && name.startsWith('#') && name.endsWith('#')) ||
    name === '4913'
  );
}

/** `.git/` and `node_modules/`: always passed over by a walk, whatever the mount says. */
function isBuiltIn(name: string): boolean {
  return name === '.git' || name === 'node_modules';
}

/** Decides, for a mount-relative path, whether a walk looks at it. */
export interface WalkRules {
  /** The reason to pass over `rel` (a directory when `isDir`), or undefined to look at it. */
  passOver(rel: string, isDir: boolean): PassedOverReason | undefined;
}

/**
 * Rules for one mount: its own `ignore` list (gitignore syntax), the built-in
 * directories, editors' files, ws's temporary files, and the store's own files where
 * the store lives inside the mount (`storeRel`, mount-relative, or undefined).
 */
export function walkRules(mountIgnore: readonly string[], storeRel: string | undefined): WalkRules {
  const ignored: Ignore | undefined = mountIgnore.length > 0 ? ignore().add([...mountIgnore]) : undefined;
  const own = boundary(storeRel, []);
  return {
    passOver(rel, isDir) {
      const name = rel.slice(rel.lastIndexOf('/') + 1);
      if (name.startsWith(TEMP_PREFIX)) return 'ws temporary file';
      if (own.own(rel) || (isDir && rel === WS_DIRECTORY)) return 'the ws store';
      if (isDir && isBuiltIn(name)) return 'version control or dependency directory';
      if (ignored?.ignores(isDir ? `${rel}/` : rel)) return 'ignored by the mount\u2019s rules';
      if (!isDir && isEditorFile(name)) return 'editor swap or backup file';
      return undefined;
    },
  };
}
