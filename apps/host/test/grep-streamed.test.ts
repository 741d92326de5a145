/**
 * A warm host's search of an unchanged plan takes the index's lookup as it reads on
 * (`searchStreamed` in `src/mounts/store-backed/search.ts`): its batches go to grep's
 * Workers in the order the lookup names their blobs (row-id order, not path order), and
 * the files come back to the search in path order. Every answer here is the one a mount
 * with no Workers, no memory and no plan of records gives (every blob read and scanned):
 * for blobs stored against path order (row ids that run backwards and jump), a blob at
 * many paths far apart, more candidates than a batch holds, every output mode and page,
 * two searches at once, the lookup failing part way, a write on the host's connection
 * while the lookup reads, a blob the index does not cover, and a tree that changes. On
 * PostgreSQL, which has no such lookup, the answers are the same.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Mount, type Workspace, handleToolCall } from '@ws/tools';
import type { MountConfig } from '../src/config.ts';
import { grepWorkers } from '../src/grep/runner.ts';
import { type Host, openHost } from '../src/host.ts';
import { storeMount } from '../src/mounts/store-backed/mount.ts';
import { STREAM_HOLD } from '../src/mounts/store-backed/search.ts';
import type { BlobIdLookup, Store } from '../src/store/store.ts';
import { seededRandom, tempDir } from './fixtures.ts';
import { testConfig, writeFiles } from './host-fixtures.ts';

setDefaultTimeout(120_000);

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : 1601;
/** More files than the batches a search runs at once hold (`BATCH_FILES` each), so some start out of turn. */
const N = 900;
const pathOf = (k: number) => `${['a', 'b/c', 'b/d/e', 'z'][k % 4]}/f${String(k).padStart(3, '0')}.ts`;

/** Every file holds the pattern's words (the index names it); some hold a matching line; every ninth is shared by many paths. */
function fileText(k: number): string {
  if (k % 9 === 0) return 'export class SharedError {}\nfunction makeSharedError() { return new SharedError(); }\n';
  const lines = [`const thing${k} = 1; // Error`, `function helper${k}() { return thing${k}; }`];
  if (k % 5 === 0) lines.push(`function build${k}Error() {}`);
  if (k % 11 === 0) lines.push(`FUNCTION BIG${k}ERROR() {}`);
  return `${lines.join(k % 7 === 0 ? '\r\n' : '\n')}\n`;
}

let root: string;
let host: Host;
let config: MountConfig;
const workers = grepWorkers({ longRunning: true });
afterAll(() => {
  host?.close();
  workers.close();
});

/** The host's store, its lookups counted: `streamed` grows by one a search the lookup was read as it went. */
let streamed = 0;
let store: Store;

beforeAll(async () => {
  root = tempDir('ws-streamed-');
  host = await openHost(testConfig(root, [{ name: 'work', path: '.', ignore: [], watch: 'always' }]), { watch: true });
  // Stored against path order: the last path first, so the row ids run backwards through the plan.
  for (let k = N - 1; k >= 0; k -= 60) {
    const files: Record<string, string> = {};
    for (let j = k; j > k - 60 && j >= 0; j--) files[pathOf(j)] = fileText(j);
    writeFiles(root, files);
    await handleToolCall(host.workspace, { name: 'sync', input: {} });
  }
  await host.indexer?.current();
  config = (host.workspace.mounts[0] as unknown as { config: MountConfig }).config;
  store = host.store as Store;
  const real = store.blobIdsMayHold?.bind(store);
  if (real !== undefined) {
    store.blobIdsMayHold = (terms, caseInsensitive) => {
      const got = real(terms, caseInsensitive);
      if (got !== undefined) streamed++;
      return got;
    };
  }
});

/** Whether the store reads its lookup as it goes (SQLite's; PostgreSQL's does not). */
const streams = () => store.blobIdsMayHold !== undefined;

