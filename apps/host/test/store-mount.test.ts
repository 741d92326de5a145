/**
 * The store-backed mount's seams: suggestions from the store's own records (no pass), and
 * a disk call that throws becoming the verb's one sentence (its trace only with WS_DEBUG=1).
 */
import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import type { DiskPort } from '@ws/reconcile';
import { handleToolCall } from '@ws/tools';
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

describe('glob with sort: "modified" on a store-backed mount', () => {
  test("newest first: a draft by the time of the agent's change, other files by disk's mtime", async () => {
    const { host, root } = await storeHost({ files: { 'old.ts': 'o\n', 'mid.ts': 'm\n', 'new.ts': 'n\n', 'drafted.ts': 'd\n' } });
    const now = Date.now() / 1000;
    // Disk's times, far apart: drafted.ts is the oldest on disk, but the agent changes it last.
    utimesSync(join(root, 'drafted.ts'), now - 4000, now - 4000);
    utimesSync(join(root, 'old.ts'), now - 3000, now - 3000);
    utimesSync(join(root, 'mid.ts'), now - 2000, now - 2000);
    utimesSync(join(root, 'new.ts'), now - 1000, now - 1000);
    const call = async (input: Record<string, unknown>) => {
      const r = await handleToolCall(host.workspace, { name: 'glob', input });
      if (!r.success) throw new Error(r.error);
      return (r.data as { files: string[] }).files;
    };
    expect(await call({ pattern: 'work/*.ts' })).toEqual(['work/drafted.ts', 'work/mid.ts', 'work/new.ts', 'work/old.ts']);
    expect(await call({ pattern: 'work/*.ts', sort: 'modified' })).toEqual(['work/new.ts', 'work/mid.ts', 'work/old.ts', 'work/drafted.ts']);
    const wrote = await handleToolCall(host.workspace, { name: 'write', input: { path: 'work/drafted.ts', content: 'by the agent\n' } });
    expect(wrote.success).toBe(true);
    expect(await call({ pattern: 'work/*.ts', sort: 'modified' })).toEqual(['work/drafted.ts', 'work/new.ts', 'work/mid.ts', 'work/old.ts']);
    host.close();
  });
});
