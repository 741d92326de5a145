/**
 * An in-memory workspace for tests: a direct mount (disk as it is) and a store-backed
 * mount (a workspace copy over disk, with a small three-way check), both behind the
 * real `Mount` interface. The one rule: it behaves the way the host's mounts do (`@ws/reconcile`'s read check)
 * at the seam — the tools cannot tell it from a real one — but it is a fake: the real
 * three-way rule lives in `@ws/reconcile` and the host.
 *
 * Tests change disk behind a store-backed mount's back through `mount.disk`.
 */
import type {
  Change,
  CommitIntent,
  Draft,
  Entry,
  ListOutcome,
  Mount,
  ReadOutcome,
  Report,
  SearchFile,
  Version,
  VersionName,
  VersionSource,
  Workspace,
} from '../src/index.ts';
import { keptDraftsNote, noAgreedVersion, noSuchVersion } from '../src/errors.ts';
import { looksBinary } from '@ws/text';

const enc = new TextEncoder();

/** Bytes from a string or bytes. */
export function bytesOf(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? enc.encode(content) : content;
}

function same(a: Uint8Array | null | undefined, b: Uint8Array | null | undefined): boolean {
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The one binary rule (`@ws/text`), as the host's mounts ask it. */
const isBinary = looksBinary;

/** A file over the size limit as grep searches it: ranges of the bytes it holds now. */
function largeOf(bytes: Uint8Array) {
  return { size: bytes.length, range: async (start: number, length: number) => bytes.slice(start, start + length) };
}

function inside(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/** How to make one in-memory mount. */
export interface MemoryMountOptions {
  readonly name: string;
  readonly backend: 'store' | 'direct';
  readonly readOnly?: boolean;
  readonly maxFileSize?: number;
  readonly autoMaterialize?: boolean;
  /** The mount's directory on disk, as a host's mount has one (`Mount.root`). */
  readonly root?: string;
  /** Disk's files at the start (a store-backed mount starts agreeing with disk on each text file). */
  readonly files?: Readonly<Record<string, string | Uint8Array>>;
}

/** A mount kept in memory, direct or store-backed. */
export class MemoryMount implements Mount {
  readonly name: string;
  readonly backend: 'store' | 'direct';
  readonly readOnly: boolean;
  readonly maxFileSize: number;
  readonly autoMaterialize: boolean;
  readonly root?: string;
  /** D: disk's files. Tests change it to act as a person beside the agent. */
  readonly disk = new Map<string, Uint8Array>();
  /** When each file last changed (ms), where a test sets it: glob's `sort: "modified"`. */
  readonly modified = new Map<string, number>();
  /** S: the workspace copy (store-backed only); `null` is a workspace deletion. */
  readonly store = new Map<string, Uint8Array | null>();
  /** P: what disk and store last agreed on (`null`: both absent). */
  readonly agreed = new Map<string, Uint8Array | null>();
  /** Conflicts and the disk side they recorded. */
  readonly conflicts = new Set<string>();
  /** Paths the workspace itself wrote (where S came from, when P is unknown). */
  readonly written = new Set<string>();
  /** How many times each method ran, for tests that check what the tools asked. */
  readonly calls: Record<string, number> = {};
  /** H: every version of each path's workspace copy, oldest first (store-backed only). */
  readonly versions = new Map<string, (Version & { readonly bytes: Uint8Array | null })[]>();
  private seq = 0;

  constructor(options: MemoryMountOptions) {
    this.name = options.name;
    this.backend = options.backend;
    this.readOnly = options.readOnly ?? false;
    this.maxFileSize = options.maxFileSize ?? 5 * 1024 * 1024;
    this.autoMaterialize = options.autoMaterialize ?? false;
    if (options.root !== undefined) this.root = options.root;
    for (const [path, content] of Object.entries(options.files ?? {})) {
      const bytes = bytesOf(content);
      this.disk.set(path, bytes);
      if (this.backend === 'store' && this.storable(bytes)) {
        this.store.set(path, bytes);
        this.agreed.set(path, bytes);
        this.record(path, 'disk', bytes);
      }
    }
  }

  private count(method: string): void {
    this.calls[method] = (this.calls[method] ?? 0) + 1;
  }

  /** Records the workspace copy's new version (a deterministic clock: one second a version). */
  private record(path: string, source: VersionSource, bytes: Uint8Array | null): void {
    const id = String(++this.seq);
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, this.seq)).toISOString();
    const list = this.versions.get(path) ?? [];
    list.push({ id, at, source, size: bytes === null ? null : bytes.length, bytes });
    this.versions.set(path, list);
  }

  private storable(bytes: Uint8Array): boolean {
    return !isBinary(bytes) && bytes.length <= this.maxFileSize;
  }

  private full(path: string): string {
    return path === '' ? this.name : `${this.name}/${path}`;
  }

  /** Every file path the mount shows: disk's on a direct mount; the workspace's and disk-only ones on a store. */
  private filePaths(): string[] {
    const paths = new Set(this.disk.keys());
    if (this.backend === 'store') for (const [p, s] of this.store) if (s !== null) paths.add(p);
    return [...paths].sort();
  }

  private isDirectory(path: string): boolean {
    return path === '' || this.filePaths().some((p) => p.startsWith(`${path}/`));
  }

  /** The state of a path on a store-backed mount (`@ws/reconcile`'s README, "States"). */
  stateOf(path: string): string {
    const d = this.disk.get(path);
    const s = this.store.get(path);
    if (this.conflicts.has(path)) return 'conflict';
    if (s === undefined) return d === undefined ? 'not-in-branch' : 'disk-only';
    if (s === null) return 'workspace-deleted';
    if (same(s, d)) return 'synced';
    return d === undefined && !this.agreed.has(path) ? 'disk-missing-provenance-unknown' : 'workspace-draft';
  }

  /** A named pass over one path: the small three-way check, with what a read should say. */
  private check(path: string): { notes: string[]; answer?: string } {
    const d = this.disk.get(path);
    const s = this.store.get(path);
    const p = this.agreed.get(path);
    const full = this.full(path);
    if (same(d, s)) {
      this.agreed.set(path, d ?? null);
      this.conflicts.delete(path);
      return { notes: [] };
    }
    if (this.agreed.has(path)) {
      if (same(d, p)) return { notes: this.conflicts.has(path) ? [this.conflictNote(path)] : [] };
      if (same(s, p)) {
        if (d === undefined) {
          this.store.delete(path);
          this.agreed.set(path, null);
          this.record(path, 'disk', null);
          return { notes: [], answer: `Disk deleted ${full} and the deletion was taken in; it is no longer in the workspace.` };
        }
        if (!this.storable(d)) {
          this.store.delete(path);
          this.agreed.delete(path);
          return { notes: [], answer: `${full} is on disk but not stored: disk made it binary or larger than this mount's limit.` };
        }
        this.store.set(path, d);
        this.agreed.set(path, d);
        this.record(path, 'disk', d);
        return { notes: ['Disk changed this file and the workspace had not: the change was taken in, so this read shows disk’s text.'] };
      }
      this.conflicts.add(path);
      return { notes: [this.conflictNote(path)] };
    }
    if (s === undefined && d !== undefined) {
      if (this.storable(d)) {
        this.store.set(path, d);
        this.agreed.set(path, d);
        this.record(path, 'disk', d);
      }
      return { notes: [] };
    }
    if (d === undefined && this.written.has(path)) return { notes: [] };
    if (d === undefined) return { notes: ['Disk has no copy of this file and nothing records whether it was deleted there; this read shows the workspace’s copy.'] };
    this.conflicts.add(path);
    return { notes: [this.conflictNote(path)] };
  }

  private conflictNote(path: string): string {
    const onDisk = this.disk.has(path);
    const keep = onDisk ? 'discard keeps disk’s copy' : 'discard takes disk’s deletion';
    const force = this.readOnly ? '' : '; a forced materialize writes the workspace’s copy to disk';
    return `This file is in conflict: the workspace has a draft and disk ${onDisk ? 'changed it' : 'deleted it'} too. This read shows the draft; diff shows both sides against the last agreed version; ${keep} (the draft stays in history)${force}.`;
  }

  async read(path: string): Promise<ReadOutcome> {
    this.count('read');
    if (this.isDirectory(path) && !this.disk.has(path) && !this.store.get(path)) return { kind: 'directory' };
    if (this.backend === 'direct') {
      const d = this.disk.get(path);
      if (d === undefined) return { kind: 'missing' };
      if (d.length > this.maxFileSize) return { kind: 'answer', message: `${this.full(path)} is ${d.length} bytes, over this mount's limit of ${this.maxFileSize} for text.` };
      return isBinary(d) ? { kind: 'binary', size: d.length, bytes: d } : { kind: 'file', bytes: d, notes: [] };
    }
    const checked = this.check(path);
    if (checked.answer) return { kind: 'answer', message: checked.answer };
    const s = this.store.get(path);
    if (s) return { kind: 'file', bytes: s, notes: checked.notes };
    if (s === null) return { kind: 'missing' };
    const d = this.disk.get(path);
    if (d && isBinary(d)) return { kind: 'binary', size: d.length, bytes: d };
    if (d) return { kind: 'answer', message: `${this.full(path)} is ${d.length} bytes, over this mount's limit of ${this.maxFileSize} for text.` };
    return { kind: 'missing' };
  }

  async list(path: string, options: { recursive: boolean }): Promise<ListOutcome> {
    this.count('list');
    const files = this.filePaths();
    if (files.includes(path)) return { ok: true, entries: [this.entry(path)], passedOver: {} };
    if (!this.isDirectory(path)) return { ok: false, message: `${this.full(path)} does not exist; list its parent to see what is there.` };
    const entries = new Map<string, Entry>();
    for (const file of files) {
      if (!inside(file, path)) continue;
      const rest = path === '' ? file : file.slice(path.length + 1);
      const parts = rest.split('/');
      const upTo = options.recursive ? parts.length : 1;
      for (let i = 1; i <= upTo; i++) {
        const sub = parts.slice(0, i).join('/');
        const full = path === '' ? sub : `${path}/${sub}`;
        if (entries.has(full)) continue;
        entries.set(full, i === parts.length ? this.entry(full) : { path: full, kind: 'directory' });
      }
    }
    return { ok: true, entries: [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : 1)), passedOver: {} };
  }

  private entry(path: string): Entry {
    const bytes = (this.backend === 'store' ? this.store.get(path) : undefined) ?? this.disk.get(path);
    return {
      path,
      kind: 'file',
      size: bytes?.length ?? 0,
      ...(this.modified.has(path) ? { modified: this.modified.get(path) } : {}),
      ...(this.backend === 'store' ? { state: this.stateOf(path) } : {}),
    };
  }

  async *searchFiles(path: string): AsyncIterable<SearchFile> {
    this.count('searchFiles');
    for (const file of this.filePaths()) {
      if (!inside(file, path)) continue;
      const bytes = this.backend === 'store' ? this.store.get(file) : this.disk.get(file);
      if (!bytes) {
        // Disk-only (binary or over-size): offered as disk has it, for grep to list as skipped.
        const d = this.disk.get(file);
        if (d) yield d.length > this.maxFileSize ? { path: file, large: largeOf(d) } : { path: file, bytes: d };
        continue;
      }
      if (bytes.length > this.maxFileSize) yield { path: file, large: largeOf(bytes) };
      else yield { path: file, bytes };
      const d = this.disk.get(file);
      if (this.backend === 'store' && this.conflicts.has(file) && d) yield { path: file, bytes: d, version: 'conflicting-disk' };
    }
  }

  async commit(changes: readonly Change[], intent?: CommitIntent): Promise<{ ok: true; report: Report } | { ok: false; message: string }> {
    this.count('commit');
    if (this.readOnly) return { ok: false, message: `Mount ${this.name} is read-only.` };
    const current = (p: string) => (this.backend === 'store' ? (this.store.get(p) ?? null) : (this.disk.get(p) ?? null));
    const files = this.filePaths();
    for (const c of changes) {
      const now = current(c.path);
      if (c.expected !== undefined && !same(now, c.expected)) {
        return { ok: false, message: `${this.full(c.path)} changed after it was read; read it again and redo the edit.` };
      }
      if (files.some((f) => f.startsWith(`${c.path}/`))) return { ok: false, message: `${this.full(c.path)} is a directory.` };
      const parts = c.path.split('/');
      for (let i = 1; i < parts.length; i++) {
        const parent = parts.slice(0, i).join('/');
        if (files.includes(parent) && current(parent) !== null) {
          return { ok: false, message: `${this.full(parent)} is a file, so ${this.full(c.path)} cannot be inside it.` };
        }
      }
      if (c.bytes === null && now === null) return { ok: false, message: `${this.full(c.path)} does not exist; there is nothing to delete.` };
    }
    const started = this.seq;
    for (const c of changes) {
      if (this.backend === 'direct') {
        if (c.bytes === null) this.disk.delete(c.path);
        else this.disk.set(c.path, c.bytes);
      } else {
        if (c.movedFrom !== undefined) {
          // History follows the path: from's versions before this commit, beside any the target had, by time.
          const moved = (this.versions.get(c.movedFrom) ?? []).filter((v) => Number(v.id) <= started);
          this.versions.set(c.path, [...moved, ...(this.versions.get(c.path) ?? [])].sort((a, b) => Number(a.id) - Number(b.id)));
        }
        if (c.bytes === null && !this.disk.has(c.path)) this.store.delete(c.path);
        else {
          this.store.set(c.path, c.bytes);
          this.written.add(c.path);
        }
        this.record(c.path, intent?.source ?? (c.bytes === null ? 'delete' : 'write'), c.bytes);
      }
    }
    if (this.backend === 'store' && this.autoMaterialize) {
      const pushed = this.push(changes.map((c) => c.path), false);
      return { ok: true, report: { materialized: pushed } };
    }
    return { ok: true, report: {} };
  }

  private push(paths: readonly string[], force: boolean): Report {
    const written: string[] = [];
    const deleted: string[] = [];
    const skipped: { path: string; reason: string }[] = [];
    let unchanged = 0;
    for (const path of paths) {
      const s = this.store.get(path);
      const d = this.disk.get(path);
      if (s === undefined || same(s, d)) {
        unchanged++;
        continue;
      }
      if (this.conflicts.has(path) && !force) {
        skipped.push({ path: this.full(path), reason: 'in conflict; sync to keep disk’s copy, or materialize with force to write the workspace’s' });
        continue;
      }
      if (s === null) {
        this.disk.delete(path);
        this.store.delete(path);
        this.agreed.set(path, null);
        deleted.push(this.full(path));
      } else {
        this.disk.set(path, s);
        this.agreed.set(path, s);
        written.push(this.full(path));
      }
      this.record(path, 'materialize', s);
      this.conflicts.delete(path);
    }
    return { written, unchanged, deleted, skipped };
  }

  async sync(path: string | undefined): Promise<{ ok: true; report: Report } | { ok: false; message: string }> {
    this.count('sync');
    if (this.backend === 'direct') return { ok: true, report: { note: 'A direct mount reads disk as it is; there is nothing to take in.' } };
    const scope = path ?? '';
    const paths = [...new Set([...this.disk.keys(), ...this.store.keys()])].filter((p) => inside(p, scope)).sort();
    const adopted: string[] = [];
    const gaveUp: string[] = [];
    const kept: string[] = [];
    for (const p of paths) {
      const d = this.disk.get(p);
      const s = this.store.get(p);
      if (same(d, s)) continue;
      const drafted = s !== undefined && !same(s, this.agreed.get(p));
      const diskChanged = this.agreed.has(p) ? !same(d, this.agreed.get(p)) : d !== undefined;
      // A draft disk has not changed is kept: only a conflict gives the draft up (it stays in history).
      if (drafted && !diskChanged) {
        kept.push(this.full(p));
        continue;
      }
      if (drafted) gaveUp.push(this.full(p));
      this.takeDisk(p, 'disk');
      adopted.push(this.full(p));
    }
    return { ok: true, report: { adopted, gaveUp, ...(kept.length > 0 ? { drafts: kept, note: keptDraftsNote } : {}) } };
  }

  /** The workspace takes disk's copy of `path` (recorded as a version from `source`). */
  private takeDisk(p: string, source: VersionSource): void {
    const d = this.disk.get(p);
    const s = this.store.get(p);
    if (d !== undefined && this.storable(d)) this.store.set(p, d);
    else this.store.delete(p);
    this.agreed.set(p, d ?? null);
    this.conflicts.delete(p);
    const now = this.store.get(p) ?? null;
    if (!(s === undefined && now === null)) this.record(p, source, now);
  }

  async drafts(path: string): Promise<{ ok: true; drafts: Draft[] }> {
    this.count('drafts');
    const paths = [...new Set([...this.disk.keys(), ...this.store.keys()])].filter((p) => inside(p, path)).sort();
    const drafts: Draft[] = [];
    for (const p of paths) {
      if (this.store.get(p) !== undefined) this.check(p);
      const state = this.stateOf(p);
      if (state === 'conflict') drafts.push({ path: p, kind: 'conflict' });
      else if (state === 'workspace-deleted') drafts.push({ path: p, kind: 'deletion' });
      else if (state === 'workspace-draft' || state === 'disk-missing-provenance-unknown') drafts.push({ path: p, kind: 'draft' });
    }
    return { ok: true, drafts };
  }

  async readVersion(path: string, version: VersionName): Promise<ReadOutcome> {
    this.count('readVersion');
    const asOutcome = (bytes: Uint8Array | null | undefined): ReadOutcome => {
      if (bytes === null || bytes === undefined) return { kind: 'missing' };
      return isBinary(bytes) ? { kind: 'binary', size: bytes.length } : { kind: 'file', bytes, notes: [] };
    };
    if (version === 'disk') return asOutcome(this.disk.get(path));
    if (version === 'agreed') {
      if (!this.agreed.has(path)) return { kind: 'answer', message: noAgreedVersion(this.full(path)) };
      return asOutcome(this.agreed.get(path));
    }
    const found = this.versions.get(path)?.find((v) => v.id === version);
    if (found === undefined) return { kind: 'answer', message: noSuchVersion(this.full(path), version) };
    return asOutcome(found.bytes);
  }

  async history(path: string): Promise<{ ok: true; versions: Version[] } | { ok: false; message: string }> {
    this.count('history');
    if (path === '' || (this.isDirectory(path) && !this.versions.has(path))) {
      return { ok: false, message: `${this.full(path)} is a directory; history lists one file's versions.` };
    }
    const list = this.versions.get(path) ?? [];
    return { ok: true, versions: list.map(({ bytes: _, ...v }) => v).reverse() };
  }

  async discard(path: string): Promise<{ ok: true; discarded: string[]; report: Report } | { ok: false; message: string }> {
    this.count('discard');
    if (this.readOnly) return { ok: false, message: `Mount ${this.name} is read-only.` };
    const drafted = await this.drafts(path);
    for (const d of drafted.drafts) this.takeDisk(d.path, 'discard');
    return { ok: true, discarded: drafted.drafts.map((d) => d.path), report: {} };
  }

  async materialize(options: { path?: string; force: boolean }): Promise<{ ok: true; report: Report }> {
    this.count('materialize');
    if (this.backend === 'direct') return { ok: true, report: { note: 'A direct mount writes disk directly; there are no drafts to push.' } };
    if (this.readOnly) return { ok: true, report: { note: 'A read-only mount pushes nothing.' } };
    const scope = options.path ?? '';
    const paths = [...this.store.keys()].filter((p) => inside(p, scope)).sort();
    return { ok: true, report: this.push(paths, options.force) };
  }

  async status(): Promise<Report> {
    this.count('status');
    const base = { backend: this.backend, root: `memory:/${this.name}`, readOnly: this.readOnly };
    if (this.backend === 'direct') return base;
    const all = [...new Set([...this.disk.keys(), ...this.store.keys()])].sort();
    return {
      ...base,
      branch: 'main',
      drafts: all.filter((p) => this.stateOf(p) === 'workspace-draft').map((p) => this.full(p)),
      conflicts: [...this.conflicts].sort().map((p) => ({ path: this.full(p), waysOut: this.conflictNote(p) })),
      pendingDeletions: all.filter((p) => this.stateOf(p) === 'workspace-deleted').map((p) => this.full(p)),
      passedOver: {},
    };
  }
}

/** A workspace of in-memory mounts. */
export function memoryWorkspace(mounts: readonly MemoryMountOptions[]): Workspace & { readonly mounts: readonly MemoryMount[] } {
  const made = mounts.map((m) => new MemoryMount(m));
  return { mounts: made, hasDirectMount: made.some((m) => m.backend === 'direct') };
}
