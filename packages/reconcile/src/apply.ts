/**
 * Recording decisions in the store so that a crash at any point loses nothing (README, "Crash safety").
 * The store may keep any subset of the writes made since its last barrier, so:
 * an adoption (S changes) is announced as a pending effect behind a barrier, its records
 * are written and barriered, and only then is the announcement cleared. Writes that do
 * not move S are safe alone: whatever subset survives, the rule decides the same again.
 */
import type { MountContext } from './context.ts';
import type { PathRecords, StorePort, VersionCause } from './ports.ts';

/** One path's move from `before` to `after` on `branch`. */
export interface RecordChange {
  readonly path: string;
  readonly branch: string;
  readonly before: PathRecords;
  readonly after: PathRecords;
  /** Announce it first (an adoption): S changes, or a sync or discard gives a draft up. */
  readonly announce: boolean;
  /** Why S changes, for the store's history (`disk` where it does not change). */
  readonly cause: VersionCause;
}

/** Disk's side taken in: the cause of every tree change a pass makes but a discard. */
export const FROM_DISK: VersionCause = { source: 'disk' };

/** Plain-JSON equality, blind to key order (records may come back from a store reordered). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** The records differ in anything. */
export function recordsDiffer(a: PathRecords, b: PathRecords): boolean {
  return !sameJson(a.tree, b.tree) || !sameJson(a.evidence, b.evidence) || !sameJson(a.mark, b.mark);
}

/** Writes the records that differ (no barrier). Returns whether it wrote anything. */
export function writeRecords(store: StorePort, mount: string, change: RecordChange): boolean {
  const { before, after, branch, path } = change;
  let wrote = false;
  if (!sameJson(before.tree, after.tree)) {
    store.setTree(branch, mount, path, after.tree, change.cause);
    wrote = true;
  }
  if (!sameJson(before.evidence, after.evidence)) {
    store.setEvidence(mount, path, after.evidence);
    wrote = true;
  }
  if (!sameJson(before.mark, after.mark)) {
    store.setMark(branch, mount, path, after.mark);
    wrote = true;
  }
  return wrote;
}

/** What {@link recordChanges} and {@link changeRecorder} take beside the changes. */
export interface RecordOptions {
  /** Blobs were stored since the last barrier, so a barrier comes before any record that may reference them. */
  readonly blobsPut?: boolean;
  /** Runs with the writes (e.g. recording the root); returns whether it wrote. */
  readonly extra?: () => boolean;
}

/**
 * Records every change durably: announce adoptions, barrier, write, barrier, clear the
 * announcements, barrier (on a store with atomic barriers: write, barrier). `blobsPut`: blobs were stored since the last barrier, so a
 * barrier comes before any record that may reference them. `extra` runs with the writes
 * (e.g. recording the root).
 */
export function recordChanges(ctx: MountContext, changes: readonly RecordChange[], options: RecordOptions = {}): void {
  const recorder = changeRecorder(ctx, options);
  for (const c of changes) recorder.add(c);
  recorder.finish();
}

/** Takes changes one at a time and records them as {@link recordChanges} does. */
export interface ChangeRecorder {
  add(change: RecordChange): void;
  /** Records what is left and ends with the barrier; call once, after the last `add`. */
  finish(): void;
}

/**
 * A recorder for changes decided one by one, making the same store calls in the same
 * order as {@link recordChanges} over all of them. On a store whose barrier keeps all or
 * none of what came before it, nothing is announced, so each change is written as it is
 * added — after the barrier `blobsPut` asks for and `extra` — and none is held: a pass
 * over 100,000 new files keeps no change per path until its end. Elsewhere every
 * announcement must precede every write, so the changes are held until `finish`.
 */
export function changeRecorder(ctx: MountContext, options: RecordOptions = {}): ChangeRecorder {
  const { store, mount } = ctx;
  const extra = options.extra;
  if (store.atomicBarriers !== true) {
    const held: RecordChange[] = [];
    return { add: (c) => held.push(c), finish: () => recordAnnounced(ctx, held, options) };
  }
  let started = false;
  let wrote = false;
  const start = () => {
    started = true;
    wrote = extra ? extra() : false;
  };
  return {
    add(c) {
      if (!started) {
        if (options.blobsPut) store.barrier();
        start();
      }
      wrote = writeRecords(store, mount, c) || wrote;
    },
    finish() {
      if (!started) start();
      if (wrote) store.barrier();
    },
  };
}

/** recordChanges on a store whose barriers are not atomic: adoptions are announced first. */
function recordAnnounced(ctx: MountContext, changes: readonly RecordChange[], options: RecordOptions): void {
  const { store, mount } = ctx;
  const announced = changes.filter((c) => c.announce);
  for (const c of announced) {
    store.setPending(mount, c.path, { kind: 'adopt', branch: c.branch, before: c.before, after: c.after });
  }
  if (announced.length > 0 || (options.blobsPut && changes.length > 0)) store.barrier();
  const extra = options.extra;
  let wrote = extra ? extra() : false;
  for (const c of changes) wrote = writeRecords(store, mount, c) || wrote;
  if (wrote) store.barrier();
  for (const c of announced) store.setPending(mount, c.path, null);
  if (announced.length > 0) store.barrier();
}
