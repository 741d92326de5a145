/**
 * Searching ahead never changes an answer. On a seeded tree of a few hundred files (CRLF,
 * BOM, binary, empty and over-size files, invalid UTF-8, a FIFO, a symlink), every
 * pattern gets the same whole answer from a direct mount whose files grep's Workers
 * search ahead (read there, through the mount's disk), from one whose Workers fail in
 * every way a prescan may — a Worker ended, a batch reported slow, verdicts dropped —
 * and from one with no Workers at all; and a store-backed host answers as the same store
 * searched without Workers, and with failing ones. WS_SEED changes the tree.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Mount, type Workspace, handleToolCall } from '@ws/tools';
import type { MountConfig } from '../src/config.ts';
import { grepWorkers } from '../src/grep/runner.ts';
import { BATCH_FILES, ONE_SHOT_BATCH_FILES, type PrescanAnswer, type Prescanner } from '../src/grep/prescan.ts';
import { type Host, openHost } from '../src/host.ts';
import { directMount } from '../src/mounts/direct.ts';
import { storeMount } from '../src/mounts/store-backed/mount.ts';
import { seededRandom, tempDir } from './fixtures.ts';
import { GREP_PATTERNS, grepTestFile } from './grep-files.ts';
import { testConfig, writeFiles } from './host-fixtures.ts';

setDefaultTimeout(120_000);

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : 1517;
const r = seededRandom(seed);
const WORDS = ['return', 'Foo', 'foo12', 'bar', 'createThing', 'ThingError', 'function', 'a.b(c', 'ünï', 'TODO', '  ', 'x'];
const MAX_FILE = 4_000;

function fileOf(k: number): string | Uint8Array {
  return grepTestFile(r, k, { maxFile: MAX_FILE, words: WORDS, lines: 40, needleEvery: 97 });
}

const PATTERNS = GREP_PATTERNS;

/** Slow at its middle file: the files after it were not looked at. */
function halved<T>(answer: PrescanAnswer<T | null>): PrescanAnswer<T | null> {
  if (answer === undefined || !answer.slow) return answer;
  const half = answer.verdicts.length >> 1;
  return { slow: true, verdicts: answer.verdicts.map((v, k) => (k > half ? null : v)) };
}

/** A prescanner that fails as a prescan may: a Worker ended (no answer), a batch said slow, each in turn with answers passed on. */
function failing(real: Prescanner, every: number): Prescanner {
  let n = 0;
  const fail = <T>(answer: T | undefined) => {
    n++;
    if (n % every === 0) return undefined;
    if (n % every === 1 && answer !== undefined) return { ...answer, slow: true };
    return answer;
  };
  return {
    stillQuiet: async () => null,
    parallel: real.parallel,
    run: async (job) => halved(fail(await real.run(job))),
    blobs: async (job) => halved(fail(await real.blobs(job))),
    read: async (job) => fail(await real.read(job)),
    release: () => real.release(),
  };
}

let root: string;
let config: MountConfig;
let host: Host;
let storeHost: Host;
const workers = grepWorkers();
afterAll(() => {
  host?.close();
  storeHost?.close();
  workers.close();
});

beforeAll(async () => {
  root = tempDir('ws-prescan-');
  const files: Record<string, string | Uint8Array> = {};
  // Enough files for many batches of each kind.
  for (let k = 0; k < 400; k++) files[`${['', 'src/', 'src/deep/', 'docs/'][k % 4]}f${k}.txt`] = fileOf(k);
  writeFiles(root, files);
  Bun.spawnSync(['mkfifo', join(root, 'src', 'fifo.txt')]);
  symlinkSync('f1.txt', join(root, 'link.txt'));
  const full = testConfig(root, [{ name: 'work', path: '.', backend: 'direct', ignore: [], maxFileSize: MAX_FILE }]);
  config = full.mounts[0];
  host = await openHost(full, { watch: false });
  storeHost = await openHost(testConfig(root, [{ name: 'work', path: '.', ignore: [], maxFileSize: MAX_FILE }]), { watch: false });
});

/** The budgets answers are compared at: one no answer fills, and a page that fills (the files past it come counted). */
const BUDGETS = [1_000_000, 2_500];

