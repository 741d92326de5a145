/**
 * A one-shot's direct grep in parts (`Prescanner.parts`, `grep/part-search.ts`): each
 * directory three levels down walked, read and searched whole by grep's Worker or by the
 * calling thread, whichever takes it. It never changes an answer: on a seeded tree six
 * levels deep (nested ignore files, CRLF, BOM, binary, empty, over-size and invalid UTF-8
 * files, a FIFO, links, ws temporary files) every pattern gets the same whole answer as a
 * search with no Workers, a search in batches of paths, a search whose parts all run on
 * the calling thread, and searches whose Worker loses parts or hands every file back. The
 * walk's cap cuts the files where a walk in parts cuts them; a Worker's part removes the
 * leftovers it meets (through the caller); and a part's root swapped for a link to outside
 * while greps run is never read through. WS_SEED changes the tree.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handleToolCall, type Mount, type SearchFile, type Workspace } from '@ws/tools';
import type { MountConfig } from '../src/config.ts';
import { diskPort } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';
import { CLAIM_FREE, CLAIM_HERE, CLAIM_WORKER, type PartAnswer } from '../src/grep/part-search.ts';
import type { Prescanner, PrescanJob } from '../src/grep/prescan.ts';
import { grepWorkers } from '../src/grep/runner.ts';
import { directMount, searchInParts, walkInParts } from '../src/mounts/direct.ts';
import { mountWords } from '../src/mounts/words.ts';
import { seededRandom, tempDir, whileSwapping } from './fixtures.ts';
import { GREP_PATTERNS, grepTestFile } from './grep-files.ts';
import { testConfig, writeFiles } from './host-fixtures.ts';

setDefaultTimeout(120_000);

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : 2029;
const r = seededRandom(seed);
const WORDS = ['return', 'Foo', 'foo12', 'bar', 'createThing', 'ThingError', 'function', 'a.b(c', 'ünï', 'TODO', 'x'];
const MAX_FILE = 3_000;

function fileOf(k: number): string | Uint8Array {
  return grepTestFile(r, k, { maxFile: MAX_FILE, words: WORDS, lines: 30, needleEvery: 31, overSizeStart: 'return ' });
}

const PATTERNS = GREP_PATTERNS;

/** Directory names, repeated at every depth; one of them ignored by a nested `.gitignore`, one by a `.ignore` inside a part. */
const NAMES = ['a', 'b', 'ünï dir', 'build', 'c'];

let root: string;
let outside: string;
let config: MountConfig;
const workers = grepWorkers();
afterAll(() => workers.close());

beforeAll(() => {
  root = tempDir('ws-parts-');
  outside = tempDir('ws-parts-outside-');
  writeFileSync(join(outside, 'secret.txt'), 'needle from outside\n');
  const files: Record<string, string | Uint8Array> = {};
  for (let k = 0; k < 700; k++) {
    const depth = r(7);
    const dirs = Array.from({ length: depth }, () => NAMES[r(NAMES.length)]).join('/');
    const name = ['f', 'g', 'h'][r(3)] + k + ['.txt', '.ts', '.skip', '.md'][r(4)];
    files[dirs === '' ? name : `${dirs}/${name}`] = fileOf(k);
  }
  files['.gitignore'] = '*.skip\n!keep.skip\n';
  files['a/.gitignore'] = 'build/\n';
  files['a/b/c/.ignore'] = 'f*.md\n';
  files['a/b/c/keep.skip'] = 'kept needle\n';
  writeFiles(root, files);
  mkdirSync(join(root, 'a/b/a/b'), { recursive: true });
  Bun.spawnSync(['mkfifo', join(root, 'a/b/a/b/fifo.txt')]);
  symlinkSync('../f1.txt', join(root, 'a/b/a/link.txt'));
  symlinkSync(outside, join(root, 'a/b/outside'));
  config = testConfig(root, [{ name: 'work', path: '.', backend: 'direct', ignore: [], maxFileSize: MAX_FILE }]).mounts[0];
});

/** The budgets answers are compared at: one no answer fills, and a page that fills (the files past it come counted). */
const BUDGETS = [1_000_000, 2_500];

async function answer(workspace: Workspace, input: Record<string, unknown>, resultMaxChars: number): Promise<unknown> {
  const got = await handleToolCall(workspace, { name: 'grep', input: { path: 'work', ...input }, resultMaxChars });
  if (!got.success) throw new Error(got.error);
  return got.data;
}

