/**
 * What bounds a grep's memory (issue 15, target 6): a direct mount's Workers searching in
 * batches of paths (a long-running host's; a one-shot's search in parts has its own tests in
 * `grep-parts.test.ts`) read at most
 * `READ_BATCH` files (and bytes) at a time, whatever the tree holds — huge files alone,
 * tiny ones many to a batch; each grep Worker's heap, and the caller's, is collected once
 * past its bound (`HeapBound`). None of it changes an answer: with the limits tiny (one
 * file a batch, heaps bound at nothing) every mode answers as with none, and a
 * file growing while it is read is seen whole, at one of its sizes. WS_SEED changes the tree.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runMatchJob } from '@ws/grep';
import { handleToolCall, type Workspace } from '@ws/tools';
import type { MountConfig } from '../src/config.ts';
import { ahead, BATCH_BYTES, BATCH_FILES, batches, batchesOf, HEAP_CHECK_PACE, HeapBound, prescanJob, SEARCHED_COLLECT, type Prescanner, READ_BATCH, UNREAD_PACE } from '../src/grep/prescan.ts';
import { grepWorkers } from '../src/grep/runner.ts';
import { diskPort, diskReader } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';
import { directMount, WALK_CAP } from '../src/mounts/direct.ts';
import { seededRandom, tempDir } from './fixtures.ts';
import { testConfig, writeFiles } from './host-fixtures.ts';

setDefaultTimeout(120_000);

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : 615;
const r = seededRandom(seed);

describe('batches hold at most their limits', () => {
  test('random sizes, huge and tiny: every batch within its files and bytes (a larger file alone), nothing lost or reordered', () => {
    for (let round = 0; round < 200; round++) {
      const limits = { files: 1 + r(40), bytes: 1 + r(5000) };
      const sizes = Array.from({ length: r(300) }, () => [0, 1, r(100), r(6000), limits.bytes, limits.bytes + 1 + r(10_000)][r(6)]);
      const list = sizes.map((size, k) => ({ k, size }));
      const cut = batches(list, (t) => t.size, limits);
      expect(cut.flat()).toEqual(list);
      for (const b of cut) {
        const read = b.filter((t) => t.size > 0);
        expect(read.length).toBeLessThanOrEqual(limits.files);
        const bytes = read.reduce((n, t) => n + t.size, 0);
        if (read.length > 1) expect(bytes).toBeLessThanOrEqual(limits.bytes);
        expect(b.length).toBeGreaterThan(0);
      }
    }
  });

  test('made one at a time: a size is asked only as its batch (or the one it closes) is made, and the batches are the same', () => {
    for (let round = 0; round < 100; round++) {
      const limits = { files: 1 + r(8), bytes: 1 + r(500) };
      const sizes = Array.from({ length: 1 + r(120) }, () => [0, 1, r(100), r(600), limits.bytes + 1][r(5)]);
      const asked: number[] = [];
      const made = batchesOf(
        sizes.map((_, k) => k),
        (k) => {
          asked.push(k);
          return sizes[k];
        },
        limits,
      );
      const cut: number[][] = [];
      for (const b of made) {
        // Asked of this batch's entries and at most the first of the next.
        const last = b[b.length - 1];
        expect(asked.every((k) => k <= last + 1)).toBe(true);
        expect(asked).toContain(last);
        cut.push(b);
      }
      expect(cut).toEqual(batches(sizes.map((_, k) => k), (k) => sizes[k], limits));
    }
  });

  test('searched ahead, an input is taken only as it is started: at most `depth` ahead of the one given', async () => {
    for (const depth of [1, 2, 3, 5]) {
      let taken = 0;
      function* inputs() {
        for (let k = 0; k < 12; k++) {
          taken++;
          yield k;
        }
      }
      const given: number[] = [];
      for await (const v of ahead(inputs(), async (k) => k * 2, depth)) {
        given.push(v);
        // The one given, and up to `depth` more started behind it.
        expect(taken).toBeLessThanOrEqual(Math.min(12, given.length + depth));
      }
      expect(given).toEqual(Array.from({ length: 12 }, (_, k) => k * 2));
    }
  });

  test('without limits given, a batch keeps the larger size a store batch uses', () => {
    const list = Array.from({ length: BATCH_FILES * 3 }, (_, k) => k);
    expect(batches(list, () => 1).map((b) => b.length)).toEqual([BATCH_FILES, BATCH_FILES, BATCH_FILES]);
    expect(batches([BATCH_BYTES - 1, 1, BATCH_BYTES, 1], (n) => n).map((b) => b.length)).toEqual([2, 1, 1]);
    expect(READ_BATCH.files).toBeLessThan(BATCH_FILES);
  });
});

describe('a heap bound', () => {
  test('collects only once past its bound, then waits for twice what stayed live', () => {
    let heap = 0;
    let live = 0;
    const bound = new HeapBound(
      100,
      () => heap,
      () => {
        heap = live;
      },
    );
    heap = 100;
    expect(bound.check()).toBe(false);
    heap = 101;
    expect(bound.check()).toBe(true);
    expect(heap).toBe(0);
    // Much stays live: the bound moves to twice it, so the next batches are not each collected.
    live = 300;
    heap = 350;
    expect(bound.check()).toBe(true);
    heap = 599;
    expect(bound.check()).toBe(false);
    heap = 601;
    expect(bound.check()).toBe(true);
    // Live again small: back to the least bound.
    live = 10;
    heap = 601;
    expect(bound.check()).toBe(true);
    heap = 101;
    expect(bound.check()).toBe(true);
    expect(bound.collections).toBe(5);
    expect(bound.passed).toBe(0);
  });

  test('with a pace (a server\'s caller), measures no sooner than fifty times its last measurement took', () => {
    let clock = 0;
    let measured = 0;
    let heap = 0;
    // Each measurement takes 2 ms of the clock: the next comes 100 ms after it ends.
    const bound = new HeapBound(
      100,
      () => {
        measured++;
        clock += 2;
        return heap;
      },
      () => {
        heap = 0;
      },
      { pace: HEAP_CHECK_PACE, now: () => clock },
    );
    expect(HEAP_CHECK_PACE).toBe(50);
    expect(bound.check()).toBe(false);
    expect([measured, clock]).toEqual([1, 2]);
    heap = 500;
    clock = 101;
    expect(bound.check()).toBe(false);
    expect([measured, bound.passed]).toEqual([1, 1]);
    clock = 102;
    expect(bound.check()).toBe(true);
    // Past the bound: measured, collected, measured again.
    expect([measured, bound.collections]).toEqual([3, 1]);
    // A collection does not pace the next check.
    heap = 500;
    expect(bound.check()).toBe(true);
    expect([measured, bound.collections, bound.passed]).toEqual([5, 2, 1]);
  });

  test('given `searched`, collects once Workers have searched that many bytes for it since its last collection', () => {
    let collected = 0;
    let heap = 0;
    const bound = new HeapBound(
      100,
      () => heap,
      () => {
        collected++;
        heap = 0;
      },
      { searched: 1000 },
    );
    expect(SEARCHED_COLLECT).toBe(8 << 20);
    expect(bound.searched(600)).toBe(false);
    expect(bound.searched(399)).toBe(false);
    expect(bound.searched(1)).toBe(true);
    expect(collected).toBe(1);
    // Counted afresh after it; a collection the heap's own bound made resets the count too.
    expect(bound.searched(999)).toBe(false);
    heap = 101;
    expect(bound.check()).toBe(true);
    expect(bound.searched(999)).toBe(false);
    expect(bound.searched(1)).toBe(true);
    expect([collected, bound.collections]).toEqual([3, 3]);
    // Without `searched`, bytes searched never collect.
    const plain = new HeapBound(100, () => 0, () => collected++);
    expect(plain.searched(2 ** 40)).toBe(false);
    expect(collected).toBe(3);
  });
});

let root: string;
let config: MountConfig;
const BIG = READ_BATCH.bytes + 1000;
const ordinary = grepWorkers();
// Bounds of nothing: a thread collects whenever its heap passes twice what stayed live, in the Workers and on this thread.
const tight = grepWorkers({ workerHeapBytes: 0, callerHeapBytes: 0 });
// Heaps never past their bounds, and a collection after every 128 bytes the Workers searched: in a one-shot pool, not in a long-running one.
const onEveryByte = grepWorkers({ callerHeapBytes: 2 ** 40, searchedBytes: 128 });
const serverOnEveryByte = grepWorkers({ callerHeapBytes: 2 ** 40, searchedBytes: 128, longRunning: true });
afterAll(() => {
  ordinary.close();
  tight.close();
  onEveryByte.close();
  serverOnEveryByte.close();
});

const WORDS = ['return', 'Foo', 'needleError', 'function', 'x', 'ünï', '  '];
function text(lines: number, end: string): string {
  const out: string[] = [];
  for (let n = 0; n < lines; n++) {
    const words: string[] = [];
    for (let w = r(5); w > 0; w--) words.push(WORDS[r(WORDS.length)]);
    out.push(words.join(' '));
  }
  return out.join(end) + end;
}

beforeAll(() => {
  root = tempDir('ws-grepmem-');
  const files: Record<string, string | Uint8Array> = {};
  // Many tiny files, some large ones (each over a read batch's bytes), CRLF, a BOM, binary.
  for (let k = 0; k < 300; k++) files[`${['', 'a/', 'a/b/', 'c/'][k % 4]}t${k}.txt`] = text(r(4), k % 5 === 0 ? '\r\n' : '\n');
  for (let k = 0; k < 3; k++) files[`big/b${k}.txt`] = `${'filler line\n'.repeat(Math.ceil(BIG / 12))}function needleError\n`;
  files['bom.txt'] = `\uFEFFreturn Foo\n`;
  files['bin.dat'] = new Uint8Array([0x72, 0x65, 0x74, 0, 0x75]);
  writeFiles(root, files);
  config = testConfig(root, [{ name: 'work', path: '.', backend: 'direct', ignore: [], maxFileSize: 2 * BIG }]).mounts[0];
});

async function answer(workspace: Workspace, input: Record<string, unknown>): Promise<unknown> {
  const got = await handleToolCall(workspace, { name: 'grep', input: { path: 'work', ...input }, resultMaxChars: 1_000_000 });
  if (!got.success) throw new Error(got.error);
  return got.data;
}

// The batches the ordinary pool searched ahead for the answers below, counted.
const ordinaryBatches = { n: 0 };
const countedOrdinary: Prescanner = {
  ...ordinary.prescanner,
  // In batches of paths, as a long-running host (or a mount that follows links) searches: not in parts.
  parts: undefined,
  parallel: ordinary.prescanner.parallel,
  read: (job) => {
    ordinaryBatches.n++;
    return ordinary.prescanner.read(job);
  },
};

/** The disk a direct mount over `config` reads through. */
function directMountDisk() {
  return diskPort({ root: config.root, rules: walkRules(config.ignore, undefined, undefined), followSymlinks: config.followSymlinks, walkCap: WALK_CAP, protect: config.protect, mount: config.name });
}

