import { describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VersionCause } from '@ws/reconcile';
import { sha256 } from '../src/host.ts';
import { MIGRATIONS } from '../src/store/schema.ts';
import { SCHEMA_VERSION } from '../src/store/schema.ts';
import { openStore } from '../src/store/open-store.ts';
import { StoreError } from '../src/store/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { enc, tempDir } from './fixtures.ts';
import { storeHost } from './host-fixtures.ts';
import { STORE_ENGINES } from './store-engines.ts';

const storePath = () => join(tempDir('ws-store-'), 'nested/dir/store.sqlite');

function put(store: Store, branch: string, path: string, text: string, cause: VersionCause = { source: 'write' }, mode: number | null = null) {
  const bytes = enc(text);
  const hash = sha256(bytes);
  store.putBlob(hash, bytes);
  store.setTree(branch, 'work', path, { hash, size: bytes.length, mode }, cause);
  return hash;
}

describe('the SQLite store', () => {
  test('a new store starts on branch main, in WAL mode with synchronous FULL', async () => {
    const path = storePath();
    const store = await openStore(path);
    expect(store.selectedBranch()).toBe('main');
    store.close();
    const db = new Database(path);
    expect(db.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(db.query('SELECT MAX(version) AS v FROM migrations').get()).toEqual({ v: SCHEMA_VERSION });
    db.close();
    const again = await openStore(path);
    expect(again.branches().map((b) => b.name)).toEqual(['main']);
    again.close();
  });

  test('a blob is stored once however many paths and branches hold it', async () => {
    const path = storePath();
    const store = await openStore(path);
    put(store, 'main', 'a.txt', 'same');
    put(store, 'main', 'b.txt', 'same');
    store.createBranch('other');
    put(store, 'other', 'c.txt', 'same');
    store.barrier();
    store.close();
    const db = new Database(path);
    expect(db.query('SELECT COUNT(*) AS n FROM blob').get()).toEqual({ n: 1 });
    db.close();
  });

  test('a store of schema 1 is migrated: its versions stay, as write or delete', async () => {
    const path = storePath();
    (await openStore(path)).close();
    const db = new Database(path);
    // Rebuild it as schema 1 had it, with two versions from that time.
    db.run('DROP TABLE history');
    db.run(`CREATE TABLE history (seq INTEGER PRIMARY KEY AUTOINCREMENT, branch TEXT NOT NULL, mount TEXT NOT NULL, path TEXT NOT NULL,
      hash TEXT, size INTEGER, mode INTEGER, at INTEGER NOT NULL)`);
    db.run('CREATE INDEX history_by_path ON history (branch, mount, path, seq)');
    db.run("INSERT INTO history (branch, mount, path, hash, size, mode, at) VALUES ('main', 'work', 'old.txt', 'h1', 3, NULL, 1), ('main', 'work', 'old.txt', NULL, NULL, NULL, 2)");
    db.run('DROP TABLE review_notes'); // migration 3's
    db.run('DROP TABLE changes'); // migration 7's
    db.run('DROP TABLE quiet');
    // And its blobs table, with a text that packs and one too short to.
    db.run('DROP TABLE blob');
    db.run('DROP TABLE blob_text');
    db.run('CREATE TABLE blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, bytes BLOB NOT NULL) WITHOUT ROWID');
    const long = enc('a line that repeats\n'.repeat(500));
    db.run('INSERT INTO blobs (hash, size, bytes) VALUES (?, ?, ?), (?, ?, ?)', [sha256(long), long.length, long, sha256(enc('hi')), 2, enc('hi')]);
    db.run('DELETE FROM migrations WHERE version > 1');
    db.close();
    const store = await openStore(path);
    expect(store.history('work', 'old.txt').map((v) => [v.hash, v.source])).toEqual([[null, 'delete'], ['h1', 'write']]);
    expect(store.getBlob(sha256(long))).toEqual(long);
    expect(store.getBlob(sha256(enc('hi')))).toEqual(enc('hi'));
    store.close();
    const after = new Database(path);
    expect(after.query('SELECT MAX(version) AS v FROM migrations').get()).toEqual({ v: MIGRATIONS.at(-1)!.version });
    expect(after.query('SELECT hash, codec FROM blob ORDER BY size').all()).toEqual([
      { hash: sha256(enc('hi')), codec: 'raw' },
      { hash: sha256(long), codec: 'zstd' },
    ]);
    after.close();
  });

  test('a store made by a newer ws is refused and left as it was', async () => {
    const path = storePath();
    (await openStore(path)).close();
    const db = new Database(path);
    db.run('INSERT INTO migrations (version, applied_at) VALUES (?, 0)', [SCHEMA_VERSION + 1]);
    db.close();
    const before = readFileSync(path);
    await expect(openStore(path)).rejects.toThrow(StoreError);
    await expect(openStore(path)).rejects.toThrow(/made by a newer ws/);
    expect(Buffer.compare(readFileSync(path), before)).toBe(0);
  });

  test('a file that is not SQLite is refused and left as it was', async () => {
    const path = join(tempDir('ws-store-'), 'store.sqlite');
    writeFileSync(path, 'these are my notes, not a database\n');
    await expect(openStore(path)).rejects.toThrow(/not a ws store/);
    expect(readFileSync(path, 'utf8')).toBe('these are my notes, not a database\n');
  });

  test('a corrupt SQLite file is refused and left as it was', async () => {
    const path = join(tempDir('ws-store-'), 'store.sqlite');
    const bytes = Buffer.alloc(4096, 0xab);
    bytes.write('SQLite format 3\0', 0, 'latin1');
    writeFileSync(path, bytes);
    await expect(openStore(path)).rejects.toThrow(StoreError);
    expect(Buffer.compare(readFileSync(path), bytes)).toBe(0);
  });

});

for (const engine of STORE_ENGINES) {
  describe(`the store, on ${engine.name}`, () => {
    test("a blob's bytes are the caller's again once putBlob returns (or putBlobSoon resolves): overwritten, the stored blob stays", async () => {
      const store = await (await engine.fresh()).open();
      // A pass reads each file into one buffer of a pool: short text (kept raw), text that packs, and bytes that don't.
      const buffer = new Uint8Array(64 * 1024);
      const texts = [enc('short text, kept as it is'), enc('a line that packs well\n'.repeat(1500)), crypto.getRandomValues(new Uint8Array(5000)), crypto.getRandomValues(new Uint8Array(300))];
      const hashes: string[] = [];
      for (const [i, text] of texts.entries()) {
        for (const soon of [false, true]) {
          const bytes = text.slice();
          bytes[0] ^= soon ? 1 : 0; // two blobs a text: one by each call
          const view = buffer.subarray(0, bytes.length);
          view.set(bytes);
          const hash = sha256(bytes);
          hashes.push(hash);
          if (soon && store.putBlobSoon !== undefined) await store.putBlobSoon(hash, view);
          else store.putBlob(hash, view);
          buffer.fill(0x40 + i); // the next file's read, over the same buffer
          // A record with it, as a pass writes (the blob's row may wait for this statement).
          store.setTree('main', 'work', `f${hashes.length}`, { hash, size: bytes.length, mode: null }, { source: 'disk' });
        }
      }
      store.barrier();
      for (const [k, hash] of hashes.entries()) {
        const text = texts[k >> 1].slice();
        text[0] ^= k & 1;
        expect(sha256(store.getBlob(hash) ?? new Uint8Array())).toBe(hash);
        expect(store.getBlob(hash)).toEqual(text);
      }
      store.close();
    });

    test('treeChildren names one level of a tree: its files, and each child directory holding files, once, in path order', async () => {
      const store = await (await engine.fresh()).open();
      // Names that sit around '/' in the key's order ('-' and '.' before it, '0' after),
      // a prefix of a sibling, characters past the BMP, and LIKE's own characters.
      const names = ['a', 'a.txt', 'a-b', 'a0', 'ab', '%', '_x', 'é', '😀', 'z z'];
      let seed = 7;
      const pick = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return names[Math.floor(seed / 65536) % names.length];
      };
      const paths = new Set<string>();
      for (let tries = 0; tries < 3000; tries++) {
        const depth = 1 + (pick().length % 4);
        const parts = Array.from({ length: depth }, pick);
        const path = parts.join('/');
        // A path is a file or a directory of the tree, never both.
        if ([...paths].some((p) => p.startsWith(`${path}/`) || path.startsWith(`${p}/`))) continue;
        paths.add(path);
      }
      expect(paths.size).toBeGreaterThan(100);
      // A level longer than a batch of the key's paths, a directory in its middle.
      for (let i = 0; i < 700; i++) paths.add(`wide/f${String(i).padStart(3, '0')}`);
      paths.add('wide/f350x/inside');
      paths.add('wide/f350x/deeper/more');
      for (const path of paths) put(store, 'main', path, path);
      // Other branches and mounts hold paths of their own, never named here.
      put(store, 'other', 'a/only-other.txt', 'x');
      store.setTree('main', 'elsewhere', 'a/only-elsewhere.txt', { hash: put(store, 'main', 'zz-last', 'y'), size: 1, mode: null }, { source: 'write' });
      paths.add('zz-last');
      store.barrier();
      const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      const dirs = new Set<string>(['']);
      for (const p of paths) for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) dirs.add(p.slice(0, i));
      dirs.add('a/nothing-here');
      for (const dir of dirs) {
        const files: string[] = [];
        const directories = new Set<string>();
        for (const p of paths) {
          if (dir !== '' && !p.startsWith(`${dir}/`)) continue;
          const rest = dir === '' ? p : p.slice(dir.length + 1);
          const [first, ...more] = rest.split('/');
          const child = dir === '' ? first : `${dir}/${first}`;
          if (more.length === 0) files.push(child);
          else directories.add(child);
        }
        const beneath = [...paths].filter((p) => dir === '' || p.startsWith(`${dir}/`)).length;
        expect(store.treeChildren('main', 'work', dir)).toEqual({ files: files.sort(order), directories: [...directories].sort(order), beneath });
      }
      expect(store.treeChildren('other', 'work', '')).toEqual({ files: [], directories: ['a'], beneath: 1 });
      expect(store.treeChildren('main', 'elsewhere', 'a')).toEqual({ files: ['a/only-elsewhere.txt'], directories: [], beneath: 1 });
      store.close();
    });

    test('a branch is created from the selected one, and switching changes S for every path', async () => {
      const store = await (await engine.fresh()).open();
      put(store, 'main', 'a.txt', 'main text');
      store.barrier();
      store.createBranch('feature');
      expect(store.read('feature', 'work', 'a.txt').tree).toEqual(store.read('main', 'work', 'a.txt').tree);
      put(store, 'feature', 'a.txt', 'feature text');
      store.barrier();
      store.selectBranch('feature');
      expect(store.selectedBranch()).toBe('feature');
      expect(store.branches().map((b) => [b.name, b.selected, b.createdFrom])).toEqual([
        ['main', false, null],
        ['feature', true, 'main'],
      ]);
      const main = store.read('main', 'work', 'a.txt').tree!;
      const feature = store.read('feature', 'work', 'a.txt').tree!;
      expect(new TextDecoder().decode(store.getBlob(main.hash)!)).toBe('main text');
      expect(new TextDecoder().decode(store.getBlob(feature.hash)!)).toBe('feature text');
      store.close();
    });

    test('every change to a tree is in the history, newest first, with its source, a sequence number and time, and reads back', async () => {
      const store = await (await engine.fresh()).open();
      const h1 = put(store, 'main', 'a.txt', 'v1', { source: 'disk' });
      put(store, 'main', 'a.txt', 'v1', { source: 'disk' }, 0o644); // a mode alone is no version
      const h2 = put(store, 'main', 'a.txt', 'v2', { source: 'edit' });
      store.addVersion('main', 'work', 'a.txt', { hash: h2, size: 2, mode: null }, { source: 'materialize' });
      store.addVersion('main', 'work', 'a.txt', { hash: h2, size: 2, mode: null }, { source: 'materialize' }); // the same again: nothing
      store.setTree('main', 'work', 'a.txt', null, { source: 'delete' });
      store.setTree('main', 'work', 'a.txt', null, { source: 'delete' }); // nothing to remove: no version
      store.barrier();
      const versions = store.history('work', 'a.txt');
      expect(versions.map((v) => [v.hash, v.source, v.size])).toEqual([
        [null, 'delete', null],
        [h2, 'materialize', 2],
        [h2, 'edit', 2],
        [h1, 'disk', 2],
      ]);
      expect(versions[1].seq).toBeGreaterThan(versions[2].seq);
      expect(Number.isNaN(Date.parse(versions[0].at))).toBe(false);
      expect(new TextDecoder().decode(store.getBlob(versions[3].hash!)!)).toBe('v1');
      store.close();
    });

    test('history follows a move within the mount: the versions before the move, then the move, not the old path’s deletion', async () => {
      const store = await (await engine.fresh()).open();
      const h1 = put(store, 'main', 'a.txt', 'one', { source: 'disk' });
      const h2 = put(store, 'main', 'a.txt', 'two', { source: 'edit' });
      put(store, 'main', 'b.txt', 'two', { source: 'move', movedFrom: 'a.txt' });
      store.setTree('main', 'work', 'a.txt', null, { source: 'move' });
      put(store, 'main', 'a.txt', 'later', { source: 'write' }); // a new file at the old path is not b's
      put(store, 'main', 'c.txt', 'two', { source: 'move', movedFrom: 'b.txt' });
      store.setTree('main', 'work', 'b.txt', null, { source: 'move' });
      store.barrier();
      expect(store.history('work', 'c.txt').map((v) => [v.path, v.source, v.hash])).toEqual([
        ['c.txt', 'move', h2],
        ['b.txt', 'move', h2],
        ['a.txt', 'edit', h2],
        ['a.txt', 'disk', h1],
      ]);
      expect(store.history('work', 'a.txt').map((v) => v.source)).toEqual(['write', 'move', 'edit', 'disk']);
      // One version by its id: the path's own, one a move brought, none of another path's.
      const [cMove, , aEdit] = store.history('work', 'c.txt');
      expect(store.version('work', 'c.txt', cMove.seq)).toEqual(cMove);
      expect(store.version('work', 'c.txt', aEdit.seq)).toEqual(aEdit);
      expect(store.version('work', 'a.txt', cMove.seq)).toBeNull();
      expect(store.version('other', 'c.txt', cMove.seq)).toBeNull();
      store.close();
    });

    test('a branch switch records a version of each path whose workspace copy it changes, in the same transaction', async () => {
      const store = await (await engine.fresh()).open();
      put(store, 'main', 'same.txt', 'same');
      put(store, 'main', 'changed.txt', 'main');
      put(store, 'main', 'main-only.txt', 'main');
      store.barrier();
      store.createBranch('feature');
      store.setTree('feature', 'work', 'main-only.txt', null, { source: 'delete' });
      const hf = put(store, 'feature', 'changed.txt', 'feature');
      const hn = put(store, 'feature', 'new.txt', 'new');
      store.barrier();
      const before = (p: string) => store.history('work', p).length;
      const counts = ['same.txt', 'changed.txt', 'main-only.txt', 'new.txt'].map(before);
      store.selectBranch('feature');
      store.selectBranch('main');
      const sources = (p: string) => store.history('work', p).slice(0, 2).map((v) => [v.branch, v.source, v.hash]);
      expect(['same.txt', 'changed.txt', 'main-only.txt', 'new.txt'].map(before)).toEqual([counts[0], counts[1] + 2, counts[2] + 2, counts[3] + 2]);
      expect(sources('changed.txt')).toEqual([['main', 'branch-switch', sha256(enc('main'))], ['feature', 'branch-switch', hf]]);
      expect(sources('new.txt')).toEqual([['main', 'branch-switch', null], ['feature', 'branch-switch', hn]]);
      store.selectBranch('main'); // already selected: nothing
      expect(before('new.txt')).toBe(counts[3] + 2);
      store.close();
    });

    test('a scan finds every recorded path beneath a directory and not its neighbours', async () => {
      const store = await (await engine.fresh()).open();
      for (const p of ['a', 'a/b', 'a/b/c', 'ab', 'a.txt', 'b/a']) put(store, 'main', p, p);
      store.setEvidence('work', 'a/e', { kind: 'text', hash: 'h', size: 1, mode: null, fingerprint: null });
      store.barrier();
      expect([...store.scan('main', 'work', 'a')].map((s) => s.path).sort()).toEqual(['a', 'a/b', 'a/b/c', 'a/e']);
      expect([...store.scan('main', 'work', '')].length).toBe(7);
      store.close();
    });

    test('paths named like a mistyped one are found in any case, in any directory, never by a part of a name', async () => {
      const store = await (await engine.fresh()).open();
      for (const p of ['src/app.ts', 'docs/APP.ts', 'App.ts', 'src/myapp.ts', 'src/app.tsx', 'x/100%_app.ts']) put(store, 'main', p, p);
      store.barrier();
      expect(store.pathsNamed('main', 'work', 'app.TS', 10).sort()).toEqual(['App.ts', 'docs/APP.ts', 'src/app.ts']);
      expect(store.pathsNamed('main', 'work', '100%_app.ts', 10)).toEqual(['x/100%_app.ts']);
      expect(store.pathsNamed('main', 'work', '%', 10)).toEqual([]);
      store.close();
    });

    test('writes behind a barrier survive a killed process; writes after it do not', async () => {
      const place = await engine.fresh();
      (await place.open()).close();
      const script = `
        ${place.openCode}
        store.setEvidence('work', 'kept', { kind: 'text', hash: 'h1', size: 1, mode: null, fingerprint: null });
        store.barrier();
        store.setEvidence('work', 'lost', { kind: 'text', hash: 'h2', size: 1, mode: null, fingerprint: null });
        process.kill(process.pid, 'SIGKILL');
      `;
      const child = Bun.spawn(['bun', '-e', script], { stderr: 'pipe' });
      expect(await child.exited).not.toBe(0);
      const store = await place.open();
      expect(store.read('main', 'work', 'kept').evidence).not.toBeNull();
      expect(store.read('main', 'work', 'lost').evidence).toBeNull();
      store.close();
    });
  });
}

describe('the store under a host', () => {
  test('the first read of a path records one small evidence row', async () => {
    const { mount, host } = await storeHost({ files: { 'a.txt': 'hello\n' } });
    await mount.read('a.txt');
    const rec = host.store!.read('main', 'work', 'a.txt');
    expect(rec.evidence?.kind).toBe('text');
    expect(JSON.stringify(rec.evidence).length).toBeLessThan(300);
  });
});
