/**
 * The tool calls a long-running host has in flight: a stopping server lets them finish
 * before it closes the store, and the background indexer waits while any is running
 * (`index/indexer.ts`), so it works only while the host is idle.
 */
/** Calls in flight: counted from their start until they settle. */
export class CallTracker {
  private readonly running = new Set<Promise<unknown>>();

  /** Counts `call` in flight until it settles. */
  track<T>(call: Promise<T>): Promise<T> {
    this.running.add(call);
    const done = () => this.running.delete(call);
    call.then(done, done);
    return call;
  }

  /** How many calls are in flight. */
  get size(): number {
    return this.running.size;
  }

  /** Resolves when every call in flight has settled, or after `maxMs`; true when they all settled. */
  async settled(maxMs: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((done) => {
      timer = setTimeout(() => done(false), maxMs);
    });
    const all = (async () => {
      while (this.running.size > 0) await Promise.allSettled([...this.running]);
      return true as const;
    })();
    try {
      return await Promise.race([all, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
