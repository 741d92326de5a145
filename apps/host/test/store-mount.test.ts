/**
 * The store-backed mount's seams: suggestions from the store's own records (no pass), and
 * a disk call that throws becoming the verb's one sentence (its trace only with WS_DEBUG=1).
 */
import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import type { DiskPort } from '@ws/reconcile';
import type { StoreMount } from '../src/mounts/store-backed/mount.ts';
import { storeHost } from './host-fixtures.ts';

/** A disk port that counts walks and stats, and throws from both once `failing` is set. */
function counting(disk: DiskPort, seen: { walks: number; stats: number; failing: boolean }): DiskPort {
  return {
    ...disk,
    locateRoot: () => disk.locateRoot(),
    read: (p, max) => disk.read(p, max),
    write: (p, b, o) => disk.write(p, b, o),
    unlink: (p, o) => disk.unlink(p, o),
    syncDirectory: (d) => disk.syncDirectory(d),
    async walk(dir) {
      seen.walks++;
      if (seen.failing) throw new Error('EIO: i/o error, scandir\n    at somewhere (file.ts:1:1)');
      return disk.walk(dir);
    },
    async stat(path) {
      seen.stats++;
      if (seen.failing) throw new Error('EIO: i/o error, stat\n    at somewhere (file.ts:1:1)');
      return disk.stat(path);
    },
  };
}

describe('a store-backed mount', () => {
  let spy: ReturnType<typeof spyOn> | undefined;
  afterEach(() => {
    spy?.mockRestore();
    delete process.env.WS_DEBUG;
  });

  test('a mistyped path gets candidates from the store, without a pass over the mount', async () => {
    const seen = { walks: 0, stats: 0, failing: false };
    const { host, mount } = await storeHost({
      files: { 'src/app.ts': 'a\n', 'src/util.ts': 'u\n', 'docs/app.ts': 'd\n', 'other/x.txt': 'x\n' },
      wrapDisk: (_m, disk) => counting(disk, seen),
    });
    await mount.list('', { recursive: true }); // the store learns the files
    seen.walks = 0;
    seen.stats = 0;
    const candidates = await (mount as StoreMount).candidates('src/APP.ts');
    expect(candidates.sort()).toEqual(['docs/app.ts', 'src/app.ts', 'src/util.ts']);
    expect(seen).toEqual({ walks: 0, stats: 0, failing: false });
    host.close();
  });

  test('a disk call that throws is the read\'s one sentence; WS_DEBUG=1 prints the trace on stderr', async () => {
    const seen = { walks: 0, stats: 0, failing: false };
    const { host, mount } = await storeHost({ files: { 'a.txt': 'one\n' }, wrapDisk: (_m, disk) => counting(disk, seen) });
    seen.failing = true;
    spy = spyOn(console, 'error').mockImplementation(() => {});
    expect(await mount.read('a.txt')).toEqual({ kind: 'answer', message: 'Reading work/a.txt failed: EIO: i/o error, stat.' });
    expect(spy).not.toHaveBeenCalled();
    process.env.WS_DEBUG = '1';
    const listed = await mount.list('', { recursive: false });
    expect(listed).toEqual({ ok: false, message: 'Listing work/ failed: EIO: i/o error, scandir.' });
    expect(spy).toHaveBeenCalledTimes(1);
    host.close();
  });
});
