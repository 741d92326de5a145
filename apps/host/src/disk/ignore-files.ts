/**
 * `.gitignore` and `.ignore` files, nested ones included, as ripgrep honours them: each
 * directory's files apply to what is beneath it, a deeper file's rules over a shallower
 * one's, and in one directory `.ignore` over `.gitignore`; the last rule that matches
 * decides, so `!keep.log` un-ignores what an earlier `*.log` ignored. Pure: it reads
 * files only through the function it is given. The one rule: a path is passed over
 * exactly when git's rules (with `.ignore` read after `.gitignore`) say so, and the
 * reason names the file and the rule.
 */
import type { Ignore } from 'ignore';
import { ignore } from './ignore-rules.ts';
import { belowFtl, belowFtlNow } from './one-shot.ts';

/** The ignore files a directory may hold, in the order their rules apply (later wins). */
export const IGNORE_FILES = ['.gitignore', '.ignore'] as const;

/** Whether a walk passes over a path, by the ignore files above it. */
export interface IgnoreFileRules {
  /** `ignored by a/.gitignore: *.log` where a rule ignores `rel` (a directory when `isDir`), else undefined. */
  passOver(rel: string, isDir: boolean): `ignored by ${string}` | undefined;
  /**
   * Told the names a directory was just listed with (a walk's listing): where it holds no
   * ignore file, none is looked for there (no stat per directory for files that are not there).
   */
  listed(dir: string, names: { has(name: string): boolean }): void;
  /** {@link passOver} for the entries of directory `dir`, its rules found once: asked of each entry's name and its path. */
  inDirectory(dir: string): (name: string, rel: string, isDir: boolean) => `ignored by ${string}` | undefined;
}

/**
 * Rules from the ignore files of each directory, read (once each, when first needed)
 * with `readText(rel)`: the text of the mount-relative file, or undefined where there is none.
 */
export function ignoreFileRules(readText: (rel: string) => string | undefined): IgnoreFileRules {
  const byDir = new Map<string, DirRules | null>();
  const rulesOf = (dir: string): DirRules | null => {
    let rules = byDir.get(dir);
    if (rules !== undefined) return rules;
    const lines: { pattern: string; mark: string }[] = [];
    for (const name of IGNORE_FILES) {
      const file = dir === '' ? name : `${dir}/${name}`;
      const text = readText(file);
      if (text === undefined) continue;
      for (const pattern of text.split(/\r?\n/)) lines.push({ pattern, mark: file });
    }
    rules = lines.length === 0 ? null : (byName(lines) ?? byLibrary(lines));
    byDir.set(dir, rules);
    return rules;
  };
  /** The directories at and above `dir` that hold rules, deepest first, each with where its part of a path starts: found once per directory. */
  const chains = new Map<string, readonly Link[]>();
  const chainOf = belowFtlNow((dir: string): readonly Link[] => {
    let chain = chains.get(dir);
    if (chain !== undefined) return chain;
    const cut = dir.lastIndexOf('/');
    const above = dir === '' ? [] : chainOf(cut < 0 ? '' : dir.slice(0, cut));
    const own = rulesOf(dir);
    chain = own === null ? above : [{ dir, rules: own, from: dir === '' ? 0 : dir.length + 1 }, ...above];
    if (chains.size >= 100_000) chains.clear();
    chains.set(dir, chain);
    return chain;
  });
  return {
    listed(dir, names) {
      if (!byDir.has(dir) && !holdsIgnoreFile(names)) byDir.set(dir, null);
    },
    passOver(rel, isDir) {
      const cut = rel.lastIndexOf('/');
      const chain = chainOf(cut < 0 ? '' : rel.slice(0, cut));
      return chain.length === 0 ? undefined : decided(chain, rel.slice(cut + 1), rel, isDir);
    },
    inDirectory(dir) {
      const chain = chainOf(dir);
      return (name, rel, isDir) => (chain.length === 0 ? undefined : decided(chain, name, rel, isDir));
    },
  };
}

