/**
 * The store's write path as a first sync drives it: a write transaction remembers what
 * the tables held when it began (no blob, no tree entry for a mount), so it asks SQLite
 * nothing per file. What that must never do: store a blob twice or lose one, miss a tree
 * entry it wrote itself earlier in the transaction (flushed many rows back), or carry what
 * it knew past its commit or rollback. The same seeded calls, with the transaction's
 * knowledge and with every question put to SQLite, leave identical rows.
 */
import { describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sha256 } from '../src/host.ts';
import { packBlob, packBlobSoon, unpackBlob } from '../src/store/blob-codec.ts';
import { openStore } from '../src/store/open-store.ts';
import type { SqliteStore } from '../src/store/sqlite-store.ts';
import { enc, seededRandom, tempDir } from './fixtures.ts';

const storePath = () => join(tempDir('ws-store-first-'), 'store.sqlite');

/** Turns the transaction's knowledge off: every question goes to SQLite, as before it existed. */
function askingSqlite(store: SqliteStore): SqliteStore {
  (store as unknown as { knowledge: () => undefined }).knowledge = () => undefined;
  return store;
}

/** Every row a first sync writes, as plain values (history's `at` aside; blobs by hash, unpacked). */
function rowsOf(path: string): unknown {
  const db = new Database(path, { readonly: true });
  try {
    return {
      tree: db.query('SELECT branch, mount, path, hash, size, mode, seq FROM tree ORDER BY branch, mount, path').values(),
      history: db.query('SELECT seq, branch, mount, path, hash, size, mode, source FROM history ORDER BY seq').values(),
      evidence: db.query('SELECT mount, path, record FROM evidence ORDER BY mount, path').values(),
      blobs: (db.query('SELECT hash, size, codec, bytes, unreferenced_at FROM blob ORDER BY hash').values() as [string, number, string, Uint8Array, number | null][]).map(
        ([hash, size, codec, bytes, unreferenced]) => [hash, size, Buffer.from(unpackBlob(codec, bytes)).toString('base64'), unreferenced],
      ),
    };
  } finally {
    db.close();
  }
}

/**
 * Seeded store calls shaped like first syncs and the syncs after: many paths of two mounts
 * on two branches (more than a flush's worth, so rows reach SQLite mid-transaction), texts
 * repeated (a blob put again, before and after its insert), paths written again and
 * removed, blobs put alone and soon, barriers between rounds.
 */
async function drive(store: SqliteStore, seed: number): Promise<void> {
  const random = seededRandom(seed);
  const texts = Array.from({ length: 300 }, (_, i) => enc(`text ${i} `.repeat(1 + random(900))));
  for (let round = 0; round < 4; round++) {
    const branch = round === 3 ? 'other' : 'main';
    if (round === 3) store.createBranch('other');
    for (let i = 0; i < 1500; i++) {
      const mount = random(3) === 0 ? 'b' : 'a';
      const path = `d${random(40)}/f${random(60)}.txt`;
      const bytes = texts[random(texts.length)];
      const hash = sha256(bytes);
      if (random(10) === 0) {
        store.setTree(branch, mount, path, null, { source: 'disk' });
        store.setEvidence(mount, path, null);
        continue;
      }
      if (random(2) === 0) store.putBlob(hash, bytes);
      else await store.putBlobSoon(hash, bytes);
      store.setTree(branch, mount, path, { hash, size: bytes.length, mode: random(2) === 0 ? 420 : null }, { source: 'disk' });
      store.setEvidence(mount, path, { kind: 'text', hash, size: bytes.length, mode: 420, fingerprint: `${i}:${round}` });
    }
    store.barrier();
    if (round === 1) store.collectBlobs(0); // marks some blobs unreferenced: a later put keeps them
  }
}