/** A mount of the host's store reading and scanning every blob itself. */
function plainMount(): Mount {
  return storeMount(config, { store, lock: { run: (op) => op(), close() {} }, hash: (b) => new Bun.CryptoHasher('sha256').update(b).digest('hex'), storeRel: undefined });
}

async function answerOf(workspace: Workspace, input: Record<string, unknown>, resultMaxChars = 1_000_000): Promise<unknown> {
  const got = await handleToolCall(workspace, { name: 'grep', input: { path: 'work', ...input }, resultMaxChars });
  if (!got.success) throw new Error(got.error);
  return got.data;
}
const hostAnswer = (input: Record<string, unknown>, budget?: number) => answerOf(host.workspace, input, budget);
const plainAnswer = (input: Record<string, unknown>, budget?: number) =>
  answerOf({ mounts: [plainMount()], hasDirectMount: false, grep: { runner: workers.runner, timeoutMs: 30_000 } }, input, budget);

/** The host's answer to `input`, asked until its plan is searched again (the lookup then read as it goes), against a full scan's. */
async function expectSame(input: Record<string, unknown>, budget?: number): Promise<unknown> {
  // The indexer idle first: a blob it indexed between the two searches would make the plan anew.
  await host.indexer?.current();
  await hostAnswer({ pattern: 'thing' });
  const before = streamed;
  const got = await hostAnswer(input, budget);
  if (streams()) expect(streamed).toBe(before + 1);
  expect({ input, got }).toEqual({ input, got: await plainAnswer(input, budget) });
  return got;
}

/** Runs `body` with each of the store's lookups calling `before(k)` ahead of reading its k-th id (the first is 1). */
async function withLookups(before: (k: number) => void, body: () => Promise<void>): Promise<void> {
  const real = store.blobIdsMayHold as NonNullable<Store['blobIdsMayHold']>;
  store.blobIdsMayHold = (terms, caseInsensitive) => {
    const got = real(terms, caseInsensitive);
    if (got === undefined) return got;
    let read = 0;
    const wrapped: BlobIdLookup = {
      unindexed: got.unindexed,
      next: () => {
        before(++read);
        return got.next();
      },
      close: () => got.close(),
    };
    return wrapped;
  };
  try {
    await body();
  } finally {
    store.blobIdsMayHold = real;
  }
}

