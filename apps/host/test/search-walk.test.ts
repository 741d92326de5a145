/**
 * A direct mount's search walks its tree in parts (`walkInParts`), so grep's Workers read
 * one part while the next is walked: the files, their order and where the walk's cap
 * cuts them must be a whole walk's, on trees with names that sort around "/", nested
 * ignore files, empty and ignored directories.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diskPort } from '../src/disk/disk-port.ts';
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