const withWorkers = (mount: Mount): Workspace => ({ mounts: [mount], hasDirectMount: true, grep: { runner: workers.runner, timeoutMs: 20_000 } });

/** Until the pool's Worker is up (it has answered): a search's parts go to it only then. */
async function workerUp(pool: ReturnType<typeof grepWorkers>): Promise<void> {
  const parts = pool.prescanner.parts;
  parts?.warm?.();
  const until = performance.now() + 20_000;
  while (parts?.ready?.() === false) {
    if (performance.now() > until) throw new Error("grep's Worker did not start");
    await new Promise((go) => setImmediate(go));
  }
}

/** Until the calling thread took a part sent to the Worker back (its claim taken), or 2 s passed. */
async function takenBack(job: PrescanJob): Promise<void> {
  const claim = job.part?.claim;
  if (claim === undefined) throw new Error('a part sent to the Worker has a claim');
  const until = performance.now() + 2_000;
  while (Atomics.load(claim.claims, claim.at) === CLAIM_FREE && performance.now() < until) await new Promise((go) => setImmediate(go));
}

/** The one-shot pool's prescanner with its parts changed by `change`. */
function partsAs(change: (parts: NonNullable<Prescanner['parts']>) => Prescanner['parts']): Prescanner {
  const real = workers.prescanner;
  if (real.parts === undefined) throw new Error("a one-shot pool's prescanner searches in parts");
  return { ...real, parts: change(real.parts) };
}