describe('a search as the lookup names its blobs', () => {
  test('every question, on every page and in every mode, answers as a scan of every blob does', async () => {
    const questions: Record<string, unknown>[] = [
      { pattern: 'function\\s+\\w+Error' },
      { pattern: 'function\\s+\\w+Error', output: 'count' },
      { pattern: 'function\\s+\\w+Error', output: 'files' },
      { pattern: 'function\\s+\\w+Error', offset: 40 },
      { pattern: 'function\\s+\\w+error', caseInsensitive: true },
      { pattern: 'SharedError' },
      { pattern: 'makeSharedError()', fixedStrings: true },
      { pattern: 'thing1\\d\\d' },
      { pattern: 'return thing' },
      { pattern: 'nothing holds this line' },
    ];
    const first = await expectSame(questions[0]);
    // The shared blob's paths, far apart in the plan, and lines of both line ends, all found.
    expect(JSON.stringify(first)).toContain('f405.ts');
    expect(JSON.stringify(first)).toContain('f000.ts');
    expect(JSON.stringify(first)).toContain('build35Error');
    for (const question of questions.slice(1)) await expectSame(question);
    // Pages that fill early (a small budget): the rest counted, as a scan counts them.
    for (const offset of [0, 7, 150]) await expectSame({ pattern: 'thing\\d+', offset }, 2_000);
  });

  test('with no room for blobs read ahead, each batch starts when the search reaches it, and the answers are the same', async () => {
    const was = STREAM_HOLD.bytes;
    STREAM_HOLD.bytes = 0;
    try {
      for (const question of [{ pattern: 'function\\s+\\w+Error' }, { pattern: 'thing\\d+', output: 'count' }, { pattern: 'SharedError', offset: 3 }]) await expectSame(question);
    } finally {
      STREAM_HOLD.bytes = was;
    }
  });

  test('each batch is read once, whether the lookup’s order or the search started it', async () => {
    if (!streams()) return expect(store.blobIdsMayHold).toBeUndefined();
    // Each batch a Worker reads asks for the store's file once.
    const room = STREAM_HOLD.bytes;
    const real = store.packedBlobFile?.bind(store);
    let asked = 0;
    store.packedBlobFile = () => {
      asked++;
      return real?.();
    };
    const batchesOf = async (room: number) => {
      const was = STREAM_HOLD.bytes;
      STREAM_HOLD.bytes = room;
      try {
        await hostAnswer({ pattern: 'thing' });
        asked = 0;
        await hostAnswer({ pattern: 'thing\\d+', output: 'count' });
        return asked;
      } finally {
        STREAM_HOLD.bytes = was;
      }
    };
    try {
      // With no room, the search starts every batch itself, each once; with room, the lookup's
      // order starts most; with a byte's room, each in turn by whichever comes first.
      const alone = await batchesOf(0);
      expect(alone).toBeGreaterThan(3);
      expect(await batchesOf(room)).toBe(alone);
      expect(await batchesOf(1)).toBe(alone);
    } finally {
      store.packedBlobFile = real;
    }
  });

  test('two searches at once, each reading its own lookup, answer as each alone', async () => {
    await hostAnswer({ pattern: 'thing' });
    const before = streamed;
    const questions = [{ pattern: 'function\\s+\\w+Error' }, { pattern: 'return thing\\d' }, { pattern: 'SharedError' }];
    const together = await Promise.all(questions.map((q) => hostAnswer(q)));
    if (streams()) expect(streamed).toBe(before + questions.length);
    for (const [k, q] of questions.entries()) expect(together[k]).toEqual(await plainAnswer(q));
  });

  test('a lookup that fails part way: every blob it did not name is read, and the answer is whole', async () => {
    if (!streams()) return expect(await hostAnswer({ pattern: 'function\\s+\\w+Error' })).toEqual(await plainAnswer({ pattern: 'function\\s+\\w+Error' }));
    let failures = 0;
    const failing = (k: number) => {
      if (k <= 30) return;
      failures++;
      throw new Error('the search index could not be read: disk I/O error');
    };
    await withLookups(failing, async () => {
      await expectSame({ pattern: 'function\\s+\\w+Error' });
      await expectSame({ pattern: 'return thing\\d+', output: 'count' });
    });
    // Each search's lookup failed (the one before each question's too).
    expect(failures).toBeGreaterThanOrEqual(2);
  });

  test('the host writing on its own connection while the lookup reads changes nothing the search sees', async () => {
    if (!streams()) return expect(store.blobIdsMayHold).toBeUndefined();
    let wrote = 0;
    // Mid-lookup: a blob stored and indexed on the host's connection (no tree refers to it).
    const writing = (k: number) => {
      if (k !== 20) return;
      const text = new TextEncoder().encode(`function written${wrote++}Error() {}\n`);
      store.putBlob(new Bun.CryptoHasher('sha256').update(text).digest('hex'), text);
      store.indexSome(1_000);
    };
    await withLookups(writing, () => expectSame({ pattern: 'function\\s+\\w+Error' }).then(() => {}));
    expect(wrote).toBeGreaterThanOrEqual(1);
  });

  test('a blob the index does not cover is read, and found', async () => {
    if (!streams()) return expect(store.blobIdsMayHold).toBeUndefined();
    // f013's new blob kept out of the index (as binary-looking text is), so the indexer leaves it so.
    const db = (store as unknown as { db: import('bun:sqlite').Database }).db;
    const hash = new Bun.CryptoHasher('sha256').update(fileText(13)).digest('hex');
    const row = db.query('SELECT id FROM blob WHERE hash = ?').get(hash) as { id: number };
    writeFileSync(join(root, pathOf(13)), `${fileText(13)}function lateAddedError() {}\n`);
    await handleToolCall(host.workspace, { name: 'sync', input: {} });
    const late = new Bun.CryptoHasher('sha256').update(`${fileText(13)}function lateAddedError() {}\n`).digest('hex');
    const lateRow = db.query('SELECT id FROM blob WHERE hash = ?').get(late) as { id: number };
    db.run('DELETE FROM blob_text WHERE rowid = ?', [lateRow.id]);
    db.run('UPDATE blob SET indexed = 2 WHERE id = ?', [lateRow.id]);
    expect(row.id).not.toBe(lateRow.id);
    const got = await expectSame({ pattern: 'function\\s+\\w+Error' });
    expect(JSON.stringify(got)).toContain('lateAddedError');
    writeFileSync(join(root, pathOf(13)), fileText(13));
    await handleToolCall(host.workspace, { name: 'sync', input: {} });
    await host.indexer?.current();
  });

  test('seeded edits between searches: each new plan, searched again, answers as a scan', async () => {
    const r = seededRandom(seed);
    const questions: Record<string, unknown>[] = [
      { pattern: 'function\\s+\\w+Error' },
      { pattern: 'thing\\d+', output: 'count' },
      { pattern: 'SharedError', output: 'files' },
      { pattern: 'helper\\d+\\(', offset: 5 },
    ];
    for (let step = 0; step < 6; step++) {
      const ks = Array.from({ length: 1 + r(8) }, () => r(N));
      for (const k of ks) writeFileSync(join(root, pathOf(k)), r(2) === 0 ? fileText((k + 5) % N) : `${fileText(k)}function step${step}Error() {}\n`);
      await handleToolCall(host.workspace, { name: 'sync', input: {} });
      if (r(2) === 0) await host.indexer?.current();
      for (const question of questions) await expectSame(question, r(2) === 0 ? 3_000 : undefined);
    }
  });

  test('a search let go part way (its deadline, a cancelled call) starts no batch after', async () => {
    if (!streams()) return expect(store.blobIdsMayHold).toBeUndefined();
    // Many more batches than run at once; the first file stored first, so its batch is the
    // first the lookup names and the search has its first file long before the last batch.
    const bulk: Record<string, string> = {};
    for (let k = 0; k < 2_400; k++) bulk[`bulk/g${String(k).padStart(4, '0')}.ts`] = `export const bulkword${k} = ${k};\n`;
    const [first, ...rest] = Object.keys(bulk);
    for (const part of [[first], rest]) {
      writeFiles(root, Object.fromEntries(part.map((path) => [path, bulk[path]])));
      await handleToolCall(host.workspace, { name: 'sync', input: {} });
    }
    await host.indexer?.current();
    const real = store.packedBlobFile?.bind(store);
    let asked = 0;
    store.packedBlobFile = () => {
      asked++;
      return real?.();
    };
    try {
      // The new plan searched once, so the searches after it are searched again.
      await hostAnswer({ pattern: 'thing' });
      const query = { pattern: 'bulkword\\d+', caseInsensitive: false, fixedStrings: false, multiline: false };
      // A whole search's batches.
      asked = 0;
      await hostAnswer({ pattern: query.pattern, output: 'count' });
      const whole = asked;
      asked = 0;
      const files = host.workspace.mounts[0].searchFiles('', query)[Symbol.asyncIterator]();
      expect((await files.next()).done).toBe(false);
      await files.return?.(undefined);
      const atReturn = asked;
      await Bun.sleep(500);
      expect(asked).toBe(atReturn);
      expect(atReturn).toBeLessThan(whole);
    } finally {
      store.packedBlobFile = real;
    }
  });
});
