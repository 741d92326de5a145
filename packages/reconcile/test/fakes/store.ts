/**
 * An in-memory store port with the weakest durability the port allows: after a crash it
 * keeps what was behind the last barrier plus a random subset of the writes since (or
 * none of them). Branches are created and switched here, as the host's store does.
 */
import type { BranchMark, Evidence, Hash, PendingEffect, StorePort, StoredPath, TreeEntry } from '../../src/index.ts';
import type { Faults } from './faults.ts';

interface State {
  selected: string;
  trees: Map<string, Map<string, TreeEntry>>;
  marks: Map<string, Map<string, BranchMark>>;
  evidence: Map<string, Evidence>;
  pending: Map<string, PendingEffect>;
  blobs: Map<Hash, Uint8Array>;
  roots: Map<string, string>;
}

type Op =
  | { t: 'tree'; branch: string; key: string; value: TreeEntry | null }
  | { t: 'mark'; branch: string; key: string; value: BranchMark | null }
  | { t: 'evidence'; key: string; value: Evidence | null }
  | { t: 'pending'; key: string; value: PendingEffect | null }
  | { t: 'blob'; key: string; value: Uint8Array }
  | { t: 'root'; key: string; value: string };

const SEP = '\u0000';
const keyOf = (mount: string, path: string) => `${mount}${SEP}${path}`;
const pathOf = (key: string) => key.slice(key.indexOf(SEP) + 1);
const mountOf = (key: string) => key.slice(0, key.indexOf(SEP));

function emptyState(branch: string): State {
  return {
    selected: branch,
    trees: new Map([[branch, new Map()]]),
    marks: new Map([[branch, new Map()]]),
    evidence: new Map(),
    pending: new Map(),
    blobs: new Map(),
    roots: new Map(),
  };
}

function clone(s: State): State {
  const copyBranches = <V>(m: Map<string, Map<string, V>>) => new Map([...m].map(([b, t]) => [b, new Map(t)] as const));
  return {
    selected: s.selected,
    trees: copyBranches(s.trees),
    marks: copyBranches(s.marks),
    evidence: new Map(s.evidence),
    pending: new Map(s.pending),
    blobs: new Map(s.blobs),
    roots: new Map(s.roots),
  };
}

function put<V>(m: Map<string, V>, key: string, value: V | null): void {
  if (value === null) m.delete(key);
  else m.set(key, value);
}

function apply(s: State, op: Op): void {
  switch (op.t) {
    case 'tree':
      put(s.trees.get(op.branch)!, op.key, op.value);
      break;
    case 'mark':
      put(s.marks.get(op.branch)!, op.key, op.value);
      break;
    case 'evidence':
      put(s.evidence, op.key, op.value);
      break;
    case 'pending':
      put(s.pending, op.key, op.value);
      break;
    case 'blob':
      s.blobs.set(op.key, op.value);
      break;
    case 'root':
      s.roots.set(op.key, op.value);
      break;
  }
}

/** The fake store. */
export class FakeStore implements StorePort {
  private now: State;
  private durable: State;
  private log: Op[] = [];
  /** Counts of calls, for tests that check how much a pass wrote. */
  readonly counts = { writes: 0, barriers: 0 };

  constructor(
    private readonly faults: Faults | null = null,
    branch = 'main',
  ) {
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
    const key = keyOf(mount, path);
    return {
      path,
      tree: this.now.trees.get(branch)?.get(key) ?? null,
      mark: this.now.marks.get(branch)?.get(key) ?? null,
      evidence: this.now.evidence.get(key) ?? null,
      pending: this.now.pending.get(key) ?? null,
    };
  }

  *scan(branch: string, mount: string, dir: string): Iterable<StoredPath> {
    const seen = new Set<string>();
    const prefix = `${mount}${SEP}`;
    const within = (key: string) => {
      if (!key.startsWith(prefix)) return false;
      const p = pathOf(key);
      return dir === '' || p === dir || p.startsWith(`${dir}/`);
    };
    const tables: Iterable<string>[] = [
      this.now.trees.get(branch)?.keys() ?? [],
      this.now.marks.get(branch)?.keys() ?? [],
      this.now.evidence.keys(),
      this.now.pending.keys(),
    ];
    for (const keys of tables) {
      for (const key of keys) {
        if (seen.has(key) || !within(key)) continue;
        seen.add(key);
        yield this.read(branch, mount, pathOf(key));
      }
    }
  }

  *pendingPaths(mount: string): Iterable<string> {
    for (const key of this.now.pending.keys()) if (mountOf(key) === mount) yield pathOf(key);
  }

  getBlob(hash: Hash): Uint8Array | null {
    return this.now.blobs.get(hash) ?? null;
  }

  putBlob(hash: Hash, bytes: Uint8Array): void {
    if (this.now.blobs.has(hash)) return;
    this.write({ t: 'blob', key: hash, value: bytes });
  }

  setTree(branch: string, mount: string, path: string, entry: TreeEntry | null): void {
    this.write({ t: 'tree', branch, key: keyOf(mount, path), value: entry });
  }

  setEvidence(mount: string, path: string, evidence: Evidence | null): void {
    this.write({ t: 'evidence', key: keyOf(mount, path), value: evidence });
  }

  setPending(mount: string, path: string, pending: PendingEffect | null): void {
    this.write({ t: 'pending', key: keyOf(mount, path), value: pending });
  }

  setMark(branch: string, mount: string, path: string, mark: BranchMark | null): void {
    this.write({ t: 'mark', branch, key: keyOf(mount, path), value: mark });
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

  /** The process died: keep the durable state and a random subset of the writes since (half the time, none). */
  crash(random: () => number): void {
    const keepSome = random() < 0.5;
    const next = clone(this.durable);
    for (const op of this.log) if (keepSome && random() < 0.5) apply(next, op);
    this.log = [];
    this.now = next;
    this.durable = clone(next);
  }

  // Host-level operations (not part of the port): durable at once, as a committed transaction.

  /** Branches, in creation order. */
  branches(): string[] {
    return [...this.now.trees.keys()];
  }

  /** Creates `name` from the selected branch: its tree and its marks. */
  createBranch(name: string): void {
    for (const s of [this.now, this.durable]) {
      s.trees.set(name, new Map(s.trees.get(s.selected)));
      s.marks.set(name, new Map(s.marks.get(s.selected)));
    }
  }

  /** Selects `name`. */
  switchBranch(name: string): void {
    this.now.selected = name;
    this.durable.selected = name;
  }

  /** S on `branch` for every path of `mount` (for model checks). */
  tree(branch: string, mount: string): Map<string, TreeEntry> {
    const out = new Map<string, TreeEntry>();
    for (const [key, entry] of this.now.trees.get(branch) ?? []) if (mountOf(key) === mount) out.set(pathOf(key), entry);
    return out;
  }

  /** Every record but blobs, as JSON (to check that something decided nothing). */
  recordsSnapshot(): string {
    const s = this.now;
    const flat = (m: Map<string, unknown>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));
    return JSON.stringify({
      trees: [...s.trees].map(([b, t]) => [b, flat(t)]),
      marks: [...s.marks].map(([b, t]) => [b, flat(t)]),
      evidence: flat(s.evidence),
      pending: flat(s.pending),
    });
  }
}
