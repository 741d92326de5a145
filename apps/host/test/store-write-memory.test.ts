/**
 * What the store's write path lets go of during a first sync, so its peak RSS stays low
 * (issue 15, target 6): a write transaction that has written much runs with a small page
 * cache until it ends, and gives the cache its size back at the barrier or a failure; the
 * held rows and blobs go to new maps at each flush, never to cleared ones; the blob arena
 * goes at the barrier. Each is checked on the store's own fields: none changes a row
 * (store-first-sync.test.ts holds the rows to the same calls without them).
 */
import { describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { sha256 } from '../src/host.ts';
import { openStore } from '../src/store/open-store.ts';
import type { SqliteStore } from '../src/store/sqlite-store.ts';
import { tempDir } from './fixtures.ts';

const storePath = () => join(tempDir('ws-store-memory-'), 'store.sqlite');
type Inside = { db: { query: (sql: string) => { get: () => unknown } }; held: { tree: { rows: Map<string, unknown> } }; heldBlobs: Map<string, unknown>; blobArena: Uint8Array | undefined };
const inside = (store: SqliteStore) => store as unknown as Inside;
const cacheSize = (store: SqliteStore) => (inside(store).db.query('PRAGMA cache_size').get() as { cache_size: number }).cache_size;

/** `n` blobs of `size` random bytes each (they do not pack), put as a first sync puts them. */
async function putRandom(store: SqliteStore, n: number, size: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const bytes = randomBytes(size);
    await store.putBlobSoon(sha256(bytes), bytes);
  }
}

describe('a first sync’s writes let memory go', () => {
  test('a transaction that wrote more than 4 MiB runs with a 2 MiB page cache, given back at its barrier; a small one keeps the cache', async () => {
    const store = await openStore(storePath());
    try {
      const configured = cacheSize(store);
      expect(configured).toBe(-16 * 1024);
      await putRandom(store, 8, 64 * 1024); // half a MiB: a tool's write
      expect(cacheSize(store)).toBe(configured);
      store.barrier();
      await putRandom(store, 140, 64 * 1024); // 8.75 MiB, 8 of them inserted (64 are held at a time)
      expect(cacheSize(store)).toBe(-2048);
      store.barrier();
      expect(cacheSize(store)).toBe(configured);
      // Counted afresh in each transaction: half a MiB more is not 4 MiB.
      await putRandom(store, 8, 64 * 1024);
      expect(cacheSize(store)).toBe(configured);
      store.barrier();
    } finally {
      store.close();
    }
  });

  test('a transaction that fails past the cut gives the cache back too', async () => {
    // About 6 MiB of pages at most: the puts fail (the disk is full, as SQLite sees it) after the cut.
    const store = await openStore(storePath(), { maxPageCount: 1500 });
    try {
      const configured = cacheSize(store);
      let failed: unknown;
      try {
        await putRandom(store, 200, 64 * 1024);
        store.barrier();
      } catch (err) {
        failed = err;
      }
      expect(failed).toBeDefined();
      expect(cacheSize(store)).toBe(configured);
    } finally {
      store.close();
    }
  });

  test('records written by the thousand cut the cache too', async () => {
    const store = await openStore(storePath());
    try {
      const configured = cacheSize(store);
      const hash = sha256(new Uint8Array([1]));
      for (let i = 0; i < 20_000; i++) {
        const path = `some/directory/deeper/down/file-${String(i).padStart(6, '0')}.ts`;
        store.setTree('main', 'work', path, { hash, size: 1, mode: 0o644 }, { source: 'disk' });
        store.setEvidence('work', path, { kind: 'text', hash, size: 1, mode: 0o644, fingerprint: `${i}:1:1700000000.5:1700000000.5` });
      }
      expect(cacheSize(store)).toBe(-2048);
      store.barrier();
      expect(cacheSize(store)).toBe(configured);
    } finally {
      store.close();
    }
  });

  test('held rows and blobs go to new maps at each flush, and the arena goes at the barrier', async () => {
    const store = await openStore(storePath());
    try {
      const hash = sha256(new Uint8Array([2]));
      const rows = inside(store).held.tree.rows;
      for (let i = 0; i < 600; i++) store.setTree('main', 'work', `f${i}.ts`, { hash, size: 1, mode: null }, { source: 'disk' });
      // Flushed at 512 held rows: into a new map; the old one is let go whole, not emptied.
      expect(inside(store).held.tree.rows).not.toBe(rows);
      expect(rows.size).toBeGreaterThan(0);
      const blobs = inside(store).heldBlobs;
      await putRandom(store, 70, 8 * 1024); // past 64 held blobs: a flush
      expect(inside(store).heldBlobs).not.toBe(blobs);
      expect(blobs.size).toBeGreaterThan(0);
      expect(inside(store).blobArena).toBeDefined();
      store.barrier();
      expect(inside(store).blobArena).toBeUndefined();
      // Made again at the next blob held, and the blob is stored whole.
      const bytes = randomBytes(8 * 1024);
      await store.putBlobSoon(sha256(bytes), bytes);
      expect(inside(store).blobArena).toBeDefined();
      store.barrier();
      expect(Buffer.from(store.getBlob(sha256(bytes)) as Uint8Array).equals(bytes)).toBe(true);
    } finally {
      store.close();
    }
  });
});
