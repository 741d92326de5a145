/**
 * An in-memory store port with the weakest durability the port allows: after a crash it
 * keeps what was behind the last barrier plus a random subset of the writes since (or
 * none of them). Branches are created and switched here, as the host's store does.
 */
import type { BranchMark, Evidence, Hash, PendingEffect, StorePort, StoredPath, TreeEntry, VersionCause, VersionSource } from '../../src/index.ts';
import type { Faults } from './faults.ts';

/** Everything kept for one (mount, path), like one indexed row per table. */
interface Row {
  evidence: Evidence | null;
  pending: PendingEffect | null;
  trees: Map<string, TreeEntry>;
  marks: Map<string, BranchMark>;
}

/** One version in the fake's history, as the host's store keeps it. */
export interface FakeVersion {
  readonly seq: number;
  readonly branch: string;
  readonly mount: string;
  readonly path: string;
  readonly hash: Hash | null;
  readonly source: VersionSource;
}

interface State {
  selected: string;
  /** Versions per `mount\0path`, oldest first, and the last seq given. */
  history: Map<string, FakeVersion[]>;
  lastSeq: number;
  branches: string[];
  rows: Map<string, Map<string, Row>>;
  blobs: Map<Hash, Uint8Array>;
  roots: Map<string, string>;
}

type Op =
  | { t: 'tree'; branch: string; mount: string; path: string; value: TreeEntry | null; cause: VersionCause }
  | { t: 'version'; branch: string; mount: string; path: string; value: TreeEntry | null; cause: VersionCause }
  | { t: 'mark'; branch: string; mount: string; path: string; value: BranchMark | null }
  | { t: 'evidence'; mount: string; path: string; value: Evidence | null }
  | { t: 'pending'; mount: string; path: string; value: PendingEffect | null }
  | { t: 'blob'; key: string; value: Uint8Array }
  | { t: 'root'; key: string; value: string };

function emptyState(branch: string): State {
  return { selected: branch, history: new Map(), lastSeq: 0, branches: [branch], rows: new Map(), blobs: new Map(), roots: new Map() };
}

function cloneRow(r: Row): Row {
  return { evidence: r.evidence, pending: r.pending, trees: new Map(r.trees), marks: new Map(r.marks) };
}

function clone(s: State): State {
  return {
    selected: s.selected,
    history: new Map([...s.history].map(([k, vs]) => [k, [...vs]] as const)),
    lastSeq: s.lastSeq,
    branches: [...s.branches],
    rows: new Map([...s.rows].map(([m, rows]) => [m, new Map([...rows].map(([p, r]) => [p, cloneRow(r)] as const))] as const)),
    blobs: new Map(s.blobs),
    roots: new Map(s.roots),
  };
}

function rowOf(s: State, mount: string, path: string): Row {
  let rows = s.rows.get(mount);
  if (!rows) s.rows.set(mount, (rows = new Map()));
  let row = rows.get(path);
  if (!row) rows.set(path, (row = { evidence: null, pending: null, trees: new Map(), marks: new Map() }));
  return row;
}

function put<V>(m: Map<string, V>, key: string, value: V | null): void {
  if (value === null) m.delete(key);
  else m.set(key, value);
}

function apply(s: State, op: Op): void {
  switch (op.t) {
    case 'tree': {
      // As the host's store: a version where the text or its presence changes, or a move; the same write.
      const trees = rowOf(s, op.mount, op.path).trees;
      const was = trees.get(op.branch)?.hash ?? null;
      if (was !== (op.value?.hash ?? null) || op.cause.movedFrom !== undefined) addVersion(s, op);
      put(trees, op.branch, op.value);
      break;
    }
    case 'version': {
      const newest = s.history.get(`${op.mount}\u0000${op.path}`)?.at(-1);
      const same = newest && newest.branch === op.branch && newest.source === op.cause.source && newest.hash === (op.value?.hash ?? null);
      if (!same) addVersion(s, op);
      break;
    }
    case 'mark':
      put(rowOf(s, op.mount, op.path).marks, op.branch, op.value);
      break;
    case 'evidence':
      rowOf(s, op.mount, op.path).evidence = op.value;
      break;
    case 'pending':
      rowOf(s, op.mount, op.path).pending = op.value;
      break;
    case 'blob':
      s.blobs.set(op.key, op.value);
      break;
    case 'root':
      s.roots.set(op.key, op.value);
      break;
  }
}

function addVersion(s: State, op: { branch: string; mount: string; path: string; value: TreeEntry | null; cause: VersionCause }): void {
  const seq = ++s.lastSeq;
  const key = `${op.mount}\u0000${op.path}`;
  let list = s.history.get(key);
  if (!list) s.history.set(key, (list = []));
  list.push({ seq, branch: op.branch, mount: op.mount, path: op.path, hash: op.value?.hash ?? null, source: op.cause.source });
}

/** The fake store. */
export class FakeStore implements StorePort {
  private now: State;
  private durable: State;
  private log: Op[] = [];
  /** Counts of calls, for tests that check how much a pass wrote. */
  readonly counts = { writes: 0, barriers: 0 };

  /** Set: a crash keeps none of the writes since the last barrier (a transaction's all or nothing). */
  readonly atomicBarriers: boolean;

  constructor(
    private readonly faults: Faults | null = null,
    branch = 'main',
    atomic = false,
  ) {
    this.atomicBarriers = atomic;
    this.now = emptyState(branch);
    this.durable = emptyState(branch);
  }

  private write(op: Op): void {
    this.faults?.tick(`store.${op.t}`);
    this.counts.writes++;
    apply(this.now, op);
    this.log.push(op);
  }

