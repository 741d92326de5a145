/**
 * The store lock across processes, on either engine: store creation under it (parallel
 * `ws call`s on a store that doesn't exist yet) and fairness (a `ws call` beside a busy
 * server gets in). The SQLite lock file itself: store-lock-file.test.ts.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { storeFiles } from '../src/store/files.ts';
import { TEST_ENGINE } from './engine.ts';
import { connectStdio, makeWorkspace, mcpCall, wsCall } from './ws-process.ts';

setDefaultTimeout(120_000);

describe('the store lock across processes', () => {
  for (const fresh of [true, false]) {
    test(`32 parallel ws call write on ${fresh ? 'a store that does not exist yet' : 'an existing store'} all succeed`, async () => {
      const w = makeWorkspace([{ name: 'work', backend: 'store', files: { 'seed.txt': 'seed\n' } }]);
      if (!fresh) expect((await wsCall(w.dir, 'read', { path: 'work/seed.txt' }, ['--config', w.config])).code).toBe(0);
      const calls = await Promise.all(
        Array.from({ length: 32 }, (_, i) => wsCall(w.dir, 'write', { path: `work/f${i}.txt`, content: `file ${i}\n` }, ['--config', w.config])),
      );
      const failed = calls.filter((c) => c.code !== 0 || !c.result.success).map((c) => JSON.stringify(c.result) + c.stderr);
      expect(failed).toEqual([]);
      const status = await wsCall(w.dir, 'status', {}, ['--config', w.config]);
      const drafts = status.result.success ? ((status.result.data.mounts as { drafts: string[] }[])[0].drafts ?? []) : [];
      expect(drafts.length).toBe(32);
      // Every file the store made beside itself is one of its own (walks and containment
      // pass over exactly these); a shared store makes none.
      const own = TEST_ENGINE === 'sqlite' ? storeFiles(join(w.dir, '.ws/store.sqlite')) : [];
      const made = existsSync(join(w.dir, '.ws')) ? readdirSync(join(w.dir, '.ws')).map((n) => join(w.dir, '.ws', n)) : [];
      expect(made.filter((p) => !own.includes(p))).toEqual([]);
    });
  }

  test('a ws call beside a server answering a steady stream of calls gets in within 2 s', async () => {
    const w = makeWorkspace([{ name: 'work', backend: 'store', files: { 'a.txt': 'one\n' } }]);
    const idleStart = performance.now();
    expect((await wsCall(w.dir, 'read', { path: 'work/a.txt' }, ['--config', w.config])).code).toBe(0);
    const idle = performance.now() - idleStart;

    const session = await connectStdio(w.config, w.dir);
    let streaming = true;
    let answered = 0;
    const stream = (async () => {
      for (let i = 0; streaming; i++) {
        const r = i % 2 === 0 ? await mcpCall(session.client, 'write', { path: `work/s${i % 10}.txt`, content: `call ${i}\n` }) : await mcpCall(session.client, 'read', { path: 'work/a.txt' });
        if (!r.isError) answered++;
      }
    })();
    await Bun.sleep(500); // the stream is running
    const before = answered;
    const start = performance.now();
    const beside = await wsCall(w.dir, 'read', { path: 'work/a.txt' }, ['--config', w.config]);
    const took = performance.now() - start;
    const during = answered - before;
    streaming = false;
    await stream;
    await session.close();
    console.log(`fairness: a ws call beside a busy server took ${Math.round(took)} ms (alone: ${Math.round(idle)} ms; the server answered ${during} calls meanwhile)`);
    expect(beside.code).toBe(0);
    expect(during).toBeGreaterThan(0);
    expect(took).toBeLessThan(5_000);
  });
});
