/**
 * A long-running host's greps remember the blobs a search found no line in
 * (`src/grep/no-line-memo.ts`), and the memory never changes an answer: the same search
 * again sends grep's Workers only the blobs that matched, and answers as a mount with no
 * Workers and no memory does — after files change to match or to stop matching, under
 * another case or option of the same pattern (never served by this one's memory), on
 * every page and in every output mode; the memory keeps to its bounds. On PostgreSQL,
 * whose blobs a search reads and scans on its own thread, nothing is remembered and the
 * answers are the same.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Mount, type Workspace, handleToolCall } from '@ws/tools';
import type { MountConfig } from '../src/config.ts';
import { NoLineMemo, searchKey } from '../src/grep/no-line-memo.ts';
import type { Prescanner } from '../src/grep/prescan.ts';
import { grepWorkers } from '../src/grep/runner.ts';
import { type Host, openHost } from '../src/host.ts';
import { storeMount } from '../src/mounts/store-backed/mount.ts';
import { seededRandom, tempDir } from './fixtures.ts';
import { testConfig, writeFiles } from './host-fixtures.ts';

setDefaultTimeout(120_000);

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : 1519;
const N = 240;

/** Every file holds the pattern's words, so the index names them all; every seventh holds a matching line. */
function fileText(k: number, matching: boolean): string {
  const lines = [`const needle${k} = makeThing(${k}); // x`, 'function other() { return needle; }'];
  if (matching) lines.push(k % 2 === 0 ? `needle${k}x();` : `NEEDLE${k}X();`);
  return `${lines.join(k % 5 === 0 ? '\r\n' : '\n')}\n`;
}
/** How many files hold a line matching `needle\d+x` as written (the even ones among every seventh). */
const MATCHING = Array.from({ length: N }, (_, k) => k).filter((k) => k % 7 === 0 && k % 2 === 0).length;
const pathOf = (k: number) => `${['', 'src/', 'src/deep/', 'docs/'][k % 4]}f${String(k).padStart(3, '0')}.ts`;

let root: string;
let host: Host;
let config: MountConfig;
const workers = grepWorkers({ longRunning: true });
afterAll(() => {
  host?.close();
  workers.close();
});

beforeAll(async () => {
  root = tempDir('ws-memo-');
  const files: Record<string, string> = {};
  for (let k = 0; k < N; k++) files[pathOf(k)] = fileText(k, k % 7 === 0);
  writeFiles(root, files);
  host = await openHost(testConfig(root, [{ name: 'work', path: '.', ignore: [] }]), { watch: true });
  await handleToolCall(host.workspace, { name: 'sync', input: {} });
  await host.indexer?.current();
  config = (host.workspace.mounts[0] as unknown as { config: MountConfig }).config;
});

/** A mount of the host's store: with `prescanner` and `noLines` where given, else reading and scanning every blob itself. */
function mountOf(extra: { prescanner?: Prescanner; noLines?: NoLineMemo } = {}): Mount {
  const store = host.store;
  if (store === undefined) throw new Error('no store');
  return storeMount(config, { store, lock: { run: (op) => op(), close() {} }, hash: (b) => new Bun.CryptoHasher('sha256').update(b).digest('hex'), storeRel: undefined, ...extra });
}

/**
 * Whether the store's blobs go to grep's Workers (read there from the SQLite file, or sent
 * packed); a PostgreSQL store's are read and scanned on the calling thread, so its searches
 * remember nothing and send the Workers nothing.
 */
const viaWorkers = () => host.store?.getPackedBlobs !== undefined;

/** The Workers, counting the blobs each search sends them (read there, or sent packed). */
function counting(): { prescanner: Prescanner; sent: () => number } {
  let sent = 0;
  const real = workers.prescanner;
  return {
    prescanner: {
      ...real,
      run: (job) => {
        sent += job.items.length;
        return real.run(job);
      },
      blobs: (job) => {
        sent += job.blobs?.hashes.length ?? 0;
        return real.blobs(job);
      },
      read: (job) => real.read(job),
      release: () => real.release(),
    },
    sent: () => {
      const n = sent;
      sent = 0;
      return n;
    },
  };
}

