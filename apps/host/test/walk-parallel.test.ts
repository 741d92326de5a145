/**
 * A whole walk split among Workers (`disk/walk-parallel.ts`) gives what one thread's walk
 * gives, entry for entry and in the same order, on generated trees with nested ignore
 * files (name rules, path rules, `!` rules), editors' files, ws temporary files (a dead
 * writer's, removed; a live one's and this process's own, kept), symlinks, a FIFO, empty and ignored
 * directories and non-ASCII names; a walk past the cap still stops where one thread's
 * does; and a file whose times are racy gets a racy fingerprint in a Worker too, unique.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Walk } from '@ws/reconcile';
import { doneWriting, tempName } from '../src/disk/boundary.ts';
import { diskPort } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';
import { callerWalks, type WalkReply, type WalkTask, walkedInWorkers, walkWorkers as workersFor } from '../src/disk/walk-parallel.ts';
import { visitTree, newTally } from '../src/disk/walk.ts';
import { seededRandom, tempDir, whileSwapping } from './fixtures.ts';

const seed = Number(process.env.WS_SEED ?? Date.now() % 1_000_000);
const sleeper = Bun.spawn(['sleep', '600'], { stdout: 'ignore', stderr: 'ignore' });
afterAll(() => sleeper.kill());

const NAMES = ['a.txt', 'b.js', 'c.map', 'keep.map', 'x.swp', 'notes~', 'é-ü.md', 'data.log', 'build', 'z', 'A.TXT', 'sub.txt'];
const RULES = ['*.map', '!keep.map', 'build/', 'sub/*.txt', '/z', 'deep/**/a.txt', '*.js', '#comment', ''];

/** A tree of `dirs` top directories, a few levels deep, from `seed`; returns its root and its temporary files' paths. */
function makeTree(rand: (n: number) => number, dirs: number): { root: string; leftovers: string[]; live: string } {
  const root = tempDir('ws-walk-par-');
  const leftovers: string[] = [];
  const fill = (dir: string, depth: number) => {
    if (existsSync(join(root, dir))) return; // a file of that name is there, or it was made already
    mkdirSync(join(root, dir), { recursive: true });
    for (let i = rand(6); i > 0; i--) writeFileSync(join(root, dir, NAMES[rand(NAMES.length)]), `${dir} ${i}\n`);
    if (rand(4) === 0) writeFileSync(join(root, dir, '.gitignore'), Array.from({ length: 1 + rand(3) }, () => RULES[rand(RULES.length)]).join('\n'));
    if (rand(6) === 0) writeFileSync(join(root, dir, '.ignore'), RULES[rand(RULES.length)]);
    if (rand(5) === 0) {
      const t = `${dir}/.ws-tmp-f.txt-99999999-dead${rand(1000)}`;
      writeFileSync(join(root, t), 'half');
      leftovers.push(t);
    }
    if (rand(8) === 0) symlinkSync('a.txt', join(root, dir, `link${rand(10)}`));
    if (rand(10) === 0) symlinkSync('..', join(root, dir, 'up'));
    if (rand(12) === 0) Bun.spawnSync(['mkfifo', join(root, dir, 'pipe')]);
    if (depth < 4) for (let i = rand(4); i > 0; i--) fill(`${dir}/${['sub', 'deep', 'build', 'node_modules', 'ñ', `d${i}`][rand(6)]}`, depth + 1);
  };
  for (let i = 0; i < dirs; i++) fill(`top${i}`, 1);
  mkdirSync(join(root, 'empty'));
  // One leftover every walk meets, whatever the seed made: the removal is always put to the test.
  mkdirSync(join(root, 'kept'));
  leftovers.push('kept/.ws-tmp-f.txt-99999999-dead0');
  writeFileSync(join(root, 'kept/.ws-tmp-f.txt-99999999-dead0'), 'half');
  writeFileSync(join(root, '.gitignore'), 'data.log\n');
  const live = `top0/.ws-tmp-f.txt-${sleeper.pid}-livewrite`;
  writeFileSync(join(root, live), 'being written');
  return { root, leftovers, live };
}

