/**
 * A mount wired to the fakes, with a few helpers: text in and out, and a contract check
 * that the package never leaves a store record unbarriered across a disk call (a host
 * holding a SQLite transaction from first write to barrier relies on it).
 */
import { createReconciler, type Hash, type Reconciler, type StorePort } from '../../src/index.ts';
import { type CoarseClock, FakeDisk } from './disk.ts';
import { Faults, fakeHash } from './faults.ts';
import { FakeStore, type FakeVersion } from './store.ts';

export const MOUNT = 'work';
/** Small, so tests can make a file too large with a few words. */
export const MAX_FILE_SIZE = 64;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Bytes of a string. */
export const bytes = (s: string): Uint8Array => encoder.encode(s);
/** A string of bytes. */
export const text = (b: Uint8Array | null): string | null => (b === null ? null : decoder.decode(b));

/**
 * What the model asks of a store beyond the port: branches, history, S per branch, a
 * snapshot of the records, and a crash. The fake is one; a host's real store behind an
 * adapter (apps/host/test/model-real-stores.test.ts) is another.
 */
export interface ModelStore extends StorePort {
  /** Branch names, in creation order. */
  branches(): string[];
  createBranch(name: string): void;
  switchBranch(name: string): void;
  /** Every version of a path in the history, oldest first. */
  versions(mount: string, path: string): FakeVersion[];
  /** Every record but blobs, as text (to check that something decided nothing). */
  recordsSnapshot(): string;
  /** Record writes since the last barrier (blobs aside). */
  unbarrieredRecords(): number;
  /** The process died: the store keeps what its durability keeps (and opens again, for a real one). */
  crash(random: () => number): void | Promise<void>;
  /**
   * The paths whose history may have grown since the last call (null: any may have), for a
   * store whose history is costly to read whole; the model reads every path's without it.
   */
  versionsWritten?(): ReadonlySet<string> | null;
  /** Blobs by hash, many at once (one round trip on a real store); a hash the store lacks is left out. */
  getBlobs?(hashes: readonly Hash[]): Map<Hash, Uint8Array>;
  /** Runs one reconciler call as the host runs an operation on this store (the fake: as it is). */
  operation?<T>(fn: () => T): T;
}

/** The store, the disk, their shared faults, and a reconciler over them. */
export interface World<S extends ModelStore = FakeStore> {
  readonly faults: Faults;
  readonly store: S;
  readonly disk: FakeDisk;
  r: Reconciler;
  /** A new reconciler, as after a restart. */
  restart(): Reconciler;
  /** S's text for `path` on `branch` (the selected one by default), or null. */
  workspace(path: string, branch?: string): string | null;
}

/** Options of a world: `store` makes another store than the fake, over the world's faults. */
export interface WorldOptions<S extends ModelStore> {
  readOnly?: boolean;
  coarse?: CoarseClock;
  atomicStore?: boolean;
  store?: (faults: Faults) => S;
}

/** A fresh world. */
export function world(options?: Omit<WorldOptions<FakeStore>, 'store'>): World;
export function world<S extends ModelStore>(options: WorldOptions<S> & { store: (faults: Faults) => S }): World<S>;
export function world<S extends ModelStore>(options: WorldOptions<S> = {}): World<S> {
  const faults = new Faults();
  const store = (options.store ? options.store(faults) : new FakeStore(faults, 'main', options.atomicStore ?? false)) as S;
  const disk = new FakeDisk(faults, options.coarse ?? null);
  disk.onCall = (where) => {
    if (store.unbarrieredRecords() > 0) throw new Error(`contract: a store record was left unbarriered across disk.${where}`);
  };
  const make = () =>
    operations(store, createReconciler({ store, disk, hash: fakeHash, mount: MOUNT, maxFileSize: MAX_FILE_SIZE, readOnly: options.readOnly ?? false }));
  const w: World<S> = {
    faults,
    store,
    disk,
    r: make(),
    restart() {
      faults.restart();
      w.r = make();
      return w.r;
    },
    workspace(path, branch) {
      const entry = store.read(branch ?? store.selectedBranch(), MOUNT, path).tree;
      return entry ? text(store.getBlob(entry.hash)) : null;
    },
  };
  return w;
}

/** The reconciler, each call run as one of the store's operations where the store says how. */
function operations(store: ModelStore, r: Reconciler): Reconciler {
  const around = store.operation?.bind(store);
  if (around === undefined) return r;
  return new Proxy(r, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => around(() => value.apply(target, args));
    },
  });
}
