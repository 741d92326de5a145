/**
 * One operation at a time per (host, mount roots) on a shared store: a session-level
 * advisory lock (`pg_try_advisory_lock`) on a key from the host id and its roots, held
 * for one operation, with an in-process queue in front. Hosts with other ids never wait on
 * each other — what keeps them from overwriting each other is the store's transactions
 * and compare-and-set (`pg-store.ts`). The lock is the session's: it goes when the
 * connection dies, as `flock` goes when a process dies. Between bursts it is kept 25 ms,
 * and it is fair as the SQLite store's is: a process waiting for it holds a second key
 * shared while it polls, and a holder that sees that (it looks at most every 10 ms) lets
 * go and stays out until the waiters have had their turn.
 *
 * The one rule: an operation that failed on a conflict (another host changed the same
 * records at the same moment) or a lost connection is run again, from its first read, on
 * what the store holds now — only while none of its barriers committed shared records
 * (then running it again could repeat a change); else it answers the failure's sentence.
 */
import { IDLE_RELEASE_MS, LOCK_TIMEOUT_MS, type Lock, LockTimeout } from '../lock.ts';
import { PgStoreError, pgWords } from './faults.ts';
import type { PgStore } from './pg-store.ts';

/** How many times one operation is tried, at most, when it keeps meeting another host's changes. */
export const MAX_ATTEMPTS = 8;
/** How many times, when the connection is lost: a database that is down answers within a second. */
export const MAX_RECONNECTS = 3;
/** The pause before another attempt after a lost connection (it doubles). */
const RECONNECT_PAUSE_MS = 200;
const POLL_MAX_MS = 8;
/** How often a holder looks for a waiting process of its host, at most. */
const WAIT_CHECK_MS = 10;
/** How long a holder that let go stays out, at most, while waiters take their turn. */
const YIELD_MAX_MS = 2_000;

/** The advisory lock's key (a signed 64-bit number, as text) for a host and its roots. */
export function lockKey(host: string, roots: readonly string[]): string {
  const digest = new Bun.CryptoHasher('sha256').update(`ws-host-lock\u0000${host}\u0000${[...roots].sort().join('\u0000')}`).digest();
  return new DataView(digest.buffer, digest.byteOffset, 8).getBigInt64(0).toString();
}

/** The lock of one host on a PostgreSQL store. */
export class PgLock implements Lock {
  private tail: Promise<void> = Promise.resolve();
  private readonly words: ReturnType<typeof pgWords>;
  private closed = false;
  /** The session holding the advisory lock between operations, for {@link IDLE_RELEASE_MS}. */
  private held: string | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Operations waiting or running in this process. */
  private active = 0;
  /** The key a waiting process holds shared while it polls: a holder that sees it lets go. */
  private readonly waitKey: string;
  /** Set when this process let go for a waiter: the next acquire waits for the waiters first. */
  private yielded = false;
  /** When a holder last looked for waiters (it looks at most every {@link WAIT_CHECK_MS}). */
  private checkedAt = 0;

  constructor(
    private readonly store: PgStore,
    private readonly key: string,
    private readonly options: { readonly timeoutMs?: number; readonly sleep?: (ms: number) => Promise<void> } = {},
  ) {
    this.words = pgWords(store.url);
    this.waitKey = (BigInt(key) ^ 1n).toString();
  }

  async run<T>(op: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release = () => {};
    this.tail = new Promise<void>((r) => {
      release = r;
    });
    this.active++;
    this.cancelIdleRelease();
    await previous;
    try {
      return await this.attempts(op);
    } finally {
      this.active--;
      if (this.held !== undefined && this.someoneWaits()) {
        this.releaseLock(this.held);
        this.held = undefined;
        this.yielded = true;
      } else if (this.active === 0) this.releaseWhenIdle();
      release();
    }
  }

  close(): void {
    this.cancelIdleRelease();
    if (this.held !== undefined) this.releaseLock(this.held);
    this.held = undefined;
    this.closed = true;
  }