function disk(root: string, cap = 1_000_000) {
  return diskPort({ root, rules: walkRules(['node_modules/', '.git/', '*.log'], undefined, root), followSymlinks: false, walkCap: cap, protect: [], mount: 'work' });
}

/**
 * A walk with `workers` Workers. `caller`: whether this thread claims batches beside them
 * (false: the Workers walk every subtree), and for how long it is busy first — as a pass
 * is, scanning the store — before it lets the walk go on (0: at once).
 */
async function walkWith(workers: number, root: string, dir = '', cap?: number, caller: { joins: boolean; busyMs: number } = { joins: false, busyMs: 0 }): Promise<Walk> {
  const was = process.env.WS_WALK_WORKERS;
  process.env.WS_WALK_WORKERS = String(workers);
  callerWalks.joins = caller.joins;
  try {
    const walking = disk(root, cap).walk(dir);
    // Busy without a turn of the event loop, as a pass's scan of the store is.
    if (caller.busyMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, caller.busyMs);
    return await walking;
  } finally {
    callerWalks.joins = true;
    if (was === undefined) delete process.env.WS_WALK_WORKERS;
    else process.env.WS_WALK_WORKERS = was;
  }
}

for (const round of [0, 1, 2]) {
  test(`a walk in Workers gives one thread's walk, entry for entry (seed ${seed}, tree ${round})`, async () => {
    const rand = seededRandom(seed + round);
    const { root, leftovers, live } = makeTree(rand, 8 + round * 4);
    await Bun.sleep(100); // past the racy window: fingerprints are plain and comparable
    const one = await walkWith(0, root);
    // The walk removes the leftovers it meets (not those in directories it passes over).
    const met = leftovers.filter((t) => one.directories.includes(t.slice(0, t.lastIndexOf('/'))));
    expect(met.length).toBeGreaterThan(0);
    for (const t of met) expect(existsSync(join(root, t))).toBe(false);
    for (const t of met) writeFileSync(join(root, t), 'half'); // planted again for the second walk
    const before = walkedInWorkers.parts;
    const split = await walkWith(2, root);
    expect(walkedInWorkers.parts).toBeGreaterThan(before);
    expect(split).toEqual(one);
    expect(JSON.stringify(split)).toBe(JSON.stringify(one)); // the same order too
    for (const t of met) expect(existsSync(join(root, t))).toBe(false);
    expect(existsSync(join(root, live))).toBe(true);
    // This process's own temporary file, being written (a Worker cannot know it is: this thread decides).
    const mine = `top2/${tempName('f.txt')}`;
    mkdirSync(join(root, 'top2'), { recursive: true });
    writeFileSync(join(root, mine), 'being written here');
    try {
      await walkWith(2, root);
      expect(existsSync(join(root, mine))).toBe(true);
    } finally {
      doneWriting(mine.slice(5));
      rmSync(join(root, mine), { force: true }); // a leftover now: gone before the walks below
    }
    // A directory beneath the root, walked the same way.
    expect(await walkWith(2, root, 'top1')).toEqual(await walkWith(0, root, 'top1'));
    // Past the cap: the walk stops where one thread's stops.
    const cap = Math.max(1, Math.floor(one.files.length / 2));
    const capped = await walkWith(2, root, '', cap);
    expect(capped.incomplete).not.toBeNull();
    expect(capped).toEqual(await walkWith(0, root, '', cap));
  });
}

test(`this thread walks beside one Worker, and the whole is still one thread's walk, entry for entry (seed ${seed})`, async () => {
  const rand = seededRandom(seed + 7);
  const { root } = makeTree(rand, 14);
  await Bun.sleep(100); // past the racy window: fingerprints are plain and comparable
  await walkWith(0, root); // removes the dead writers' leftovers: every walk below meets the same tree
  const one = await walkWith(0, root);
  let byCaller = 0;
  let byWorkers = 0;
  // Let go at once, this thread claims the first batches before a Worker is up; busy
  // first, it finds the Worker has claimed some (or all). Either way: the same walk.
  for (const busyMs of [0, 300, 0, 300, 0]) {
    const [c, w] = [callerWalks.parts, walkedInWorkers.parts];
    const shared = await walkWith(1, root, '', undefined, { joins: true, busyMs });
    expect(JSON.stringify(shared)).toBe(JSON.stringify(one));
    byCaller += callerWalks.parts - c;
    byWorkers += walkedInWorkers.parts - w;
  }
  expect(byCaller).toBeGreaterThan(0);
  expect(byWorkers).toBeGreaterThan(0);
  // Past the cap, shared: it stops where one thread's stops.
  const cap = Math.max(1, Math.floor(one.files.length / 3));
  expect(await walkWith(1, root, '', cap, { joins: true, busyMs: 0 })).toEqual(await walkWith(0, root, '', cap));
});