  /** Writes since the last barrier, other than blobs (which may wait across awaits). */
  unbarrieredRecords(): number {
    return this.log.filter((op) => op.t !== 'blob').length;
  }

  selectedBranch(): string {
    return this.now.selected;
  }

  read(branch: string, mount: string, path: string): StoredPath {
    const row = this.now.rows.get(mount)?.get(path);
    if (!row) return { path, tree: null, mark: null, evidence: null, pending: null };
    return { path, tree: row.trees.get(branch) ?? null, mark: row.marks.get(branch) ?? null, evidence: row.evidence, pending: row.pending };
  }

  scan(branch: string, mount: string, dir: string): Iterable<StoredPath> {
    const out: StoredPath[] = [];
    const prefix = `${dir}/`;
    for (const [path, row] of this.now.rows.get(mount) ?? []) {
      if (dir !== '' && path !== dir && !path.startsWith(prefix)) continue;
      const tree = row.trees.get(branch) ?? null;
      const mark = row.marks.get(branch) ?? null;
      if (tree || mark || row.evidence || row.pending) out.push({ path, tree, mark, evidence: row.evidence, pending: row.pending });
    }
    return out;
  }

  *pendingPaths(mount: string): Iterable<string> {
    for (const [path, row] of this.now.rows.get(mount) ?? []) if (row.pending) yield path;
  }

  getBlob(hash: Hash): Uint8Array | null {
    return this.now.blobs.get(hash) ?? null;
  }

  putBlob(hash: Hash, bytes: Uint8Array): void {
    if (this.now.blobs.has(hash)) return;
    // The bytes are the caller's again once this returns (a pass reuses its read buffers): a copy.
    this.write({ t: 'blob', key: hash, value: bytes.slice() });
  }

  setTree(branch: string, mount: string, path: string, entry: TreeEntry | null, cause: VersionCause): void {
    this.write({ t: 'tree', branch, mount, path, value: entry, cause });
  }

  addVersion(branch: string, mount: string, path: string, entry: TreeEntry | null, cause: VersionCause): void {
    this.write({ t: 'version', branch, mount, path, value: entry, cause });
  }

  setEvidence(mount: string, path: string, evidence: Evidence | null): void {
    this.write({ t: 'evidence', mount, path, value: evidence });
  }

  setPending(mount: string, path: string, pending: PendingEffect | null): void {
    this.write({ t: 'pending', mount, path, value: pending });
  }

  setMark(branch: string, mount: string, path: string, mark: BranchMark | null): void {
    this.write({ t: 'mark', branch, mount, path, value: mark });
  }

  rootIdentity(mount: string): string | null {
    return this.now.roots.get(mount) ?? null;
  }

  setRootIdentity(mount: string, identity: string): void {
    this.write({ t: 'root', key: mount, value: identity });
  }

  barrier(): void {
    this.faults?.tick('store.barrier');
    this.counts.barriers++;
    for (const op of this.log) apply(this.durable, op);
    this.log = [];
  }

  /** The process died: keep the durable state and a random subset of the writes since (half the time, and always where barriers are atomic, none). */
  crash(random: () => number): void {
    const keepSome = !this.atomicBarriers && random() < 0.5;
    const next = clone(this.durable);
    for (const op of this.log) if (keepSome && random() < 0.5) apply(next, op);
    this.log = [];
    this.now = next;
    this.durable = clone(next);
  }

  // Host-level operations (not part of the port): durable at once, as a committed transaction.

  /** Branches, in creation order. */
  branches(): string[] {
    return [...this.now.branches];
  }

  /** Creates `name` from the selected branch: its tree and its marks. */
  createBranch(name: string): void {
    for (const st of [this.now, this.durable]) {
      st.branches.push(name);
      for (const rows of st.rows.values()) {
        for (const row of rows.values()) {
          const tree = row.trees.get(st.selected);
          const mark = row.marks.get(st.selected);
          if (tree) row.trees.set(name, tree);
          if (mark) row.marks.set(name, mark);
        }
      }
    }
  }

  /** Selects `name`, recording a `branch-switch` version of each path whose workspace copy changes (as the host's store does). */
  switchBranch(name: string): void {
    for (const st of [this.now, this.durable]) {
      for (const [mount, rows] of st.rows) {
        for (const [path, row] of rows) {
          const to = row.trees.get(name) ?? null;
          if ((row.trees.get(st.selected)?.hash ?? null) !== (to?.hash ?? null)) {
            addVersion(st, { branch: name, mount, path, value: to, cause: { source: 'branch-switch' } });
          }
        }
      }
      st.selected = name;
    }
  }

  /** Every version of a path in the history, oldest first, over every branch. */
  versions(mount: string, path: string): FakeVersion[] {
    return this.now.history.get(`${mount}\u0000${path}`) ?? [];
  }

  /** S on `branch` for every path of `mount` (for model checks). */
  tree(branch: string, mount: string): Map<string, TreeEntry> {
    const out = new Map<string, TreeEntry>();
    for (const [path, row] of this.now.rows.get(mount) ?? []) {
      const entry = row.trees.get(branch);
      if (entry) out.set(path, entry);
    }
    return out;
  }

  /** Every record but blobs, as JSON (to check that something decided nothing). */
  recordsSnapshot(): string {
    const rows: unknown[] = [];
    for (const [mount, byPath] of this.now.rows) {
      for (const [path, row] of [...byPath].sort(([a], [b]) => (a < b ? -1 : 1))) {
        rows.push([mount, path, row.evidence, row.pending, [...row.trees].sort(), [...row.marks].sort()]);
      }
    }
    return JSON.stringify(rows);
  }
}
