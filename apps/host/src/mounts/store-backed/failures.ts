/**
 * How a verb's failure reaches a model or a person: one sentence, in the verb's own
 * failure shape. The one rule: no stack trace leaves here — the store's and the lock's
 * sentences pass through as they are, anything else is worded with what failed on which
 * path, and `WS_DEBUG=1` prints the trace on stderr.
 */
import type { StoreMountContext } from './context.ts';

/** What a verb was doing, for the sentence: `Reading` `work/a.txt`. */
export interface Doing {
  readonly verb: string;
  readonly path?: string;
}

/**
 * Runs one verb; a failure (a store fault, a busy lock, a disk that threw) becomes its
 * one sentence in the verb's own failure shape — no stack trace reaches a model or a
 * person (`WS_DEBUG=1` prints it on stderr).
 */
export async function guarded<T>(ctx: StoreMountContext, what: Doing, op: () => Promise<T>, failed: (message: string) => T): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (process.env.WS_DEBUG === '1') console.error(err);
    const why = err instanceof Error ? err.message : String(err);
    const ours = err instanceof Error && (err.name === 'StoreError' || err.name === 'LockTimeout');
    return failed(ours ? why : ctx.words.failed(what.verb, what.path, why));
  }
}
