/**
 * A walk in parts (a search's: `walk(dir, { continuing: true })` for each part after the
 * first) lists each part from the directories its earlier parts were listed from, held
 * a moment (WALK_DIR_MS), and reads the ignore files once for the whole walk. What that
 * must never do: list a directory on the way that was swapped for a symlink between two
 * parts, outlive an effect, the next walk or its hold, pile up descriptors, or keep an
 * ignore file edited between two walks from counting in the next (in walk Workers too).
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diskPort } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';
import { callerWalks, walkedInWorkers } from '../src/disk/walk-parallel.ts';
import { tempDir } from './fixtures.ts';

const openFds = () => readdirSync('/proc/self/fd').length;
const workersWere = process.env.WS_WALK_WORKERS;
afterEach(() => {
  if (workersWere === undefined) delete process.env.WS_WALK_WORKERS;
  else process.env.WS_WALK_WORKERS = workersWere;
});
const disk = (root: string) => diskPort({ root, rules: walkRules([], undefined, root), followSymlinks: false, walkCap: 100_000 });

/** root/a/b/{one,two}.txt and root/a/c/three.txt inside; outside/b and outside/c hold a secret by the same names. */
function trees(): { root: string; outside: string } {
  const root = tempDir('ws-parts-');
  const outside = tempDir('ws-parts-out-');
  for (const base of [join(root, 'a'), outside]) {
    mkdirSync(join(base, 'b'), { recursive: true });
    mkdirSync(join(base, 'c'));
  }
  writeFileSync(join(root, 'a/b/one.txt'), 'one');
  writeFileSync(join(root, 'a/b/two.txt'), 'two');
  writeFileSync(join(root, 'a/c/three.txt'), 'three');
  for (const f of ['b/one.txt', 'b/two.txt', 'b/secret.txt', 'c/three.txt', 'c/secret.txt']) writeFileSync(join(outside, f), 'outside');
  return { root, outside };
}

const names = (w: { readonly files: readonly { readonly path: string }[]; readonly directories: readonly string[] }) => [...w.directories, ...w.files.map((f) => f.path)].sort();

describe('a walk in parts', () => {
  test('a directory on the way swapped for a symlink between two parts: never listed through, the part refused as a walk from the root refuses it', async () => {
    const { root, outside } = trees();
    const d = disk(root);
    await d.walk('', { shallow: true });
    expect(names(await d.walk('a', { shallow: true, continuing: true }))).toEqual(['a/b', 'a/c']);
    // a is held now, a/c not yet.
    renameSync(join(root, 'a/c'), join(root, 'a/c.old'));
    symlinkSync(join(outside, 'c'), join(root, 'a/c'));
    const c = await d.walk('a/c', { continuing: true });
    expect(c.files).toEqual([]);
    expect(c.unreadable.map((u) => u.path)).toEqual(['a/c']);
    // The same words as a walk that is not a part (from the root) gives.
    expect(c.unreadable).toEqual((await disk(root).walk('a/c')).unreadable);
    // a itself swapped: the part is listed from the directory held, wherever it is now — never from outside.
    renameSync(join(root, 'a'), join(root, 'a.old'));
    symlinkSync(outside, join(root, 'a'));
    const b = await d.walk('a/b', { continuing: true });
    expect(b.files.map((f) => f.path)).toEqual(['a/b/one.txt', 'a/b/two.txt']);
    expect(b.files.map((f) => f.path)).not.toContain('a/b/secret.txt');
  });

  test('what is held is let go at an effect, at the next walk that is not a part, and after its hold: then the link is refused', async () => {
    for (const after of ['write', 'walk', 'hold'] as const) {
      const { root, outside } = trees();
      const d = disk(root);
      await d.walk('', { shallow: true });
      await d.walk('a', { shallow: true, continuing: true });
      renameSync(join(root, 'a'), join(root, 'a.old'));
      symlinkSync(outside, join(root, 'a'));
      if (after === 'write') expect((await d.write('x.txt', new TextEncoder().encode('x'), { mode: null, expect: { kind: 'absent' } })).kind).toBe('done');
      if (after === 'walk') await d.walk('', { shallow: true });
      if (after === 'hold') await Bun.sleep(1_500);
      const b = await d.walk('a/b', { continuing: true });
      expect(b.files, after).toEqual([]);
      expect(b.unreadable.map((u) => u.path), after).toEqual(['a/b']);
    }
  });

  test('many parts hold a bounded number of descriptors, and none once the hold runs out', async () => {
    const root = tempDir('ws-parts-fds-');
    for (let i = 0; i < 60; i++) {
      mkdirSync(join(root, `d${i}/e/f`), { recursive: true });
      writeFileSync(join(root, `d${i}/e/f/x.txt`), `${i}`);
    }
    const d = disk(root);
    await Bun.sleep(1_500);
    const before = openFds();
    await d.walk('', { shallow: true });
    let files = 0;
    for (let i = 0; i < 60; i++) {
      await d.walk(`d${i}`, { shallow: true, continuing: true });
      await d.walk(`d${i}/e`, { shallow: true, continuing: true });
      files += (await d.walk(`d${i}/e/f`, { continuing: true })).files.length;
    }
    expect(files).toBe(60);
    expect(openFds() - before).toBeGreaterThan(0);
    expect(openFds() - before).toBeLessThanOrEqual(32);
    await Bun.sleep(1_500);
    expect(openFds()).toBeLessThanOrEqual(before);
  });

  test('an ignore file edited between two walks counts from the next walk (its Workers too); within one walk in parts it is read once', async () => {
    const root = tempDir('ws-parts-ignore-');
    // Enough at the top for a whole walk to use Workers (PARALLEL_FROM entries).
    for (let i = 0; i < 300; i++) writeFileSync(join(root, `top${i}.txt`), 'x');
    for (let i = 0; i < 8; i++) {
      mkdirSync(join(root, `s${i}/deep`), { recursive: true });
      writeFileSync(join(root, `s${i}/deep/a.log`), 'log');
      writeFileSync(join(root, `s${i}/deep/a.txt`), 'txt');
    }
    const d = disk(root);
    const logs = (w: { readonly files: readonly { readonly path: string }[] }) => w.files.filter((f) => f.path.endsWith('.log')).length;
    // Two Workers whatever the cores, and they walk every subtree (this thread claims
    // none: let go at once, it would take them before a Worker is up); put back after.
    process.env.WS_WALK_WORKERS = '2';
    callerWalks.joins = false;
    try {
      const parts = walkedInWorkers.parts;
      expect(logs(await d.walk(''))).toBe(8);
      expect(walkedInWorkers.parts).toBeGreaterThan(parts);
      writeFileSync(join(root, '.gitignore'), '*.log\n');
      const again = walkedInWorkers.parts;
      expect(logs(await d.walk(''))).toBe(0);
      expect(walkedInWorkers.parts).toBeGreaterThan(again);
    } finally {
      callerWalks.joins = true;
    }
    // Within one walk in parts: as at its start, whatever is edited between its parts.
    await d.walk('', { shallow: true });
    writeFileSync(join(root, '.gitignore'), '');
    expect(logs(await d.walk('s0', { continuing: true }))).toBe(0);
    // The next walk reads it afresh.
    expect(logs(await d.walk('s1'))).toBe(1);
  });
});
