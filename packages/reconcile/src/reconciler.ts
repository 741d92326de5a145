/**
 * One store-backed mount's reconciler: the ports wired once, and the passes, pushes and
 * drafts that go through them. Create one per mount per process; it remembers which
 * paths its pushes are acting on, so a pass never resolves an effect still in flight.
 * The host takes care that one process at a time acts on a store (a lock file).
 */
import type { MountContext } from './context.ts';
import { looksBinary } from './binary.ts';
import { type DraftChange, type DraftsRecorded, recordDrafts } from './drafts.ts';
import { type PassRequest, type PassResult, runPass } from './pass.ts';
import type { DiskPort, Hasher, StorePort } from './ports.ts';
import { type PushRequest, type PushResult, runPush } from './push.ts';

/** What a reconciler needs. */
export interface ReconcilerOptions {
  readonly store: StorePort;
  /** This mount's disk. */
  readonly disk: DiskPort;
  readonly hash: Hasher;
  /** The mount's name (the store keys its records by it). */
  readonly mount: string;
  /** A read-only mount takes disk in but pushes nothing. */
  readonly readOnly?: boolean;
  /** The most bytes a file may have to be stored as text (the host's `mount.maxFileSize`). */
  readonly maxFileSize: number;
  /** Whether bytes are binary; default {@link looksBinary}. */
  readonly isBinary?: (bytes: Uint8Array) => boolean;
  /**
   * Frees the garbage a large pass has made so far (on a runtime with a collector: a
   * collection; `full`: the old generation too). A pass calls it where a phase's garbage
   * has just died — once its gather read thousands of files, and every few thousand
   * paths decided — so it is collected before more is made; a collector left to itself
   * let a first sync's heap reach twice what was live. Optional: nothing depends on it.
   */
  readonly reclaim?: (full: boolean) => void;
}

/** A store-backed mount's passes, pushes and drafts. */
export interface Reconciler {
  readonly mount: string;
  /** Observes disk for a scope, then decides and records every path in it (README, "Passes and pushes"). */
  pass(request: PassRequest): Promise<PassResult>;
  /** Makes disk hold S for a scope (README, "Passes and pushes"; the host's `materialize`). */
  push(request: PushRequest): Promise<PushResult>;
  /**
   * Drops every draft, deletion and conflict in a scope for disk's copy (README, "Sync and
   * discard"): a pass whose reports name what it gave up (`gaveUp`), each dropped copy
   * already a version in the store's history and the new one recorded as `discard`.
   */
  discard(request: { readonly scope: PassRequest['scope'] }): Promise<PassResult>;
  /** Records the workspace's writes and deletions as drafts, all or none (no disk check first). */
  recordDrafts(changes: readonly DraftChange[]): DraftsRecorded;
  /**
   * Resolves every pending effect a stopped process left (README, "Crash safety"), by a pass over those
   * paths. Call once when the store is opened; passes also resolve them as they meet them.
   */
  recover(): Promise<PassResult>;
}

/** Wires a mount's ports into a {@link Reconciler}. */
export function createReconciler(options: ReconcilerOptions): Reconciler {
  const ctx: MountContext = {
    store: options.store,
    disk: options.disk,
    hash: options.hash,
    mount: options.mount,
    readOnly: options.readOnly ?? false,
    maxFileSize: options.maxFileSize,
    isBinary: options.isBinary ?? looksBinary,
    inFlight: new Set(),
    ...(options.reclaim ? { reclaim: options.reclaim } : {}),
  };
  return {
    mount: ctx.mount,
    pass: (request) => runPass(ctx, request),
    push: (request) => runPush(ctx, request),
    discard: (request) => runPass(ctx, { scope: request.scope, takeDisk: 'discard' }),
    recordDrafts: (changes) => recordDrafts(ctx, changes),
    recover: () => {
      const paths = [...ctx.store.pendingPaths(ctx.mount)].filter((p) => !ctx.inFlight.has(p));
      return runPass(ctx, { scope: { kind: 'paths', paths } });
    },
  };
}
