import { afterAll, expect, test } from 'bun:test';
import { grepWorkers, prescanParallel } from '../src/grep/runner.ts';

const workers = grepWorkers();
afterAll(() => workers.close());
const enc = new TextEncoder();
const options = { caseInsensitive: false, fixedStrings: false, multiline: false };

test('a scan answers from its Worker, its hit lists moved back', async () => {
  const r = await workers.runner({ pattern: 'b', options, bytes: enc.encode('a\nb\nab\n'), lineEnds: false, timeLimitMs: 5000 });
  expect([...r.hits]).toEqual([2, 3]);
  expect(r.lost).toBeUndefined();
});

test('a Worker stuck in one line past its deadline is ended and replaced: the answer says where it was, and the next scan runs', async () => {
  const evil = enc.encode(`${'a'.repeat(40)}b\n`.repeat(5));
  const started = performance.now();
  // 50 ms is far less than one line of this pattern costs, so only ending the Worker can answer in time.
  const r = await workers.runner({ pattern: '(a+)+(?=$)', options, bytes: evil, lineEnds: false, timeLimitMs: 50 });
  const ms = performance.now() - started;
  expect(r.lost).toBe(true);
  expect(r.stoppedAt).toBe(1);
  expect(ms).toBeLessThan(50 + 250 + 400);
  const next = await workers.runner({ pattern: 'x', options, bytes: enc.encode('x\n'), lineEnds: false, timeLimitMs: 5000 });
  expect([...next.hits]).toEqual([1]);
});

test('a file a batch gave back past its limit has that time counted: its scan gets what is left of its limit, and says what was spent ahead', async () => {
  const pool = grepWorkers();
  try {
    const evil = enc.encode(`${'a'.repeat(40)}b\n`.repeat(5));
    // One line of this pattern costs far more than the 50 ms a file has ahead: the batch is slow.
    const answer = await pool.prescanner.run({ pattern: '(a+)+(?=$)', options, items: [{ bytes: evil }], itemMs: 50, stallMs: 5000 });
    expect(answer?.slow).toBe(true);
    const back = answer?.verdicts[0];
    if (!(back instanceof Uint8Array)) throw new Error('the slow file did not come back as its bytes');
    // Less than it spent ahead is left: the scan stops before its first line, by itself
    // (before, it was given the whole 40 ms, ran into the line, and was ended: lost).
    const r = await pool.runner({ pattern: '(a+)+(?=$)', options, bytes: back, lineEnds: false, timeLimitMs: 40 });
    expect({ lost: r.lost, stoppedAt: r.stoppedAt }).toEqual({ lost: undefined, stoppedAt: 1 });
    expect(r.aheadMs).toBeGreaterThanOrEqual(50);
    // Counted once: the same bytes scanned again get their whole limit.
    const again = await pool.runner({ pattern: 'b$', options, bytes: back, lineEnds: false, timeLimitMs: 5000 });
    expect({ hits: [...again.hits], aheadMs: again.aheadMs }).toEqual({ hits: [1, 2, 3, 4, 5], aheadMs: undefined });
  } finally {
    pool.close();
  }
});

test('a pool whose Worker cannot start (its file is missing) answers every scan from this thread, and its batches fall back to the search', async () => {
  const pool = grepWorkers({ workerFile: './no-such-worker.ts' });
  const said: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => said.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    // Several at once: those that waited for the one Worker are answered too.
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => pool.runner({ pattern: `n${i}$`, options, bytes: enc.encode('n0\nn1\nn2\nn3\nn4\nn5\n'), lineEnds: false, timeLimitMs: 5000 })),
    );
    expect(answers.map((r) => ({ hits: [...r.hits], lost: r.lost }))).toEqual(Array.from({ length: 6 }, (_, i) => ({ hits: [i + 1], lost: undefined })));
    const batch = await pool.prescanner.run({ pattern: 'x', options, items: [{ bytes: enc.encode('a\nx\n') }], itemMs: 5000, stallMs: 60_000 });
    expect(batch).toBeUndefined();
    expect(pool.size()).toBe(0);
    // Said once, with the reason: the install is broken.
    expect(said.length).toBe(1);
    expect(said[0]).toMatch(/^ws: grep's Worker could not start \(.*no-such-worker.*\); greps search on the calling thread instead\.\n$/);
  } finally {
    process.stderr.write = write;
    pool.close();
  }
});

test('a Worker that ends itself under a scan: that scan is answered from this thread, and the next gets a new Worker', async () => {
  const pool = grepWorkers({ workerFile: '../../test/grep-worker-dies.ts', cores: 1 });
  try {
    const first = await pool.runner({ pattern: 'b', options, bytes: enc.encode('a\nb\n'), lineEnds: false, timeLimitMs: 5000 });
    expect([...first.hits]).toEqual([2]);
    // The Worker answered once, then ends itself under this scan (its deadline is far off).
    const second = await pool.runner({ pattern: 'a', options, bytes: enc.encode('a\nb\na\n'), lineEnds: false, timeLimitMs: 60_000 });
    expect({ hits: [...second.hits], lost: second.lost }).toEqual({ hits: [1, 3], lost: undefined });
    // It had started, so the pool makes a new one: this scan is that Worker's first.
    const third = await pool.runner({ pattern: 'c', options, bytes: enc.encode('c\n'), lineEnds: false, timeLimitMs: 5000 });
    expect([...third.hits]).toEqual([1]);
    expect(pool.size()).toBe(1);
  } finally {
    pool.close();
  }
});