async function answer(mount: Mount, input: Record<string, unknown>, resultMaxChars = 1_000_000): Promise<unknown> {
  const workspace: Workspace = { mounts: [mount], hasDirectMount: false, grep: { runner: workers.runner, timeoutMs: 30_000 } };
  const got = await handleToolCall(workspace, { name: 'grep', input: { path: 'work', ...input }, resultMaxChars });
  if (!got.success) throw new Error(got.error);
  return got.data;
}

/** Writes the files at `ks` on disk, matching or not, and syncs the host: their blobs are new. */
async function rewrite(ks: readonly number[], matching: boolean): Promise<void> {
  for (const k of ks) writeFileSync(join(root, pathOf(k)), fileText(k, matching));
  await handleToolCall(host.workspace, { name: 'sync', input: {} });
  await host.indexer?.current();
}

describe('a search remembered', () => {
  test('the same search again sends the Workers only the blobs that matched; the answer is a scan of every blob’s', async () => {
    const { prescanner, sent } = counting();
    const memo = new NoLineMemo();
    const mount = mountOf({ prescanner, noLines: memo });
    const plain = mountOf();
    const question = { pattern: 'needle\\d+x' };
    const expected = await answer(plain, question);
    expect(JSON.stringify(expected)).toContain('needle0x');
    expect(await answer(mount, question)).toEqual(expected);
    const first = sent();
    // The even files that match hold `needle…x`: the rest (every file the index named) were found with no line.
    const matching = MATCHING;
    const workers = viaWorkers();
    expect(first).toBe(workers ? N : 0);
    expect(memo.size).toEqual({ searches: 1, blobs: workers ? N - matching : 0 });
    expect(await answer(mount, question)).toEqual(expected);
    expect(sent()).toBe(workers ? matching : 0);
    // Its other pages and modes: the same memory, the same answers as a full scan's.
    for (const more of [{ output: 'count' }, { output: 'files' }, { offset: 3 }]) {
      expect(await answer(mount, { ...question, ...more }, 900)).toEqual(await answer(plain, { ...question, ...more }, 900));
      expect(sent()).toBe(workers ? matching : 0);
    }
  });

  test('another case or option of the pattern is never served by this one’s memory: each finds its own lines', async () => {
    const { prescanner, sent } = counting();
    const memo = new NoLineMemo();
    const mount = mountOf({ prescanner, noLines: memo });
    const plain = mountOf();
    await answer(mount, { pattern: 'needle\\d+x' });
    sent();
    // Case-insensitively the odd files match too (`NEEDLE…X`), which the case-sensitive search found no line in.
    const insensitive = await answer(mount, { pattern: 'needle\\d+x', caseInsensitive: true });
    expect(insensitive).toEqual(await answer(plain, { pattern: 'needle\\d+x', caseInsensitive: true }));
    expect(JSON.stringify(insensitive)).toContain('NEEDLE7X');
    const workers = viaWorkers();
    expect(sent()).toBe(workers ? N : 0);
    // The pattern as fixed text: another search, which the index alone answers (no blob holds `needle\d+x` as it is).
    expect(await answer(mount, { pattern: 'needle\\d+x', fixedStrings: true })).toEqual(await answer(plain, { pattern: 'needle\\d+x', fixedStrings: true }));
    expect(sent()).toBe(0);
    // And the case-sensitive search again: its own memory, untouched by the others'.
    await answer(mount, { pattern: 'needle\\d+x' });
    expect(sent()).toBe(workers ? MATCHING : 0);
    expect(memo.size.searches).toBe(3);
  });

  test('a file changed to match after a search is found by the same search again, and one changed not to match is gone', async () => {
    const { prescanner } = counting();
    const mount = mountOf({ prescanner, noLines: new NoLineMemo() });
    const plain = mountOf();
    const question = { pattern: 'needle\\d+x' };
    await answer(mount, question);
    // f002 had no line; f014 had one.
    await rewrite([2], true);
    await rewrite([14], false);
    const again = await answer(mount, question);
    expect(again).toEqual(await answer(plain, question));
    expect(JSON.stringify(again)).toContain('needle2x');
    expect(JSON.stringify(again)).not.toContain('needle14x');
    await rewrite([2], false);
    await rewrite([14], true);
  });

  test('seeded steps of edits and searches: every answer is a scan of every blob’s', async () => {
    const r = seededRandom(seed);
    const { prescanner } = counting();
    const mount = mountOf({ prescanner, noLines: new NoLineMemo(400, 3) });
    const plain = mountOf();
    const questions: Record<string, unknown>[] = [
      { pattern: 'needle\\d+x' },
      { pattern: 'needle\\d+x', caseInsensitive: true },
      { pattern: 'NEEDLE\\d+X' },
      { pattern: 'needle1\\d*x', output: 'count' },
      { pattern: 'makeThing\\(1' },
      { pattern: 'x\\(\\);$' },
    ];
    for (let step = 0; step < 12; step++) {
      if (r(2) === 0) {
        const ks = Array.from({ length: 1 + r(6) }, () => r(N));
        await rewrite(ks, r(2) === 0);
      }
      for (let q = 0; q < 3; q++) {
        const question = { ...questions[r(questions.length)], ...(r(3) === 0 ? { offset: r(5) } : {}) };
        const budget = r(2) === 0 ? 1_000_000 : 700;
        expect({ step, question, got: await answer(mount, question, budget) }).toEqual({ step, question, got: await answer(plain, question, budget) });
      }
    }
  });
});

