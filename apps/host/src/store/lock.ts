/**
 * One process at a time acts on a store: `@ws/reconcile` decides from what it just read,
 * so two processes deciding on the same paths at once could each act on stale records.
 * The one rule: every operation that reads and then writes the store (a pass, a push, a
 * draft) holds this lock from its first read to its last barrier — briefly, so `ws call`
 * beside a running `ws mcp` waits milliseconds, not forever. The file is kept
 * for a moment after an operation so a burst of them pays for it once.
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';

/** How long the lock file is kept after the last operation, for the next one. */
export const IDLE_RELEASE_MS = 25;

/** A lock that could not be taken in time; its message is the sentence to show. */
export class LockTimeout extends Error {
  override readonly name = 'LockTimeout';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/** A cross-process lock (a lock file beside the store) with an in-process queue in front. */
export class StoreLock {
  private readonly file: string;
  private tail: Promise<void> = Promise.resolve();
  private held = false;
  /** Operations waiting or running in this process. */
  private active = 0;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(storePath: string) {
    this.file = `${storePath}.lock`;
  }

  /** Runs `fn` holding the lock; operations in this process run one after another. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.active++;
    this.cancelIdleRelease();
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => {
      release = r;
    });
    await previous;
    try {
      if (!this.held) await this.acquire();
      return await fn();
    } finally {
      this.active--;
      // Keep the lock file a moment: a burst of operations (a read after a read) pays for it once.
      if (this.active === 0) this.releaseWhenIdle();
      release();
    }
  }

  /** Releases the lock file now (the host is closing). */
  close(): void {
    this.cancelIdleRelease();
    this.releaseFile();
  }

  private cancelIdleRelease(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private releaseWhenIdle(): void {
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.active === 0) this.releaseFile();
    }, IDLE_RELEASE_MS);
    this.idleTimer.unref?.();
  }

  private async acquire(timeoutMs = 30_000): Promise<void> {
    const start = Date.now();
    let wait = 1;
    for (;;) {
      try {
        const fd = openSync(this.file, 'wx');
        writeSync(fd, String(process.pid));
        closeSync(fd);
        this.held = true;
        return;
      } catch (err) {
        if ((err as { code?: string }).code !== 'EEXIST') throw err;
      }
      // A lock left by a process that no longer runs (killed mid-operation) is stale.
      let owner = Number.NaN;
      try {
        owner = Number(readFileSync(this.file, 'utf8'));
      } catch {
        continue; // released between our open and read: try again at once
      }
      const ownerGone = Number.isInteger(owner) && owner > 0 && owner !== process.pid && !alive(owner);
      // No pid at all: its writer died between creating the file and writing its pid.
      if (ownerGone || (!(owner > 0) && this.olderThan(5_000))) {
        rmSync(this.file, { force: true });
        continue;
      }
      if (Date.now() - start > timeoutMs) {
        throw new LockTimeout(
          `The store is busy: process ${owner} has held ${this.file} for over ${timeoutMs / 1000} s. Try again, or stop that process.`,
        );
      }
      await Bun.sleep(wait);
      wait = Math.min(wait * 2, 50);
    }
  }

  private olderThan(ms: number): boolean {
    try {
      return Date.now() - statSync(this.file).mtimeMs > ms;
    } catch {
      return false;
    }
  }

  private releaseFile(): void {
    if (!this.held) return;
    this.held = false;
    rmSync(this.file, { force: true });
  }
}
