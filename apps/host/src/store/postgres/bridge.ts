/**
 * A synchronous PostgreSQL connection: the main thread posts one statement to the
 * connection's Worker (`worker.ts`) and blocks (`Atomics.wait`) until the answer is
 * there, so the store port stays synchronous — a pass settles its records without
 * yielding, as on SQLite. The one rule: the main thread never waits for ever — a
 * statement unanswered after {@link ANSWER_TIMEOUT_MS} ends the Worker (and with it
 * the connection and its session's locks) and answers that the store can't be reached.
 */
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { workerUrl } from '../../worker-file.ts';

/** One statement and its parameters. */
export interface Statement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/** What the main thread asks the Worker. */
export type Request =
  | {
      readonly id: number;
      readonly op: 'query';
      readonly text: string;
      readonly params: readonly unknown[];
      readonly epoch?: number;
      /**
       * Statements run just before this one on the same connection, in order, in the same
       * message (a transaction's BEGIN; writes whose answer nobody reads). The reply is the
       * first failure among them all, or this statement's rows.
       */
      readonly before?: readonly Statement[];
    }
  | { readonly id: number; readonly op: 'close' };

/** What the Worker answers; `epoch` counts the connections it has made (a new one holds no session locks). */
export type Reply =
  | { readonly id: number; readonly ok: true; readonly rows: Record<string, unknown>[]; readonly epoch: number }
  | { readonly id: number; readonly ok: false; readonly message: string; readonly state?: string; readonly lost: boolean; readonly epoch: number };

/** The longest one statement may take before the connection is given up. */
export const ANSWER_TIMEOUT_MS = 60_000;

// The built bin takes the Worker as another entry and names its file as it lies beside
// the bundles (see `scripts/build-bin.ts`); the sources name it here.
declare const WS_PG_WORKER: string | undefined;
const WORKER = typeof WS_PG_WORKER === 'string' ? WS_PG_WORKER : './worker.ts';

/** One connection to a PostgreSQL database, used synchronously. */
export class SyncConnection {
  private worker: Worker | undefined;
  private port: MessagePort | undefined;
  private flag = new Int32Array(new SharedArrayBuffer(4));
  private nextId = 1;
  /** Bumped when a Worker is ended: its connections' epochs no longer count. */
  private generation = 0;
  /** Messages sent, over the life of the connection: each is one wait for the Worker and the server, however many statements it carries. */
  sent = 0;

  constructor(private readonly url: string) {}

  /**
   * Runs one statement (or, without parameters, several separated by `;`). `session`
   * (from {@link session}): the statement runs only on that session — where the
   * connection was lost since, it answers so without running (it would otherwise run
   * outside the transaction, or without the lock, the session held). `before`: statements
   * run first, in the same message (see {@link Request}).
   */
  query(text: string, params: readonly unknown[] = [], session?: string, before?: readonly Statement[]): Reply {
    const id = this.nextId++;
    const ahead = before === undefined || before.length === 0 ? {} : { before };
    if (session === undefined) return this.send({ id, op: 'query', text, params, ...ahead });
    const [generation, epoch] = session.split('.').map(Number);
    if (generation !== this.generation || this.worker === undefined) return { id, ok: false, message: 'the connection was lost', lost: true, epoch: -1 };
    return this.send({ id, op: 'query', text, params, epoch, ...ahead });
  }

  /** Which session answered last: two replies of one epoch came over one session. */
  session(reply: Reply): string {
    return `${this.generation}.${reply.epoch}`;
  }

  close(): void {
    if (this.worker === undefined) return;
    try {
      this.send({ id: this.nextId++, op: 'close' });
    } finally {
      this.end();
    }
  }

  private start(): { readonly port: MessagePort } {
    if (this.worker !== undefined && this.port !== undefined) return { port: this.port };
    const { port1, port2 } = new MessageChannel();
    this.flag = new Int32Array(new SharedArrayBuffer(4));
    this.worker = new Worker(workerUrl(WORKER, import.meta.url), {
      workerData: { url: this.url, signal: this.flag.buffer, port: port2 },
      transferList: [port2],
    });
    // The Worker holds nothing a process must wait for: it ends with the process.
    this.worker.unref();
    this.port = port1;
    return { port: port1 };
  }

  private end(): void {
    this.generation++;
    this.port?.close();
    void this.worker?.terminate();
    this.worker = undefined;
    this.port = undefined;
  }

  private send(req: Request): Reply {
    const { port } = this.start();
    this.sent++;
    Atomics.store(this.flag, 0, 0);
    port.postMessage(req);
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) {
        this.end();
        return { id: req.id, ok: false, message: `no answer within ${ANSWER_TIMEOUT_MS / 1000} s`, lost: true, epoch: -1 };
      }
      const m = receiveMessageOnPort(port);
      if (m !== undefined) {
        const reply = m.message as Reply;
        if (reply.id === req.id) return reply;
        continue; // an answer to a statement given up on: dropped
      }
      // Flag still 0: no answer yet, so sleep on it; else the answer is on its way through the port.
      if (Atomics.load(this.flag, 0) === 0) Atomics.wait(this.flag, 0, 0, Math.min(left, 1000));
    }
  }
}