describe('a first sync’s writes', () => {
  test('packing soon gives the bytes and codec packing now gives, around every size that changes the way', async () => {
    const random = seededRandom(21);
    const words = ['const', 'return', 'function', 'value', 'index', 'error', '{', '}', '\n', '  ', 'if', '(', ')', ';'];
    const text = (size: number) => {
      let s = '';
      while (s.length < size) s += `${words[random(words.length)]} `;
      return enc(s.slice(0, size));
    };
    const sizes = [0, 1, 63, 64, 511, 512, 513, 4095, 4096, 4097, 70_000];
    for (const size of sizes) {
      for (const bytes of [text(size), Uint8Array.from({ length: size }, () => random(256))]) {
        const now = packBlob(bytes);
        const soon = await packBlobSoon(bytes);
        expect(soon.codec).toBe(now.codec);
        expect(Buffer.compare(soon.bytes, now.bytes)).toBe(0);
        expect(Buffer.compare(unpackBlob(soon.codec, soon.bytes), bytes)).toBe(0);
      }
    }
  });

  test('the same calls leave the same rows whether the transaction remembers what it wrote or asks SQLite each time', async () => {
    for (const seed of [1, 2, 3]) {
      const knowing = storePath();
      const asking = storePath();
      const a = await openStore(knowing);
      await drive(a, seed);
      a.close();
      const b = askingSqlite(await openStore(asking));
      await drive(b, seed);
      b.close();
      const rows = rowsOf(knowing) as { tree: unknown[]; history: unknown[]; blobs: unknown[] };
      expect(rows.tree.length).toBeGreaterThan(1000);
      expect(rows.history.length).toBeGreaterThan(rows.tree.length);
      expect(rows).toEqual(rowsOf(asking) as typeof rows);
    }
  });

  test('a path written again in the transaction that wrote it, after its row reached SQLite, is no new version', async () => {
    const store = await openStore(storePath());
    const bytes = enc('the same text');
    const hash = sha256(bytes);
    store.putBlob(hash, bytes);
    // More paths than are held before a flush: the first ones' rows are in SQLite, uncommitted.
    for (let i = 0; i < 2000; i++) store.setTree('main', 'work', `p${i}`, { hash, size: bytes.length, mode: null }, { source: 'disk' });
    for (let i = 0; i < 2000; i++) store.setTree('main', 'work', `p${i}`, { hash, size: bytes.length, mode: 420 }, { source: 'disk' });
    // The same blob again, now inserted: stored once, no failure.
    store.putBlob(hash, bytes);
    await store.putBlobSoon(hash, bytes);
    store.barrier();
    expect(store.history('work', 'p0').length).toBe(1);
    expect(store.history('work', 'p1999').length).toBe(1);
    expect(store.treeFiles('main', 'work', '').length).toBe(2000);
    expect(store.treeFiles('main', 'work', '').every((f) => f.entry.mode === 420)).toBe(true);
    store.close();
  });

  test('what a transaction knew ends with it: a branch made after its commit has the entries it copied', async () => {
    const store = await openStore(storePath());
    const bytes = enc('on main');
    const hash = sha256(bytes);
    store.putBlob(hash, bytes);
    store.setTree('main', 'work', 'x.txt', { hash, size: bytes.length, mode: null }, { source: 'disk' });
    // Asked of a branch with no entries yet: this transaction learns its tree is empty.
    store.setTree('other', 'work', 'elsewhere.txt', null, { source: 'disk' });
    store.barrier();
    // Its own transaction copies main's tree to the new branch.
    store.createBranch('other');
    // The same text on the new branch: no version (the copied entry is there).
    store.setTree('other', 'work', 'x.txt', { hash, size: bytes.length, mode: null }, { source: 'disk' });
    store.barrier();
    expect(store.history('work', 'x.txt').map((v) => [v.branch, v.source])).toEqual([['main', 'disk']]);
    store.close();
  });

  test('a store whose making fails (or is killed) leaves nothing at its path: the next open makes it whole', async () => {
    const path = storePath();
    // Too few pages for the schema: the making fails partway, as a kill would stop it.
    await expect(openStore(path, { maxPageCount: 2 })).rejects.toThrow();
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dirname(path)).filter((n) => !n.endsWith('.lock') && !n.endsWith('.lock-wait'))).toEqual([]);
    const store = await openStore(path);
    expect(store.selectedBranch()).toBe('main');
    store.close();
    // Made whole, nothing of the making is left beside it.
    expect(readdirSync(dirname(path)).filter((n) => n.startsWith('.ws-tmp-'))).toEqual([]);
  });
});

