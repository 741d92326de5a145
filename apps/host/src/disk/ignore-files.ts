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
  listed(dir: string, names: ReadonlySet<string>): void;
}

/**
 * Rules from the ignore files of each directory, read (once each, when first needed)
 * with `readText(rel)`: the text of the mount-relative file, or undefined where there is none.
 */
export function ignoreFileRules(readText: (rel: string) => string | undefined): IgnoreFileRules {
  const byDir = new Map<string, Ignore | null>();
  const rulesOf = (dir: string): Ignore | null => {
    let rules = byDir.get(dir);
    if (rules !== undefined) return rules;
    rules = null;
    for (const name of IGNORE_FILES) {
      const file = dir === '' ? name : `${dir}/${name}`;
      const text = readText(file);
      if (text === undefined) continue;
      const patterns = text.split(/\r?\n/).map((pattern) => ({ pattern, mark: file }));
      // Case counts, as git (core.ignorecase off) and ripgrep read ignore files.
      rules ??= ignore({ allowRelativePaths: true, ignorecase: false });
      rules.add(patterns);
    }
    byDir.set(dir, rules);
    return rules;
  };
  /** The directories at and above `dir` that hold rules, deepest first, each with where its part of a path starts: found once per directory. */
  const chains = new Map<string, readonly { dir: string; rules: Ignore; from: number }[]>();
  const chainOf = (dir: string): readonly { dir: string; rules: Ignore; from: number }[] => {
    let chain = chains.get(dir);
    if (chain !== undefined) return chain;
    const cut = dir.lastIndexOf('/');
    const above = dir === '' ? [] : chainOf(cut < 0 ? '' : dir.slice(0, cut));
    const own = rulesOf(dir);
    chain = own === null ? above : [{ dir, rules: own, from: dir === '' ? 0 : dir.length + 1 }, ...above];
    if (chains.size >= 100_000) chains.clear();
    chains.set(dir, chain);
    return chain;
  };
  return {
    listed(dir, names) {
      if (!byDir.has(dir) && !IGNORE_FILES.some((name) => names.has(name))) byDir.set(dir, null);
    },
    passOver(rel, isDir) {
      // From the deepest directory up: the first set of rules that decides, decides.
      const cut = rel.lastIndexOf('/');
      for (const { dir, rules, from } of chainOf(cut < 0 ? '' : rel.slice(0, cut))) {
        const inner = rel.slice(from);
        const found = rules.test(isDir ? `${inner}/` : inner);
        if (found.ignored) return `ignored by ${found.rule?.mark ?? dir}: ${found.rule?.pattern ?? ''}`;
        if (found.unignored) return undefined;
      }
      return undefined;
    },
  };
}
