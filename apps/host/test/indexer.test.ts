/**
 * The background indexer works only while the host is idle: no slice runs while a tool
 * call is in flight, and once the calls are done it indexes on, to the end.
 */
import { expect, test } from 'bun:test';
import { handleToolCall } from '@ws/tools';
import { BUSY_MS, startIndexer } from '../src/index/indexer.ts';
import { tempDir } from './fixtures.ts';
import { openTestHost, testConfig, writeFiles } from './host-fixtures.ts';
import type { Lock } from '../src/store/lock.ts';
import type { Store } from '../src/store/store.ts';

test('no slice runs while a call is in flight; once none is, the indexer goes on to the end', async () => {
  let unindexed = 5;
  const slices: boolean[] = [];
  let inFlight = 1;
  const store = {
    indexSome: () => {
      slices.push(inFlight > 0);
      unindexed = Math.max(0, unindexed - 1);
      return unindexed;
    },
    collectBlobs: () => ({ marked: 0, removed: 0 }),
  } as unknown as Store;
  const lock: Lock = { run: (op) => op(), close: () => {} };
  const indexer = startIndexer(store, lock, { busy: () => inFlight > 0, idleMs: 10 });
  try {
    // Many of the indexer's turns pass while the call runs.
    await Bun.sleep(BUSY_MS * 6);
    expect(slices).toEqual([]);
    inFlight = 0;
    await indexer.current();
    expect(slices).toEqual([false, false, false, false, false]);
    expect(unindexed).toBe(0);
    // A call that starts later holds the indexer off again (a sync added blobs meanwhile).
    inFlight = 1;
    unindexed = 3;
    await Bun.sleep(BUSY_MS * 6);
    expect(slices).toHaveLength(5);
    inFlight = 0;
    await indexer.current();
    expect(slices).toHaveLength(8);
    expect(slices.every((busy) => !busy)).toBe(true);
  } finally {
    indexer.stop();
  }
});

test('a long-running host indexes nothing while a call the servers track is in flight, and all of it once none is', async () => {
  const root = tempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) files[`f${i}.txt`] = `the text of file ${i}\n`;
  writeFiles(root, files);
  const host = await openTestHost(testConfig(root, [{ name: 'work', path: '.' }]), { watch: true });
  let finish = () => {};
  const call = host.calls.track(new Promise<void>((done) => (finish = done)));
  // The call's own work: the mount's files taken into the store, none of them indexed yet.
  const synced = await handleToolCall(host.workspace, { name: 'sync', input: {} });
  expect(synced.success).toBe(true);
  const unindexed = () => host.store?.blobsMayHold(['text']).unindexed.size ?? -1;
  expect(unindexed()).toBe(40);
  await Bun.sleep(BUSY_MS * 6);
  expect(unindexed()).toBe(40);
  finish();
  await call;
  await host.indexer?.current();
  expect(unindexed()).toBe(0);
  expect(host.store?.blobsMayHold(['text']).may.size).toBe(40);
});
