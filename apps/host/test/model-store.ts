/**
 * A host store as the reconcile package's model test sees it (its `ModelStore`): for
 * model-real-stores.test.ts.
 */
import type { Database } from 'bun:sqlite';
import type { BranchMark, Evidence, Hash, PendingEffect, StoredPath, TreeEntry, VersionCause } from '@ws/reconcile';
import type { Faults } from '../../../packages/reconcile/test/fakes/faults.ts';
import type { FakeVersion } from '../../../packages/reconcile/test/fakes/store.ts';
import { MOUNT, type ModelStore } from '../../../packages/reconcile/test/fakes/world.ts';
import type { PgStore } from '../src/store/postgres/pg-store.ts';
import { SqliteStore } from '../src/store/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import type { StorePlace } from './store-engines.ts';

/**
 * A real store as the model sees it: each write and barrier a step boundary of the
 * world's faults (as the fake's are), the model's questions asked through `Store`, and a
 * crash that rolls back, closes and opens the store again.
 */
export class RealModelStore implements ModelStore {
  private unbarriered = 0;
  /** Paths given a version write since the model last asked (null: any, after a branch change or a crash). */
  private historyTouched: Set<string> | null = null;
  /** A session of the PostgreSQL store's connection for its holds (made at the first operation). */
  private session: string | undefined;
  reopens = 0;
  /** Statements sent to PostgreSQL by the stores closed so far (each a round trip). */
  private roundTripsBefore = 0;

  constructor(
    private readonly faults: Faults,
    private readonly place: StorePlace,
    public inner: Store,
  ) {}

  get atomicBarriers(): boolean | undefined {
    return this.inner.atomicBarriers;
  }

  private get pg(): PgStore | undefined {
    return this.inner instanceof SqliteStore ? undefined : (this.inner as PgStore);
  }

  /** A record write: a step boundary, then the store's write. */
  private wrote<T>(where: string, fn: () => T): T {
    this.faults.tick(`store.${where}`);
    const out = fn();
    this.unbarriered++;
    return out;
  }

  // --- the port ---------------------------------------------------------------------
  selectedBranch(): string {
    return this.inner.selectedBranch();
  }
  read(branch: string, mount: string, path: string): StoredPath {
    return this.inner.read(branch, mount, path);
  }
  scan(branch: string, mount: string, dir: string): Iterable<StoredPath> {
    return this.inner.scan(branch, mount, dir);
  }
  pendingPaths(mount: string): Iterable<string> {
    return this.inner.pendingPaths(mount);
  }
  getBlob(hash: Hash): Uint8Array | null {
    return this.inner.getBlob(hash);
  }
  getBlobs(hashes: readonly Hash[]): Map<Hash, Uint8Array> {
    return this.inner.getBlobs(hashes);
  }
  putBlob(hash: Hash, bytes: Uint8Array): void {
    this.faults.tick('store.blob');
    this.inner.putBlob(hash, bytes);
  }
  setTree(branch: string, mount: string, path: string, entry: TreeEntry | null, cause: VersionCause): void {
    this.historyTouched?.add(path);
    this.wrote('tree', () => this.inner.setTree(branch, mount, path, entry, cause));
  }
  addVersion(branch: string, mount: string, path: string, entry: TreeEntry | null, cause: VersionCause): void {
    this.historyTouched?.add(path);
    this.wrote('version', () => this.inner.addVersion(branch, mount, path, entry, cause));
  }
  setEvidence(mount: string, path: string, evidence: Evidence | null): void {
    this.wrote('evidence', () => this.inner.setEvidence(mount, path, evidence));
  }
  setPending(mount: string, path: string, pending: PendingEffect | null): void {
    this.wrote('pending', () => this.inner.setPending(mount, path, pending));
  }
  setMark(branch: string, mount: string, path: string, mark: BranchMark | null): void {
    this.wrote('mark', () => this.inner.setMark(branch, mount, path, mark));
  }
  rootIdentity(mount: string): string | null {
    return this.inner.rootIdentity(mount);
  }
  setRootIdentity(mount: string, identity: string): void {
    this.wrote('root', () => this.inner.setRootIdentity(mount, identity));
  }
  barrier(): void {
    this.faults.tick('store.barrier');
    this.inner.barrier();
    this.unbarriered = 0;
  }

  // --- the model's questions, through `Store` -------------------------------------------
  branches(): string[] {
    return this.inner.branches().map((b) => b.name);
  }
  createBranch(name: string): void {
    this.historyTouched = null;
    this.inner.createBranch(name);
  }
  switchBranch(name: string): void {
    this.historyTouched = null;
    this.inner.selectBranch(name);
  }
  versionsWritten(): ReadonlySet<string> | null {
    const touched = this.historyTouched;
    this.historyTouched = new Set();
    return touched;
  }
  versions(mount: string, path: string): FakeVersion[] {
    return this.inner
      .history(mount, path)
      .reverse()
      .map((v) => ({ seq: v.seq, branch: v.branch, mount, path: v.path, hash: v.hash, source: v.source }));
  }
  recordsSnapshot(): string {
    const out: unknown[] = [];
    for (const b of this.branches()) {
      const rows = [...this.inner.scan(b, MOUNT, '')].sort((x, y) => (x.path < y.path ? -1 : 1));
      out.push([b, rows]);
    }
    return JSON.stringify(out);
  }
  unbarrieredRecords(): number {
    return this.unbarriered;
  }

  /** On PostgreSQL, one operation of the store's hold, as the host's lock runs it; on SQLite, as it is. */
  operation<T>(fn: () => T): T {
    const pg = this.pg;
    if (pg === undefined) return fn();
    this.session ??= pg.lockStatement('SELECT 1', []).session;
    pg.beginHold(this.session);
    let out: T;
    try {
      out = fn();
    } catch (err) {
      pg.abandonHold();
      throw err;
    }
    if (!(out instanceof Promise)) {
      pg.endHold();
      return out;
    }
    return out.then(
      (value) => {
        pg.endHold();
        return value;
      },
      (err) => {
        pg.abandonHold();
        throw err;
      },
    ) as T;
  }

  /** Statements sent to PostgreSQL over the run (0 on SQLite). */
  get roundTrips(): number {
    return this.roundTripsBefore + (this.pg?.roundTrips ?? 0);
  }

  /** The process died: what no barrier committed is rolled back, and the store is opened again. */
  async crash(): Promise<void> {
    const pg = this.pg;
    if (pg !== undefined) pg.abandonHold();
    else {
      // The test's one reach past `Store`: SQLite's connection, to roll back rather than commit on close.
      const db = (this.inner as unknown as { db: Database }).db;
      if (db.inTransaction) db.run('ROLLBACK');
    }
    this.roundTripsBefore += pg?.roundTrips ?? 0;
    this.inner.close();
    this.inner = await this.place.open();
    this.session = undefined;
    this.historyTouched = null;
    this.unbarriered = 0;
    this.reopens++;
  }
}
