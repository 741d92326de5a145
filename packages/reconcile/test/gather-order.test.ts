import { describe, expect, test } from 'bun:test';
import type { MountContext } from '../src/context.ts';
import { gather } from '../src/observe.ts';
import { type Reading, createReconciler } from '../src/index.ts';
import { FakeDisk } from './fakes/disk.ts';
import { fakeHash } from './fakes/faults.ts';
import { FakeStore } from './fakes/store.ts';
import { MAX_FILE_SIZE, MOUNT, bytes } from './fakes/world.ts';

/** A disk whose reads finish in the reverse of the order they began (each later one sooner), as reads in flight may. */
class SlowFirstDisk extends FakeDisk {
  private begun = 0;
  override async read(path: string, maxBytes: number, into?: Uint8Array): Promise<Reading> {
    const wait = Math.max(0, 40 - 4 * this.begun++);
    const reading = await super.read(path, maxBytes, into);
    await Bun.sleep(wait);
    return reading;
  }
}

function world(files: number) {
  const store = new FakeStore(null, 'main', true);
  const disk = new SlowFirstDisk(null, null);
  const paths = Array.from({ length: files }, (_, i) => `d/f${String(i).padStart(3, '0')}.txt`);
  for (const p of paths) disk.personWrite(p, bytes(`text of ${p}`));
  const ctx: MountContext = { store, disk, hash: fakeHash, mount: MOUNT, readOnly: false, maxFileSize: MAX_FILE_SIZE, isBinary: () => false, inFlight: new Set() };
  return { store, disk, paths, ctx };
}

describe('a gather keeps its views in the walk’s order', () => {
  test('reads that finish out of order fill the places the walk gave them', async () => {
    const { paths, ctx } = world(12);
    const gathered = await gather(ctx, 'main', { kind: 'directory', path: '' }, false);
    if (gathered.kind !== 'observed') throw new Error('not observed');
    expect([...gathered.views.keys()]).toEqual(paths);
    // Every place filled by its read: none is left unread.
    for (const [path, view] of gathered.views) {
      expect(view.kind).toBe('text');
      expect(view.kind === 'text' && view.hash).toBe(fakeHash(bytes(`text of ${path}`)));
    }
  });

  test('the pass over them reports and records every file as before', async () => {
    const { store, disk, paths } = world(12);
    const r = createReconciler({ store, disk, hash: fakeHash, mount: MOUNT, maxFileSize: MAX_FILE_SIZE });
    const result = await r.pass({ scope: { kind: 'directory', path: '' } });
    if (result.kind !== 'done') throw new Error('gave up');
    expect(result.paths.map((p) => [p.path, p.state])).toEqual(paths.map((p) => [p, 'synced']));
    for (const p of paths) expect(store.read('main', MOUNT, p).tree?.hash).toBe(fakeHash(bytes(`text of ${p}`)));
  });
});