/** Whether a listing names an ignore file: a loop, not `Array.prototype.some` (a builtin every caller shares, which FTL compiled in a one-shot sync). */
function holdsIgnoreFile(names: { has(name: string): boolean }): boolean {
  for (const name of IGNORE_FILES) if (names.has(name)) return true;
  return false;
}

/** From the deepest directory up: the first set of rules that decides, decides. */
function decided(chain: readonly Link[], name: string, rel: string, isDir: boolean): `ignored by ${string}` | undefined {
  for (const { dir, rules, from } of chain) {
    const found = rules.kind === 'names' ? rules.test(name, isDir) : rules.test(rel.slice(from), isDir);
    if (found === undefined) continue;
    if (found === null) return undefined;
    return `ignored by ${found.mark || dir}: ${found.pattern}`;
  }
  return undefined;
}

belowFtl(decided, holdsIgnoreFile);

/** The rule that decided a path: the one that ignores it, null where one un-ignores it, undefined where none speaks. */
type Verdict = { readonly pattern: string; readonly mark: string } | null | undefined;

/** One directory's rules, as a walk asks them: of a path beneath it (its part below the directory). */
type DirRules =
  /** Every rule a plain name or glob of one name: asked of the last name only (a walk has passed every directory above). */
  | { readonly kind: 'names'; test(name: string, isDir: boolean): Verdict }
  | { readonly kind: 'library'; test(inner: string, isDir: boolean): Verdict };

interface Link {
  readonly dir: string;
  readonly rules: DirRules;
  readonly from: number;
}

/** A rule that names one name: letters, digits, `.`, `_`, `-`, `*` and `?`, perhaps a trailing `/` — no `!`, no escapes, no inner slash. */
const NAME_RULE = /^(?!\.{1,2}\/?$)[A-Za-z0-9._*?-]+\/?$/;

/**
 * Rules that each name one name (`*.map`, `coverage/`, `ignored-*.txt`), read by hand as
 * git reads them: such a rule matches a name at any depth beneath its directory, `*`
 * any run of characters and `?` any one, a trailing `/` directories only; the last rule
 * that matches names itself (with no `!` among them, none un-ignores). Null where any rule
 * is of another shape: `ignore` reads those. The `ignore` package keeps every path it
 * was asked about; these keep nothing per path. A test holds the two to the same answers.
 */
function byName(lines: readonly { pattern: string; mark: string }[]): DirRules | null {
  const rules: { pattern: string; mark: string; dirOnly: boolean; re: RegExp }[] = [];
  for (const { pattern, mark } of lines) {
    if (pattern === '' || pattern.startsWith('#')) continue;
    if (!NAME_RULE.test(pattern)) return null;
    const dirOnly = pattern.endsWith('/');
    const glob = dirOnly ? pattern.slice(0, -1) : pattern;
    const source = glob.replace(/\./g, '\\.').replace(/\*+/g, '.*').replace(/\?/g, '.');
    rules.unshift({ pattern, mark, dirOnly, re: new RegExp(`^${source}$`) });
  }
  return {
    kind: 'names',
    test: belowFtlNow((name: string, isDir: boolean): Verdict => {
      for (const r of rules) if ((isDir || !r.dirOnly) && r.re.test(name)) return r;
      return undefined;
    }),
  };
}

function byLibrary(lines: readonly { pattern: string; mark: string }[]): DirRules {
  // Case counts, as git (core.ignorecase off) and ripgrep read ignore files.
  const rules: Ignore = ignore({ allowRelativePaths: true, ignorecase: false });
  rules.add([...lines]);
  return {
    kind: 'library',
    test(inner, isDir) {
      const found = rules.test(isDir ? `${inner}/` : inner);
      if (found.ignored) return { pattern: found.rule?.pattern ?? '', mark: (found.rule as { mark?: string } | undefined)?.mark ?? '' };
      return found.unignored ? null : undefined;
    },
  };
}
