/**
 * The background indexer of a long-running host: it adds the blobs the store's search
 * index lacks, a short slice at a time under the store lock, whenever the host is idle —
 * no tool call in flight (`busy`) — so a call that arrives waits at most one slice, and a
 * call that is running (a grep reading blob after blob) is never slowed by the index. Until a blob is indexed
 * grep reads it (the store says which are not), so answers never wait on the index
 * either. At a quiet moment (the index current) it also collects unreferenced blobs now
 * and then. The one rule: it only ever calls `store.indexSome`, which adds a blob's row
 * and marks it in one transaction, and `store.collectBlobs`, one transaction too.
 */
import type { Lock } from '../store/lock.ts';
import type { Store } from '../store/store.ts';

/** How long one slice indexes for: the longest a tool call waits behind it. */
export const SLICE_MS = 15;
/**
 * How long the indexer waits after a slice that got no further (a write transaction was
 * open, so the store indexed nothing): trying again at once would only ask the store, over
 * and over, while the call that holds the transaction runs.
 */
export const BLOCKED_MS = 50;
/** How often the indexer looks again while tool calls are in flight. */
export const BUSY_MS = 50;
/** How often an idle indexer looks for blobs a sync added. */
export const IDLE_MS = 1_000;
/** How often an idle host collects unreferenced blobs, and how long one stays unreferenced before it goes. */
export const COLLECT_EVERY_MS = 10 * 60_000;
export const COLLECT_GRACE_MS = 60 * 60_000;

/** A running indexer. */
export interface Indexer {
  /** Resolves once no blob is left to index (for tests and the benchmark). */
  current(): Promise<void>;
  stop(): void;
}

function log(line: string): void {
  process.stderr.write(`ws: index: ${line}\n`);
}

/** Starts indexing `store` in the background. */
export function startIndexer(
  store: Store,
  lock: Lock,
  options: { readonly sliceMs?: number; readonly idleMs?: number; readonly busy?: () => boolean } = {},
): Indexer {
  const sliceMs = options.sliceMs ?? SLICE_MS;
  const idleMs = options.idleMs ?? IDLE_MS;
  const busy = options.busy ?? (() => false);
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let waiters: (() => void)[] = [];
  let failedOnce = false;
  let collectedAt = -Infinity;
  let leftBefore = Number.POSITIVE_INFINITY;

  const later = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    // An indexer alone does not keep the process alive.
    (timer as { unref?: () => void }).unref?.();
  };
  async function tick(): Promise<void> {
    timer = undefined;
    if (stopped) return;
    if (busy()) {
      later(BUSY_MS);
      return;
    }
    let left: number;
    try {
      left = await lock.run(async () => (stopped ? 0 : store.indexSome(sliceMs)));
    } catch (err) {
      // The index only speeds grep up: a failure is said once, and tried again later.
      if (!failedOnce) log(`indexing stopped for now (${err instanceof Error ? err.message : String(err)}); grep reads every file meanwhile.`);
      failedOnce = true;
      later(idleMs * 10);
      return;
    }
    if (left === 0 && performance.now() - collectedAt >= COLLECT_EVERY_MS) {
      collectedAt = performance.now();
      try {
        await lock.run(async () => (stopped ? undefined : store.collectBlobs(COLLECT_GRACE_MS)));
      } catch (err) {
        log(`collecting unreferenced blobs failed (${err instanceof Error ? err.message : String(err)}); it is tried again later.`);
      }
    }
    if (left === 0) {
      const done = waiters;
      waiters = [];
      for (const w of done) w();
      later(idleMs);
    } else {
      // A fresh macrotask: a tool call that arrived meanwhile takes the lock first. A slice
      // that got no further waits a little: the transaction in its way is some call's.
      later(left >= leftBefore ? BLOCKED_MS : 0);
    }
    leftBefore = left;
  }
  later(0);
  return {
    current() {
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
        if (timer !== undefined && !stopped) {
          clearTimeout(timer);
          later(0);
        }
      });
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      for (const w of waiters) w();
      waiters = [];
    },
  };
}
