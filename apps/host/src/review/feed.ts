/**
 * The drafts feed: every store-backed mount's list as the page shows it, and the
 * server-sent event stream that sends it again whenever it changes. The one rule: the
 * list is looked at only while a page listens, and a look that took long (a large mount's
 * pass) waits three times as long before the next, so the agent's calls keep the lock.
 */
import type { StoreMount } from '../mounts/store-backed/mount.ts';
import { SECURITY_HEADERS } from './answers.ts';

/** How often the list is looked at while a page listens. */
export const TICK_MS = 1000;

/** How often a quiet stream says it is still there. */
const BEAT_MS = 15_000;

/** The lists of a workspace's store-backed mounts, and the pages listening for them. */
export class DraftFeed {
  private readonly listeners = new Set<(event: string) => void>();
  private readonly closers = new Set<() => void>();
  private ticker: ReturnType<typeof setInterval> | undefined;
  private ticking = false;
  private lastList = '';
  private notBefore = 0;

  constructor(
    private readonly mounts: readonly StoreMount[],
    private readonly log: (line: string) => void,
  ) {}

  /** Every store-backed mount's list, as the page shows it; `pass` looks at disk first where the mount asks for it. */
  async listing(pass: boolean): Promise<{ mounts: unknown[] }> {
    const out: unknown[] = [];
    for (const m of this.mounts) {
      // A mount whose watcher keeps the store current needs no pass; `never` asks for none.
      const listed = await m.review.list(pass && m.config.watch === 'on-tool-call');
      out.push({ name: m.name, readOnly: m.readOnly, ...(listed.ok ? { entries: listed.entries } : { entries: [], problem: listed.message }) });
    }
    return { mounts: out };
  }

  /** Looks at the list now (unless a look runs, none listens, or the last look asks to wait) and sends it where it changed. */
  async tick(): Promise<void> {
    if (this.ticking || this.listeners.size === 0 || performance.now() < this.notBefore) return;
    this.ticking = true;
    const started = performance.now();
    try {
      const now = JSON.stringify(await this.listing(true));
      if (now !== this.lastList) {
        this.lastList = now;
        for (const send of this.listeners) send(`event: drafts\ndata: ${now}\n\n`);
      }
    } catch (err) {
      this.log(`review: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.ticking = false;
      this.notBefore = performance.now() + 3 * (performance.now() - started);
    }
  }

  /** A new event stream: it hears the list at once, then each change. */
  events(): Response {
    let send: ((event: string) => void) | undefined;
    let beat: ReturnType<typeof setInterval> | undefined;
    let end: (() => void) | undefined;
    const stop = () => {
      if (send) this.listeners.delete(send);
      if (end) this.closers.delete(end);
      if (beat) clearInterval(beat);
      if (this.listeners.size === 0) this.stopTicking();
    };
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const encoder = new TextEncoder();
        send = (event) => {
          try {
            controller.enqueue(encoder.encode(event));
          } catch {
            stop();
          }
        };
        this.listeners.add(send);
        end = () => {
          stop();
          try {
            controller.close();
          } catch {
            // already closed
          }
        };
        this.closers.add(end);
        this.lastList = ''; // the new listener hears the list at once
        beat = setInterval(() => send?.(': still here\n\n'), BEAT_MS);
        if (this.ticker === undefined) this.ticker = setInterval(() => void this.tick(), TICK_MS);
        void this.tick();
      },
      cancel: stop,
    });
    return new Response(stream, {
      headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' },
    });
  }

  /** Ends every event stream. */
  close(): void {
    this.stopTicking();
    for (const end of [...this.closers]) end();
    this.listeners.clear();
  }

  private stopTicking(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }
}