async function answer(workspace: Workspace, input: Record<string, unknown>, resultMaxChars = 1_000_000): Promise<unknown> {
  const got = await handleToolCall(workspace, { name: 'grep', input: { path: 'work', ...input }, resultMaxChars });
  if (!got.success) throw new Error(got.error);
  return got.data;
}

const bare = (mount: Mount): Workspace => ({ mounts: [mount], hasDirectMount: mount.backend === 'direct' });

describe('searching ahead changes no answer', () => {
  for (const input of PATTERNS) {
    test(`direct: ${JSON.stringify(input)}`, async () => {
      for (const budget of BUDGETS) {
        const expected = await answer(bare(directMount(config, undefined)), input, budget);
        expect(await answer(host.workspace, input, budget)).toEqual(expected);
        for (const every of [2, 3, 5]) {
          const shaky = directMount(config, undefined, undefined, failing(workers.prescanner, every));
          expect(await answer({ ...bare(shaky), grep: { runner: workers.runner, timeoutMs: 10_000 } }, input, budget)).toEqual(expected);
        }
      }
    });
  }

  test('the answers are not all alike: the tree and patterns find matches, miss them, skip files and note line ends', async () => {
    const all = JSON.stringify(await Promise.all(PATTERNS.map((p) => answer(host.workspace, p))));
    expect(all).toContain('"totalMatches":0');
    expect(all).toMatch(/"totalMatches":[1-9]/);
    expect(all).toContain('binary');
    expect(all).toContain('CRLF');
    expect(all).toContain('BOM');
  });

  for (const input of PATTERNS) {
    test(`store-backed: ${JSON.stringify(input)}`, async () => {
      const sm = storeHost.workspace.mounts[0];
      // The same store, searched with no Workers: every file read and scanned in this thread.
      const store = storeHost.store;
      if (store === undefined) throw new Error('no store');
      const plain = storeMount((sm as unknown as { config: MountConfig }).config, { store, lock: { run: (op) => op(), close() {} }, hash: (b) => new Bun.CryptoHasher('sha256').update(b).digest('hex'), storeRel: undefined });
      for (const budget of BUDGETS) {
        const expected = await answer(storeHost.workspace, input, budget);
        expect(await answer(bare(plain), input, budget)).toEqual(expected);
        for (const every of [2, 3]) {
          const shaky = storeMount((sm as unknown as { config: MountConfig }).config, { store, lock: { run: (op) => op(), close() {} }, hash: (b) => new Bun.CryptoHasher('sha256').update(b).digest('hex'), storeRel: undefined, prescanner: failing(workers.prescanner, every) });
          expect(await answer({ ...bare(shaky), grep: { runner: workers.runner, timeoutMs: 10_000 } }, input, budget)).toEqual(expected);
        }
      }
    });
  }
});

