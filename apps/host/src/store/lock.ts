/**
 * One process at a time acts on a store: `@ws/reconcile` decides from what it just read,
 * so two processes deciding on the same paths at once could each act on stale records.
 * The one rule: every operation that reads and then writes the store (a pass, a push, a
 * draft, opening or migrating the store) runs inside {@link Lock.run}, holding the lock
 * from its first read to its last barrier.
 *
 * The store lock is `flock(2)` on `STORE.lock` beside the store (see `disk/lock-file.ts`):
 * the kernel drops it when its holder dies, so nothing is ever taken over. It is fair: a
 * process waiting for it holds `STORE.lock-wait` shared while it polls, and a holder
 * checks that file after each operation — when someone waits, it lets go and stays out
 * until the waiters have had their turn. Between bursts it keeps the lock 25 ms
 * ({@link IDLE_RELEASE_MS}), so a read after a read pays for it once.
 */
import { type LockFile, openLockFile } from '../disk/lock-file.ts';
import { StoreError } from './faults.ts';

/** Whatever keeps one operation at a time on a store, across processes. */
export interface Lock {
  /** Runs `op` holding the lock; operations of one process run one after another. */
  run<T>(op: () => Promise<T>): Promise<T>;
  /** Lets go of the lock (the host is closing). */
  close(): void;
}

/** How long the lock is kept after the last operation, for the next one. */
export const IDLE_RELEASE_MS = 25;

/** How long an operation waits for the lock before it answers that the store is busy. */
export const LOCK_TIMEOUT_MS = 30_000;

/** The lock files beside a store at `storePath` (both in `STORE_FILE_SUFFIXES`): the lock, and the waiters' announcement. */
export function lockPaths(storePath: string): { readonly lock: string; readonly waiting: string } {
  return { lock: `${storePath}.lock`, waiting: `${storePath}.lock-wait` };
}

/** A lock that could not be taken in time; its message is the sentence to show. */
export class LockTimeout extends Error {
  override readonly name = 'LockTimeout';
}

/** How long a holder that let go stays out, at most, while waiters take their turn. */
const YIELD_MAX_MS = 2_000;
/** The longest pause between two attempts to take the lock. */
const POLL_MAX_MS = 8;

/** The store's lock: `flock` on a file beside the store, with an in-process queue in front. */
export class StoreLock implements Lock {
  private readonly paths: { readonly lock: string; readonly waiting: string };
  private readonly timeoutMs: number;
  private files: { readonly lock: LockFile; readonly waiting: LockFile } | undefined;
  private tail: Promise<void> = Promise.resolve();
  private held = false;
  /** Set when this process let go for a waiter: the next acquire waits for the waiters first. */
  private yielded = false;
  /** Operations waiting or running in this process. */
  private active = 0;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(storePath: string, options: { readonly timeoutMs?: number } = {}) {
    this.paths = lockPaths(storePath);
    this.timeoutMs = options.timeoutMs ?? LOCK_TIMEOUT_MS;
  }

  async run<T>(op: () => Promise<T>): Promise<T> {
    this.active++;
    this.cancelIdleRelease();
    const previous = this.tail;
    let release = () => {};
    this.tail = new Promise<void>((r) => {
      release = r;
    });
    await previous;
    try {
      if (!this.held) await this.acquire();
      return await op();
    } finally {
      this.active--;
      if (this.held && this.someoneWaits()) {
        this.releaseLock();
        this.yielded = true;
      } else if (this.active === 0) {
        this.releaseWhenIdle();
      }
      release();
    }
  }

  close(): void {
    this.cancelIdleRelease();
    this.releaseLock();
    this.files?.lock.close();
    this.files?.waiting.close();
    this.files = undefined;
  }

  private open(): { readonly lock: LockFile; readonly waiting: LockFile } {
    if (this.files !== undefined) return this.files;
    let lock: LockFile | undefined;
    try {
      lock = openLockFile(this.paths.lock);
      this.files = { lock, waiting: openLockFile(this.paths.waiting) };
      return this.files;
    } catch (err) {
      lock?.close();
      const why = (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 200);
      throw new StoreError(`The store lock ${this.paths.lock} could not be opened (${why}); ws needs to make and lock files beside the store.`);
    }
  }

  /** True when another lock holds the waiters' file (shared): someone is waiting for the store. */
  private someoneWaits(): boolean {
    const waiting = this.open().waiting;
    if (!waiting.tryExclusive()) return true;
    waiting.unlock();
    return false;
  }

  private async acquire(): Promise<void> {
    const { lock, waiting } = this.open();
    const deadline = Date.now() + this.timeoutMs;
    if (this.yielded) {
      // Stay out while someone still waits (they drop the announcement once they hold the lock).
      const until = Math.min(deadline, Date.now() + YIELD_MAX_MS);
      while (this.someoneWaits() && Date.now() < until) await Bun.sleep(1);
      this.yielded = false;
    }
    let announced = false;
    let pause = 1;
    try {
      for (;;) {
        if (lock.tryExclusive()) {
          this.held = true;
          return;
        }
        if (!announced) announced = waiting.tryShared();
        if (Date.now() > deadline) {
          throw new LockTimeout(
            `The store is busy: another ws process has held ${this.paths.lock} for over ${this.timeoutMs / 1000} s. Try again in a moment, or stop that process.`,
          );
        }
        await Bun.sleep(pause);
        pause = Math.min(pause * 2, POLL_MAX_MS);
      }
    } finally {
      if (announced) waiting.unlock();
    }
  }

  private cancelIdleRelease(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private releaseWhenIdle(): void {
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.active === 0) this.releaseLock();
    }, IDLE_RELEASE_MS);
    this.idleTimer.unref?.();
  }

  private releaseLock(): void {
    if (!this.held) return;
    this.held = false;
    this.files?.lock.unlock();
  }
}