describe('a grep in parts changes no answer', () => {
  beforeAll(() => workerUp(workers));
  const counts = { part: 0, here: 0, lost: 0, takenBack: 0 };
  // The parts each thread searched, by search (its walk's number) and part.
  const searchedBy = { worker: new Set<string>(), here: new Set<string>(), twice: [] as string[] };
  const partKey = (job: PrescanJob) => JSON.stringify([job.part?.walk, job.part?.dir, job.part?.files]);
  const counted = (parts: NonNullable<Prescanner['parts']>): Prescanner['parts'] => ({
    ahead: parts.ahead,
    async part(job) {
      const got = await parts.part(job);
      if (got !== undefined) counts.part++;
      return got;
    },
    here(job) {
      counts.here++;
      return parts.here(job);
    },
  });
  let n = 0;
  const variants: Record<string, Prescanner> = {
    parts: partsAs(counted),
    // Every part on the calling thread: the Worker is given none.
    'parts here': partsAs((parts) => ({ ...parts, ahead: 0 })),
    // The Worker slow to answer: the calling thread takes the parts after the one it waits for.
    'parts, the Worker slow': partsAs((parts) => {
      const c = counted(parts) as NonNullable<Prescanner['parts']>;
      return { ...c, part: async (job) => (await Bun.sleep(5), c.part(job)) };
    }),
    // Every other part reaches the Worker only once the calling thread took it back (the Worker skips it).
    'parts, every other taken back': partsAs((parts) => ({
      ...parts,
      part: async (job) => {
        if (++n % 2 === 0) {
          await takenBack(job);
          counts.takenBack++;
        }
        const got = await parts.part(job);
        if (got !== undefined) searchedBy.worker.add(partKey(job));
        return got;
      },
      here: async (job) => {
        if (searchedBy.here.has(partKey(job))) searchedBy.twice.push(partKey(job));
        searchedBy.here.add(partKey(job));
        return parts.here(job);
      },
    })),
    // A Worker ended under every other part, or every third: the caller takes those again.
    'parts lost': partsAs((parts) => ({ ...parts, part: async (job) => (++n % 2 === 0 ? (counts.lost++, undefined) : parts.part(job)) })),
    'parts lost, every third': partsAs((parts) => ({ ...parts, part: async (job) => (++n % 3 === 0 ? undefined : parts.part(job)) })),
    // Every file handed back to be read the careful way.
    'parts, every file careful': partsAs((parts) => ({
      ...parts,
      part: async (job) => {
        const got = await parts.part(job);
        return got === undefined ? undefined : ({ ...got, verdicts: got.verdicts.map(() => null) } satisfies PartAnswer);
      },
    })),
    batches: { ...workers.prescanner, parts: undefined },
  };
  for (const input of PATTERNS) {
    test(JSON.stringify(input), async () => {
      for (const budget of BUDGETS) {
        const expected = await answer({ mounts: [directMount(config, undefined)], hasDirectMount: true }, input, budget);
        for (const [name, prescanner] of Object.entries(variants)) {
          const got = await answer(withWorkers(directMount(config, undefined, undefined, prescanner)), input, budget);
          if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`${name} at ${budget}: ${JSON.stringify(got).slice(0, 400)} against ${JSON.stringify(expected).slice(0, 400)}`);
        }
      }
    });
  }

  test('the answers are not all alike, and both threads took parts, and the Worker lost some', async () => {
    const all = JSON.stringify(await Promise.all(PATTERNS.map((p) => answer(withWorkers(directMount(config, undefined, undefined, variants.parts)), p, 1_000_000))));
    expect(all).toContain('"totalMatches":0');
    expect(all).toMatch(/"totalMatches":[1-9]/);
    expect(all).toContain('binary');
    expect(all).toContain('CRLF');
    expect(all).toContain('BOM');
    // The ignore files held: the one `.skip` file un-ignored is searched, no other; nothing under `a/`'s `build/`, nor the part's `.ignore`d `f*.md`.
    expect(all).toContain('work/a/b/c/keep.skip');
    expect(all).not.toMatch(/[fgh]\d+\.skip/);
    expect(all).toMatch(/work\/b\/(?:[^/",()]+\/)*build\//);
    expect(all.match(/work\/a\/(?:[^/",()]+\/)*build\//)?.[0]).toBeUndefined();
    expect(all).not.toMatch(/work\/a\/b\/c\/f\d+\.md/);
    expect(all).not.toContain('from outside');
    expect(counts.part).toBeGreaterThan(0);
    expect(counts.here).toBeGreaterThan(0);
    expect(counts.lost).toBeGreaterThan(0);
    expect(counts.takenBack).toBeGreaterThan(0);
    // No part searched by both threads: one taken back is skipped by the Worker.
    expect(searchedBy.here.size).toBeGreaterThan(counts.takenBack / 2);
    expect(searchedBy.worker.size).toBeGreaterThan(0);
    expect([...searchedBy.here].filter((key) => searchedBy.worker.has(key))).toEqual([]);
    expect(searchedBy.twice).toEqual([]);
  });
});

test('a part sent to the Worker is searched by one thread only: the Worker skips one the calling thread took back first', async () => {
  await workerUp(workers);
  const parts = workers.prescanner.parts;
  const spec = diskPort({ root, rules: walkRules([], undefined, root), followSymlinks: false, walkCap: 200_000 }).partSpec?.();
  if (parts === undefined || spec === undefined) throw new Error('no search in parts here');
  const claims = new Int32Array(new SharedArrayBuffer(4 * 200));
  const job = (at: number): PrescanJob => ({
    pattern: 'return',
    options: { caseInsensitive: false, fixedStrings: false, multiline: false },
    items: [],
    itemMs: 50,
    stallMs: 5_000,
    part: { ...spec, dir: 'a', maxBytes: MAX_FILE, claim: { claims, at } },
  });
  // Taken back before the Worker came to it: skipped, no answer.
  Atomics.store(claims, 0, CLAIM_HERE);
  expect(await parts.part(job(0))).toBeUndefined();
  // Not taken back: the Worker's, answered.
  const answered = await parts.part(job(1));
  expect(answered?.verdicts.length).toBeGreaterThan(10);
  expect(Atomics.load(claims, 1)).toBe(CLAIM_WORKER);
  // Sent, then raced for at once: each part is one thread's — answered by the Worker where it took the claim, skipped where this thread did.
  const raced = Array.from({ length: 198 }, (_, k) => k + 2);
  const sent = raced.map((at) => parts.part(job(at)));
  const here = raced.map((at) => (at % 3 === 0 ? Atomics.load(claims, at) === CLAIM_FREE && Atomics.compareExchange(claims, at, CLAIM_FREE, CLAIM_HERE) === CLAIM_FREE : false));
  const got = await Promise.all(sent);
  raced.forEach((at, k) => {
    expect(Atomics.load(claims, at)).toBe(here[k] ? CLAIM_HERE : CLAIM_WORKER);
    expect(got[k] === undefined).toBe(here[k]);
  });
  expect(here.filter(Boolean).length).toBeGreaterThan(0);
});

test('until the Worker is up, the calling thread takes every part itself; once it is, the Worker gets parts', async () => {
  const given = { notUp: 0, up: 0 };
  let up = false;
  const prescanner = partsAs((parts) => ({
    ...parts,
    ready: () => up,
    part: async (job) => {
      if (up) given.up++;
      else given.notUp++;
      return parts.part(job);
    },
  }));
  const workspace = withWorkers(directMount(config, undefined, undefined, prescanner));
  const first = await answer(workspace, { pattern: 'return', output: 'count' }, 1_000_000);
  up = true;
  await workerUp(workers);
  expect(await answer(workspace, { pattern: 'return', output: 'count' }, 1_000_000)).toEqual(first);
  expect(given.notUp).toBe(0);
  expect(given.up).toBeGreaterThan(0);
});

test("the walk's cap cuts a search in parts where it cuts a walk in parts", async () => {
  const disk = diskPort({ root, rules: walkRules([], undefined, root), followSymlinks: false, walkCap: 200_000 });
  const spec = disk.partSpec?.();
  const parts = workers.prescanner.parts;
  if (spec === undefined || parts === undefined) throw new Error('no search in parts here');
  const query = { pattern: 'return', caseInsensitive: false, fixedStrings: false, multiline: false };
  const walked: string[] = [];
  for await (const files of walkInParts(disk, '', { followSymlinks: false, cap: 1_000_000 })) for (const f of files) walked.push(f.path);
  expect(walked.length).toBeGreaterThan(300);
  for (const cap of [1, 7, 40, 333, walked.length, 1_000_000]) {
    const byParts: string[] = [];
    for await (const file of searchInParts(disk, config, mountWords('work'), '', query, parts, disk.partSpec?.() ?? spec, cap) as AsyncIterable<SearchFile>) {
      if ('noMatches' in file) byParts.push(...file.noMatches.paths);
      else byParts.push(file.path);
    }
    const byWalk: string[] = [];
    for await (const files of walkInParts(disk, '', { followSymlinks: false, cap })) for (const f of files) byWalk.push(f.path);
    expect(byParts).toEqual(byWalk);
  }
});

test("a part the Worker walked has the leftovers it met removed; a temporary file still being written stays", async () => {
  const dir = tempDir('ws-parts-leftover-');
  mkdirSync(join(dir, 'a/b/c/d'), { recursive: true });
  writeFileSync(join(dir, 'a/b/c/d/f.txt'), 'needle\n');
  // A leftover: its writer (a process id no process has) is gone. And one another live process may be writing (init's id, new).
  const leftover = join(dir, 'a/b/c/d/.ws-tmp-f.txt-2147483646-abc');
  const mine = join(dir, 'a/b/c/d/.ws-tmp-g.txt-1-abc');
  writeFileSync(leftover, 'needle half written\n');
  writeFileSync(mine, 'needle being written\n');
  utimesSync(leftover, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
  const onWorker = { parts: 0 };
  await workerUp(workers);
  const prescanner = partsAs((parts) => ({ ...parts, part: async (job) => (onWorker.parts++, parts.part(job)) }));
  const cfg = testConfig(dir, [{ name: 'work', path: '.', backend: 'direct', ignore: [] }]).mounts[0];
  const got = JSON.stringify(await answer(withWorkers(directMount(cfg, undefined, undefined, prescanner)), { pattern: 'needle' }, 100_000));
  // The one part (a/b/c) went to the Worker: the first part does, the Worker being up.
  expect(onWorker.parts).toBe(1);
  expect(got).toContain('a/b/c/d/f.txt');
  expect(got).not.toContain('written');
  expect(existsSync(leftover)).toBe(false);
  expect(existsSync(mine)).toBe(true);
});

test("a part's root swapped for a link to outside, again and again while greps walk it, is never read through", async () => {
  const dir = tempDir('ws-parts-swap-');
  const away = tempDir('ws-parts-swap-outside-');
  writeFileSync(join(away, 'mine.txt'), 'needle outside secret\n');
  mkdirSync(join(away, 'deeper'), { recursive: true });
  writeFileSync(join(away, 'deeper/mine.txt'), 'needle outside secret\n');
  // `x/y/sub` (a part: three levels down) is what the swapper exchanges with `x/y/link`.
  mkdirSync(join(dir, 'x/y/sub/deeper'), { recursive: true });
  writeFileSync(join(dir, 'x/y/sub/mine.txt'), 'needle mine\n');
  writeFileSync(join(dir, 'x/y/sub/deeper/mine.txt'), 'needle mine deeper\n');
  symlinkSync(away, join(dir, 'x/y/link'));
  for (let i = 0; i < 20; i++) writeFiles(dir, { [`x/y/p${i}/q/f.txt`]: `needle ${i}\n` });
  const cfg = testConfig(dir, [{ name: 'work', path: '.', backend: 'direct' }]).mounts[0];
  const workspace = withWorkers(directMount(cfg, undefined, undefined, workers.prescanner));
  await whileSwapping(join(dir, 'x/y'), async () => {
    let mine = 0;
    for (let round = 0; round < 40; round++) {
      const said = JSON.stringify(await answer(workspace, { pattern: 'needle' }, 1_000_000));
      expect(said).not.toContain('outside');
      if (said.includes('needle mine')) mine++;
      for (let i = 0; i < 20; i++) expect(said).toContain(`needle ${i}"`);
    }
    expect(mine).toBeGreaterThan(0);
  });
});

describe("a search in parts and its memory", () => {
  test('a file a part sends back holds bytes of its own, from the Worker and from the calling thread alike', async () => {
    const back = { worker: 0, here: 0 };
    const check = (answer: PartAnswer | undefined, where: 'worker' | 'here') => {
      for (const v of answer?.verdicts ?? []) {
        if (v === null || !('bytes' in v)) continue;
        // A view would carry the whole arena across (cloned), or change under the search as the next file is read into it.
        expect(v.bytes.byteOffset).toBe(0);
        expect(v.bytes.buffer.byteLength).toBe(v.bytes.length);
        back[where]++;
      }
      return answer;
    };
    await workerUp(workers);
    let sent = 0;
    const prescanner = partsAs((parts) => ({
      ...parts,
      // Every other part reaches the Worker only once this thread took it back, so both threads take parts.
      part: async (job) => {
        if (++sent % 2 === 0) await takenBack(job);
        return check(await parts.part(job), 'worker');
      },
      here: async (job) => check(await parts.here(job), 'here') as PartAnswer,
    }));
    await answer(withWorkers(directMount(config, undefined, undefined, prescanner)), { pattern: 'return' }, 1_000_000);
    expect(back.worker).toBeGreaterThan(10);
    expect(back.here).toBeGreaterThan(10);
  });

  test('a part scanned once the page is full (its flag set) keeps no file: each comes back counted', async () => {
    const { searchPart } = await import('../src/grep/part-search.ts');
    const { scanAhead } = await import('@ws/grep');
    const spec = diskPort({ root, rules: walkRules([], undefined, root), followSymlinks: false, walkCap: 200_000 }).partSpec?.();
    if (spec === undefined) throw new Error('no search in parts here');
    const full = new Int32Array(new SharedArrayBuffer(8));
    const job = (flag: number) => {
      Atomics.store(full, 0, flag);
      return { pattern: 'return', options: { caseInsensitive: false, fixedStrings: false, multiline: false }, items: [], itemMs: 50, stallMs: 1000, part: { ...spec, dir: 'a', maxBytes: MAX_FILE, full } };
    };
    const kinds = (flag: number) => {
      const got = searchPart(job(flag), new Uint8Array(1 << 20), scanAhead, false);
      // A file scanned with its bytes; one the scan was unsure of (binary, say), its bytes for the search to say so.
      const out = { scanned: 0, unsure: 0, counted: 0, none: 0, careful: 0 };
      for (const v of got.verdicts) out[v === null ? 'careful' : 'bytes' in v ? ('scan' in v ? 'scanned' : 'unsure') : 'counted' in v ? 'counted' : 'none']++;
      return out;
    };
    const before = kinds(0);
    const after = kinds(1);
    expect(before.scanned).toBeGreaterThan(20);
    expect(before.counted).toBe(0);
    expect(after.scanned).toBe(0);
    // The same files: each that came back with its bytes and scan now comes counted.
    expect(after).toEqual({ ...before, scanned: 0, counted: before.scanned });
  });

  test('a scan past its limit marks the pattern slow for both threads: no file after it is scanned, each is left to the search', async () => {
    const { searchPart, SLOW } = await import('../src/grep/part-search.ts');
    const { scanAhead } = await import('@ws/grep');
    const spec = diskPort({ root, rules: walkRules([], undefined, root), followSymlinks: false, walkCap: 200_000 }).partSpec?.();
    if (spec === undefined) throw new Error('no search in parts here');
    const flags = new Int32Array(new SharedArrayBuffer(8));
    // No time at all for a scan: the first file with a possible match runs past its limit.
    const job = { pattern: '(\\w+\\s*)+;$', options: { caseInsensitive: false, fixedStrings: false, multiline: false }, items: [], itemMs: 0, stallMs: 1000, part: { ...spec, dir: 'a', maxBytes: MAX_FILE, full: flags } };
    const first = searchPart(job, new Uint8Array(1 << 20), scanAhead, false);
    expect(first.slow).toBe(true);
    expect(Atomics.load(flags, SLOW)).toBe(1);
    const slowAt = first.verdicts.findIndex((v) => v !== null && 'aheadMs' in v);
    expect(slowAt).toBeGreaterThanOrEqual(0);
    expect(first.verdicts.slice(slowAt + 1).every((v) => v === null)).toBe(true);
    // The other thread's next part, with time enough: not scanned at all, the flag being set.
    const next = searchPart({ ...job, itemMs: 10_000, part: { ...job.part, dir: 'b' } }, new Uint8Array(1 << 20), scanAhead, false);
    expect(next.verdicts.length).toBeGreaterThan(10);
    expect(next.verdicts.every((v) => v === null)).toBe(true);
  });

  test("files the calling thread's own part found no match in pace its collections at a part of their size; a matching file at its whole", async () => {
    const tree = tempDir('ws-parts-pace-');
    const files: Record<string, string> = {};
    // 40 files of 1,000 bytes with no match, then 10 with one.
    for (let k = 0; k < 40; k++) files[`p/f${k}.txt`] = `${'x'.repeat(99)}\n`.repeat(10);
    for (let k = 0; k < 10; k++) files[`q/f${k}.txt`] = `${'needle here, '.padEnd(99, 'x')}\n`.repeat(10);
    writeFiles(tree, files);
    const spec = diskPort({ root: tree, rules: walkRules([], undefined, tree), followSymlinks: false, walkCap: 200_000 }).partSpec?.();
    if (spec === undefined) throw new Error('no search in parts here');
    const pool = grepWorkers({ callerHeapBytes: 2 ** 40, searchedBytes: 4_000 });
    try {
      const parts = pool.prescanner.parts;
      if (parts === undefined) throw new Error("a one-shot pool's prescanner searches in parts");
      const job = (dir: string) => ({ pattern: 'needle', options: { caseInsensitive: false, fixedStrings: false, multiline: false }, items: [], itemMs: 1_000, stallMs: 2_000, part: { ...spec, dir, maxBytes: MAX_FILE, full: new Int32Array(new SharedArrayBuffer(8)) } });
      const none = await parts.here(job('p'));
      expect(none.verdicts.every((v) => v !== null && 'none' in v)).toBe(true);
      // 40,000 bytes with no match count as 10,000: two collections, 2,000 bytes toward the next.
      expect((await pool.collections()).caller).toBe(2);
      const matched = await parts.here(job('q'));
      expect(matched.verdicts.every((v) => v !== null && 'bytes' in v)).toBe(true);
      // 10,000 bytes copied out count whole: 12,000 in all, three more.
      expect((await pool.collections()).caller).toBe(5);
    } finally {
      pool.close();
    }
  });

  test("files a Worker's part found no match in pace the caller's collections, at a part of their size", async () => {
    const pool = grepWorkers({ callerHeapBytes: 2 ** 40, searchedBytes: 256 });
    try {
      const real = pool.prescanner.parts;
      if (real === undefined) throw new Error("a one-shot pool's prescanner searches in parts");
      // Every part in the Worker (up before the search begins): the calling thread searches none itself.
      await workerUp(pool);
      const prescanner: Prescanner = { ...pool.prescanner, parts: { ...real, ahead: 1_000_000 } };
      const workspace: Workspace = { mounts: [directMount(config, undefined, undefined, prescanner)], hasDirectMount: true, grep: { runner: pool.runner, timeoutMs: 20_000 } };
      await answer(workspace, { pattern: 'zzqqxx' }, 1_000_000);
      expect((await pool.collections()).caller).toBeGreaterThan(20);
    } finally {
      pool.close();
    }
  });
});
