import { describe, expect, test } from 'bun:test';
import { GATHER_RECLAIM_EVERY } from '../src/context.ts';
import { RECLAIM_EVERY, createReconciler } from '../src/index.ts';
import { FakeDisk } from './fakes/disk.ts';
import { fakeHash } from './fakes/faults.ts';
import { FakeStore } from './fakes/store.ts';
import { MAX_FILE_SIZE, MOUNT, bytes } from './fakes/world.ts';

/** A reconciler over `files` new files whose `reclaim` notes each call, with how many tree entries the store held then. */
function withFiles(files: number) {
  const store = new FakeStore(null, 'main', true);
  const disk = new FakeDisk(null, null);
  for (let i = 0; i < files; i++) disk.personWrite(`d${i % 7}/f${String(i).padStart(5, '0')}.txt`, bytes(`file ${i}`));
  const calls: { full: boolean; recorded: number }[] = [];
  const recorded = () => [...store.scan('main', MOUNT, '')].filter((s) => s.tree !== null).length;
  const r = createReconciler({ store, disk, hash: fakeHash, mount: MOUNT, maxFileSize: MAX_FILE_SIZE, reclaim: (full) => calls.push({ full, recorded: recorded() }) });
  return { r, calls };
}
const whole = { scope: { kind: 'directory' as const, path: '' } };

describe('a large pass lets the host reclaim its garbage', () => {
  test('a pass that read thousands of files reclaims the young every thousand read, all before deciding, then the young every few thousand paths decided', async () => {
    const { r, calls } = withFiles(2 * RECLAIM_EVERY + 1);
    await r.pass(whole);
    // Nothing recorded yet at the full one: the gather's garbage goes before deciding makes more.
    const gathering = Math.floor((2 * RECLAIM_EVERY + 1) / GATHER_RECLAIM_EVERY);
    expect(gathering).toBe(8);
    expect(calls).toEqual([
      ...Array.from({ length: gathering }, () => ({ full: false, recorded: 0 })),
      { full: true, recorded: 0 },
      { full: false, recorded: RECLAIM_EVERY },
      { full: false, recorded: 2 * RECLAIM_EVERY },
    ]);
  });

  test('a small pass reclaims nothing, a pass of fewer than a few thousand nothing whole, and a large one that read nothing nothing at all', async () => {
    const small = withFiles(GATHER_RECLAIM_EVERY - 1);
    await small.r.pass(whole);
    expect(small.calls).toEqual([]);
    // Fewer than RECLAIM_EVERY read: the young only, as the gather goes.
    const fewer = withFiles(RECLAIM_EVERY - 1);
    await fewer.r.pass(whole);
    expect(fewer.calls.every((c) => !c.full && c.recorded === 0)).toBe(true);
    const large = withFiles(RECLAIM_EVERY + 1);
    await large.r.pass(whole);
    large.calls.length = 0;
    await large.r.pass({ ...whole, unchangedByCount: true }); // nothing changed: nothing read, nothing decided
    expect(large.calls).toEqual([]);
  });
});