  private cancelIdleRelease(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** Keeps the lock a moment after the last operation, so a burst pays for taking it once. */
  private releaseWhenIdle(): void {
    if (this.held === undefined) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.active === 0 && this.held !== undefined) {
        this.releaseLock(this.held);
        this.held = undefined;
      }
    }, IDLE_RELEASE_MS);
    this.idleTimer.unref?.();
  }

  private async attempts<T>(op: () => Promise<T>): Promise<T> {
    const sleep = this.options.sleep ?? Bun.sleep;
    let conflicts = 0;
    let lost = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        this.held ??= await this.acquire();
        this.store.beginHold(this.held);
        const out = await op();
        this.store.endHold();
        return out;
      } catch (err) {
        const again = this.store.abandonHold();
        // The session may be gone with its lock: let go (where it still holds) and take it afresh.
        if (this.held !== undefined) this.releaseLock(this.held);
        this.held = undefined;
        const kind = err instanceof PgStoreError ? err.kind : undefined;
        if (kind === 'conflict') conflicts++;
        if (kind === 'unreachable') lost++;
        const retry = again && ((kind === 'conflict' && attempt < MAX_ATTEMPTS) || (kind === 'unreachable' && lost < MAX_RECONNECTS));
        if (!retry) {
          if (kind === 'conflict' && conflicts > 1) throw new PgStoreError(this.words.conflict(conflicts), 'conflict');
          throw err;
        }
        // A conflict: at once, with a little jitter so two hosts don't meet again; a lost connection: a pause to reconnect.
        await sleep(kind === 'conflict' ? Math.random() * 5 * attempt : RECONNECT_PAUSE_MS * 2 ** (lost - 1));
      }
    }
  }

  /**
   * True when another process of this host waits for the lock (it holds the waiters' key
   * shared), looked at most every {@link WAIT_CHECK_MS}: one round trip, not one per operation.
   */
  private someoneWaits(): boolean {
    if (Date.now() - this.checkedAt < WAIT_CHECK_MS) return false;
    this.checkedAt = Date.now();
    try {
      const { rows } = this.store.lockStatement(
        'SELECT CASE WHEN pg_try_advisory_lock($1::bigint) THEN NOT pg_advisory_unlock($1::bigint) ELSE true END AS waits',
        [this.waitKey],
        this.held,
      );
      return rows[0]?.waits === true;
    } catch {
      return false; // the session is gone: the next operation finds out
    }
  }

  private async acquire(): Promise<string> {
    if (this.closed) throw new PgStoreError(`The store at ${this.store.path} is closed.`, 'other');
    const timeoutMs = this.options.timeoutMs ?? LOCK_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    if (this.yielded) {
      // Stay out while someone still waits (they let go of the waiters' key once they hold the lock).
      this.yielded = false;
      const until = Math.min(deadline, Date.now() + YIELD_MAX_MS);
      for (this.checkedAt = 0; Date.now() < until && this.waiting(); ) await Bun.sleep(2);
    }
    let pause = 1;
    let announced: string | undefined;
    try {
      for (;;) {
        const { rows, session } = this.store.lockStatement('SELECT pg_try_advisory_lock($1::bigint) AS got', [this.key]);
        if (rows[0]?.got === true) return session;
        if (announced === undefined) {
          const shared = this.store.lockStatement('SELECT pg_try_advisory_lock_shared($1::bigint) AS got', [this.waitKey], session);
          if (shared.rows[0]?.got === true) announced = session;
        }
        if (Date.now() > deadline) throw new LockTimeout(this.words.busy(timeoutMs / 1000, this.store.host));
        await Bun.sleep(pause);
        pause = Math.min(pause * 2, POLL_MAX_MS);
      }
    } finally {
      if (announced !== undefined) {
        try {
          this.store.lockStatement('SELECT pg_advisory_unlock_shared($1::bigint)', [this.waitKey], announced);
        } catch {
          // the session is gone, and its shared lock with it
        }
      }
    }
  }

  /** True when another process holds the waiters' key (outside any hold of ours). */
  private waiting(): boolean {
    try {
      const { rows } = this.store.lockStatement(
        'SELECT CASE WHEN pg_try_advisory_lock($1::bigint) THEN NOT pg_advisory_unlock($1::bigint) ELSE true END AS waits',
        [this.waitKey],
      );
      return rows[0]?.waits === true;
    } catch {
      return false;
    }
  }

  private releaseLock(session: string): void {
    try {
      this.store.lockStatement('SELECT pg_advisory_unlock($1::bigint)', [this.key], session);
    } catch {
      // The session is gone, and its lock with it.
    }
  }
}
