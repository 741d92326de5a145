/**
 * A direct mount's search walks its tree in parts (`walkInParts`), so grep's Workers read
 * one part while the next is walked: the files, their order and where the walk's cap
 * cuts them must be a whole walk's, on trees with names that sort around "/", nested
 * ignore files, empty and ignored directories.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diskPort, type NameWalk } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';
import { walkInParts } from '../src/mounts/direct.ts';
import { mulberry32 as random } from '../../../test/random.ts';

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

// Names that sort just before and after "/" (0x2F): "-", ".", "0", and a name that is another's prefix.
const NAMES = ['a', 'a-b', 'a.b', 'a0', 'ab', 'b', 'B', 'x.log', 'z', '\u00e9'];

function tree(seed: number): string {
  const rand = random(seed);
  const root = mkdtempSync(join(tmpdir(), 'ws-search-walk-'));
  roots.push(root);
  const fill = (dir: string, depth: number) => {
    for (const name of NAMES) {
      const r = rand();
      if (r < 0.35) writeFileSync(join(dir, name), `${name}\n`);
      else if (r < 0.6 && depth < 5) {
        mkdirSync(join(dir, name));
        fill(join(dir, name), depth + 1);
      }
    }
    if (rand() < 0.2) writeFileSync(join(dir, '.gitignore'), rand() < 0.5 ? 'a0\n' : '*.b\n!a.b\n');
  };
  fill(root, 0);
  return root;
}

async function flat(parts: AsyncIterable<readonly { path: string }[]>): Promise<string[]> {
  const out: string[] = [];
  for await (const part of parts) out.push(...part.map((f) => f.path));
  return out;
}

describe("a search's walk in parts", () => {
  test('finds the files a whole walk finds, in its order, cut where its cap cuts them', async () => {
    let compared = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const root = tree(seed);
      for (const cap of [1, 3, 7, 20, 60, 100_000]) {
        const disk = diskPort({ root, rules: walkRules(['x.log'], undefined, root), followSymlinks: false, walkCap: cap });
        const whole = (await disk.walk('')).files.map((f) => f.path);
        for (const depth of [0, 1, 2, 3]) {
          expect(await flat(walkInParts(disk, '', { followSymlinks: false, cap, depth }))).toEqual(whole);
          compared++;
        }
        for (const sub of ['a', 'a.b', 'b']) {
          const under = (await disk.walk(sub)).files.map((f) => f.path);
          expect(await flat(walkInParts(disk, sub, { followSymlinks: false, cap, depth: 1 }))).toEqual(under);
        }
      }
    }
    expect(compared).toBe(12 * 6 * 4);
  });

  test('a walk by names finds what a walk finds — files, directories, what it passed over and why, leftovers removed — stat-ing no plain file', async () => {
    let compared = 0;
    for (let seed = 21; seed <= 30; seed++) {
      // The same tree twice (a walk removes the leftovers it meets): one walked by names, one walked.
      const made = [tree(seed), tree(seed)];
      for (const root of made) {
        const rand = random(seed);
        mkdirSync(join(root, 'odd'), { recursive: true });
        writeFileSync(join(root, 'odd/.ws-tmp-f.txt-99999999-dead1'), 'half');
        writeFileSync(join(root, `odd/.ws-tmp-f.txt-${process.ppid}-live`), 'being written');
        symlinkSync('../a', join(root, 'odd/link'));
        if (rand() < 0.7) expect(Bun.spawnSync(['mkfifo', join(root, 'odd/pipe')]).exitCode).toBe(0);
        // A leftover is one whose writer is gone (99999999 is no process); the second's writer is alive.
      }
      for (const cap of [5, 100_000]) {
        const disk = (root: string) => diskPort({ root, rules: walkRules(['x.log'], undefined, root), followSymlinks: false, walkCap: cap });
        const named = (await disk(made[0]).walkNames?.('')) as NameWalk;
        // The walk on this thread, as a walk by names is (a walk shared with Workers tells its temporary files otherwise).
        const one = disk(made[1]);
        const walked = await one.oneThread(() => one.walk(''));
        expect(named.files.map((f) => f.path)).toEqual(walked.files.map((f) => f.path));
        expect(named.directories).toEqual(walked.directories);
        expect(named.passedOver).toEqual(walked.passedOver);
        expect(named.unreadable).toEqual(walked.unreadable);
        expect(named.incomplete).toEqual(walked.incomplete);
        // A size where a stat was made (a ws temporary file) is the walk's.
        for (const f of named.files) if (f.size !== undefined) expect(f.size).toBe(walked.files.find((w) => w.path === f.path)?.meta.size as number);
        expect(named.files.filter((f) => f.size === undefined).length).toBeGreaterThan(0);
        compared++;
      }
      // The old leftover is gone from both trees, the live one kept.
      for (const root of made) {
        expect(existsSync(join(root, 'odd/.ws-tmp-f.txt-99999999-dead1'))).toBe(false);
        expect(existsSync(join(root, `odd/.ws-tmp-f.txt-${process.ppid}-live`))).toBe(true);
      }
    }
    expect(compared).toBe(20);
  });

  test('an unwalked tree is no whole walk: a part that cannot be read leaves the deferred sweep alone', async () => {
    const root = tree(99);
    const disk = diskPort({ root, rules: walkRules([], undefined, root), followSymlinks: false, walkCap: 100_000 });
    let told: string[] = [];
    const spy = { ...disk, walkedWhole: (dir: string) => void told.push(dir) };
    await flat(walkInParts(spy, '', { followSymlinks: false }));
    expect(told).toEqual(['']);
    told = [];
    await flat(walkInParts(spy, '', { followSymlinks: false, cap: 2 }));
    expect(told).toEqual([]);
  });
});
