/**
 * What every pass and push of one mount works with: the ports, the mount's limits, and
 * the paths this process is pushing right now (a pass leaves their pending effects alone).
 */
import type { DiskPort, Hasher, StorePort } from './ports.ts';

/** One store-backed mount, wired to its ports. */
export interface MountContext {
  readonly store: StorePort;
  readonly disk: DiskPort;
  readonly hash: Hasher;
  /** The mount's name: the store keys every record by it. */
  readonly mount: string;
  readonly readOnly: boolean;
  /** The most bytes a file may have to be stored as text. */
  readonly maxFileSize: number;
  readonly isBinary: (bytes: Uint8Array) => boolean;
  /** Paths a push in this process has announced and not yet finished. */
  readonly inFlight: Set<string>;
  /** Frees a large pass's garbage (`ReconcilerOptions.reclaim`). */
  readonly reclaim?: (full: boolean) => void;
}

/**
 * How a caller follows and stops long work: `signal` aborted stops it at the next safe
 * point (what is durable stays; nothing is half-applied), and `progress` is told how many
 * paths are done of how many (the total once it is known).
 */
export interface Work {
  readonly signal?: AbortSignal;
  readonly progress?: (done: number, total?: number) => void;
}

/** How long long work runs before it lets the event loop in, so a cancellation can arrive. */
const YIELD_EVERY_MS = 10;

/**
 * A function long work awaits between two paths: it lets other events in (a caller's
 * cancellation) every few milliseconds. A disk port may act synchronously behind its
 * async face, and awaiting a settled promise lets no other event in.
 */
export function yielder(work: Work): () => Promise<void> {
  if (work.signal === undefined) return async () => {};
  let last = performance.now();
  return async () => {
    if (performance.now() - last < YIELD_EVERY_MS) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    last = performance.now();
  };
}

/** Where a pass or push looks. */
export type Scope =
  /** Named paths: each observed even where a walk would pass over it (README, "Passes and pushes"). */
  | { readonly kind: 'paths'; readonly paths: readonly string[] }
  /** A directory and everything beneath it (`''`: the whole mount), walked with the mount's ignore rules. */
  | { readonly kind: 'directory'; readonly path: string };

/** `path` is `dir` or beneath it. */
export function inDirectory(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/** The directory holding `path` (`''` for a path at the root). */
export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/**
 * How many paths a pass decides between two calls of its context's `reclaim` (and the
 * fewest files a gather reads for the full one before deciding).
 */
export const RECLAIM_EVERY = 4096;
/**
 * How many files a gather reads between two calls of `reclaim(false)`: each read leaves
 * its stat, packed copy and promises behind, and a first sync of 42,560 files peaked
 * 15–20 MiB lower collecting the young every 1,024 files read than every 4,096, at the
 * same time.
 */
export const GATHER_RECLAIM_EVERY = 1024;
