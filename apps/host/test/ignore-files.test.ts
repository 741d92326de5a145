import { describe, expect, test } from 'bun:test';
import { ignoreFileRules } from '../src/disk/ignore-files.ts';
import { ignore } from '../src/disk/ignore-rules.ts';

const rules = (files: Record<string, string>) => {
  const reads: string[] = [];
  const r = ignoreFileRules((rel) => {
    reads.push(rel);
    return files[rel];
  });
  return { r, reads };
};

describe('.gitignore and .ignore files', () => {
  test('a root .gitignore ignores at any depth, naming the file and the rule', () => {
    const { r } = rules({ '.gitignore': '# build output\ndist/\n*.log\n' });
    expect(r.passOver('dist', true)).toBe('ignored by .gitignore: dist/');
    expect(r.passOver('a/b/debug.log', false)).toBe('ignored by .gitignore: *.log');
    expect(r.passOver('dist', false)).toBeUndefined(); // a file named dist is not the directory
    expect(r.passOver('src/a.ts', false)).toBeUndefined();
  });

  test('a nested file applies beneath its directory only, relative to it', () => {
    const { r } = rules({ 'pkg/.gitignore': '/out\nsecret.txt\n' });
    expect(r.passOver('pkg/out', true)).toBe('ignored by pkg/.gitignore: /out');
    expect(r.passOver('pkg/deep/out', true)).toBeUndefined();
    expect(r.passOver('pkg/deep/secret.txt', false)).toBe('ignored by pkg/.gitignore: secret.txt');
    expect(r.passOver('out', true)).toBeUndefined();
    expect(r.passOver('secret.txt', false)).toBeUndefined();
  });

  test('a deeper negation wins over a shallower rule; in one directory the last rule wins', () => {
    const { r } = rules({ '.gitignore': '*.log\n', 'keep/.gitignore': '!important.log\n', 'b/.gitignore': '*.tmp\n!x.tmp\n' });
    expect(r.passOver('keep/important.log', false)).toBeUndefined();
    expect(r.passOver('keep/other.log', false)).toBe('ignored by .gitignore: *.log');
    expect(r.passOver('b/x.tmp', false)).toBeUndefined();
    expect(r.passOver('b/y.tmp', false)).toBe('ignored by b/.gitignore: *.tmp');
  });

  test('.ignore is read after .gitignore in the same directory, so it wins', () => {
    const { r } = rules({ '.gitignore': 'gen/\n', '.ignore': '!gen/\nnotes.md\n' });
    expect(r.passOver('gen', true)).toBeUndefined();
    expect(r.passOver('notes.md', false)).toBe('ignored by .ignore: notes.md');
  });

  test('CRLF ignore files and blank lines read as git reads them', () => {
    const { r } = rules({ '.gitignore': 'a.txt\r\n\r\nb.txt\r\n' });
    expect(r.passOver('a.txt', false)).toBe('ignored by .gitignore: a.txt');
    expect(r.passOver('b.txt', false)).toBe('ignored by .gitignore: b.txt');
  });

  test('each directory’s files are read once, only when a path beneath it is asked about', () => {
    const { r, reads } = rules({});
    r.passOver('a/b/c.ts', false);
    r.passOver('a/b/d.ts', false);
    expect(reads.sort()).toEqual(['.gitignore', '.ignore', 'a/.gitignore', 'a/.ignore', 'a/b/.gitignore', 'a/b/.ignore']);
  });

  test('a directory listed without an ignore file is not looked in for one; one listed with it is read, and answers do not change', () => {
    const files = { 'a/.gitignore': '*.log\n', 'a/b/.ignore': '!keep.log\n' };
    const hinted = rules(files);
    hinted.r.listed('', new Set(['a', 'x.log']));
    hinted.r.listed('a', new Set(['.gitignore', 'b', 'c']));
    hinted.r.listed('a/b', new Set(['.ignore', 'keep.log']));
    hinted.r.listed('a/c', new Set(['d.log']));
    const plain = rules(files);
    for (const [rel, isDir] of [['x.log', false], ['a/y.log', false], ['a/b/keep.log', false], ['a/b/z.log', false], ['a/c/d.log', false], ['a/c', true]] as const) {
      expect(hinted.r.passOver(rel, isDir)).toBe(plain.r.passOver(rel, isDir));
    }
    // The root and a/c were listed without ignore files: never read; a and a/b were.
    expect(hinted.reads.sort()).toEqual(['a/.gitignore', 'a/.ignore', 'a/b/.gitignore', 'a/b/.ignore']);
    expect(plain.reads).toContain('.gitignore');
  });

  test('case counts, as git and ripgrep read ignore files', () => {
    const { r } = rules({ '.gitignore': 'Build/\n*.LOG\n' });
    expect(r.passOver('build', true)).toBeUndefined();
    expect(r.passOver('Build', true)).toBe('ignored by .gitignore: Build/');
    expect(r.passOver('a.log', false)).toBeUndefined();
  });

  test('rules that each name one name, read by hand, answer as the ignore package does, rule and file named alike (seeded)', () => {
    let seed = 1234567;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    const ruleWords = ['*.map', 'coverage/', 'ignored-*.txt', 'a?c', '*', 'dist', 'build/', '*.log', 'x*y*z', '.env', '*.d.ts', '# note', '', 'Build', 'a.b', '*-*'];
    const names = ['a.map', 'coverage', 'ignored-1.txt', 'ignored-.txt', 'abc', 'ac', 'dist', 'build', 'x.log', 'xyz', 'xaybz', '.env', 'b.d.ts', 'Build', 'a.b', 'aXb', 'a-b', 'plain.ts', '.map'];
    let compared = 0;
    for (let round = 0; round < 300; round++) {
      const gitignore = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(ruleWords)).join('\n');
      const dotIgnore = random() < 0.3 ? Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(ruleWords)).join('\n') : undefined;
      const files: Record<string, string> = { 'pkg/.gitignore': gitignore, ...(dotIgnore === undefined ? {} : { 'pkg/.ignore': dotIgnore }) };
      const { r } = rules(files);
      const lib = ignore({ allowRelativePaths: true, ignorecase: false });
      lib.add(gitignore.split('\n').map((pattern) => ({ pattern, mark: 'pkg/.gitignore' })));
      if (dotIgnore !== undefined) lib.add(dotIgnore.split('\n').map((pattern) => ({ pattern, mark: 'pkg/.ignore' })));
      for (const name of names) {
        for (const isDir of [false, true]) {
          const found = lib.test(isDir ? `${name}/` : name);
          const rule = found.rule as { pattern: string; mark: string } | undefined;
          const want = found.ignored ? `ignored by ${rule?.mark}: ${rule?.pattern}` : undefined;
          expect({ files, name, isDir, got: r.passOver(`pkg/${name}`, isDir) as string | undefined }).toEqual({ files, name, isDir, got: want });
          compared++;
        }
      }
    }
    expect(compared).toBe(300 * 19 * 2);
  });
});
