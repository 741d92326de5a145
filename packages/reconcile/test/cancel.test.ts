import { describe, expect, test } from 'bun:test';
import { CANCELLED, type PushDone, type PushResult, skipReason } from '../src/index.ts';
import { MOUNT, type World, bytes, text, world } from './fakes/world.ts';

function done(result: PushResult): PushDone {
  if (result.kind !== 'done') throw new Error(`the push gave up: ${result.reason}`);
  return result;
}
const all = { kind: 'directory' as const, path: '' };

async function drafted(count: number): Promise<World> {
  const w = world();
  for (let i = 0; i < count; i++) w.disk.personWrite(`f${String(i).padStart(3, '0')}.txt`, bytes(`old ${i}`));
  await w.r.pass({ scope: all });
  w.r.recordDrafts(Array.from({ length: count }, (_, i) => ({ path: `f${String(i).padStart(3, '0')}.txt`, bytes: bytes(`new ${i}`) })));
  return w;
}

describe('a cancelled push stops between paths', () => {
  for (const stopAt of [0, 1, 17, 49]) {
    test(`cancelled after ${stopAt} of 50: those are written and recorded, the rest stay drafts, nothing is pending`, async () => {
      const w = await drafted(50);
      const controller = new AbortController();
      const seen: number[] = [];
      const result = done(
        await w.r.push({
          scope: all,
          signal: controller.signal,
          progress: (n, total) => {
            seen.push(n);
            expect(total).toBe(50);
            if (n === stopAt) controller.abort();
          },
        }),
      );
      expect(result.cancelled).toBe(true);
      expect(result.written).toHaveLength(stopAt);
      expect(result.skipped.map((s) => s.reason)).toEqual(new Array(50 - stopAt).fill(skipReason.cancelled));
      for (let i = 0; i < 50; i++) {
        const path = `f${String(i).padStart(3, '0')}.txt`;
        const written = result.written.includes(path);
        expect(text(w.disk.bytesAt(path))).toBe(written ? `new ${i}` : `old ${i}`);
      }
      expect([...w.store.pendingPaths(MOUNT)]).toEqual([]);
      expect(seen[0]).toBe(0);
      // The rest go out on the next push, with nothing re-written.
      const rest = done(await w.r.push({ scope: all }));
      expect(rest.written).toHaveLength(50 - stopAt);
      expect(rest.cancelled).toBeUndefined();
    });
  }
});

describe('a cancelled pass decides nothing', () => {
  test('a pass whose signal is aborted mid-gather gives up and records no disk change', async () => {
    const w = world();
    for (let i = 0; i < 20; i++) w.disk.personWrite(`d/f${i}.txt`, bytes(`v${i}`));
    const controller = new AbortController();
    const result = await w.r.pass({ scope: all, signal: controller.signal, progress: (n) => n >= 5 && controller.abort() });
    expect(result).toEqual({ kind: 'gave-up', reason: CANCELLED, gathers: 1 });
    expect(w.store.read('main', MOUNT, 'd/f0.txt').tree).toBeNull();
    const again = await w.r.pass({ scope: all });
    expect(again.kind).toBe('done');
  });

  test('progress counts every file of a directory pass up to its total', async () => {
    const w = world();
    for (let i = 0; i < 12; i++) w.disk.personWrite(`f${i}.txt`, bytes(`v${i}`));
    const seen: [number, number | undefined][] = [];
    await w.r.pass({ scope: all, progress: (n, total) => seen.push([n, total]) });
    expect(seen.at(-1)).toEqual([12, 12]);
    expect(seen.every(([, total]) => total === 12)).toBe(true);
  });
});