test('scans from several callers at once each get their own answer', async () => {
  const jobs = Array.from({ length: 10 }, (_, i) => workers.runner({ pattern: `n${i}$`, options, bytes: enc.encode(Array.from({ length: 10 }, (_, k) => `n${k}`).join('\n')), lineEnds: false, timeLimitMs: 5000 }));
  const answers = await Promise.all(jobs);
  answers.forEach((r, i) => expect([...r.hits]).toEqual([i + 1]));
});

test('batches searched ahead together run on Workers of their own, one a core at most', async () => {
  const pool = grepWorkers();
  try {
    const job = { pattern: 'x', options, items: [{ bytes: enc.encode('a\nx\n') }], itemMs: 5000, stallMs: 5000 };
    const parallel = pool.prescanner.parallel;
    const answers = await Promise.all(Array.from({ length: parallel + 2 }, () => pool.prescanner.run({ ...job, items: [{ bytes: enc.encode('a\nx\n') }] })));
    for (const a of answers) expect(a?.verdicts.length).toBe(1);
    // Started together, each took a Worker of its own (none were handed the one Worker
    // made first), and no more than one a core (on two cores or fewer, one Worker holding two).
    expect(pool.size()).toBe(prescanParallel(navigator.hardwareConcurrency));
  } finally {
    pool.close();
  }
});

test("a batch of blobs is read in the Worker from the store's file: each hash answered, one the file lacks left to the caller, a file it can't open failing the batch", async () => {
  const { openStore } = await import('../src/store/open-store.ts');
  const { tempDir } = await import('./fixtures.ts');
  const { join } = await import('node:path');
  const dir = tempDir('ws-blob-file-');
  const store = await openStore(join(dir, 'store.sqlite'));
  try {
    const texts = ['a\nx\n', 'nothing here\n'.repeat(500), 'no\nmatch\n', `${'y'.repeat(3000)}\nx\n`];
    const hashes = texts.map((t) => new Bun.CryptoHasher('sha256').update(t).digest('hex'));
    texts.forEach((t, k) => store.putBlob(hashes[k], enc.encode(t)));
    store.barrier();
    // One more, written but not yet committed: only this connection sees it.
    const unwritten = new Bun.CryptoHasher('sha256').update('x\n').digest('hex');
    store.putBlob(unwritten, enc.encode('x\n'));
    const file = store.packedBlobFile();
    expect(file).toBe(join(dir, 'store.sqlite'));
    const missing = 'f'.repeat(64);
    const job = (f: string) => ({ pattern: 'x', options, items: [], itemMs: 5000, stallMs: 5000, blobs: { file: f, hashes: [hashes[0], missing, hashes[1], unwritten, hashes[2], hashes[3]] } });
    const answer = await workers.prescanner.blobs(job(file as string));
    const shown = answer?.verdicts.map((v) => (v === null || v === 'none' || 'counted' in v ? v : new TextDecoder().decode(v)));
    expect(shown).toEqual([texts[0], null, 'none', null, 'none', texts[3]]);
    // The scan made there answers the search's job for those very bytes.
    const bytes = answer?.verdicts[5] as Uint8Array;
    // Unpacked into the Worker's one buffer, it came back as bytes of its own.
    expect(bytes.buffer.byteLength).toBe(bytes.length);
    const r = await workers.runner({ pattern: 'x', options, bytes, lineEnds: false, timeLimitMs: 5000 });
    expect([...r.hits]).toEqual([2]);
    expect(await workers.prescanner.blobs(job(join(dir, 'no-such-store.sqlite')))).toBeUndefined();
    // By row id where the caller knows it: the same answers, whether an id is right, another
    // blob's (read by hash after all), one no row has, or not given.
    const { Database } = await import('bun:sqlite');
    const look = new Database(file as string, { readonly: true });
    const idOf = new Map((look.query('SELECT hash, id FROM blob').values() as [string, number][]).map(([h, id]) => [h, id]));
    look.close();
    const order = [hashes[0], missing, hashes[1], unwritten, hashes[2], hashes[3]];
    for (const ids of [
      order.map((h) => idOf.get(h) ?? null),
      order.map((h, k) => (k === 0 ? (idOf.get(hashes[3]) as number) : k === 5 ? (idOf.get(hashes[0]) as number) : k === 2 ? 999_999 : (idOf.get(h) ?? 999_999))),
      order.map(() => null),
    ]) {
      const byId = await workers.prescanner.blobs({ ...job(file as string), blobs: { file: file as string, hashes: order, ids } });
      expect(byId?.verdicts.map((v) => (v === null || v === 'none' || 'counted' in v ? v : new TextDecoder().decode(v)))).toEqual(shown as (string | null)[]);
    }
  } finally {
    store.close();
  }
});

