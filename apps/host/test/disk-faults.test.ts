/**
 * Faults on disk as sentences: a directory removed mid-walk is skipped, not a failed
 * walk (following links or not); system errors are named in words; the path-checking
 * fallback (no libc through bun:ffi) passes the disk port's own tests.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { holdsByDescriptor } from '../src/disk/held.ts';
import { walkRules } from '../src/disk/rules.ts';
import { describeFsError } from '../src/disk/sentences.ts';
import { newTally, visitTree } from '../src/disk/walk.ts';
import { tempDir } from './fixtures.ts';

describe('a directory removed mid-walk', () => {
  for (const follow of [false, true]) {
    test(`is skipped and the walk goes on${follow ? ' (following links)' : ''}`, () => {
      const root = tempDir();
      for (const d of ['a', 'b', 'c']) {
        mkdirSync(join(root, d, 'inner'), { recursive: true });
        writeFileSync(join(root, d, 'inner/f.txt'), d);
        writeFileSync(join(root, d, 'g.txt'), d);
      }
      if (follow) symlinkSync('c', join(root, 'link'));
      const seen: string[] = [];
      const tally = newTally();
      visitTree({ root, from: '', rules: walkRules([], undefined), followSymlinks: follow, cap: 1000 }, tally, (path, kind) => {
        seen.push(path);
        // Each directory is removed just after the walk is told of it, before it is entered.
        if (kind === 'directory' && (path === 'b' || path === 'link' || path === 'a/inner')) {
          rmSync(join(root, path), { recursive: true, force: true });
        }
      });
      expect(seen).toContain('a/g.txt');
      expect(seen).toContain('c/inner/f.txt');
      expect(seen.filter((p) => p.startsWith('b/') || p.startsWith('a/inner/') || p.startsWith('link/'))).toEqual([]);
      expect(tally.unreadable).toEqual([]);
      // Each is skipped with a reason a person reads in ls, sync and status.
      expect(tally.passedOver['a directory that vanished during the walk']).toBe(follow ? 3 : 2);
    });
  }
});

describe('system errors in words', () => {
  const cases: [string, string][] = [
    ['ENOSPC', 'the disk is full'],
    ['EDQUOT', 'the disk quota is used up'],
    ['EACCES', 'permission denied'],
    ['EPERM', 'permission denied'],
    ['EROFS', 'the file system is read-only'],
    ['EIO', 'the disk reported an input/output error'],
    ['ELOOP', 'too many symbolic links'],
    ['ENOTDIR', 'a part of the path is not a directory'],
    ['EISDIR', 'a directory is where the file was'],
    ['EMFILE', 'too many files are open'],
    ['ENAMETOOLONG', 'the name is too long'],
  ];
  for (const [code, words] of cases) {
    test(`${code} reads "${words}"`, () => {
      expect(describeFsError(Object.assign(new Error('x'), { code }))).toBe(words);
    });
  }
  test('an unknown error is cut at 200 characters', () => {
    expect(describeFsError(new Error('y'.repeat(10_000))).length).toBeLessThanOrEqual(201);
  });
});

test('on Linux the disk holds directories by descriptor, and the path-checking fallback passes the disk tests too', () => {
  if (process.platform === 'linux') expect(holdsByDescriptor).toBe(true);
  const run = Bun.spawnSync(['bun', 'test', 'test/disk.test.ts', 'test/symlink-target.test.ts'], {
    cwd: join(import.meta.dir, '..'),
    env: { ...process.env, WS_DISK_FALLBACK: '1' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  expect({ code: run.exitCode, out: run.exitCode === 0 ? '' : run.stderr.toString().slice(-3000) }).toEqual({ code: 0, out: '' });
}, 120_000);
