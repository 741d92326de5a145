/**
 * The mount's `ignore` list read by hand where every rule is a bare directory name,
 * against the `ignore` package reading the same rules: the same paths passed over, by
 * the same rule. And a list that is not all bare names still goes to `ignore`.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import makeIgnore from 'ignore';
import { mountRules } from '../src/disk/ignore-rules.ts';

const byPackage = (patterns: readonly string[]) => {
  const rules = makeIgnore().add([...patterns]);
  return (rel: string, isDir: boolean): string | undefined => {
    const found = rules.test(isDir ? `${rel}/` : rel);
    return found.ignored ? (found.rule?.pattern ?? '') : undefined;
  };
};

const NAMES = ['node_modules', '.git', 'build', 'a', 'b.c', 'x.txt', 'Build', 'BUILD', 'Node_Modules', 'node_modules2', '-x', 'k', '\u212a', '.', '..', 'a.log', 'A.LOG', '.log', 'log', 'x.log.txt'];

describe('the mount ignore list read by hand', () => {
  test('bare directory names and star-endings: the same answers as the ignore package, path by path', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...NAMES).map((n) => `${n}/`), fc.constantFrom('*.log', '*.LOG', '*log', '*.txt', '*x', '*.c', '*-x')), { minLength: 1, maxLength: 4 }),
        fc.array(fc.constantFrom(...NAMES.filter((n) => n !== '.' && n !== '..')), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        (patterns, segments, isDir) => {
          const rel = segments.join('/');
          expect(mountRules(patterns)!(rel, isDir)).toBe(byPackage(patterns)(rel, isDir));
        },
      ),
      { numRuns: 2000, seed: 15 },
    );
  });

  test('the default rules pass over node_modules, .git and *.log at any depth and all beneath, and not a file named node_modules', () => {
    const test = mountRules(['node_modules/', '.git/', '*.log'])!;
    expect(test('a/b/x.log', false)).toBe('*.log');
    expect(test('logs.log/inner.txt', false)).toBe('*.log');
    expect(test('node_modules', true)).toBe('node_modules/');
    expect(test('a/b/.git', true)).toBe('.git/');
    expect(test('a/node_modules/x/y.js', false)).toBe('node_modules/');
    expect(test('node_modules', false)).toBeUndefined();
    expect(test('a/node_modules.js', false)).toBeUndefined();
  });

  test('rules that are not all bare directory names are read by the ignore package', () => {
    for (const patterns of [['./'], ['*.l?g'], ['*'], ['a*.log'], ['\u212a/'], ['node_modules/', '*.log'], ['!keep/', 'build/'], ['/build/'], ['a/b/'], ['build'], ['bu ild/']]) {
      for (const [rel, isDir] of [['build', true], ['x.log', false], ['a/b', true], ['keep', true], ['bu ild', true], ['node_modules/q', false]] as const) {
        expect(mountRules(patterns)!(rel, isDir)).toBe(byPackage(patterns)(rel, isDir));
      }
    }
  });

  test('no rules: nothing to test', () => {
    expect(mountRules([])).toBeUndefined();
  });
});
