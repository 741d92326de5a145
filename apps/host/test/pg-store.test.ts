/**
 * The PostgreSQL store's own rules: the schema made under an advisory lock by whichever
 * host comes first, a newer schema refused, what is shared between hosts and what is one
 * host's, and the compare-and-set that keeps two hosts from overwriting each other's
 * change of one path — within one transaction and across an operation's barriers.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { VersionCause } from '@ws/reconcile';
import { sha256 } from '../src/host.ts';
import { PgStoreError } from '../src/store/postgres/faults.ts';
import { openPgStore } from '../src/store/postgres/open.ts';
import type { PgStore } from '../src/store/postgres/pg-store.ts';
import { PG_SCHEMA_VERSION } from '../src/store/postgres/schema.ts';
import { StoreError } from '../src/store/faults.ts';
import { openHost } from '../src/host.ts';
import type { StoreMount } from '../src/mounts/store-backed/mount.ts';
import { dec, enc, tempDir } from './fixtures.ts';
import { writeFiles } from './host-fixtures.ts';
import { freshDatabase, pgConfig } from './pg-fixtures.ts';

function put(store: PgStore, branch: string, path: string, text: string, cause: VersionCause = { source: 'write' }) {
  const bytes = enc(text);
  const hash = sha256(bytes);
  store.putBlob(hash, bytes);
  store.setTree(branch, 'work', path, { hash, size: bytes.length, mode: null }, cause);
  return hash;
}

const textAt = (store: PgStore, path: string) => {
  const tree = store.read('main', 'work', path).tree;
  return tree === null ? null : dec(store.getBlob(tree.hash)!);
};

async function sql<T>(url: string, fn: (db: InstanceType<typeof Bun.SQL>) => Promise<T>): Promise<T> {
  const db = new Bun.SQL(url, { max: 1 });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

describe('the PostgreSQL store', () => {
  test('hosts opening a new database at once all succeed: the schema is made once, under the advisory lock', async () => {
    const url = await freshDatabase();
    const opened = await Promise.all(['a', 'b', 'c', 'd'].map((host) => openPgStore(url, { host, roots: [`/${host}`] })));
    for (const { store } of opened) expect(store.selectedBranch()).toBe('main');
    expect(opened[0].store.branches().map((b) => b.name)).toEqual(['main']);
    for (const { store } of opened) store.close();
    const rows = await sql(url, (db) => db.unsafe('SELECT version FROM ws.migrations ORDER BY version'));
    expect(rows.map((r: { version: number }) => r.version)).toEqual(Array.from({ length: PG_SCHEMA_VERSION }, (_, i) => i + 1));
  });

  test('a store made by a newer ws is refused, and left as it was', async () => {
    const url = await freshDatabase();
    (await openPgStore(url, { host: 'a', roots: [] })).store.close();
    await sql(url, (db) => db.unsafe('INSERT INTO ws.migrations (version, applied_at) VALUES ($1, 0)', [PG_SCHEMA_VERSION + 1]));
    await expect(openPgStore(url, { host: 'a', roots: [] })).rejects.toThrow(/made by a newer ws/);
    const rows = await sql(url, (db) => db.unsafe('SELECT COUNT(*)::int AS n FROM ws.migrations'));
    expect(rows[0].n).toBe(PG_SCHEMA_VERSION + 1);
  });

  test('a database that is not there answers one sentence naming the store without its password', async () => {
    const err = await openPgStore('postgres://ws:secret@localhost/none?host=/nonexistent-dir', { host: 'a', roots: [] }).catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err.message).toMatch(/^The store at postgres:\/\/ws:\*\*\*@localhost\/none\?host=\/nonexistent-dir can't be reached \(.+\); nothing was changed\./);
    expect(err.message).not.toContain('secret');
  });

  test('trees, marks, history and branches are every host’s; evidence, pending effects, roots and the selected branch are one host’s', async () => {
    const url = await freshDatabase();
    const { store: a } = await openPgStore(url, { host: 'a', roots: ['/a'] });
    const { store: b } = await openPgStore(url, { host: 'b', roots: ['/b'] });
    put(a, 'main', 'x.txt', 'from a');
    a.setMark('main', 'work', 'x.txt', { origin: 'workspace', tombstone: null, conflict: null });
    a.setEvidence('work', 'x.txt', { kind: 'absent' });
    a.setPending('work', 'y.txt', { kind: 'write', branch: 'main', hash: 'h', size: 1, mode: null, expected: null } as never);
    a.setRootIdentity('work', 'root-of-a');
    a.barrier();
    a.createBranch('feature');
    a.selectBranch('feature');
    expect(textAt(b, 'x.txt')).toBe('from a');
    expect(b.read('main', 'work', 'x.txt').mark).toEqual({ origin: 'workspace', tombstone: null, conflict: null });
    expect(b.history('work', 'x.txt').map((v) => v.source)).toEqual(['write']);
    expect(b.read('main', 'work', 'x.txt').evidence).toBeNull();
    expect([...b.pendingPaths('work')]).toEqual([]);
    expect([...a.pendingPaths('work')]).toEqual(['y.txt']);
    expect(b.rootIdentity('work')).toBeNull();
    expect(a.rootIdentity('work')).toBe('root-of-a');
    expect(b.selectedBranch()).toBe('main');
    expect(a.selectedBranch()).toBe('feature');
    expect(b.branches().map((br) => [br.name, br.selected])).toEqual([
      ['main', true],
      ['feature', false],
    ]);
    a.close();
    b.close();
  });

  test('two hosts changing one path in one transaction each: one commits, the other fails as a conflict and stores nothing', async () => {
    const url = await freshDatabase();
    const { store: a } = await openPgStore(url, { host: 'a', roots: ['/a'] });
    const { store: b } = await openPgStore(url, { host: 'b', roots: ['/b'] });
    put(a, 'main', 'x.txt', 'base');
    a.barrier();
    // Both transactions open before either commits; each writes the path.
    put(a, 'main', 'x.txt', 'a wrote');
    put(b, 'main', 'other.txt', 'b wrote elsewhere');
    expect(textAt(b, 'x.txt')).toBe('base');
    a.barrier();
    let lost: unknown;
    try {
      put(b, 'main', 'x.txt', 'b wrote');
      b.barrier();
    } catch (err) {
      lost = err;
    }
    expect(lost).toBeInstanceOf(PgStoreError);
    expect((lost as PgStoreError).kind).toBe('conflict');
    expect(textAt(a, 'x.txt')).toBe('a wrote');
    expect(a.history('work', 'x.txt').map((v) => v.hash)).not.toContain(sha256(enc('b wrote')));
    expect(a.read('main', 'work', 'other.txt').tree).toBeNull(); // nothing of b's transaction was stored
    a.close();
    b.close();
  });

  test('an operation of the lock that loses a race is run again on what the store holds now, across its barriers too', async () => {
    const url = await freshDatabase();
    const A = await openPgStore(url, { host: 'a', roots: ['/a'] });
    const B = await openPgStore(url, { host: 'b', roots: ['/b'] });
    put(A.store, 'main', 'x.txt', 'base\n');
    A.store.barrier();
    const seen: string[] = [];
    // A appends a line to what it read; between its read (committed by a barrier) and its write, B changes the file.
    const out = await A.lock.run(async () => {
      const before = textAt(A.store, 'x.txt')!;
      seen.push(before);
      A.store.barrier();
      if (seen.length === 1) {
        await B.lock.run(async () => {
          put(B.store, 'main', 'x.txt', `${textAt(B.store, 'x.txt')}b's line\n`);
        });
      }
      put(A.store, 'main', 'x.txt', `${before}a's line\n`);
      return 'done';
    });
    expect(out).toBe('done');
    expect(seen).toEqual(['base\n', "base\nb's line\n"]);
    expect(textAt(B.store, 'x.txt')).toBe("base\nb's line\na's line\n");
    A.store.close();
    B.store.close();
  });

  test('an operation that keeps losing answers one sentence and stores nothing of its last attempt', async () => {
    const url = await freshDatabase();
    const A = await openPgStore(url, { host: 'a', roots: ['/a'] });
    const B = await openPgStore(url, { host: 'b', roots: ['/b'] });
    put(A.store, 'main', 'x.txt', 'base');
    A.store.barrier();
    let n = 0;
    const err = await A.lock
      .run(async () => {
        textAt(A.store, 'x.txt');
        A.store.barrier();
        await B.lock.run(async () => void put(B.store, 'main', 'x.txt', `b ${n++}`));
        put(A.store, 'main', 'x.txt', 'a');
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(PgStoreError);
    expect(err.message).toMatch(/was changed by another host at the same moment \d+ times in a row; nothing more of this call was stored/);
    expect(textAt(A.store, 'x.txt')).toBe(`b ${n - 1}`);
    A.store.close();
    B.store.close();
  });

  test('the search index finds blobs by their terms; a blob not yet indexed is said to be', async () => {
    const url = await freshDatabase();
    const { store, lock } = await openPgStore(url, { host: 'a', roots: [] });
    const one = put(store, 'main', 'one.txt', 'function alpha() { return 1 }');
    const two = put(store, 'main', 'two.txt', 'const BETA_value = 2;');
    const bin = put(store, 'main', 'bin.dat', 'abc\u0000def');
    store.barrier();
    expect(store.blobsMayHold(['alpha']).unindexed).toEqual(new Set([one, two, bin]));
    // As the background indexer calls it: under the lock, a transaction of its own.
    for (let k = 0; k < 10 && (await lock.run(async () => store.indexSome(50))) > 0; k++);
    const alpha = store.blobsMayHold(['alpha', 'return']);
    expect(alpha.may).toEqual(new Set([one]));
    expect(alpha.unindexed).toEqual(new Set([bin]));
    // `_` as the index sees it; case kept unless asked otherwise.
    expect(store.blobsMayHold(['beta_v'], true).may).toEqual(new Set([two]));
    expect(store.blobsMayHold(['BETA_v']).may).toEqual(new Set([two]));
    expect(store.blobsMayHold(['beta_v']).may).toEqual(new Set());
    expect(store.blobsMayHold(['100%']).may).toEqual(new Set());
    // A term's places of several characters: the runs of single ones (three at least) are looked for.
    const word = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_';
    expect(store.blobsMayHold([['f', 'u', 'n', word, 'a', 'l', 'p', 'h', 'a']]).may).toEqual(new Set([one]));
    expect(store.blobsMayHold([['B', 'E', 'T', 'A', word, 'v', 'a', 'l']]).may).toEqual(new Set([two]));
    expect(() => store.blobsMayHold([[word, 'a', 'b', word]])).toThrow('no term gives the search index a string to look up');
    store.close();
  });

  test('a slice of the index takes as many bytes as the slices before managed in its budget: with a budget of 1 ms, one blob of 32 KB a slice', async () => {
    const url = await freshDatabase();
    const { store, lock } = await openPgStore(url, { host: 'a', roots: [] });
    // Text with a trigram index entry for nearly every position: the server's insert is most of a slice.
    let seed = 4242;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    const words = (n: number) => Array.from({ length: n }, () => (random() % 2 ** 30).toString(36)).join(' ');
    for (let i = 0; i < 12; i++) put(store, 'main', `f${i}.txt`, words(32 * 1024 / 7).slice(0, 32 * 1024));
    store.barrier();
    const left = [await lock.run(async () => store.indexSome(0))];
    while (left[left.length - 1] > 0 && left.length < 20) left.push(await lock.run(async () => store.indexSome(1)));
    expect(left).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    lock.close();
    store.close();
  });

  test('a write sent with the next statement that fails fails that statement; nothing of its transaction is stored, and the store goes on', async () => {
    const url = await freshDatabase();
    const { store, lock } = await openPgStore(url, { host: 'a', roots: ['/a'] });
    put(store, 'main', 'kept.txt', 'before');
    store.barrier();
    // The server refuses one evidence row: the write waits in the queue, so the refusal comes back on what follows it.
    await sql(url, async (db) => {
      await db.unsafe(`CREATE FUNCTION ws.refuse_bad() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.path = 'bad.txt' THEN RAISE EXCEPTION 'refused here'; END IF; RETURN NEW; END $$`);
      await db.unsafe('CREATE TRIGGER refuse_bad BEFORE INSERT OR UPDATE ON ws.evidence FOR EACH ROW EXECUTE FUNCTION ws.refuse_bad()');
    });
    for (const next of ['a read', 'the commit'] as const) {
      let failed: unknown;
      try {
        put(store, 'main', 'kept.txt', `changed before ${next}`);
        put(store, 'main', 'new.txt', 'new');
        store.setEvidence('work', 'new.txt', { kind: 'absent' });
        store.setEvidence('work', 'bad.txt', { kind: 'absent' });
        if (next === 'a read') store.read('main', 'work', 'other.txt');
        else store.barrier();
      } catch (err) {
        failed = err;
      }
      expect(failed).toBeInstanceOf(StoreError);
      expect(String((failed as Error).message)).toContain('refused here');
      store.barrier();
      expect(textAt(store, 'kept.txt')).toBe('before');
      expect(store.read('main', 'work', 'new.txt').tree).toBeNull();
      expect(store.read('main', 'work', 'new.txt').evidence).toBeNull();
      expect(store.history('work', 'kept.txt')).toHaveLength(1);
    }
    // An operation of the lock that fails on its own, with writes still waiting: they are dropped with its transaction.
    const failing = lock.run(async () => {
      put(store, 'main', 'kept.txt', 'from the failed operation');
      store.setEvidence('work', 'new.txt', { kind: 'absent' });
      throw new Error('the operation failed');
    });
    await expect(failing).rejects.toThrow('the operation failed');
    put(store, 'main', 'kept.txt', 'after');
    store.setEvidence('work', 'kept.txt', { kind: 'absent' });
    store.barrier();
    expect(textAt(store, 'kept.txt')).toBe('after');
    expect(store.read('main', 'work', 'new.txt').evidence).toBeNull();
    expect(store.history('work', 'kept.txt').map((v) => dec(store.getBlob(v.hash!)!))).toEqual(['after', 'before']); // newest first
    expect(store.read('main', 'work', 'kept.txt').evidence).toEqual({ kind: 'absent' });
    lock.close();
    store.close();
  });

  test('writes go with the next statement: a first sync sends at most three messages a file, a materialize at most five', async () => {
    const root = tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 200; i++) files[`d${i % 7}/f${i}.txt`] = `text ${i}\n`;
    writeFiles(root, files);
    const url = await freshDatabase();
    const host = await openHost(pgConfig(root, [{ name: 'work', path: '.' }], url), { watch: false });
    const store = host.store as unknown as PgStore;
    const mount = host.workspace.mounts[0] as StoreMount;
    let before = store.roundTrips;
    expect((await mount.sync(undefined)).ok).toBe(true);
    const synced = store.roundTrips - before;
    const changes = Object.keys(files).map((path) => ({ path, bytes: enc('drafted\n'), expected: enc(files[path]) }));
    expect((await mount.commit(changes)).ok).toBe(true);
    before = store.roundTrips;
    expect((await mount.materialize({ force: false })).ok).toBe(true);
    const materialized = store.roundTrips - before;
    host.close();
    expect(synced).toBeLessThanOrEqual(3 * 200);
    expect(materialized).toBeLessThanOrEqual(5 * 200);
  });

  test('blobs nothing refers to are marked, then removed a grace period later', async () => {
    const url = await freshDatabase();
    const { store, lock } = await openPgStore(url, { host: 'a', roots: [] });
    const kept = put(store, 'main', 'a.txt', 'kept');
    store.putBlob(sha256(enc('orphan')), enc('orphan'));
    store.barrier();
    expect(await lock.run(async () => store.collectBlobs(1000, 10_000))).toEqual({ marked: 1, removed: 0 });
    expect(store.collectBlobs(1000, 10_500)).toEqual({ marked: 0, removed: 0 });
    expect(store.collectBlobs(1000, 11_000)).toEqual({ marked: 0, removed: 1 });
    expect(store.getBlob(sha256(enc('orphan')))).toBeNull();
    expect(store.getBlob(kept)).not.toBeNull();
    store.close();
  });
});

describe('the PostgreSQL store’s lock', () => {
  test('one operation at a time per (host, roots): the same host waits, another host does not, and a killed holder lets go', async () => {
    const url = await freshDatabase();
    const a1 = await openPgStore(url, { host: 'a', roots: ['/r'] });
    const a2 = await openPgStore(url, { host: 'a', roots: ['/r'] });
    const b = await openPgStore(url, { host: 'b', roots: ['/r'] });
    const events: string[] = [];
    const first = a1.lock.run(async () => {
      events.push('a1 starts');
      // Long enough that the other host's operation, which does not wait, ends first even on a busy machine.
      await Bun.sleep(1500);
      events.push('a1 ends');
    });
    await Bun.sleep(100);
    await Promise.all([a2.lock.run(async () => void events.push('a2')), b.lock.run(async () => void events.push('b')), first]);
    expect(events).toEqual(['a1 starts', 'b', 'a1 ends', 'a2']);

    // A holder killed with SIGKILL holds nothing: its session, and the lock with it, end.
    const child = Bun.spawn(
      [
        'bun',
        '-e',
        `import { openPgStore } from ${JSON.stringify(join(import.meta.dir, '../src/store/postgres/open.ts'))};
         const { lock } = await openPgStore(${JSON.stringify(url)}, { host: 'a', roots: ['/r'] });
         await lock.run(async () => { console.log('holding'); await new Promise(() => {}); });`,
      ],
      { stdout: 'pipe', stderr: 'pipe' },
    );
    const reader = child.stdout.getReader();
    let out = '';
    while (!out.includes('holding')) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error('the child ended before it held the lock');
      out += new TextDecoder().decode(chunk.value);
    }
    let got = false;
    const waiting = a2.lock.run(async () => {
      got = true;
    });
    await Bun.sleep(300);
    expect(got).toBe(false);
    child.kill('SIGKILL');
    await child.exited;
    await waiting;
    expect(got).toBe(true);
    for (const s of [a1, a2, b]) {
      s.lock.close();
      s.store.close();
    }
  });
});

describe('the PostgreSQL store’s lock is fair', () => {
  test('a process of the same host gets in while another runs a steady stream of operations', async () => {
    const url = await freshDatabase();
    const busy = await openPgStore(url, { host: 'a', roots: ['/r'] });
    const other = await openPgStore(url, { host: 'a', roots: ['/r'] });
    let streaming = true;
    let streamed = 0;
    const stream = (async () => {
      const until = Date.now() + 6000;
      while (Date.now() < until) {
        await busy.lock.run(async () => {
          busy.store.read('main', 'work', 'a.txt');
        });
        streamed++;
        // As requests arrive, between operations (both stand for processes here, in one event loop).
        await new Promise((r) => setImmediate(r));
      }
      streaming = false;
    })();
    await Bun.sleep(200);
    let inDuringStream = false;
    await other.lock.run(async () => {
      inDuringStream = streaming;
    });
    const after = streamed;
    await stream;
    expect(inDuringStream).toBe(true);
    expect(streamed).toBeGreaterThan(after); // and the stream went on after it
    for (const s of [busy, other]) {
      s.lock.close();
      s.store.close();
    }
  }, 30_000);
});

describe('two hosts in one process, on one PostgreSQL store', () => {
  test('the review page lists another host’s draft with the host that made it; the maker’s own list does not', async () => {
    const url = await freshDatabase();
    const hosts = await Promise.all(
      ['alpha', 'beta'].map(async (id) => {
        const root = tempDir(`ws-pghost-${id}-`);
        writeFiles(root, { 'a.txt': 'shared text\n' });
        const host = await openHost(pgConfig(root, [{ name: 'work', path: '.' }], url, id), { watch: false });
        return { host, mount: host.workspace.mounts[0] as StoreMount };
      }),
    );
    try {
      const [alpha, beta] = hosts;
      for (const h of hosts) expect((await h.mount.read('a.txt')).kind).toBe('file');
      expect((await alpha.mount.commit([{ path: 'a.txt', bytes: enc('alpha drafted this\n') }])).ok).toBe(true);
      const listed = await beta.mount.review.list(true);
      if (!listed.ok) throw new Error(listed.message);
      expect(listed.entries.map((e) => [e.path, e.kind, e.alsoOn])).toEqual([['a.txt', 'draft', ['alpha']]]);
      const own = await alpha.mount.review.list(true);
      if (!own.ok) throw new Error(own.message);
      expect(own.entries.map((e) => [e.path, e.kind, e.alsoOn])).toEqual([['a.txt', 'draft', undefined]]);
    } finally {
      for (const h of hosts) h.host.close();
    }
  });
});
