/**
 * The compact store: blobs packed per row and read back byte for byte, the search index
 * built a slice at a time and never naming a blob that lacks the terms it was asked for,
 * and unreferenced blobs collected after a grace period — never one a tree, a history
 * row, a mark, evidence or a pending effect refers to.
 */
import { describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import { sha256 } from '../src/host.ts';
import { packBlob, unpackBlob } from '../src/store/blob-codec.ts';
import { openStore } from '../src/store/open-store.ts';
import { CANDIDATES_SQL, matchQuery, type SqliteStore } from '../src/store/sqlite-store.ts';
import { hashKey } from '../src/store/store.ts';
import type { BlobLookup } from '../src/store/store.ts';
import { enc, seededRandom, tempDir } from './fixtures.ts';

const storePath = () => join(tempDir('ws-store-index-'), 'store.sqlite');

/** The blobs of `texts` a lookup names, by hash and sorted; it names no other (its size is theirs). */
function namedAmong(lookup: BlobLookup, texts: readonly Uint8Array[]): string[] {
  const named = texts.map((t) => sha256(t)).filter((h) => lookup.may.has(h)).sort();
  expect(lookup.may.size).toBe(named.length);
  return named;
}

describe('blobs in the store', () => {
  test('any bytes pack and unpack to themselves: empty, short, text, random, and zstd-looking', () => {
    const random = seededRandom(3);
    const cases = [
      new Uint8Array(0),
      enc('hi'),
      enc('a line\r\n'.repeat(1000)),
      Uint8Array.from({ length: 5000 }, () => random(256)),
      Bun.zstdCompressSync(enc('x'.repeat(999))),
    ];
    for (const bytes of cases) {
      const packed = packBlob(bytes);
      expect(unpackBlob(packed.codec, packed.bytes)).toEqual(bytes);
    }
    expect(packBlob(enc('a line\r\n'.repeat(1000))).codec).toBe('zstd');
    expect(packBlob(Uint8Array.from({ length: 5000 }, () => random(256))).codec).toBe('raw');
  });

  test('a blob reads back whole, alone and in a batch; a hash the store lacks is left out', async () => {
    const store = await openStore(storePath());
    const texts = ['short', 'a longer text that packs, '.repeat(50), '\uFEFFbom\r\ncrlf\r\n'.repeat(40)].map(enc);
    for (const t of texts) store.putBlob(sha256(t), t);
    store.barrier();
    for (const t of texts) expect(store.getBlob(sha256(t))).toEqual(t);
    const batch = store.getBlobs([...texts.map((t) => sha256(t)), sha256(enc('missing'))]);
    expect(batch.size).toBe(3);
    for (const t of texts) expect(batch.get(sha256(t))).toEqual(t);
    store.close();
  });
});

describe('the search index', () => {
  test('the candidates’ hashes come from the covering index, not the blobs’ rows; a store made before the index gets it and names the same blobs', async () => {
    const path = storePath();
    const store = await openStore(path);
    const texts = Array.from({ length: 30 }, (_, i) => enc(`${i % 3 === 0 ? 'function fooError() {}' : 'nothing here'} ${i}\n`.repeat(200)));
    for (const t of texts) store.putBlob(sha256(t), t);
    store.barrier();
    while (store.indexSome(5) > 0);
    const named = namedAmong(store.blobsMayHold(['function', 'Error']), texts);
    expect(named).toEqual(texts.filter((_, i) => i % 3 === 0).map((t) => sha256(t)).sort());
    store.close();
    const db = new Database(path);
    const explain = db.prepare(`EXPLAIN QUERY PLAN ${CANDIDATES_SQL}`);
    const plan = (explain.all('"fun"') as { detail: string }[]).map((r) => r.detail);
    explain.finalize();
    expect(plan.some((d) => d.includes('COVERING INDEX blob_id_hash'))).toBe(true);
    // As a store of schema 4 had it: no index, the migrations after it not applied.
    db.run('DROP INDEX blob_id_hash');
    db.run('DROP TABLE changes');
    db.run('DROP TABLE quiet');
    db.run('DELETE FROM migrations WHERE version >= 5');
    db.close();
    const again = await openStore(path);
    while (again.indexSome(5) > 0);
    expect(namedAmong(again.blobsMayHold(['function', 'Error']), texts)).toEqual(named);
    again.close();
  });

  test('a query asks for every term’s trigrams, quotes doubled; case-insensitive, each in every case of its ASCII letters', () => {
    expect(matchQuery(['abcdef'])).toBe('"abc" AND "bcd" AND "cde" AND "def"');
    expect(matchQuery(['a"bc', 'abc'])).toBe('"a""b" AND """bc" AND "abc"');
    expect(matchQuery(['Abc', 'aBC'])).toBe('"Abc" AND "aBC"');
    expect(matchQuery(['a_1b'], true)).toBe('("a_1" OR "A_1") AND ("_1b" OR "_1B")');
    // One group a trigram, however its terms spell it.
    expect(matchQuery(['Abc', 'aBC'], true)).toBe('("abc" OR "abC" OR "aBc" OR "aBC" OR "Abc" OR "AbC" OR "ABc" OR "ABC")');
    expect(matchQuery(['1"2'], true)).toBe('"1""2"');
  });

  test('a term’s place that may be several characters asks for every way of writing its trigrams, up to 64; none to ask for is refused', () => {
    expect(matchQuery([['ab', 'c', 'd']])).toBe('("acd" OR "bcd")');
    expect(matchQuery([['x', '12', 'y', 'z']])).toBe('("x1y" OR "x2y") AND ("1yz" OR "2yz")');
    // A place of one character is a plain trigram, shared with a string term that spells it.
    expect(matchQuery(['Err', ['E', 'r', 'r']])).toBe('"Err"');
    expect(matchQuery([['a', 'b', '"']], true)).toBe('("ab""" OR "aB""" OR "Ab""" OR "AB""")');
    const word = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_';
    const wordE = matchQuery([[word, 'E', 'r']]);
    expect(wordE.split(' OR ').length).toBe(63);
    expect(wordE).toContain('"_Er"');
    // Two word characters' places are 3,969 ways: left out, the term's other trigrams asked.
    expect(matchQuery([[word, word, 'a', 'b']])).toBe(`(${[...word].map((c) => `"${c}ab"`).join(' OR ')})`);
    // Folded, a word character's place beside two letters is 252 ways: left out.
    expect(() => matchQuery([[word, 'E', 'r']], true)).toThrow('no term gives the search index a trigram to look up');
    expect(() => matchQuery([[word, word, word]])).toThrow('no term gives the search index a trigram to look up');
  });

  test('terms with places of several characters name every blob holding them, and fewer than their characters alone would', async () => {
    const store = await openStore(storePath());
    const random = seededRandom(31);
    const pieces = ['function', ' ', 'fooError', ' Error', '_Error', '9Error', 'new', 'x1y', 'x y', 'Error'];
    const texts: Uint8Array[] = [];
    for (let i = 0; i < 60; i++) texts.push(enc(`${Array.from({ length: 1 + random(5) }, () => pieces[random(pieces.length)]).join('')}\n`));
    // One that holds `function` and `Error` with no word character before it.
    texts.push(enc('function x = Error\n'));
    for (const t of texts) store.putBlob(sha256(t), t);
    store.barrier();
    while (store.indexSome(5) > 0);
    const word = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_';
    const cases: [terms: (string | string[])[], holds: (text: string) => boolean][] = [
      [['function', [word, 'E', 'r', 'r', 'o', 'r']], (t) => t.includes('function') && /\wError/.test(t)],
      [[['x', '0123456789', 'y']], (t) => /x\dy/.test(t)],
    ];
    for (const [terms, holds] of cases) {
      const named = namedAmong(store.blobsMayHold(terms), texts);
      const holding = [...new Set(texts.filter((t) => holds(new TextDecoder().decode(t))).map((t) => sha256(t)))].sort();
      expect(holding.length).toBeGreaterThan(0);
      // The index keeps no positions, so it may name more than hold the terms; here each
      // of their trigrams is in a text only where the terms are, so it names just those.
      expect(named).toEqual(holding);
    }
    // The characters alone (`Error`) name the texts with ` Error` too: the places narrow.
    expect(namedAmong(store.blobsMayHold(['function', 'Error']), texts).length).toBeGreaterThan(
      namedAmong(store.blobsMayHold(['function', [word, 'E', 'r', 'r', 'o', 'r']]), texts).length,
    );
    store.close();
  });

  test('the index keeps case: a term names the blobs holding it as written; case-insensitive, in any case', async () => {
    const store = await openStore(storePath());
    const texts = ['throw new FooError()', 'a fooerror here', 'FOOERROR loud', 'nothing'].map((t) => enc(`${t}\n`.repeat(20)));
    for (const t of texts) store.putBlob(sha256(t), t);
    store.barrier();
    while (store.indexSome(5) > 0);
    const named = (terms: string[], caseInsensitive?: boolean) => namedAmong(store.blobsMayHold(terms, caseInsensitive), texts);
    const hash = (k: number) => sha256(texts[k]);
    expect(named(['FooError'])).toEqual([hash(0)]);
    expect(named(['fooerror'])).toEqual([hash(1)]);
    expect(named(['FooError'], true)).toEqual([hash(0), hash(1), hash(2)].sort());
    expect(named(['Error'], true)).toEqual([hash(0), hash(1), hash(2)].sort());
    expect(named(['Error'])).toEqual([hash(0)]);
    store.close();
  });

  test('a store whose index folded case (schema 5) is indexed again, keeping case', async () => {
    const path = storePath();
    const store = await openStore(path);
    const texts = ['function fooError() {}', 'function fooerror() {}', 'FUNCTION FOOERROR'].map((t) => enc(`${t}\n`.repeat(30)));
    for (const t of texts) store.putBlob(sha256(t), t);
    store.barrier();
    while (store.indexSome(5) > 0);
    store.close();
    // As a store of schema 5 had it: a folded index holding every blob, each marked indexed.
    const db = new Database(path);
    db.run('DROP TABLE blob_text');
    db.run("CREATE VIRTUAL TABLE blob_text USING fts5(text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram')");
    for (const row of db.query('SELECT id, hash FROM blob').all() as { id: number; hash: string }[]) {
      const text = texts.find((t) => sha256(t) === row.hash) as Uint8Array;
      db.run('INSERT INTO blob_text (rowid, text) VALUES (?, ?)', [row.id, new TextDecoder().decode(text)]);
    }
    db.run('DROP TABLE changes');
    db.run('DROP TABLE quiet');
    db.run('DELETE FROM migrations WHERE version >= 6');
    db.close();
    const again = await openStore(path);
    // Every blob is read until indexed again.
    expect(again.blobsMayHold(['fooError']).unindexed.size).toBe(3);
    while (again.indexSome(5) > 0);
    expect(namedAmong(again.blobsMayHold(['fooError']), texts)).toEqual([sha256(texts[0])]);
    expect(again.blobsMayHold(['fooError']).unindexed.size).toBe(0);
    expect(again.blobsMayHold(['fooError'], true).may.size).toBe(3);
    again.close();
    const check = new Database(path, { readonly: true });
    expect((check.query("SELECT sql FROM sqlite_master WHERE name = 'blob_text'").get() as { sql: string }).sql).toContain('case_sensitive 1');
    check.close();
  });

  test('a lookup keeps each named blob by its hash’s first 52 bits, with its row id: a hash sharing them is kept in too (and searched), a named one never left out', async () => {
    const path = storePath();
    const store = await openStore(path);
    const texts = [enc('alpha beta\n'), enc('gamma\n')];
    for (const t of texts) store.putBlob(sha256(t), t);
    store.barrier();
    while (store.indexSome(5) > 0);
    const lookup = store.blobsMayHold(['alpha']);
    const [named, other] = texts.map((t) => sha256(t));
    expect([lookup.may.has(named), lookup.may.has(other), lookup.may.size]).toEqual([true, false, 1]);
    // Another hash with the same first 13 hex digits: kept in, under the named blob's id.
    const twin = `${named.slice(0, 13)}${named[13] === '0' ? '1' : '0'}${named.slice(14)}`;
    expect(lookup.may.has(twin)).toBe(true);
    const db = new Database(path, { readonly: true });
    const id = (db.query('SELECT id FROM blob WHERE hash = ?').get(named) as { id: number }).id;
    db.close();
    expect([lookup.ids?.get(named), lookup.ids?.get(twin), lookup.ids?.get(other)]).toEqual([id, id, undefined]);
    store.close();
  });

  test('a hash’s key is its first 13 hex digits as a number, each of them counted', () => {
    const random = seededRandom(41);
    for (let i = 0; i < 200; i++) {
      const hash = sha256(enc(`text ${i} ${random(1e9)}`));
      expect(hashKey(hash)).toBe(Number.parseInt(hash.slice(0, 13), 16));
      const k = random(13);
      const other = `${hash.slice(0, k)}${hash[k] === 'f' ? '0' : 'f'}${hash.slice(k + 1)}`;
      expect(hashKey(other)).not.toBe(hashKey(hash));
    }
    expect(hashKey('f'.repeat(64))).toBe(2 ** 52 - 1);
    expect(hashKey('0'.repeat(64))).toBe(0);
  });

  test('until a blob is indexed it is named unindexed; then only blobs holding every term are named', async () => {
    const store = await openStore(storePath());
    const random = seededRandom(9);
    const words = ['createReconciler', 'return', 'Foo', 'ünï', 'function', 'Error'];
    const texts: Uint8Array[] = [];
    for (let i = 0; i < 40; i++) {
      const line = Array.from({ length: 1 + random(6) }, () => words[random(words.length)]).join(' ');
      texts.push(enc(`${line}\n${i}\n`));
    }
    const binary = new Uint8Array([0x72, 0x65, 0x74, 0, 0x75, 0x72, 0x6e]);
    for (const t of [...texts, binary]) store.putBlob(sha256(t), t);
    store.barrier();
    const before = store.blobsMayHold(['createReconciler']);
    expect(before.may.size).toBe(0);
    expect(before.unindexed.size).toBe(41);
    // A slice of no time still indexes one blob, so the indexer always moves on.
    expect(store.indexSome(0)).toBe(40);
    while (store.indexSome(5) > 0);
    const holds = (t: Uint8Array, term: string, folded: boolean) => {
      const text = new TextDecoder().decode(t);
      return folded ? text.toLowerCase().includes(term.toLowerCase()) : text.includes(term);
    };
    for (const folded of [false, true]) {
      for (const terms of [['createReconciler'], ['return', 'Foo'], ['Error'], ['error'], ['nowhere']]) {
        const found = store.blobsMayHold(terms, folded);
        // Binary-looking text is kept out of the index: always a candidate.
        expect([...found.unindexed]).toEqual([sha256(binary)]);
        for (const t of texts) {
          const all = terms.every((term) => holds(t, term, folded));
          if (all) expect(found.may.has(sha256(t))).toBe(true);
        }
        // `error` is in no text as written; `Error` is, in some.
        if (terms[0] === 'nowhere' || (terms[0] === 'error' && !folded)) expect(found.may.size).toBe(0);
        if (terms[0] === 'error' && folded) expect(found.may.size).toBeGreaterThan(0);
      }
    }
    store.close();
  });
});

test('what indexSome says is left is what the store holds unindexed, at every step: puts, slices, collections and another connection’s blobs', async () => {
  const path = storePath();
  const store = await openStore(path);
  const random = seededRandom(27);
  const other = new Database(path);
  const unindexedNow = () => {
    const db = new Database(path, { readonly: true });
    try {
      return (db.query('SELECT COUNT(*) AS n FROM blob WHERE indexed = 0').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };
  let made = 0;
  const text = () => enc(`blob ${made++} ${'word '.repeat(1 + random(40))}\n`);
  let t = 1_000_000;
  for (let step = 0; step < 120; step++) {
    const move = random(10);
    if (move < 3) {
      for (let k = random(5); k >= 0; k--) {
        const b = text();
        store.putBlob(sha256(b), b);
      }
    } else if (move < 4) {
      // Another process's sync adds a blob the index lacks.
      const b = text();
      other.run('INSERT INTO blob (hash, size, codec, bytes) VALUES (?, ?, ?, ?)', [sha256(b), b.length, 'raw', b]);
    } else if (move < 5) {
      t += 40_000;
      store.collectBlobs(60_000, t);
    }
    store.barrier();
    // A slice of no time indexes one blob: a backlog builds up, and each count is told apart.
    expect(store.indexSome(0)).toBe(unindexedNow());
  }
  while (store.indexSome(50) > 0);
  expect(unindexedNow()).toBe(0);
  other.close();
  store.close();
});

describe('collecting unreferenced blobs', () => {
  test('a blob nothing refers to is marked, then removed after the grace period; referenced ones stay', async () => {
    const path = storePath();
    const store = await openStore(path);
    const blob = (s: string) => {
      const b = enc(`${s}\n`.repeat(20));
      store.putBlob(sha256(b), b);
      return sha256(b);
    };
    const inTree = blob('tree');
    const inHistory = blob('history');
    const inConflict = blob('conflict');
    const inEvidence = blob('evidence');
    const inPending = blob('pending');
    const loose = blob('loose');
    const later = blob('put again');
    const cause = { source: 'write' } as const;
    store.setTree('main', 'work', 'a.txt', { hash: inTree, size: 1, mode: null }, cause);
    store.setTree('main', 'work', 'h.txt', { hash: inHistory, size: 1, mode: null }, cause);
    store.setTree('main', 'work', 'h.txt', null, { source: 'delete' });
    store.setMark('main', 'work', 'c.txt', {
      origin: 'workspace',
      tombstone: null,
      conflict: { kind: 'both-changed', disk: { kind: 'stored', hash: inConflict, size: 1 }, diskChangedSince: false, diskNow: 'file' },
    });
    store.setEvidence('work', 'e.txt', { kind: 'text', hash: inEvidence, size: 1, mode: null, fingerprint: null });
    store.setPending('work', 'p.txt', { kind: 'write', branch: 'main', hash: inPending, size: 1, mode: null, expect: { kind: 'absent' }, expectId: null, forced: false });
    store.barrier();
    while (store.indexSome(50) > 0);
    const t0 = 1_000_000;
    expect(store.collectBlobs(60_000, t0)).toEqual({ marked: 2, removed: 0 });
    // Put again before the grace ends: it is kept, and its grace starts over.
    store.putBlob(later, enc('put again\n'.repeat(20)));
    store.barrier();
    expect(store.collectBlobs(60_000, t0 + 30_000)).toEqual({ marked: 1, removed: 0 });
    expect(store.collectBlobs(60_000, t0 + 60_000)).toEqual({ marked: 0, removed: 1 });
    expect(store.getBlob(loose)).toBeNull();
    for (const h of [inTree, inHistory, inConflict, inEvidence, inPending, later]) expect(store.getBlob(h)).not.toBeNull();
    expect(store.collectBlobs(60_000, t0 + 90_000)).toEqual({ marked: 0, removed: 1 });
    expect(store.getBlob(later)).toBeNull();
    store.close();
    // The index lost their rows with them: it names no blob the store lacks.
    const db = new Database(path, { readonly: true });
    const rows = db.query('SELECT COUNT(*) AS n FROM blob_text t WHERE NOT EXISTS (SELECT 1 FROM blob b WHERE b.id = t.rowid)').get();
    db.close();
    expect(rows).toEqual({ n: 0 });
  });
});

describe("a one-shot grep whose Workers read the store's file", () => {
  test('answers as the store holds the files and leaves no -wal or -shm behind: the Workers let the file go before the store closes', async () => {
    const { existsSync, readdirSync } = await import('node:fs');
    const { makeWorkspace, ws } = await import('./ws-process.ts');
    // Enough files for many batches, each with a line that matches.
    const files: Record<string, string> = {};
    for (let k = 0; k < 600; k++) files[`d${k % 9}/f${k}.txt`] = `${'filler line of text\n'.repeat(40)}needle ${k}\n`;
    const w = makeWorkspace([{ name: 'work', backend: 'store', files }]);
    const storeDir = join(w.dir, '.ws');
    for (let round = 0; round < 3; round++) {
      const ran = await ws(w.dir, ['--config', w.config, 'call', 'grep', JSON.stringify({ pattern: 'needle \\d+$', output: 'count' })]);
      expect(ran.code).toBe(0);
      const { totalMatches, totalFiles, filesSearched } = JSON.parse(ran.stdout).data;
      expect({ totalMatches, totalFiles, filesSearched }).toEqual({ totalMatches: 600, totalFiles: 600, filesSearched: 600 });
      expect(readdirSync(storeDir).filter((n) => n.endsWith('-wal') || n.endsWith('-shm'))).toEqual([]);
    }
    expect(existsSync(join(storeDir, 'store.sqlite'))).toBe(true);
  });
});

describe('the search index read as it goes', () => {
  /** Every id a lookup names, read to its end; `between` runs after the first `at` of them. */
  function namedIds(lookup: NonNullable<ReturnType<NonNullable<SqliteStore['blobIdsMayHold']>>>, at = -1, between = () => {}): number[] {
    const ids: number[] = [];
    for (let id = lookup.next(); id !== undefined; id = lookup.next()) {
      ids.push(id);
      if (ids.length === at) between();
    }
    return ids;
  }

  test('names the blobs the whole lookup names, by row id, ascending, and holds one view while this connection writes and indexes more', async () => {
    const store = await openStore(storePath());
    const texts = Array.from({ length: 300 }, (_, k) => enc(`const item${k} = ${k % 3 === 0 ? 'findMeError' : 'other'};\n`));
    for (const t of texts) store.putBlob(sha256(t), t);
    store.barrier();
    while (store.indexSome(1_000) > 0);
    const terms = ['findMeError'];
    const whole = store.blobsMayHold(terms);
    const lookup = store.blobIdsMayHold(terms);
    if (lookup === undefined) throw new Error('no lookup');
    expect(lookup.unindexed.size).toBe(0);
    let added = 0;
    const ids = namedIds(lookup, 20, () => {
      // Half way: more matching blobs stored and indexed on the store's own connection.
      for (let k = 0; k < 50; k++) {
        const t = enc(`const late${k} = findMeError;\n`);
        store.putBlob(sha256(t), t);
        added++;
      }
      store.barrier();
      while (store.indexSome(1_000) > 0);
    });
    expect(added).toBe(50);
    expect(ids.length).toBe(whole.may.size);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const t of texts.filter((_, k) => k % 3 === 0)) expect(ids).toContain(whole.ids?.get(sha256(t)) as number);
    // A lookup begun now names them too.
    const after = store.blobIdsMayHold(terms);
    expect(after === undefined ? [] : namedIds(after)).toHaveLength(whole.may.size + 50);
    store.close();
  });

  test('a blob stored since the index last ran is unindexed; inside a write transaction there is no lookup; a lookup let go early reads no more', async () => {
    const store = await openStore(storePath());
    const t = enc('function lateError() {}\n');
    store.putBlob(sha256(t), t);
    store.barrier();
    const lookup = store.blobIdsMayHold(['lateError']);
    expect(lookup?.unindexed.has(sha256(t))).toBe(true);
    expect(lookup?.next()).toBeUndefined();
    while (store.indexSome(1_000) > 0);
    const named = store.blobIdsMayHold(['lateError']);
    expect(named?.unindexed.size).toBe(0);
    named?.close();
    expect(named?.next()).toBeUndefined();
    // A blob stored is held in a transaction the other connection cannot see yet.
    store.putBlob(sha256(enc('held')), enc('held'));
    expect((store as unknown as { db: Database }).db.inTransaction).toBe(true);
    expect(store.blobIdsMayHold(['lateError'])).toBeUndefined();
    store.barrier();
    expect(store.blobIdsMayHold(['lateError'])).toBeDefined();
    store.close();
  });
});
