import { describe, expect, test } from 'bun:test';
import { ignoreFileRules } from '../src/disk/ignore-files.ts';

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
});
