/**
 * How many grep Workers a pool plans for a machine's cores (issue 15, target 6): one
 * batch searched ahead at a time on two cores or fewer — one Worker, whose heap and image
 * are a one-shot grep's largest part after Bun's own — and one a core beyond, up to four;
 * a long-running host keeps one a core on two as well. The answer is the same either way.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { handleToolCall, type Workspace } from '@ws/tools';
import type { MountConfig } from '../src/config.ts';
import { READ_BATCH } from '../src/grep/prescan.ts';
import { grepWorkers, ONE_WORKER_READS, prescanParallel } from '../src/grep/runner.ts';
import { directMount } from '../src/mounts/direct.ts';
import { tempDir } from './fixtures.ts';
import { testConfig, writeFiles } from './host-fixtures.ts';

setDefaultTimeout(120_000);

let config: MountConfig;
const two = grepWorkers({ cores: 2 });
const eight = grepWorkers({ cores: 8 });
const server = grepWorkers({ cores: 2, longRunning: true });
afterAll(() => {
  two.close();
  eight.close();
  server.close();
});

beforeAll(() => {
  const root = tempDir('ws-grepcores-');
  const files: Record<string, string> = {};
  // Many batches' worth of files, most matching a common word, a few a rare one.
  for (let k = 0; k < READ_BATCH.files * 8; k++) files[`d${k % 7}/f${k}.ts`] = `export function f${k}() {\n  return ${k};\n}\n${k % 50 === 0 ? 'createReconciler()\n' : ''}`;
  writeFiles(root, files);
  config = testConfig(root, [{ name: 'work', path: '.', backend: 'direct', ignore: [] }]).mounts[0];
});

const workspace = (pool: ReturnType<typeof grepWorkers>): Workspace => ({
  mounts: [directMount(config, undefined, undefined, pool.prescanner)],
  hasDirectMount: true,
  grep: { runner: pool.runner, timeoutMs: 60_000 },
});

async function answer(ws: Workspace, input: Record<string, unknown>): Promise<unknown> {
  const got = await handleToolCall(ws, { name: 'grep', input: { path: 'work', ...input }, resultMaxChars: 20_000 });
  if (!got.success) throw new Error(got.error);
  return got.data;
}

test('Workers searching ahead for a core count: one on two cores or fewer, one a core beyond, at most four; a lone Worker holds two batches, and eight of paths', () => {
  expect([1, 2, 3, 4, 6, 8, 64].map((cores) => prescanParallel(cores))).toEqual([1, 1, 3, 4, 4, 4, 4]);
  expect(two.prescanner.parallel).toBe(2);
  expect(two.prescanner.readParallel).toBe(ONE_WORKER_READS);
  expect(ONE_WORKER_READS).toBe(8);
  expect(eight.prescanner.parallel).toBe(4);
  expect(eight.prescanner.readParallel).toBe(4);
});

test('a long-running host keeps one batch a core in flight on two cores too', () => {
  expect([1, 2, 3, 4, 6, 8, 64].map((cores) => prescanParallel(cores, true))).toEqual([1, 2, 3, 4, 4, 4, 4]);
  expect(server.prescanner.parallel).toBe(2);
  expect(server.prescanner.readParallel).toBe(2);
});

test('a long-running pool on two cores searches a grep of many batches on two Workers, and answers as one Worker does', async () => {
  for (const pattern of ['return', 'createReconciler', 'function\\s+\\w+']) {
    const one = await answer(workspace(two), { pattern });
    expect(await answer(workspace(server), { pattern })).toEqual(one);
  }
  expect(server.size()).toBe(2);
});

test('on two cores a grep of many batches runs on one Worker, and answers as a pool of four does', async () => {
  for (const pattern of ['return', 'createReconciler', 'function\\s+\\w+']) {
    const one = await answer(workspace(two), { pattern });
    expect(two.size()).toBe(1);
    expect(await answer(workspace(eight), { pattern })).toEqual(one);
  }
});

test('on two cores a one-shot pool keeps one Worker: scans started together, and a scan beside a batch searched ahead, wait for it and are each answered', async () => {
  const enc = new TextEncoder();
  const options = { caseInsensitive: false, fixedStrings: false, multiline: false };
  // Each job its own copy: a batch's bytes move to its Worker.
  const text = enc.encode(Array.from({ length: 2000 }, (_, k) => `n${k}`).join('\n'));
  const scans = (pool: ReturnType<typeof grepWorkers>) => Array.from({ length: 6 }, (_, i) => pool.runner({ pattern: `^n${i}$`, options, bytes: text.slice(), lineEnds: false, timeLimitMs: 30_000 }));
  const one = grepWorkers({ cores: 2 });
  const many = grepWorkers({ cores: 2, longRunning: true });
  try {
    const ahead = one.prescanner.run({ pattern: 'n1', options, items: [{ bytes: text.slice() }, { bytes: text.slice() }], itemMs: 30_000, stallMs: 30_000 });
    const answers = await Promise.all(scans(one));
    answers.forEach((r, i) => expect([...r.hits]).toEqual([i + 1]));
    expect((await ahead)?.verdicts.length).toBe(2);
    expect(one.size()).toBe(1);
    // A long-running host's pool makes a Worker for each scan it can run at once.
    const served = await Promise.all(scans(many));
    served.forEach((r, i) => expect([...r.hits]).toEqual([i + 1]));
    expect(many.size()).toBeGreaterThan(1);
  } finally {
    one.close();
    many.close();
  }
});

describe("a one-shot's lone Worker holds two batches, and eight of paths", () => {
  const enc = new TextEncoder();
  const options = { caseInsensitive: false, fixedStrings: false, multiline: false };
  const batch = (how: string, stallMs: number) => ({ pattern: 'x', options, items: [{ bytes: enc.encode(how) }, { bytes: enc.encode('x') }], itemMs: 30_000, stallMs });
  type Pool = ReturnType<typeof grepWorkers>;
  /** A pool on two cores whose Worker is the fake one, closed after `run`. */
  const queueing = async (run: (pool: Pool) => Promise<void>) => {
    const pool = grepWorkers({ cores: 2, workerFile: '../../test/grep-worker-queue.ts' });
    try {
      await run(pool);
    } finally {
      pool.close();
    }
  };
  /** A batch answered at once: its verdicts. */
  const quick = async (pool: Pool) => (await pool.prescanner.run(batch('quick', 30_000)))?.verdicts;

  test('the one queued behind a long batch is not timed while it waits: both are answered by the one Worker', async () => {
    await queueing(async (pool) => {
      // The first searches for 1.5 s, telling of its progress; the second, sent meanwhile,
      // would be taken for stuck 251 ms after it was sent were it timed from then.
      const first = pool.prescanner.run(batch('busy 1500', 30_000));
      const second = pool.prescanner.run(batch('quick', 1));
      const answers = await Promise.all([first, second]);
      expect(answers.map((a) => a?.verdicts)).toEqual([
        ['none', 'none'],
        ['none', 'none'],
      ]);
      expect(pool.size()).toBe(1);
    });
  });

  test('a Worker stuck under the first: both come back unanswered (the search takes them), and a new Worker answers the next', async () => {
    await queueing(async (pool) => {
      const answers = await Promise.all([pool.prescanner.run(batch('stuck 1500', 100)), pool.prescanner.run(batch('quick', 30_000))]);
      expect(answers).toEqual([undefined, undefined]);
      expect(await quick(pool)).toEqual(['none', 'none']);
      expect(pool.size()).toBe(1);
    });
  });

  test('a Worker that dies under the first: both come back unanswered, and a new Worker answers the next', async () => {
    await queueing(async (pool) => {
      // It answers once first: a Worker that never answered is taken for one that cannot start.
      expect(await quick(pool)).toEqual(['none', 'none']);
      const answers = await Promise.all([pool.prescanner.run(batch('die', 30_000)), pool.prescanner.run(batch('quick', 30_000))]);
      expect(answers).toEqual([undefined, undefined]);
      expect(await quick(pool)).toEqual(['none', 'none']);
      expect(pool.size()).toBe(1);
    });
  });

  test('closed with two batches in hand and a third waiting: each comes back unanswered, and no Worker is made after', async () => {
    // Every Worker made from here on, counted.
    const Real = globalThis.Worker;
    let made = 0;
    globalThis.Worker = class extends Real {
      constructor(...args: ConstructorParameters<typeof Worker>) {
        super(...args);
        made++;
      }
    };
    try {
      const pool = grepWorkers({ cores: 2, workerFile: '../../test/grep-worker-queue.ts' });
      // Stall windows of 2 s: answered by the close, or (as before) only when the first's
      // timer fired, ended the Worker and made another for the closed pool.
      const batches = [pool.prescanner.run(batch('stuck 1500', 2_000)), pool.prescanner.run(batch('quick', 2_000)), pool.prescanner.run(batch('quick', 2_000))];
      // The first two are in the Worker, the third waits for a turn.
      await Bun.sleep(100);
      pool.close();
      expect(await Promise.all(batches)).toEqual([undefined, undefined, undefined]);
      // Past every stall window.
      await Bun.sleep(2_500);
      expect(made).toBe(1);
      expect(pool.size()).toBe(0);
    } finally {
      globalThis.Worker = Real;
    }
  });

  test('batches of paths: eight in the Worker while it reads the first, the ninth after a turn; batches of bytes beside them still two', async () => {
    // Every batch posted to the Worker, counted as it is posted.
    const Real = globalThis.Worker;
    let posted = 0;
    globalThis.Worker = class extends Real {
      override postMessage(message: unknown, transfer?: unknown) {
        if (typeof message === 'object' && message !== null && 'prescan' in message) posted++;
        return super.postMessage(message, transfer as Transferable[]);
      }
    };
    try {
      await queueing(async (pool) => {
        const read = (how: string) => pool.prescanner.read({ pattern: 'x', options, items: [], read: { spec: { root: '/nowhere' } as never, paths: [how, 'b'], maxBytes: 1 << 20 }, itemMs: 30_000, stallMs: 30_000 });
        const reads = [read('busy 400'), ...Array.from({ length: 9 }, () => read('quick'))];
        await Bun.sleep(200);
        // The Worker is inside the first: eight were sent to it, the rest wait for a turn.
        expect(posted).toBe(ONE_WORKER_READS);
        const answers = await Promise.all(reads);
        expect(answers.map((a) => a?.verdicts)).toEqual(reads.map(() => [{ none: 0 }, { none: 0 }]));
        expect(pool.size()).toBe(1);
        posted = 0;
        const runs = [pool.prescanner.run(batch('busy 400', 30_000)), ...Array.from({ length: 3 }, () => pool.prescanner.run(batch('quick', 30_000)))];
        await Bun.sleep(200);
        expect(posted).toBe(2);
        expect((await Promise.all(runs)).map((a) => a?.verdicts.length)).toEqual([2, 2, 2, 2]);
      });
    } finally {
      globalThis.Worker = Real;
    }
  });

  test('three batches at once: two in the Worker, the third after a turn; each answered', async () => {
    await queueing(async (pool) => {
      const batches = [pool.prescanner.run(batch('busy 300', 30_000)), pool.prescanner.run(batch('quick', 30_000)), pool.prescanner.run(batch('quick', 30_000))];
      expect((await Promise.all(batches)).map((a) => a?.verdicts.length)).toEqual([2, 2, 2]);
      expect(pool.size()).toBe(1);
    });
  });
});
