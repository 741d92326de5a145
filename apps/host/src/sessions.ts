/**
 * The HTTP server's live MCP sessions: each with the token that made it, when it was
 * last used, and how many of its answers are still being sent. The one rule: a session
 * answers only the token that made it, lives no longer than `idleMs` unused, and no more
 * than `max` live at once — the longest idle is closed first — so memory stays bounded
 * however many clients come and go.
 */
import { sameDigest } from './auth.ts';

/** How long an unused session lives, and how many live at once. */
export interface SessionLimits {
  readonly idleMs: number;
  readonly max: number;
}

/** One live session. */
export interface Session<T> {
  readonly id: string;
  /** The digest of the token that made it (empty where the server asks for none). */
  readonly owner: Buffer;
  readonly transport: T;
  lastUsed: number;
  /** Answers still streaming: a session is not idle while one of its calls runs. */
  busy: number;
}

/** Live sessions by id, least recently used first. */
export class SessionTable<T> {
  private readonly live = new Map<string, Session<T> & { readonly close: () => Promise<void> }>();

  constructor(
    private readonly limits: SessionLimits,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** How many sessions are live. */
  get size(): number {
    return this.live.size;
  }

  /** Adds a session made by `owner`; closes the longest idle others while there are too many. */
  add(id: string, owner: Buffer, transport: T, close: () => Promise<void>): void {
    this.live.set(id, { id, owner, transport, close, lastUsed: this.now(), busy: 0 });
    while (this.live.size > this.limits.max) {
      const oldest = this.longestIdle(id);
      if (oldest === undefined) break;
      this.end(oldest.id);
    }
  }

  /** The session `id` if `owner` made it; another token's session is as unknown as a closed one. */
  find(id: string, owner: Buffer): Session<T> | undefined {
    const s = this.live.get(id);
    return s !== undefined && sameDigest(s.owner, owner) ? s : undefined;
  }

  /** Marks a session used now, with one more answer in flight until `settled` is called. */
  begin(session: Session<T>): () => void {
    session.busy++;
    this.touch(session);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      session.busy--;
      this.touch(session);
    };
  }

  /** Marks a session used now. */
  touch(session: Session<T>): void {
    session.lastUsed = this.now();
    // Re-inserting keeps the map in order of last use, so the longest idle comes first.
    if (this.live.get(session.id) === session) {
      this.live.delete(session.id);
      this.live.set(session.id, session as Session<T> & { close: () => Promise<void> });
    }
  }

  /** Forgets a session that closed itself (a client's DELETE). */
  forget(id: string): void {
    this.live.delete(id);
  }

  /** Closes the session `id` (its requests are answered 404 from now on). */
  end(id: string): void {
    const s = this.live.get(id);
    if (s === undefined) return;
    this.live.delete(id);
    void s.close().catch(() => {});
  }

  /** Closes every session unused for longer than the idle limit and not answering a call; how many it closed. */
  sweep(): number {
    const cutoff = this.now() - this.limits.idleMs;
    let closed = 0;
    for (const s of [...this.live.values()]) {
      if (s.busy === 0 && s.lastUsed < cutoff) {
        this.end(s.id);
        closed++;
      }
    }
    return closed;
  }

  /** Closes every session whose token is no longer accepted. */
  keepOwners(accepted: readonly Buffer[]): void {
    for (const s of [...this.live.values()]) if (!accepted.some((a) => sameDigest(a, s.owner))) this.end(s.id);
  }

  /** Closes every session; resolves when they are closed. */
  async closeAll(): Promise<void> {
    const all = [...this.live.values()];
    this.live.clear();
    await Promise.allSettled(all.map((s) => s.close()));
  }

  /** The least recently used session other than `except`, preferring one not answering a call. */
  private longestIdle(except: string): Session<T> | undefined {
    let fallback: Session<T> | undefined;
    for (const s of this.live.values()) {
      if (s.id === except) continue;
      if (s.busy === 0) return s;
      fallback ??= s;
    }
    return fallback;
  }
}
