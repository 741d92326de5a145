/**
 * A mount wired to the fakes, with a few helpers: text in and out, and a contract check
 * that the package never leaves a store record unbarriered across a disk call (a host
 * holding a SQLite transaction from first write to barrier relies on it).
 */
import { createReconciler, type Reconciler } from '../../src/index.ts';
import { type CoarseClock, FakeDisk } from './disk.ts';
import { Faults, fakeHash } from './faults.ts';
import { FakeStore } from './store.ts';

export const MOUNT = 'work';
/** Small, so tests can make a file too large with a few words. */
export const MAX_FILE_SIZE = 64;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Bytes of a string. */
export const bytes = (s: string): Uint8Array => encoder.encode(s);
/** A string of bytes. */
export const text = (b: Uint8Array | null): string | null => (b === null ? null : decoder.decode(b));

/** The store, the disk, their shared faults, and a reconciler over them. */
export interface World {
  readonly faults: Faults;
  readonly store: FakeStore;
  readonly disk: FakeDisk;
  r: Reconciler;
  /** A new reconciler, as after a restart. */
  restart(): Reconciler;
  /** S's text for `path` on `branch` (the selected one by default), or null. */
  workspace(path: string, branch?: string): string | null;
}

/** A fresh world. */
export function world(options: { readOnly?: boolean; coarse?: CoarseClock; atomicStore?: boolean } = {}): World {
  const faults = new Faults();
  const store = new FakeStore(faults, 'main', options.atomicStore ?? false);
  const disk = new FakeDisk(faults, options.coarse ?? null);
  disk.onCall = (where) => {
    if (store.unbarrieredRecords() > 0) throw new Error(`contract: a store record was left unbarriered across disk.${where}`);
  };
  const make = () =>
    createReconciler({ store, disk, hash: fakeHash, mount: MOUNT, maxFileSize: MAX_FILE_SIZE, readOnly: options.readOnly ?? false });
  const w: World = {
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
