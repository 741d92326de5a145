/**
 * Gitignore rules without loading the `ignore` package until a rule needs it: a mount's
 * `ignore` and `protect` lists of bare directory names (the defaults) are read by hand,
 * and `ignore` itself loads when first asked for, so a one-shot command that meets no
 * ignore file never pays for it. In a bundle, `require` here is the bundler's own lazy one.
 */
import { createRequire } from 'node:module';
import type makeIgnore from 'ignore';
import type { Ignore, Options } from 'ignore';

let factory: typeof makeIgnore | undefined;

/** A fresh `ignore()` instance. */
export function ignore(options?: Options): Ignore {
  factory ??= (typeof require === 'function' ? require('ignore') : createRequire(import.meta.url)('ignore')) as typeof makeIgnore;
  return factory(options);
}

/** A bare directory name of ASCII letters, digits, `.`, `_` and `-`, and a slash (`node_modules/`); not `./` or `../`. */
const DIRECTORY_NAME = /^(?!\.{1,2}\/$)[A-Za-z0-9._-]+\/$/;

/** ASCII letters lowered, nothing else: how a case-blind regex without the `u` flag compares ASCII names. */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/**
 * The mount's `ignore` list as a test answering the rule that passes over `rel`, or
 * undefined. Where every rule is a bare directory name (the default, `node_modules/` and
 * `.git/`), it is read by hand, as gitignore reads such a rule — a directory of that name
 * at any depth, and all beneath it (the shallowest such directory names the rule) — so
 * the `ignore` package is not loaded; case-blind for ASCII letters, as `ignore()` reads
 * the mount's list; otherwise `ignore` reads them (a test holds the
 * two to the same answers).
 */
export function mountRules(patterns: readonly string[]): ((rel: string, isDir: boolean) => string | undefined) | undefined {
  if (patterns.length === 0) return undefined;
  if (patterns.every((p) => DIRECTORY_NAME.test(p))) {
    const byName = new Map<string, string>();
    for (const p of patterns) {
      // The last rule that matches names itself, as in ignore files.
      byName.set(asciiLower(p.slice(0, -1)), p);
    }
    return (rel, isDir) => {
      const names = rel.split('/');
      const dirs = isDir ? names.length : names.length - 1;
      for (let i = 0; i < dirs; i++) {
        const rule = byName.get(asciiLower(names[i]));
        if (rule !== undefined) return rule;
      }
      return undefined;
    };
  }
  const rules: Ignore = ignore().add([...patterns]);
  return (rel, isDir) => {
    const found = rules.test(isDir ? `${rel}/` : rel);
    return found.ignored ? (found.rule?.pattern ?? '') : undefined;
  };
}

