/**
 * Gitignore rules without loading the `ignore` package until a rule needs it: a mount's
 * `ignore` and `protect` lists of bare directory names (the defaults) are read by hand,
 * and `ignore` itself loads when first asked for, so a one-shot command that meets no
 * ignore file never pays for it. In a bundle, `require` here is the bundler's own lazy one.
 */
import { createRequire } from 'node:module';
import type makeIgnore from 'ignore';
import type { Ignore, Options } from 'ignore';
import { belowFtl, belowFtlNow } from './one-shot.ts';

let factory: typeof makeIgnore | undefined;

/** A fresh `ignore()` instance. */
export function ignore(options?: Options): Ignore {
  factory ??= (typeof require === 'function' ? require('ignore') : createRequire(import.meta.url)('ignore')) as typeof makeIgnore;
  return factory(options);
}

/** A bare directory name of ASCII letters, digits, `.`, `_` and `-`, and a slash (`node_modules/`); not `./` or `../`. */
const DIRECTORY_NAME = /^(?!\.{1,2}\/$)[A-Za-z0-9._-]+\/$/;
/** A star and a literal ending of the same characters (`*.log`): any name, file or directory, that ends so. */
const ENDING = /^\*[A-Za-z0-9._-]+$/;

/** ASCII letters lowered, nothing else: how a case-blind regex without the `u` flag compares ASCII names. */
const asciiLower = (s: string) => (/[A-Z]/.test(s) ? s.replace(/[A-Z]/g, (c) => c.toLowerCase()) : s);

/**
 * Whether `s` from `at` to its end is `lower` (already {@link asciiLower}ed), ASCII letters
 * compared case-blind, nothing else folded: a walk asks it of every name, so nothing is
 * made for the answer.
 */
function sameAsciiBlind(s: string, at: number, lower: string): boolean {
  if (s.length - at !== lower.length) return false;
  for (let k = 0; k < lower.length; k++) {
    const c = s.charCodeAt(at + k);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lower.charCodeAt(k)) return false;
  }
  return true;
}

belowFtl(sameAsciiBlind);

/**
 * The mount's `ignore` (or `protect`) list as a test answering the rule that passes over
 * `rel`, or undefined. Where every rule is a bare directory name or a star and an ending
 * (the defaults: `node_modules/`, `.git/`, `*.log`), it is read by hand as gitignore
 * reads such rules — at any depth; a directory that matches takes all beneath it (the
 * shallowest such directory decides); among rules that match one name, the last one
 * names itself; case-blind for ASCII letters, as `ignore()` reads the mount's list — so
 * the `ignore` package is not loaded. Otherwise `ignore` reads them. A test holds the two
 * to the same answers.
 */
/** A mount's list as a test of a path, and of the names of one directory (found once for all it holds). */
export type MountTest = ((rel: string, isDir: boolean) => string | undefined) & {
  readonly inDirectory: (dir: string) => (name: string, isDir: boolean) => string | undefined;
};

export function mountRules(patterns: readonly string[]): MountTest | undefined {
  if (patterns.length === 0) return undefined;
  if (patterns.every((p) => DIRECTORY_NAME.test(p) || ENDING.test(p))) {
    const rules = patterns.map((pattern) =>
      pattern.endsWith('/')
        ? { pattern, dirOnly: true, name: asciiLower(pattern.slice(0, -1)), ending: null }
        : { pattern, dirOnly: false, name: null, ending: asciiLower(pattern.slice(1)) },
    ).reverse();
    // The defaults name directories only: a file's own name is then never asked about.
    const anyForFiles = rules.some((r) => !r.dirOnly);
    const matching = belowFtlNow((segment: string, asDir: boolean): string | null => {
      if (!asDir && !anyForFiles) return null;
      for (const r of rules) {
        if (r.dirOnly && !asDir) continue;
        if (r.name !== null ? sameAsciiBlind(segment, 0, r.name) : r.ending !== null && segment.length >= r.ending.length && sameAsciiBlind(segment, segment.length - r.ending.length, r.ending)) {
          return r.pattern;
        }
      }
      return null;
    });
    // A directory's verdict (its own name or an ancestor's), found once for all it holds.
    const byDir = new Map<string, string | null>();
    const dirRule = belowFtlNow((dir: string): string | null => {
      let verdict = byDir.get(dir);
      if (verdict !== undefined) return verdict;
      const cut = dir.lastIndexOf('/');
      verdict = (cut < 0 ? null : dirRule(dir.slice(0, cut))) ?? matching(dir.slice(cut + 1), true);
      if (byDir.size >= 100_000) byDir.clear();
      byDir.set(dir, verdict);
      return verdict;
    });
    const byHand = (rel: string, isDir: boolean) => {
      const cut = rel.lastIndexOf('/');
      return (cut < 0 ? null : dirRule(rel.slice(0, cut))) ?? matching(rel.slice(cut + 1), isDir) ?? undefined;
    };
    return Object.assign(byHand, {
      inDirectory(dir: string) {
        const above = dir === '' ? null : dirRule(dir);
        return (name: string, isDir: boolean) => above ?? matching(name, isDir) ?? undefined;
      },
    });
  }
  const rules: Ignore = ignore().add([...patterns]);
  const byLibrary = (rel: string, isDir: boolean) => {
    const found = rules.test(isDir ? `${rel}/` : rel);
    return found.ignored ? (found.rule?.pattern ?? '') : undefined;
  };
  return Object.assign(byLibrary, {
    inDirectory(dir: string) {
      const prefix = dir === '' ? '' : `${dir}/`;
      return (name: string, isDir: boolean) => byLibrary(prefix + name, isDir);
    },
  });
}
