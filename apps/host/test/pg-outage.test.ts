/**
 * The database goes down in the middle of calls and comes back: `ws mcp` on a shared
 * store loses no draft it said was stored, every call made while the database was down
 * answers one sentence (it can't be reached; nothing was changed) and no call hangs, and
 * once the database is back the same process goes on without a restart.
 */
import { expect, setDefaultTimeout, test } from 'bun:test';
import { freshDatabase, startCluster } from './pg-fixtures.ts';
import { connectStdio, makeWorkspace, mcpCall } from './ws-process.ts';

setDefaultTimeout(240_000);

const text = (i: number) => `draft ${i}\n`;

test('stopping the database mid-call and starting it again loses no acknowledged draft; each call while it was down answers a sentence', async () => {
  const cluster = startCluster();
  const url = await freshDatabase(cluster.url);
  const w = makeWorkspace([{ name: 'work', backend: 'store' }], { url, host: 'outage-host' });
  const session = await connectStdio(w.config, w.dir);
  const acknowledged = new Set<number>();
  const refused: { i: number; down: boolean; error: string; ms: number }[] = [];
  let down = false;
  let next = 0;
  const IN_FLIGHT = 4;
  const write = async () => {
    const i = next++;
    const wasDown = down;
    const started = performance.now();
    const r = await mcpCall(session.client, 'write', { path: `work/f${i}.txt`, content: text(i) });
    if (r.isError) refused.push({ i, down: wasDown && down, error: r.text, ms: performance.now() - started });
    else acknowledged.add(i);
  };
  const burst = async (until: () => boolean) => {
    while (!until()) await Promise.all(Array.from({ length: IN_FLIGHT }, write));
  };
  try {
    // Up: calls go through. Then the server stops while calls are in flight.
    await burst(() => acknowledged.size >= 40);
    const stopping = (async () => {
      await Bun.sleep(5);
      cluster.stop();
      down = true;
    })();
    await Promise.all([burst(() => down), stopping]);
    // Down: a run of calls, each answering a sentence.
    const before = refused.length;
    await burst(() => refused.length >= before + 12);
    cluster.start();
    down = false;
    // Up again: the same process reconnects.
    const upAgain = acknowledged.size;
    await burst(() => acknowledged.size >= upAgain + 40);

    const whileDown = refused.filter((r) => r.down);
    const slowest = Math.round(Math.max(...refused.map((r) => r.ms)));
    console.log(`outage: ${acknowledged.size} writes acknowledged, ${refused.length} refused (${whileDown.length} while down, slowest ${slowest} ms): ${refused[0]?.error}`);
    expect(whileDown.length).toBeGreaterThanOrEqual(12);
    for (const r of refused) {
      expect(r.error).toMatch(/^The store at postgres:\/\/.+ can't be reached \(.+\); nothing was changed\./);
      expect(r.ms).toBeLessThan(30_000);
    }
    // Every acknowledged draft is there, byte for byte, after the restart.
    const status = await mcpCall(session.client, 'status', { mount: 'work' });
    const drafts = new Set(status.data.mounts[0].drafts as string[]);
    for (const i of acknowledged) {
      expect(drafts.has(`work/f${i}.txt`)).toBe(true);
      const read = await mcpCall(session.client, 'read', { path: `work/f${i}.txt`, offsetChars: 0, limitChars: 1000 });
      expect(read.data?.content).toBe(text(i));
    }
    // A refused write left nothing half-made: it is absent, or (where its commit's answer was lost with the server) whole.
    for (const r of refused) {
      if (!drafts.has(`work/f${r.i}.txt`)) continue;
      const read = await mcpCall(session.client, 'read', { path: `work/f${r.i}.txt`, offsetChars: 0, limitChars: 1000 });
      expect(read.data?.content).toBe(text(r.i));
    }
  } finally {
    await session.close().catch(() => {});
    cluster.stop();
  }
});
