/**
 * Reads resolve through directories held for a moment (the disk port's READ_DIR_MS): a
 * first sync reads thousands of files in a few hundred directories without walking each
 * path from the root again. What that must never do: keep a file's bytes (only the
 * directory is held), outlive a walk or an effect, follow a link or a swapped directory
 * past them, or pile up descriptors.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reading } from '@ws/reconcile';
import { diskPort } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';
import { dec, repeatedNameTree, seededRandom, tempDir } from './fixtures.ts';

const disk = (root: string) => diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 10_000 });
const text = (r: Reading) => (r.kind === 'file' && r.bytes !== null ? dec(r.bytes) : r.kind);
const openFds = () => readdirSync('/proc/self/fd').length;

describe('reads through held directories', () => {
  test('a file saved in place, or replaced, in a held directory reads as it is now', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a/x.txt'), 'one');
    writeFileSync(join(root, 'a/y.txt'), 'why');
    const d = disk(root);
    expect(text(await d.read('a/x.txt', 1000))).toBe('one');
    writeFileSync(join(root, 'a/x.txt'), 'two');
    expect(text(await d.read('a/x.txt', 1000))).toBe('two');
    writeFileSync(join(root, 'a/x.new'), 'three');
    renameSync(join(root, 'a/x.new'), join(root, 'a/x.txt'));
    expect(text(await d.read('a/x.txt', 1000))).toBe('three');
    rmSync(join(root, 'a/y.txt'));
    expect(text(await d.read('a/y.txt', 1000))).toBe('absent');
  });

  test('a directory swapped for another, or for a symlink, is read afresh after a walk and after the hold runs out', async () => {
    const root = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, 'x.txt'), 'outside');
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a/x.txt'), 'old');
    const d = disk(root);
    expect(text(await d.read('a/x.txt', 1000))).toBe('old');
    // Swapped for another directory of the same name: a walk lets the held one go.
    renameSync(join(root, 'a'), join(root, 'a.old'));
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a/x.txt'), 'new');
    await d.walk('');
    expect(text(await d.read('a/x.txt', 1000))).toBe('new');
    // Swapped for a link leading out: once the hold runs out, the link is refused, never followed.
    expect(text(await d.read('a/x.txt', 1000))).toBe('new');
    rmSync(join(root, 'a'), { recursive: true });
    symlinkSync(outside, join(root, 'a'));
    await Bun.sleep(400);
    const r = await d.read('a/x.txt', 1000);
    expect(r.kind).toBe('unobservable');
    // And after a walk at once, with no wait.
    rmSync(join(root, 'a'));
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a/x.txt'), 'newer');
    expect(text(await d.read('a/x.txt', 1000))).toBe('newer');
    rmSync(join(root, 'a'), { recursive: true });
    symlinkSync(outside, join(root, 'a'));
    await d.walk('');
    expect((await d.read('a/x.txt', 1000)).kind).toBe('unobservable');
  });

  test('a directory held on the way to another is read through only while held: swapped for a link, it is refused after the hold and after a walk', async () => {
    const root = tempDir();
    const outside = tempDir();
    mkdirSync(join(outside, 'd'));
    writeFileSync(join(outside, 'd/y.txt'), 'outside');
    mkdirSync(join(root, 'a/b/c'), { recursive: true });
    mkdirSync(join(root, 'a/b/d'));
    writeFileSync(join(root, 'a/b/c/x.txt'), 'x');
    writeFileSync(join(root, 'a/b/d/y.txt'), 'inside');
    const d = disk(root);
    // Holds a, a/b (on the way) and a/b/c.
    expect(text(await d.read('a/b/c/x.txt', 1000))).toBe('x');
    renameSync(join(root, 'a/b'), join(root, 'a/b.old'));
    symlinkSync(outside, join(root, 'a/b'));
    // Within the hold a read goes on through the directory held, wherever it was moved: never through the link.
    expect(text(await d.read('a/b/d/y.txt', 1000))).not.toBe('outside');
    await Bun.sleep(400);
    expect((await d.read('a/b/d/y.txt', 1000)).kind).toBe('unobservable');
    // Held again on the way, then a walk: refused at once.
    rmSync(join(root, 'a/b'));
    renameSync(join(root, 'a/b.old'), join(root, 'a/b'));
    expect(text(await d.read('a/b/c/x.txt', 1000))).toBe('x');
    renameSync(join(root, 'a/b'), join(root, 'a/b.old'));
    symlinkSync(outside, join(root, 'a/b'));
    await d.walk('');
    expect((await d.read('a/b/d/y.txt', 1000)).kind).toBe('unobservable');
  });

  test('reads in any order of a tree whose directories repeat names at every depth each find their own file', async () => {
    const root = tempDir();
    const files = repeatedNameTree(root, 29, 120, 5);
    const d = disk(root);
    for (const order of [[...files].sort(), files, [...files].reverse()]) {
      for (const path of order) expect(text(await d.read(path, 1000))).toBe(`this is ${path}`);
    }
  });

  test('a write or an unlink through the port lets held directories go, so the next read resolves afresh', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a/x.txt'), 'old');
    const d = disk(root);
    expect(text(await d.read('a/x.txt', 1000))).toBe('old');
    renameSync(join(root, 'a'), join(root, 'a.old'));
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a/x.txt'), 'new');
    const wrote = await d.write('b.txt', new TextEncoder().encode('b'), { mode: null, expect: { kind: 'absent' } });
    expect(wrote.kind).toBe('done');
    expect(text(await d.read('a/x.txt', 1000))).toBe('new');
  });

  test('reads across many directories hold a bounded number of descriptors, and none once the hold runs out', async () => {
    const root = tempDir();
    for (let i = 0; i < 150; i++) {
      mkdirSync(join(root, `d${i}/deep`), { recursive: true });
      writeFileSync(join(root, `d${i}/deep/f.txt`), `file ${i}`);
    }
    const d = disk(root);
    const before = openFds();
    for (let i = 0; i < 150; i++) expect(text(await d.read(`d${i}/deep/f.txt`, 1000))).toBe(`file ${i}`);
    expect(openFds() - before).toBeLessThanOrEqual(64);
    await Bun.sleep(600);
    expect(openFds()).toBeLessThanOrEqual(before);
  });

  test('a path spelled with empty, `.` or `..` parts, or a slash first or last, reads as its plain spelling does, or is refused', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'a/b'), { recursive: true });
    writeFileSync(join(root, 'a/b/x.txt'), 'deep');
    writeFileSync(join(root, 'a/y.txt'), 'shallow');
    writeFileSync(join(root, 'z.txt'), 'top');
    writeFileSync(join(root, '..z'), 'dots in a name');
    writeFileSync(join(root, 'a/.hidden'), 'hidden');
    const d = disk(root);
    const random = seededRandom(17);
    const parts = [['a', 'b', 'x.txt'], ['a', 'y.txt'], ['z.txt'], ['..z'], ['a', '.hidden'], ['a', 'b', 'nothing.txt']];
    const extras = ['', '.', '..'];
    for (let i = 0; i < 400; i++) {
      const plain = parts[random(parts.length)];
      const spelled: string[] = [];
      let leaves = false;
      for (const part of plain) {
        while (random(4) === 0) {
          const extra = extras[random(extras.length)];
          if (extra === '..') leaves = true;
          spelled.push(extra);
        }
        spelled.push(part);
      }
      let name = spelled.join('/');
      if (random(4) === 0) name = `${name}/`;
      if (random(8) === 0) name = `/${name}`;
      const got = await d.read(name, 1000);
      if (leaves || name.startsWith('/')) {
        expect(got.kind, name).toBe('unobservable');
      } else {
        expect(text(got), name).toBe(text(await d.read(plain.join('/'), 1000)));
      }
    }
  });
});

