/**
 * `ws mcp` killed with SIGKILL in the middle of calls, then started again: no draft an
 * agent was told was stored is lost, and nothing half-written appears (`@ws/reconcile` README, "Crash safety", as the
 * store's crash test proves for the host alone; here through the protocol).
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, readFileSync, watch } from 'node:fs';
import { freshDatabase } from './pg-fixtures.ts';
import { type SharedStore, connectStdio, makeWorkspace, mcpCall } from './ws-process.ts';

/** Each store engine: the SQLite file, and a PostgreSQL database. */
const ENGINES: { name: string; store: () => Promise<string | SharedStore> }[] = [
  { name: 'SQLite', store: async () => '.ws/store.sqlite' },
  { name: 'PostgreSQL', store: async () => ({ url: await freshDatabase() }) },
];

// Each test starts real `ws` processes, which takes seconds on a busy machine; as the package's test script allows, even when a file is run alone.
setDefaultTimeout(120_000);

const content = (i: number) => `draft ${i}\r\n${'text '.repeat(i % 50)}\r\n`;
const name = (i: number) => `f${String(i).padStart(3, '0')}.txt`;

/** Waits until the process is gone (a SIGKILL'd child is reaped by the transport). */
async function gone(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await Bun.sleep(10);
  }
}

for (const engine of ENGINES) describe(`ws mcp killed mid-call loses no draft (${engine.name} store)`, () => {
  test('writes in flight when it is killed: every answered write is kept, and the rest are whole or absent', async () => {
    const w = makeWorkspace([{ name: 'work', backend: 'store' }], await engine.store());
    const first = await connectStdio(w.config, w.dir);
    const answered = new Set<number>();
    // Many more writes than can finish between the first answer and the kill, even on a busy machine.
    const N = 600;
    let killed = false;
    const calls = Array.from({ length: N }, (_, i) =>
      first.client.callTool({ name: 'write', arguments: { path: `work/${name(i)}`, content: content(i) } }).then(
        (answer) => {
          if (answer.isError !== true) answered.add(i);
          if (!killed) {
            killed = true;
            process.kill(first.pid, 'SIGKILL');
          }
        },
        () => {},
      ),
    );
    await Promise.all(calls.map((c) => Promise.race([c, gone(first.pid)])));
    await gone(first.pid);
    expect(answered.size).toBeGreaterThan(0);
    expect(answered.size).toBeLessThan(N);

    const second = await connectStdio(w.config, w.dir);
    try {
      const drafts = (await mcpCall(second.client, 'status', { mount: 'work' })).data.mounts[0].drafts as string[];
      const kept = new Set(drafts);
      for (const i of answered) expect(kept.has(`work/${name(i)}`)).toBe(true);
      for (const path of drafts) {
        // Each as the tools take it: read straight from the report.
        const i = Number(path.slice('work/f'.length, 'work/f'.length + 3));
        expect(path).toBe(`work/${name(i)}`);
        const read = await mcpCall(second.client, 'read', { path, offsetChars: 0, limitChars: 10_000 });
        expect(read.data?.content).toBe(content(i));
      }
    } finally {
      await second.close();
      await first.close().catch(() => {});
    }
  });

  test('a materialize killed part way: after a restart every draft reads back and materializes exactly', async () => {
    const N = 400;
    const w = makeWorkspace([{ name: 'work', backend: 'store' }], await engine.store());
    const first = await connectStdio(w.config, w.dir);
    for (let i = 0; i < N; i++) {
      expect((await mcpCall(first.client, 'write', { path: `work/${name(i)}`, content: content(i) })).isError).toBe(false);
    }

    // Kill the moment the first file reaches disk.
    const seen = new Promise<void>((done) => {
      const watcher = watch(w.disk('work'), (_event, file) => {
        if (typeof file === 'string' && /^f\d{3}\.txt$/.test(file)) {
          watcher.close();
          done();
        }
      });
    });
    const pushing = first.client.callTool({ name: 'materialize', arguments: { mount: 'work' } }).catch(() => 'cut off');
    await seen;
    process.kill(first.pid, 'SIGKILL');
    expect(await pushing).toBe('cut off');
    await gone(first.pid);
    const onDisk = Array.from({ length: N }, (_, i) => i).filter((i) => existsSync(w.disk(`work/${name(i)}`)));
    expect(onDisk.length).toBeLessThan(N);
    // What reached disk is whole: an atomic write is all there or not there.
    for (const i of onDisk) expect(readFileSync(w.disk(`work/${name(i)}`), 'utf8')).toBe(content(i));

    const second = await connectStdio(w.config, w.dir);
    try {
      for (let i = 0; i < N; i++) {
        const read = await mcpCall(second.client, 'read', { path: `work/${name(i)}`, offsetChars: 0, limitChars: 10_000 });
        expect(read.data?.content).toBe(content(i));
      }
      // An interrupted write may stand as a conflict until forced; either way it lands exactly.
      expect((await mcpCall(second.client, 'materialize', { mount: 'work', force: true })).isError).toBe(false);
      for (let i = 0; i < N; i++) expect(readFileSync(w.disk(`work/${name(i)}`), 'utf8')).toBe(content(i));
      const status = await mcpCall(second.client, 'status', { mount: 'work' });
      expect(status.data.mounts[0]).toMatchObject({ drafts: [], conflicts: [] });
    } finally {
      await second.close();
      await first.close().catch(() => {});
    }
  });
});