test('a subtree swapped for a symlink to a directory outside, again and again while this thread and a Worker walk, is never walked through', async () => {
  const root = tempDir('ws-walk-par-swap-');
  const outside = tempDir('ws-walk-par-outside-');
  mkdirSync(join(outside, 'deeper'), { recursive: true });
  writeFileSync(join(outside, 'outside-secret.txt'), 'secret');
  writeFileSync(join(outside, 'deeper/outside-secret.txt'), 'secret');
  for (let i = 0; i < 10; i++) {
    mkdirSync(join(root, `top${i}/in`), { recursive: true });
    writeFileSync(join(root, `top${i}/in/f.txt`), `${i}`);
  }
  // `sub` is a subtree the walk hands out; the swapper exchanges it with `link` (to outside) in a tight loop.
  mkdirSync(join(root, 'sub/inner'), { recursive: true });
  writeFileSync(join(root, 'sub/inner/mine.txt'), 'mine');
  symlinkSync(outside, join(root, 'link'));
  await whileSwapping(root, async () => {
    let mine = 0;
    for (let round = 0; round < 40; round++) {
      const walked = await walkWith(1, root, '', undefined, { joins: true, busyMs: round % 2 === 0 ? 0 : 20 });
      const said = JSON.stringify(walked);
      expect(said).not.toContain('outside-secret');
      expect(said).not.toContain('deeper');
      // Whichever name the directory had when it was listed: its own file, under that name.
      if (walked.files.some((f) => f.path === 'sub/inner/mine.txt' || f.path === 'link/inner/mine.txt')) mine++;
      for (let i = 0; i < 10; i++) expect(walked.files.some((f) => f.path === `top${i}/in/f.txt`)).toBe(true);
    }
    // The mount's own directory was walked, under one name or the other, in some of the rounds.
    expect(mine).toBeGreaterThan(0);
  });
  expect(readdirSync(outside).sort()).toEqual(['deeper', 'outside-secret.txt']);
});

test('a file stamped in the future gets a racy fingerprint from a Worker, unlike any other', async () => {
  const rand = seededRandom(seed);
  const { root } = makeTree(rand, 10);
  await Bun.sleep(100);
  // Stamped a minute ahead (a clock skew): racy however long the Workers take to start.
  const ahead = new Date(Date.now() + 60_000);
  for (const p of ['top3/fresh.txt', 'top4/fresh.txt']) {
    writeFileSync(join(root, p), 'just saved');
    utimesSync(join(root, p), ahead, ahead);
  }
  const split = await walkWith(2, root);
  const fresh = split.files.filter((f) => f.path.endsWith('/fresh.txt')).map((f) => f.meta.fingerprint);
  expect(fresh.length).toBe(2);
  for (const fp of fresh) expect(fp).toContain('~');
  expect(new Set(fresh).size).toBe(2);
  const again = await walkWith(2, root);
  for (const f of again.files.filter((x) => x.path.endsWith('/fresh.txt'))) expect(fresh).not.toContain(f.meta.fingerprint);
});

/** Two walk Workers, started here, with every reply they send and when both have said they claim no more. */
function walkWorkers(): { workers: Worker[]; replies: WalkReply[]; done: Promise<void[]> } {
  const workers = [0, 1].map(() => new Worker(new URL('../src/disk/walk-worker.ts', import.meta.url).href));
  const replies: WalkReply[] = [];
  const done = Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          w.onmessage = (e: MessageEvent<WalkReply>) => {
            replies.push(e.data);
            if ('done' in e.data) resolve();
          };
        }),
    ),
  );
  return { workers, replies, done };
}