function withWorkers(pool: ReturnType<typeof grepWorkers>, prescanner: Prescanner = pool.prescanner): Workspace {
  return { mounts: [directMount(config, undefined, undefined, prescanner)], hasDirectMount: true, grep: { runner: pool.runner, timeoutMs: 60_000 } };
}

const INPUTS: Record<string, unknown>[] = [
  { pattern: 'needleError' },
  { pattern: 'function\\s+\\w+Error' },
  { pattern: 'return' },
  { pattern: 'return', output: 'files' },
  { pattern: 'return', output: 'count' },
  { pattern: 'foo', caseInsensitive: true, contextBefore: 1, contextAfter: 2 },
  { pattern: 'return', offset: 7 },
];

describe('the limits change no answer', () => {
  test("a direct mount's reads come in batches of at most READ_BATCH files, and its Worker holds at most a buffer's worth of them at a time, each large file alone", async () => {
    const seen: string[][] = [];
    const spy: Prescanner = {
      ...ordinary.prescanner,
      parts: undefined,
      parallel: ordinary.prescanner.parallel,
      run: (job) => ordinary.prescanner.run(job),
      blobs: (job) => ordinary.prescanner.blobs(job),
      read: async (job) => {
        seen.push([...(job.read?.paths ?? [])]);
        return ordinary.prescanner.read(job);
      },
    };
    await answer(withWorkers(ordinary, spy), { pattern: 'return' });
    expect(seen.length).toBeGreaterThan(300 / READ_BATCH.files);
    for (const paths of seen) expect(paths.length).toBeLessThanOrEqual(READ_BATCH.files);
    // Each batch as its Worker reads it (the mount's reader, into one buffer of READ_BATCH's bytes):
    // a call holds what fits in the buffer, or one file of its own, never more.
    const reader = diskReader(directMountDisk().readerSpec);
    const into = new Uint8Array(READ_BATCH.bytes);
    let alone = 0;
    let calls = 0;
    for (const paths of seen) {
      for (let from = 0; from < paths.length; ) {
        const got = await reader.readForSearch(paths.slice(from), config.maxFileSize, into);
        calls++;
        expect(got.length).toBeGreaterThan(0);
        const held = got.map((g) => (g.kind === 'read' ? g.bytes : g.kind === 'file' ? g.bytes : null)).filter((b): b is Uint8Array => b !== null);
        const own = held.filter((b) => b.length > 0 && b.buffer !== into.buffer);
        if (own.length > 0) {
          // A file too large for the buffer came in bytes of its own, and ended the call.
          expect(own.length).toBe(1);
          expect(held.at(-1)).toBe(own[0]);
          alone++;
        }
        expect(held.filter((b) => b.buffer === into.buffer).reduce((n, b) => n + b.length, 0)).toBeLessThanOrEqual(into.length);
        from += got.length;
      }
    }
    expect(calls).toBeGreaterThan(seen.length);
    // The large files were read, each alone.
    expect(alone).toBe(3);
  });

  test('a file a Worker read sends back holds bytes of its own, not a view of the buffer its batch was read into', async () => {
    let back = 0;
    const spy: Prescanner = {
      ...ordinary.prescanner,
      parts: undefined,
      parallel: ordinary.prescanner.parallel,
      read: async (job) => {
        const got = await ordinary.prescanner.read(job);
        for (const v of got?.verdicts ?? []) {
          if ('none' in v || 'counted' in v) continue;
          const bytes = 'bytes' in v ? v.bytes : v.reading.kind === 'file' ? v.reading.bytes : null;
          if (bytes === null) continue;
          // A view would carry the whole batch's buffer across (cloned), and tie it to the search.
          expect(bytes.byteOffset).toBe(0);
          expect(bytes.buffer.byteLength).toBe(bytes.length);
          back++;
        }
        return got;
      },
    };
    await answer(withWorkers(ordinary, spy), { pattern: 'return' });
    expect(back).toBeGreaterThan(50);
  });

  for (const input of INPUTS) {
    test(`one file a batch and heaps bound at nothing: ${JSON.stringify(input)}`, async () => {
      const plain = await answer({ mounts: [directMount(config, undefined)], hasDirectMount: true }, input);
      expect(await answer(withWorkers(ordinary, countedOrdinary), input)).toEqual(plain);
      const saved = { ...READ_BATCH };
      READ_BATCH.files = 1;
      READ_BATCH.bytes = 1;
      try {
        expect(await answer(withWorkers(tight), input)).toEqual(plain);
      } finally {
        Object.assign(READ_BATCH, saved);
      }
    });
  }

  test('the tight bounds did collect, in the Workers and on the calling thread; the ordinary ones seldom', async () => {
    const got = await tight.collections();
    expect(got.workers).toBeGreaterThan(0);
    expect(got.caller).toBeGreaterThan(0);
    // Seldom: far fewer collections than batches, in the Workers and on this thread (not after every batch).
    const usual = await ordinary.collections();
    expect(ordinaryBatches.n).toBeGreaterThan(20);
    expect(usual.workers).toBeLessThan(ordinaryBatches.n / 2);
    expect(usual.caller).toBeLessThan(ordinaryBatches.n / 2);
  });

  test('files a Worker read and found no match in, or kept only the scan of (a full page), pace the caller too', async () => {
    for (const input of [{ pattern: 'zzqqxx' }, { pattern: 'return' }]) {
      const pool = grepWorkers({ callerHeapBytes: 2 ** 40, searchedBytes: 128 });
      const plain = await answer(withWorkers(ordinary), input);
      // A page of a few results: the rest come counted, their bytes left in the Worker.
      const kept: number[] = [];
      const unnumbered: number[] = [];
      const numbered: number[] = [];
      const spy: Prescanner = {
        ...pool.prescanner,
        parts: undefined,
        parallel: pool.prescanner.parallel,
        // Two batches of paths ahead, not eight: this tree's few batches are then mostly sent after the page is full.
        readParallel: pool.prescanner.parallel,
        read: async (job) => {
          const got = await pool.prescanner.read(job);
          kept.push(got?.verdicts.filter((v) => 'reading' in v && v.reading.kind === 'file' && v.reading.bytes !== null).length ?? 0);
          for (const v of got?.verdicts ?? []) {
            // A file counted for a full page has its lines counted, not numbered: the pattern is its run.
            if ('counted' in v) (v.counted.scan.unnumbered ? unnumbered : numbered).push(v.counted.scan.lines);
          }
          return got;
        },
      };
      try {
        const full = await handleToolCall(withWorkers(pool, spy), { name: 'grep', input: { path: 'work', ...input }, resultMaxChars: 2000 });
        const whole = await handleToolCall(withWorkers(ordinary), { name: 'grep', input: { path: 'work', ...input }, resultMaxChars: 2000 });
        expect(full).toEqual(whole);
        // The files read paced the caller: a collection every 128 bytes or so of them, where no byte (or few) came back.
        expect((await pool.collections()).caller).toBeGreaterThan(20);
        if (input.pattern === 'return') {
          expect((plain as { totalMatches: number }).totalMatches).toBeGreaterThan(50);
          // The last batches sent no file's bytes back: their files were counted.
          expect(kept.slice(-2)).toEqual([0, 0]);
          expect(unnumbered.length).toBeGreaterThan(10);
          expect(unnumbered.every((lines) => lines > 0)).toBe(true);
          expect(numbered).toEqual([]);
        }
      } finally {
        pool.close();
      }
    }
  });

  test("a store's blob counted for a full page paces a one-shot caller at UNREAD_PACE of its size; one whose bytes come back, at all of it", async () => {
    // Each blob 64,000 bytes, a collection every 128,000 searched: made once that many have
    // been counted since the last (what is counted past it goes with it).
    const blob = new TextEncoder().encode('return x;\n'.repeat(6_400));
    const every = 2 * blob.length;
    const collectionsFor = (blobs: number, pace: number) => Math.floor(blobs / Math.ceil(every / (blob.length * pace)));
    const pool = grepWorkers({ callerHeapBytes: 2 ** 40, searchedBytes: every });
    try {
      const items = Array.from({ length: 16 }, () => ({ codec: 'raw', packed: blob.slice() }));
      const query = (full: boolean) => ({ pattern: 'return', caseInsensitive: false, fixedStrings: false, multiline: false, pageFull: () => full });
      const counted = await pool.prescanner.run(prescanJob(query(true), items, blob.length));
      expect(counted?.verdicts.every((v) => v !== null && typeof v === 'object' && 'counted' in v)).toBe(true);
      // Their bytes stayed in the Worker: 16 blobs at UNREAD_PACE of their size (a quarter: two collections).
      expect((await pool.collections()).caller).toBe(collectionsFor(16, UNREAD_PACE));
      const back = await pool.prescanner.run(prescanJob(query(false), items.map((i) => ({ ...i, packed: blob.slice() })), blob.length));
      expect(back?.verdicts.every((v) => v instanceof Uint8Array)).toBe(true);
      // Their bytes came back: each counts whole (eight collections more).
      expect((await pool.collections()).caller).toBe(collectionsFor(16, UNREAD_PACE) + collectionsFor(16, 1));
    } finally {
      pool.close();
    }
  });

  test('scans sent to a Worker one by one (a large file\'s stretches) pace a one-shot caller and are collected in the Worker; the answers are the same', async () => {
    const pool = grepWorkers({ callerHeapBytes: 2 ** 40, searchedBytes: 1 << 20, workerHeapBytes: 1 });
    try {
      const options = { caseInsensitive: false, fixedStrings: false, multiline: false };
      for (let k = 0; k < 16; k++) {
        // A stretch of 256 KiB, its own bytes each time (no scan made ahead answers it).
        const bytes = new TextEncoder().encode(`${`line ${k} of a stretch\n`.repeat(12_000)}hit ${k}\n`.slice(0, 256 * 1024 - 8));
        const job = { pattern: 'hit \\d+|stretch', options, bytes, lineEnds: false, timeLimitMs: 10_000 };
        const got = await pool.runner(job);
        const { text: _, ...here } = runMatchJob(job, () => performance.now());
        expect(got).toEqual(here);
      }
      const made = await pool.collections();
      // 4 MiB searched at a collection a MiB on this thread; the Worker's heap bound of a byte, passed after every scan.
      expect(made.caller).toBeGreaterThanOrEqual(3);
      expect(made.workers).toBeGreaterThan(0);
    } finally {
      pool.close();
    }
  });

  test("a one-shot caller collects as the Workers' bytes come, a long-running one does not; the answers are the same", async () => {
    const plain = await answer(withWorkers(ordinary), { pattern: 'return' });
    expect(await answer(withWorkers(onEveryByte), { pattern: 'return' })).toEqual(plain);
    expect(await answer(withWorkers(serverOnEveryByte), { pattern: 'return' })).toEqual(plain);
    // Every matching file's bytes came back, and each collected.
    expect((await onEveryByte.collections()).caller).toBeGreaterThan(10);
    expect((await serverOnEveryByte.collections()).caller).toBe(0);
  });

  test('a file growing while it is read is seen whole, at one of its sizes', async () => {
    const file = join(root, 'a', 'growing.txt');
    writeFileSync(file, 'grow 0\n');
    let n = 1;
    let writing = true;
    const writer = (async () => {
      while (writing) {
        appendFileSync(file, `grow ${n++}\n`.repeat(1 + r(200)).replace(/grow \d+/g, () => `grow ${n++}`));
        await Bun.sleep(0);
      }
    })();
    try {
      for (let round = 0; round < 5; round++) {
        const got = (await answer(withWorkers(tight), { pattern: '^grow \\d+$', path: 'work/a' })) as { results: { path: string; matches: { line: number; text: string }[] }[] };
        const grown = got.results.find((f) => f.path === 'work/a/growing.txt');
        if (grown === undefined) continue; // read while it changed on every try: passed over, not torn
        // Lines 1..k, each whole: a prefix of the file as it grew, never a torn line or a hole.
        grown.matches.forEach((m, i) => {
          expect(m.line).toBe(i + 1);
          expect(m.text).toMatch(/^grow \d+$/);
        });
      }
    } finally {
      writing = false;
      await writer;
    }
  });
});
