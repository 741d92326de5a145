/**
 * What a walk passes over, and why. The one rule: every name a walk skips is counted
 * under a reason a person recognizes, so a sync that took in nothing can say what it
 * did not look at. A named pass (a tool naming the path) ignores these rules.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { mountRules } from './ignore-rules.ts';
import { boundary, TEMP_PREFIX, WS_DIRECTORY } from './boundary.ts';
import { ignoreFileRules } from './ignore-files.ts';
import { belowFtl, belowFtlNow } from './one-shot.ts';

/** Why a walk passed over a name. */
export type PassedOverReason =
  /** By the mount's `ignore` list or an ignore file, naming it and the rule: `ignored by a/.gitignore: *.log`. */
  | `ignored by ${string}`
  | 'editor swap or backup file'
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

belowFtl(isEditorFile);

/** Decides, for a mount-relative path, whether a walk looks at it. */
export interface WalkRules {
  /** The reason to pass over `rel` (a directory when `isDir`), or undefined to look at it. */
  passOver(rel: string, isDir: boolean): PassedOverReason | undefined;
  /** Told the names directory `rel` was just listed with, before any of them is asked about. */
  listed?(rel: string, names: { has(name: string): boolean }): void;
  /** Forgets the ignore files read so far, so the next question reads them as they are now (a walk starts with it). */
  renew?(): void;
  /**
   * {@link passOver} for the entries of directory `dir` (`''`: the root), what the
   * directory's rules are found once: asked of each entry's name and its path. A walk
   * asks it after `listed`, once per directory.
   */
  inDirectory?(dir: string): (name: string, rel: string, isDir: boolean) => PassedOverReason | undefined;
  /** What {@link walkRules} made these rules from, so a Worker can make the same rules (absent: rules made otherwise). */
  readonly spec?: WalkRulesSpec;
}

/** {@link walkRules}'s arguments, as plain data. */
export interface WalkRulesSpec {
  readonly mountIgnore: readonly string[];
  readonly storeRel: string | undefined;
  readonly ignoreFilesRoot: string | undefined;
}

/** An ignore file's text under `root`, where it is a regular file (a link is not followed). */
function ignoreFileText(root: string): (rel: string) => string | undefined {
  return (rel) => {
    try {
      const abs = `${root}/${rel}`;
      // Most directories hold no ignore file: no error is made for each that does not.
      return lstatSync(abs, { throwIfNoEntry: false })?.isFile() ? readFileSync(abs, 'utf8') : undefined;
    } catch {
      return undefined;
    }
  };
}

/** The rules made for the walk the last question on this thread was of, by walk and spec. */
let madeForWalk: { readonly key: string; readonly rules: ReturnType<typeof walkRules> } | undefined;

/**
 * The rules of walk `walk` (a number unique in the process) from `spec`, made once a walk
 * on this thread — each ignore file read as it is when the walk's first question comes —
 * and afresh for the next walk: what a thread other than the walk's own asks (a walk's
 * Worker, a search's parts).
 */
export function rulesOfWalk(walk: number, spec: WalkRulesSpec): ReturnType<typeof walkRules> {
  const key = JSON.stringify([walk, spec]);
  if (madeForWalk?.key !== key) madeForWalk = { key, rules: walkRules(spec.mountIgnore, spec.storeRel, spec.ignoreFilesRoot) };
  return madeForWalk.rules;
}

/**
 * Rules for one mount: its own `ignore` list (gitignore syntax; its default passes over
 * `node_modules/` and `.git/`), the `.gitignore` and `.ignore` files beneath
 * `ignoreFilesRoot` (the mount's root, or undefined where `gitignore = false`), editors'
 * files, ws's temporary files, and the store's own files where the store lives inside
 * the mount (`storeRel`, mount-relative, or undefined).
 */
export function walkRules(
  mountIgnore: readonly string[],
  storeRel: string | undefined,
  ignoreFilesRoot?: string,
): WalkRules & { inDirectory(dir: string): (name: string, rel: string, isDir: boolean) => PassedOverReason | undefined } {
  const readIgnoreFiles = () => (ignoreFilesRoot === undefined ? undefined : ignoreFileRules(ignoreFileText(ignoreFilesRoot)));
  let byFiles = readIgnoreFiles();
  const test = mountRules(mountIgnore);
  const own = boundary(storeRel, []);
  const inDirectory = (dir: string) => {
    const byOwnHere = test?.inDirectory(dir);
    const byFilesHere = byFiles?.inDirectory(dir);
    const ownHere = own.mayHoldOwn(dir);
    const atTop = dir === '';
    return belowFtlNow((name: string, rel: string, isDir: boolean): PassedOverReason | undefined => {
      if (name.startsWith(TEMP_PREFIX)) return 'ws temporary file';
      if ((ownHere && own.own(rel)) || (isDir && atTop && name === WS_DIRECTORY)) return 'the ws store';
      const byOwn = byOwnHere?.(name, isDir);
      if (byOwn !== undefined) return `ignored by the mount\u2019s ignore: ${byOwn}`;
      const byFile = byFilesHere?.(name, rel, isDir);
      if (byFile !== undefined) return byFile;
      if (!isDir && isEditorFile(name)) return 'editor swap or backup file';
      return undefined;
    });
  };
  return {
    spec: { mountIgnore: [...mountIgnore], storeRel, ignoreFilesRoot },
    renew() {
      byFiles = readIgnoreFiles();
    },
    listed(rel, names) {
      byFiles?.listed(rel, names);
    },
    passOver(rel, isDir) {
      const cut = rel.lastIndexOf('/');
      return inDirectory(cut < 0 ? '' : rel.slice(0, cut))(rel.slice(cut + 1), rel, isDir);
    },
    inDirectory,
  };
}