describe('the memory’s bounds', () => {
  const key = (pattern: string) => searchKey({ pattern, options: { caseInsensitive: false, fixedStrings: false, multiline: false } });

  test('a search is told by its pattern and every option its scan is given', () => {
    expect(key('a')).not.toBe(key('b'));
    expect(searchKey({ pattern: 'a', options: { caseInsensitive: true, fixedStrings: false, multiline: false } })).not.toBe(key('a'));
    expect(searchKey({ pattern: 'a', options: { caseInsensitive: false, fixedStrings: false, multiline: true } })).not.toBe(key('a'));
    expect(searchKey({ pattern: 'a', options: { caseInsensitive: false, fixedStrings: false, multiline: false } })).toBe(key('a'));
  });

  test('the search used longest ago goes first, past the searches’ bound or the blobs’', () => {
    const memo = new NoLineMemo(10, 3);
    for (const p of ['a', 'b', 'c']) {
      const s = memo.search(key(p));
      for (let i = 0; i < 3; i++) s.add(`${p}${i}`);
    }
    expect(memo.size).toEqual({ searches: 3, blobs: 9 });
    // `a` used again: `b` is now the oldest, and goes when a fourth search comes.
    expect(memo.search(key('a')).has('a1')).toBe(true);
    memo.search(key('d')).add('d0');
    expect(memo.size).toEqual({ searches: 3, blobs: 7 });
    expect(memo.search(key('b')).has('b1')).toBe(false);
    // `c` went as `b` came back (empty), `a` as `e` comes; then blobs past their bound: `d`'s go to make room, and past that `e` learns no more.
    const e = memo.search(key('e'));
    for (let i = 0; i < 12; i++) e.add(`e${i}`);
    expect(memo.size).toEqual({ searches: 1, blobs: 10 });
    expect(e.has('e9')).toBe(true);
    expect(e.has('e10')).toBe(false);
    expect(memo.search(key('d')).has('d0')).toBe(false);
    expect(memo.search(key('c')).has('c0')).toBe(false);
  });

  test('a search past the blobs’ bound alone learns no more, and one forgotten meanwhile learns nothing', () => {
    const memo = new NoLineMemo(4, 2);
    const a = memo.search(key('a'));
    for (let i = 0; i < 10; i++) a.add(`a${i}`);
    expect(memo.size).toEqual({ searches: 1, blobs: 4 });
    expect(a.has('a3')).toBe(true);
    expect(a.has('a4')).toBe(false);
    // Two other searches since: `a` is forgotten, and what it is told now is not kept.
    memo.search(key('b'));
    memo.search(key('c'));
    a.add('late');
    expect(memo.search(key('a')).has('late')).toBe(false);
    expect(memo.size.blobs).toBe(0);
  });
});