test("a walk's Workers claim every batch among themselves, with no word from this thread between batches", async () => {
  const rand = seededRandom(seed);
  const { root } = makeTree(rand, 12);
  await Bun.sleep(100);
  const rules = walkRules(['node_modules/', '.git/', '*.log'], undefined, root);
  const tops = Array.from({ length: 12 }, (_, i) => `top${i}`);
  const batches = Array.from({ length: 6 }, (_, i) => tops.slice(2 * i, 2 * i + 2));
  const claims = new Int32Array(new SharedArrayBuffer(4));
  const { workers, replies, done } = walkWorkers();
  try {
    const task: WalkTask = { id: 7, walk: 1, root, batches, claims, rules: rules.spec as NonNullable<typeof rules.spec>, granularityMs: 2, coarseMs: null, cap: 1_000_000 };
    for (const w of workers) w.postMessage(task);
    // This thread takes no message until every batch is claimed, and each Worker has once
    // found none left (its claim past the end): a Worker waiting to be handed its next
    // batch would hold the count short of that for good.
    const until = Date.now() + 30_000;
    while (Atomics.load(claims, 0) < batches.length + workers.length && Date.now() < until) Atomics.wait(claims, 0, Atomics.load(claims, 0), 5);
    expect(Atomics.load(claims, 0)).toBe(batches.length + workers.length);
    await done;
  } finally {
    for (const w of workers) w.terminate();
  }
  // Each batch answered once, by whichever Worker claimed it, with one thread's walk of each subtree.
  const answered = replies.filter((r): r is Extract<WalkReply, { parts: unknown }> => 'parts' in r);
  expect(replies.filter((r) => 'error' in r)).toEqual([]);
  expect(answered.map((r) => r.batch).sort()).toEqual([0, 1, 2, 3, 4, 5]);
  for (const r of answered) {
    expect(r.id).toBe(7);
    r.parts.forEach((part, i) => {
      const files: string[] = [];
      visitTree({ root, from: batches[r.batch][i], rules, followSymlinks: false, cap: 1_000_000, fromListed: true }, newTally(), (path, kind) => {
        if (kind === 'file') files.push(path);
      });
      expect(part.paths === '' ? [] : part.paths.split('\u0000')).toEqual(files);
    });
  }
});

test('a batch a Worker cannot walk is answered as failed, once, and the Worker goes on claiming the rest', async () => {
  const root = tempDir('ws-walk-par-');
  const batches = [['a'], ['b'], ['c'], ['d'], ['e']];
  const claims = new Int32Array(new SharedArrayBuffer(4));
  const { workers, replies, done } = walkWorkers();
  try {
    // Rules no Worker can make: every batch fails where the Worker makes them.
    const task = { id: 3, walk: 2, root, batches, claims, rules: null, granularityMs: 2, coarseMs: null, cap: 10 } as unknown as WalkTask;
    for (const w of workers) w.postMessage(task);
    await done;
  } finally {
    for (const w of workers) w.terminate();
  }
  const failed = replies.filter((r): r is Extract<WalkReply, { error: string }> => 'error' in r);
  expect(failed.map((r) => r.batch).sort()).toEqual([0, 1, 2, 3, 4]);
  for (const r of failed) expect(r.error.length).toBeGreaterThan(0);
  expect(replies.filter((r) => 'parts' in r)).toEqual([]);
  expect(replies.filter((r) => 'done' in r).length).toBe(2);
});

describe('how many Workers a walk uses', () => {
  test('one on two cores or fewer (this thread walks beside it), else one a core up to four; WS_WALK_WORKERS says otherwise', () => {
    const was = process.env.WS_WALK_WORKERS;
    delete process.env.WS_WALK_WORKERS;
    try {
      expect([1, 2, 3, 4, 8].map((cores) => workersFor(cores))).toEqual([1, 1, 3, 4, 4]);
      process.env.WS_WALK_WORKERS = '2';
      expect(workersFor(2)).toBe(2);
    } finally {
      if (was === undefined) delete process.env.WS_WALK_WORKERS;
      else process.env.WS_WALK_WORKERS = was;
    }
  });
});