describe('a store-backed search whose Workers fail now and then', () => {
  let many: Host;
  beforeAll(async () => {
    const dir = tempDir('ws-prescan-misses-');
    // Unlike files, a few hundred to a batch: many batches.
    const files: Record<string, string> = {};
    for (let k = 0; k < 1200; k++) files[`d${k % 7}/f${k}.txt`] = `${fileOf(k)}\nfile ${k}\n`;
    writeFiles(dir, files);
    many = await openHost(testConfig(dir, [{ name: 'work', path: '.', ignore: [], maxFileSize: MAX_FILE }]), { watch: false });
  });
  afterAll(() => many?.close());

  /** The answer with a prescanner whose first `fails` batches fail (a Worker ended, say), and how many batches went to it. */
  async function withFailures(fails: number, input: Record<string, unknown>): Promise<{ got: unknown; calls: number }> {
    const sm = many.workspace.mounts[0];
    const store = many.store;
    if (store === undefined) throw new Error('no store');
    let calls = 0;
    // A store with a file of its own has its Workers read the blobs (`blobs`); one without (PostgreSQL) sends them (`run`).
    const flaky: Prescanner = {
      stillQuiet: async () => null,
      parallel: 1,
      run: async (job) => (++calls <= fails ? undefined : workers.prescanner.run(job)),
      read: (job) => workers.prescanner.read(job),
      blobs: async (job) => (++calls <= fails ? undefined : workers.prescanner.blobs(job)),
      release: () => workers.prescanner.release(),
    };
    const mount = storeMount((sm as unknown as { config: MountConfig }).config, { store, lock: { run: (op) => op(), close() {} }, hash: (b) => new Bun.CryptoHasher('sha256').update(b).digest('hex'), storeRel: undefined, prescanner: flaky });
    const got = await answer({ ...bare(mount), grep: { runner: workers.runner, timeoutMs: 10_000 } }, input);
    return { got, calls };
  }

  test("a one-shot command's batches hold at most ONE_SHOT_BATCH_FILES files, a long-running host's BATCH_FILES: the same answer", async () => {
    const sm = many.workspace.mounts[0];
    const store = many.store;
    if (store === undefined) throw new Error('no store');
    /** The files of each batch: sent to the Workers (read there from the store's file, or sent packed), or read here (a store without its own file: PostgreSQL). */
    const sizing = (into: number[]): Prescanner => ({
      ...workers.prescanner,
      blobs: (job) => (into.push(job.blobs?.hashes.length ?? 0), workers.prescanner.blobs(job)),
      run: (job) => (into.push(job.items.length), workers.prescanner.run(job)),
    });
    const readingHere = (into: number[]): typeof store =>
      new Proxy(store, {
        get(target, prop) {
          if (prop === 'getBlobs') return (hashes: readonly string[]) => (into.push(hashes.length), target.getBlobs(hashes));
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const mountFor = (oneShot: boolean, into: number[]) =>
      storeMount((sm as unknown as { config: MountConfig }).config, { store: readingHere(into), lock: { run: (op) => op(), close() {} }, hash: (b) => new Bun.CryptoHasher('sha256').update(b).digest('hex'), storeRel: undefined, prescanner: sizing(into), oneShot });
    const oneShot: number[] = [];
    const server: number[] = [];
    // Every file holds "file": each is read, so every batch is as large as it may be.
    const input = { pattern: 'file \\d+' };
    const got = await answer({ ...bare(mountFor(true, oneShot)), grep: { runner: workers.runner, timeoutMs: 10_000 } }, input, 2_500);
    expect(await answer({ ...bare(mountFor(false, server)), grep: { runner: workers.runner, timeoutMs: 10_000 } }, input, 2_500)).toEqual(got);
    expect(ONE_SHOT_BATCH_FILES).toBeLessThan(BATCH_FILES);
    expect(Math.max(...oneShot)).toBe(ONE_SHOT_BATCH_FILES);
    expect(Math.max(...server)).toBe(BATCH_FILES);
  });

  /** A store mount of `many` whose Workers are `workers`, noting after each batch of blobs whether a Worker kept the store's file open. */
  function keeping(): { mount: Mount; keptAfterBatch: boolean[] } {
    const sm = many.workspace.mounts[0];
    const store = many.store;
    if (store === undefined) throw new Error('no store');
    const keptAfterBatch: boolean[] = [];
    const spy: Prescanner = {
      ...workers.prescanner,
      parallel: 1,
      run: (job) => workers.prescanner.run(job),
      read: (job) => workers.prescanner.read(job),
      blobs: async (job) => {
        const got = await workers.prescanner.blobs(job);
        keptAfterBatch.push((await workers.keepConnections()).some((k) => k !== null));
        return got;
      },
      release: () => workers.prescanner.release(),
    };
    const mount = storeMount((sm as unknown as { config: MountConfig }).config, { store, lock: { run: (op) => op(), close() {} }, hash: (b) => new Bun.CryptoHasher('sha256').update(b).digest('hex'), storeRel: undefined, prescanner: spy });
    return { mount, keptAfterBatch };
  }

  test("the Workers keep the store's file open from batch to batch and let it go when the search ends: run to the end, or stopped after its first file", async () => {
    const readsFile = many.store?.packedBlobFile?.() !== undefined;
    const whole = keeping();
    const expected = await answer(many.workspace, { pattern: 'file \\d+$', output: 'count' });
    expect(await answer({ ...bare(whole.mount), grep: { runner: workers.runner, timeoutMs: 10_000 } }, { pattern: 'file \\d+$', output: 'count' })).toEqual(expected);
    if (!readsFile) {
      // PostgreSQL's blobs are sent to the Workers: no file is opened there.
      expect(whole.keptAfterBatch).toEqual([]);
      return;
    }
    expect(whole.keptAfterBatch.length).toBeGreaterThan(5);
    expect(whole.keptAfterBatch.every((k) => k)).toBe(true);
    expect((await workers.keepConnections()).every((k) => k === null)).toBe(true);
    // A search its caller stops (a page that needs no more, a call that ends) lets go too.
    const stopped = keeping();
    let seen = 0;
    for await (const file of stopped.mount.searchFiles('', { pattern: 'file \\d+$', caseInsensitive: false, fixedStrings: false, multiline: false })) {
      if ('bytes' in file || 'counted' in file) seen++;
      if (seen > 0) break;
    }
    expect(seen).toBe(1);
    expect(stopped.keptAfterBatch.length).toBeGreaterThan(0);
    expect((await workers.keepConnections()).every((k) => k === null)).toBe(true);
  });

  test("a long-running host's search keeps two batches a Worker in flight, a one-shot command's one: the same answer", async () => {
    const sm = many.workspace.mounts[0];
    const store = many.store;
    if (store === undefined) throw new Error('no store');
    const question = { pattern: 'file \\d+$', output: 'count' };
    const expected = await answer(many.workspace, question);
    const inFlight = async (longRunning: boolean): Promise<number> => {
      let now = 0;
      let most = 0;
      // Every batch's call, however the store's blobs reach the Workers (`blobs`, or `run` for PostgreSQL's).
      const counting = <T>(call: () => Promise<T>): Promise<T> => {
        most = Math.max(most, ++now);
        return call().finally(() => now--);
      };
      const spy: Prescanner = {
        stillQuiet: async () => null,
        parallel: 1,
        longRunning,
        run: (job) => counting(() => workers.prescanner.run(job)),
        read: (job) => workers.prescanner.read(job),
        blobs: (job) => counting(() => workers.prescanner.blobs(job)),
        release: () => workers.prescanner.release(),
      };
      const mount = storeMount((sm as unknown as { config: MountConfig }).config, { store, lock: { run: (op) => op(), close() {} }, hash: (b) => new Bun.CryptoHasher('sha256').update(b).digest('hex'), storeRel: undefined, prescanner: spy });
      expect(await answer({ ...bare(mount), grep: { runner: workers.runner, timeoutMs: 10_000 } }, question)).toEqual(expected);
      return most;
    };
    if (store.getPackedBlobs === undefined && store.packedBlobFile?.() === undefined) {
      // A store whose blobs no Worker can take (PostgreSQL's) is searched in this thread.
      expect([await inFlight(true), await inFlight(false)]).toEqual([0, 0]);
      return;
    }
    // The batch the search takes, and those started ahead of it: two a Worker, or one.
    expect(await inFlight(true)).toBe(1 + 2 + 1);
    expect(await inFlight(false)).toBe(1 + 1 + 1);
  });

  const input = { pattern: 'file \\d+$', output: 'count' };
  for (const fails of [1, 2, 3, 5]) {
    test(`${fails} failed batch(es) first: the same answer, and the Workers used again unless three failed`, async () => {
      const expected = await answer(many.workspace, input);
      const all = (await withFailures(0, input)).calls;
      const { got, calls } = await withFailures(fails, input);
      expect(got).toEqual(expected);
      const store = many.store;
      if (store?.getPackedBlobs === undefined && store?.packedBlobFile?.() === undefined) {
        // A store whose blobs no Worker can take (PostgreSQL's) is searched in this thread.
        expect([all, calls]).toEqual([0, 0]);
        return;
      }
      // Enough batches that a search that stopped using its Workers too soon, or never, would show.
      expect(all).toBeGreaterThan(5);
      expect(calls).toBe(fails < 3 ? all : 3);
    });
  }
});

describe('past a full page, files come counted (their scans without their bytes)', () => {
  test('store-backed and direct: the same answers as a search given every file, with counted files among them', async () => {
    const dir = tempDir('ws-prescan-counted-');
    const files: Record<string, string> = {};
    // Many batches: the page fills in the first, and the batches started after it come counted.
    for (let k = 0; k < 900; k++) files[`${['', 'a/', 'a/b/'][k % 3]}g${k}.txt`] = k % 7 === 0 ? `nothing here\r\n` : `x\nreturn ${k}\n${k % 2 ? 'return again\r\n' : ''}`;
    // Last in path order, a conflict: the workspace's draft and disk's version, both past the page.
    files['zz/last.txt'] = 'return base\n';
    writeFiles(dir, files);
    const cfg = testConfig(dir, [{ name: 'work', path: '.', ignore: [] }]);
    const h = await openHost(cfg, { watch: false });
    try {
      const tool = async (name: string, input: Record<string, unknown>) => {
        const got = await handleToolCall(h.workspace, { name, input });
        if (!got.success) throw new Error(got.error);
        return got.data;
      };
      await tool('sync', {});
      await tool('write', { path: 'work/zz/last.txt', content: 'return draft\nreturn two\n' });
      // A person's save over the draft: the next pass (here, status's) keeps both, a conflict.
      writeFileSync(join(dir, 'zz/last.txt'), 'return person\n');
      expect(JSON.stringify(await tool('status', {}))).toContain('"conflicts":[{');
      const store = h.store;
      if (store === undefined) throw new Error('no store');
      const mountConfig = (h.workspace.mounts[0] as unknown as { config: MountConfig }).config;
      let countedInParts = 0;
      const parts = workers.prescanner.parts;
      if (parts === undefined) throw new Error("a one-shot pool's prescanner searches in parts");
      const spy: Prescanner = {
        ...workers.prescanner,
        parallel: workers.prescanner.parallel,
        // The direct mount's parts one after another on this thread (the Worker given none), so
        // every part after the one that fills the page is made knowing it: its files come counted.
        parts: {
          ...parts,
          ahead: 0,
          here: async (job) => {
            const got = await parts.here(job);
            countedInParts += got.verdicts.filter((v) => v !== null && 'counted' in v).length;
            return got;
          },
        },
      };
      const lock = { run: <T>(op: () => T) => op(), close() {} };
      const hash = (b: Uint8Array) => new Bun.CryptoHasher('sha256').update(b).digest('hex');
      const plainStore = storeMount(mountConfig, { store, lock, hash, storeRel: undefined });
      const aheadStore = storeMount(mountConfig, { store, lock, hash, storeRel: undefined, prescanner: spy });
      const direct = { ...mountConfig, backend: 'direct' as const };
      for (const input of [{ pattern: 'return' }, { pattern: 'return', output: 'files' }, { pattern: 'return', output: 'count' }, { pattern: 'return$', offset: 20 }, { pattern: 'again' }]) {
        for (const budget of [2_000, 100_000]) {
          const expected = await answer(bare(plainStore), input, budget);
          expect(await answer({ ...bare(aheadStore), grep: { runner: workers.runner, timeoutMs: 10_000 } }, input, budget)).toEqual(expected);
          const directExpected = await answer(bare(directMount(direct, undefined)), input, budget);
          expect(await answer({ ...bare(directMount(direct, undefined, undefined, spy)), grep: { runner: workers.runner, timeoutMs: 10_000 } }, input, budget)).toEqual(directExpected);
        }
      }
      // The page filled and the direct mount's parts kept only the scans of hundreds of files (a
      // store's batches sent after it filled do too: how many is the Worker's pace); the conflict's two versions were searched.
      expect(countedInParts).toBeGreaterThan(300);
      expect(JSON.stringify(await answer(bare(plainStore), { pattern: 'return', output: 'files' }, 1_000_000))).toContain('"path":"work/zz/last.txt","version":"conflicting-disk"');
      expect(JSON.stringify(await answer(bare(plainStore), { pattern: 'return' }, 2_000))).toContain('"totalMatches":1');
    } finally {
      h.close();
    }
  });
});
