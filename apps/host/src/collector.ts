/**
 * When the host collects garbage for long work that says where its garbage died (a large
 * pass's `reclaim`, the CLI's printing): the old generation where the work asks, or where
 * the process has grown by {@link GROWTH_BYTES} since the last such collection (or since
 * the collector was made); else the young. The one rule: a collection of the old generation costs tens of milliseconds on
 * a large heap, so it is made only where the work or the growth calls for it.
 */

/** How much RSS may grow between two collections of the old generation. */
export const GROWTH_BYTES = 32 * 1024 * 1024;

/** What a collector needs of the runtime (Bun's, by default). */
export interface Runtime {
  readonly rss: () => number;
  readonly gc: (full: boolean) => void;
}

const BUN: Runtime = { rss: () => process.memoryUsage.rss(), gc: (full) => Bun.gc(full) };

/** A `reclaim(full)` for `@ws/reconcile` and the CLI. */
export function collector(runtime: Runtime = BUN): (full: boolean) => void {
  let after = runtime.rss();
  return (full) => {
    if (full || runtime.rss() - after >= GROWTH_BYTES) {
      runtime.gc(true);
      after = runtime.rss();
    } else {
      runtime.gc(false);
    }
  };
}
