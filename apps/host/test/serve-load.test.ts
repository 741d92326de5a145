/**
 * 20,000 `initialize` requests against a real `ws serve` on 127.0.0.1: its RSS (read
 * from /proc) stays flat, because no more than `maxSessions` sessions live and the
 * rest are closed — an old session is answered 404. The server keeps the pages its
 * allocator frees (src/bin/start-again.ts), so its RSS rises to the first burst's
 * high-water mark and stays there: flat is measured over the last 10,000, where a leak of
 * a few KB a session would show. The loop is bounded in count; it talks to loopback only.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { makeWorkspace, startServe } from './ws-process.ts';

setDefaultTimeout(120_000);

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'load', version: '1' } } });
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
const MEASURED = 20_000;
const IN_FLIGHT = 8;

/** The resident set of a process, in MB (10^6 bytes), from /proc/PID/status. */
function rssMB(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!kb) throw new Error(`no VmRSS for ${pid}`);
  return (Number(kb[1]) * 1024) / 1e6;
}

describe('ws serve under many sessions', () => {
  test('20,000 initializes: RSS flat over the last 10,000 and less than 100 MB above idle, and old sessions are answered 404', async () => {
    const w = makeWorkspace([{ name: 'work', backend: 'direct', files: { 'a.txt': 'a\n' } }]);
    const serving = await startServe(w.config, w.dir);
    try {
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${serving.token}` };
      // The server as a client first finds it: started, listening, no request yet.
      const idle = rssMB(serving.pid);
      /** `n` initializes, `IN_FLIGHT` at a time; the session ids in the order they came back, and RSS every 1,000. */
      async function initializes(n: number): Promise<{ ids: string[]; samples: number[] }> {
        const ids: string[] = [];
        const samples: number[] = [];
        let started = 0;
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (started < n) {
              started++;
              const r = await fetch(serving.url, { method: 'POST', headers, body: INIT });
              await r.text();
              if (r.status !== 200) throw new Error(`initialize answered ${r.status}`);
              ids.push(r.headers.get('mcp-session-id')!);
              if (ids.length % 1000 === 0) samples.push(rssMB(serving.pid));
            }
          }),
        );
        return { ids, samples };
      }
      const list = async (id: string) => {
        const r = await fetch(serving.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, body: LIST });
        await r.text();
        return r.status;
      };

      const run = await initializes(MEASURED);
      const after = rssMB(serving.pid);
      const peak = Math.max(...run.samples, after);
      console.log(
        `ws serve RSS: ${idle.toFixed(1)} MB idle; over ${MEASURED} initializes, sampled every 1,000: ` +
          `${run.samples.map((m) => m.toFixed(0)).join(' ')} MB; ${after.toFixed(1)} MB after (peak growth ${(peak - idle).toFixed(1)} MB)`,
      );
      expect(run.ids).toHaveLength(MEASURED);
      expect(new Set(run.ids).size).toBe(MEASURED);
      expect(peak - idle).toBeLessThan(100);
      // From the 10,000th on: less than 15 MB more, 1.5 KB a session.
      const half = run.samples.slice(9);
      expect(Math.max(...half, after) - (half[0] as number)).toBeLessThan(15);

      // The first sessions were closed long ago; the last ones still answer.
      for (const id of [run.ids[0], run.ids[1000], run.ids[MEASURED / 2]]) expect(await list(id)).toBe(404);
      expect(await list(run.ids[MEASURED - 1])).toBe(200);
    } finally {
      await serving.stop();
    }
  });
});
