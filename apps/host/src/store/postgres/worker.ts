/**
 * The PostgreSQL store's connection, in a Worker: it runs each statement the main thread
 * posts on one connection (Bun's built-in client) and answers through the port, then
 * wakes the main thread, which waits on a shared flag (see `bridge.ts`). The one rule: one
 * statement at a time, in order, on one connection — a transaction the main thread opened
 * is never split across two connections; a connection that failed is dropped, and the
 * next statement opens a new one (whose session holds no transaction and no lock).
 */
import { type MessagePort, workerData } from 'node:worker_threads';
import type { Reply, Request } from './bridge.ts';

const { url, signal, port } = workerData as { url: string; signal: SharedArrayBuffer; port: MessagePort };
const flag = new Int32Array(signal);

/** How long connecting may take, in seconds, before the statement answers that the store can't be reached. */
const CONNECT_TIMEOUT_S = 5;

let sql: InstanceType<typeof Bun.SQL> | undefined;
/** Counts connections made: the main thread learns from it that a session (and its locks) ended. */
let epoch = 0;

function connection(): InstanceType<typeof Bun.SQL> {
  if (sql === undefined) {
    const made: InstanceType<typeof Bun.SQL> = new Bun.SQL(url, {
      max: 1,
      connectionTimeout: CONNECT_TIMEOUT_S,
      idleTimeout: 0,
      // The session ended (the server restarted, say): its transaction and locks are gone with it.
      onclose: () => {
        if (sql === made) drop();
      },
    });
    sql = made;
    epoch++;
  }
  return sql;
}

/** Forgets the connection (it failed or closed): the next statement makes another. */
function drop(): void {
  const old = sql;
  sql = undefined;
  old?.close().catch(() => {});
}

/** A SQLSTATE (five characters) where the server answered one. */
function sqlState(err: unknown): string | undefined {
  const errno = (err as { errno?: unknown } | null)?.errno;
  return typeof errno === 'string' && /^[0-9A-Z]{5}$/.test(errno) ? errno : undefined;
}

async function answer(req: Request): Promise<Reply> {
  if (req.op === 'close') {
    drop();
    return { id: req.id, ok: true, rows: [], epoch };
  }
  // A statement of a session that ended (a transaction's, or the lock holder's) must not run on a new one.
  if (req.epoch !== undefined && (sql === undefined || req.epoch !== epoch)) {
    return { id: req.id, ok: false, message: 'the connection was lost', lost: true, epoch };
  }
  const db = connection();
  const at = epoch;
  try {
    // Handed to the client together, in order (one message from the main thread; the server
    // still answers each). The first failure is the answer: after it, the server refuses
    // the rest of a transaction's statements anyway.
    const issue = (st: { text: string; params: readonly unknown[] }) => (st.params.length === 0 ? db.unsafe(st.text) : db.unsafe(st.text, st.params as never[]));
    const settled = await Promise.allSettled([...(req.before ?? []).map(issue), issue(req)]);
    for (const s of settled) if (s.status === 'rejected') throw s.reason;
    const ran = settled[settled.length - 1] as PromiseFulfilledResult<unknown>;
    const rows = ran.value;
    return { id: req.id, ok: true, rows: [...(rows as Record<string, unknown>[])], epoch: at };
  } catch (err) {
    const state = sqlState(err);
    const code = String((err as { code?: unknown } | null)?.code ?? '');
    const message = (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 300);
    // No SQLSTATE: the client's own failure (refused, closed, timed out) — the session is gone.
    const lost = state === undefined ? code !== 'ERR_POSTGRES_SERVER_ERROR' || /connection/i.test(message) : /^(08|57P)/.test(state);
    if (lost) drop();
    return { id: req.id, ok: false, message, ...(state ? { state } : {}), lost, epoch: at };
  }
}

port.on('message', async (req: Request) => {
  const reply = await answer(req);
  port.postMessage(reply);
  Atomics.store(flag, 0, reply.id);
  Atomics.notify(flag, 0);
});
