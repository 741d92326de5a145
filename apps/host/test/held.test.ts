/**
 * A directory held by descriptor: every call acts on the directory it was opened as, a
 * listing starts from its start each time, and a swap or a rename that must not replace
 * is atomic — a name already there is refused, never overwritten.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { holdsByDescriptor, openRoot } from '../src/disk/held.ts';
import { tempDir } from './fixtures.ts';

describe.if(holdsByDescriptor)('a directory held by descriptor', () => {
  test('its listing is the same each time it is asked, and its stats are of its own entries', () => {
    const root = tempDir();
    writeFileSync(join(root, 'a.txt'), 'alpha\n');
    mkdirSync(join(root, 'sub'));
    const dir = openRoot(root);
    try {
      const names = () => dir.entries().map((e) => `${e.name}:${e.type}`).sort();
      expect(names()).toEqual(['a.txt:file', 'sub:directory']);
      expect(names()).toEqual(['a.txt:file', 'sub:directory']);
      expect(dir.lstat('a.txt')?.size).toBe(6);
      expect(dir.lstat('missing')).toBeNull();
      const sub = dir.openDir('sub');
      writeFileSync(join(root, 'sub/b.txt'), 'beta\n');
      expect(sub.entries().map((e) => e.name)).toEqual(['b.txt']);
      sub.close();
    } finally {
      dir.close();
    }
  });

  test('a directory renamed after it was opened is still the one acted on', () => {
    const root = tempDir();
    mkdirSync(join(root, 'sub'));
    const dir = openRoot(root);
    const sub = dir.openDir('sub');
    renameSync(join(root, 'sub'), join(root, 'moved'));
    mkdirSync(join(root, 'sub'));
    sub.mkdir('made');
    expect(dir.openDir('moved').entries().map((e) => e.name)).toEqual(['made']);
    expect(dir.openDir('sub').entries()).toEqual([]);
    sub.close();
    dir.close();
  });

  test('a symlink is never entered as a directory', () => {
    const root = tempDir();
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'link'));
    const dir = openRoot(root);
    expect(() => dir.openDir('link')).toThrow();
    dir.close();
  });

  test('renaming without replacing refuses a name already there; a swap exchanges the two', () => {
    const root = tempDir();
    writeFileSync(join(root, 'new'), 'new\n');
    writeFileSync(join(root, 'there'), 'there\n');
    const dir = openRoot(root);
    const atomic = dir.atomic;
    expect(atomic).not.toBeNull();
    expect(() => atomic?.renameNoReplace('new', 'there')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(readFileSync(join(root, 'there'), 'utf8')).toBe('there\n');
    atomic?.exchange('new', 'there');
    expect(readFileSync(join(root, 'there'), 'utf8')).toBe('new\n');
    expect(readFileSync(join(root, 'new'), 'utf8')).toBe('there\n');
    atomic?.renameNoReplace('new', 'free');
    expect(readFileSync(join(root, 'free'), 'utf8')).toBe('there\n');
    dir.close();
  });
});