test("a Worker keeps the store's file open from one batch of blobs to the next: it sees blobs committed since, and lets the file go when told, after a failed read, when idle, and when its pool closes", async () => {
  const { openStore } = await import('../src/store/open-store.ts');
  const { IDLE_MS } = await import('../src/grep/blob-file.ts');
  const { Database } = await import('bun:sqlite');
  const { tempDir } = await import('./fixtures.ts');
  const { join } = await import('node:path');
  const dir = tempDir('ws-blob-keep-');
  const store = await openStore(join(dir, 'store.sqlite'));
  const hash = (t: string) => new Bun.CryptoHasher('sha256').update(t).digest('hex');
  const job = (file: string, texts: string[]) => ({ pattern: 'x', options, items: [], itemMs: 5000, stallMs: 5000, blobs: { file, hashes: texts.map(hash) } });
  const shown = (a: Awaited<ReturnType<typeof workers.prescanner.blobs>>) => a?.verdicts.map((v) => (v === null || v === 'none' || 'counted' in v ? v : new TextDecoder().decode(v)));
  const kept = async () => (await workers.keepConnections()).some((k) => k !== null);
  try {
    const file = store.packedBlobFile() as string;
    store.putBlob(hash('a x\n'), enc.encode('a x\n'));
    store.barrier();
    expect(shown(await workers.prescanner.blobs(job(file, ['a x\n'])))).toEqual(['a x\n']);
    expect(await kept()).toBe(true);
    // A one-shot's pool reads the file as usual; a long-running host's maps it.
    expect((await workers.keepConnections()).filter((k) => k !== null)).toEqual([0]);
    const serving = grepWorkers({ longRunning: true });
    try {
      expect(shown(await serving.prescanner.blobs(job(file, ['a x\n'])))).toEqual(['a x\n']);
      expect((await serving.keepConnections()).filter((k) => k !== null)).toEqual([256 << 20]);
      // A long-running host's search that ends leaves it kept, mapped, for the next search.
      await serving.prescanner.release();
      expect((await serving.keepConnections()).filter((k) => k !== null)).toEqual([256 << 20]);
      expect(shown(await serving.prescanner.blobs(job(file, ['a x\n'])))).toEqual(['a x\n']);
    } finally {
      // Closed with the connection kept: the pool waits for its Workers to let it go (the WAL check below).
      serving.close();
    }
    // Committed after the kept connection first read: the next batch sees it.
    const later = `${'b x\n'.repeat(2000)}`;
    store.putBlob(hash(later), enc.encode(later));
    store.barrier();
    expect(shown(await workers.prescanner.blobs(job(file, [later, 'a x\n'])))).toEqual([later, 'a x\n']);
    await workers.prescanner.release();
    expect(await kept()).toBe(false);
    // A file that is SQLite but holds no blobs: the batch fails, and nothing is kept.
    const other = join(dir, 'other.sqlite');
    new Database(other).close();
    expect(await workers.prescanner.blobs(job(other, ['a x\n']))).toBeUndefined();
    expect(await kept()).toBe(false);
    // Read and never told: let go after IDLE_MS.
    expect(shown(await workers.prescanner.blobs(job(file, ['a x\n'])))).toEqual(['a x\n']);
    expect(await kept()).toBe(true);
    await Bun.sleep(IDLE_MS + 500);
    expect(await kept()).toBe(false);
  } finally {
    store.close();
  }
  // Nothing was left open: the store closed last, and its WAL files went with it.
  const { existsSync } = await import('node:fs');
  expect(existsSync(join(dir, 'store.sqlite-wal'))).toBe(false);
});

test("a long-running host's Workers keep the store's file from one search to the next, and a pool that closes waits for them to let it go: the store closed next takes its WAL files with it", async () => {
  const { openStore } = await import('../src/store/open-store.ts');
  const { tempDir } = await import('./fixtures.ts');
  const { join } = await import('node:path');
  const { existsSync } = await import('node:fs');
  for (let round = 0; round < 5; round++) {
    const dir = tempDir('ws-blob-close-');
    const store = await openStore(join(dir, 'store.sqlite'));
    const serving = grepWorkers({ longRunning: true });
    try {
      const hash = new Bun.CryptoHasher('sha256').update('a x\n').digest('hex');
      store.putBlob(hash, enc.encode('a x\n'));
      store.barrier();
      const job = { pattern: 'x', options, items: [], itemMs: 5000, stallMs: 5000, blobs: { file: store.packedBlobFile() as string, hashes: [hash] } };
      for (let search = 0; search < 2; search++) {
        expect((await serving.prescanner.blobs(job))?.verdicts.length).toBe(1);
        await serving.prescanner.release();
        expect((await serving.keepConnections()).some((k) => k !== null)).toBe(true);
      }
    } finally {
      serving.close();
      store.close();
    }
    expect(existsSync(join(dir, 'store.sqlite-wal'))).toBe(false);
    expect(existsSync(join(dir, 'store.sqlite-shm'))).toBe(false);
  }
});
