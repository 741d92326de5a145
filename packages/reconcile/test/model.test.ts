/**
 * The model-based crash test (README, "Crash safety"): a seeded random walk through disk edits and
 * deletions, workspace writes and deletions, passes, path syncs, pushes (forced or not),
 * branch switches, unavailable roots and unreadable files — with crashes at random step
 * boundaries of passes and pushes — checked after every step against a plain model:
 *
 * - no draft is lost: each workspace write or deletion is in the store on its branch
 *   until disk holds it, or a sync (only over a conflict) or a discard gave it up;
 * - history holds every draft byte for byte: each version recorded reads back as the
 *   bytes it was recorded with, across branch switches and crashes, and a restore of a
 *   version makes exactly those bytes the draft;
 * - no disk change is overwritten or deleted unseen outside a forced push (the fake disk
 *   records any effect replacing a person's version the store never agreed with);
 * - every path a pass reports is in exactly one state, consistent with disk and store;
 * - a conflict, once reported, is reported on every pass until it is settled;
 * - an effect interrupted with an unknown outcome becomes an `interrupted` conflict.
 *
 * `WS_SEED=<n>` replays one run; a failure prints its seed, step and the steps before it.
 */
import { describe, expect, test } from 'bun:test';
import { Crash, rng } from './fakes/faults.ts';
import { MOUNT, bytes, world } from './fakes/world.ts';
import { Run, SEEDS, STEPS, expectFullReach, runSeeded } from './model-run.ts';

describe('crash safety, model-based', () => {
  for (const seed of SEEDS) {
    test(`${STEPS} random steps with crashes lose no draft and overwrite no disk change unseen (seed ${seed})`, async () => {
      const run = new Run(seed);
      await runSeeded(run, seed, STEPS);
      // The walk must reach what it claims to test.
      expectFullReach(run.stats);
      if (process.env.WS_MODEL_STATS) console.log(seed, run.stats);
    }, 120_000);
  }
});

describe('crash safety, model-based, on a store whose barriers are atomic (adoptions unannounced)', () => {
  for (const seed of SEEDS) {
    test(`${STEPS} random steps with crashes lose no draft and overwrite no disk change unseen (seed ${seed})`, async () => {
      const run = new Run(seed, null, true);
      await runSeeded(run, seed, STEPS);
      expect(run.stats.steps).toBe(STEPS);
      expect(run.stats.crashes).toBeGreaterThan(100);
      expect(run.stats.adopted).toBeGreaterThan(100);
      expect(run.stats.conflicts).toBeGreaterThan(10);
    }, 120_000);
  }
});

describe('crash safety, model-based, on a coarse clock', () => {
  for (const coarseMs of [1000, 2000]) {
    for (const seed of SEEDS) {
      test(`${STEPS} random steps on ${coarseMs / 1000} s timestamps lose no draft and overwrite no disk change unseen (seed ${seed})`, async () => {
        const run = new Run(seed, coarseMs);
        await runSeeded(run, seed, STEPS);
        expect(run.stats.steps).toBe(STEPS);
        expect(run.stats.written).toBeGreaterThan(100);
        expect(run.stats.conflicts).toBeGreaterThan(10);
        // The clock is coarse enough that many stats cannot vouch for what they saw.
        expect(run.w.disk.counts.racy).toBeGreaterThan(1000);
        if (process.env.WS_MODEL_STATS) console.log(seed, coarseMs, run.stats, run.w.disk.counts);
      }, 120_000);
    }
  }
});

describe('crash safety at every step boundary, one by one', () => {
  const losses: [string, () => () => number, boolean][] = [
    ['every unbarriered write lost', () => () => 0.99, false],
    ['every unbarriered write kept', () => () => 0, false],
    ['a random subset kept', () => rng(7), false],
    ['a store with atomic barriers', () => rng(7), true],
  ];
  for (const [loss, random, atomicStore] of losses) {
    test(`a pass taking in disk changes, crashed at each boundary (${loss}), ends taken in, never half`, async () => {
      let crashedAt = 0;
      for (let n = 1; ; n++) {
        const w = world({ atomicStore });
        for (const p of ['a.txt', 'src/b.txt', 'c.txt', 'd.txt']) w.disk.personWrite(p, bytes(`v0 ${p}`));
        await w.r.pass({ scope: { kind: 'directory', path: '' } });
        w.r.recordDrafts([{ path: 'd.txt', bytes: bytes('draft d') }]);
        w.disk.personWrite('a.txt', bytes('v1 a'));
        w.disk.personWrite('src/b.txt', new Uint8Array([0, 1, 2]));
        w.disk.personDelete('c.txt');
        w.faults.arm(n);
        try {
          await w.r.pass({ scope: { kind: 'directory', path: '' } });
          w.faults.disarm();
          break;
        } catch (e) {
          if (!(e instanceof Crash)) throw e;
          crashedAt = n;
        }
        const rand = random();
        w.store.crash(rand);
        w.disk.crash(rand);
        await w.restart().recover();
        const after = await w.r.pass({ scope: { kind: 'directory', path: '' } });
        if (after.kind !== 'done') throw new Error('gave up');
        const state = Object.fromEntries(after.paths.map((r) => [r.path, r.state]));
        expect({ n, state }).toEqual({ n, state: { 'a.txt': 'synced', 'src/b.txt': 'disk-only', 'c.txt': 'absent', 'd.txt': 'workspace-draft' } });
        expect(w.workspace('a.txt')).toBe('v1 a');
        expect(w.workspace('d.txt')).toBe('draft d');
        expect([...w.store.pendingPaths(MOUNT)]).toEqual([]);
      }
      expect(crashedAt).toBeGreaterThan(10);
    });
  }
});
