/**
 * An in-memory disk port for one mount. A person's edits are durable at once; the
 * system's writes and unlinks are visible at once but durable only after
 * `syncDirectory`, and a crash keeps or loses each unsynced one at random.
 *
 * Every version remembers who made it (`person`, `system`) and whether the model saw the
 * store agree with it; an effect that replaces a person's version the store never agreed
 * with, outside a forced push, is recorded as a violation ("a disk change overwritten
 * unseen").
 *
 * With a coarse clock it keeps time as FAT (2 s) or ext3 (1 s) does: a fingerprint is
 * inode, size and mtime and ctime truncated to the granularity, so a same-size save in
 * place within one tick keeps every field. It follows the racily-clean rule a host must
 * (the host README, "A person's save"): a stat within the granularity of the file's last
 * change gets a unique suffix, so it vouches for nothing, and the point-of-effect check
 * compares fingerprints without it — and, where the expectation is such a stat made by
 * a read, the bytes that read saw.
 */
import type {
  DiskPort,
  Expectation,
  FileMeta,
  Observation,
  Reading,
  RootLocation,
  UnlinkResult,
  Walk,
  WriteResult,
} from '../../src/index.ts';
import type { Faults } from './faults.ts';

/** How a coarse file system keeps time: timestamps truncated to this many ms. */
export interface CoarseClock {
  readonly granularityMs: number;
}

/** One state of a path on disk (`bytes: null`: no file). */
export interface Version {
  readonly bytes: Uint8Array | null;
  readonly mode: number | null;
  /** The fingerprint every stat of this version shows (a racy stat adds a unique suffix). */
  readonly fingerprint: string;
  readonly ino: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly by: 'person' | 'system';
  /** The store agreed with this content at some step end (set by the model). */
  agreed: boolean;
  readonly serial: number;
}

const SWAP = /(\.swp|~)$/;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
const IGNORED_DIR = 'ignored';

/** The fake disk. */
export class FakeDisk implements DiskPort {
  private current = new Map<string, Version>();
  private durable = new Map<string, Version>();
  private unsynced = new Set<string>();
  private serial = 0;
  rootAvailable = true;
  rootIdentity = 'root-1';
  /** Files whose bytes cannot be read (stat still works). */
  readonly unreadableFiles = new Set<string>();
  /** Directories that cannot be entered. */
  readonly unreadableDirs = new Set<string>();
  /** A walk stops after this many files. */
  cap = Number.POSITIVE_INFINITY;
  /** While true, effects may replace unagreed person versions (a forced push). */
  forceAllowed = false;
  /** Overwrites of a person's change the store never saw. */
  readonly violations: string[] = [];
  /** Called at every observation (tests switch branches here). */
  onObserve: (() => void) | null = null;
  /** Called when a gather starts (each pass locates the root first). */
  onLocateRoot: (() => void) | null = null;
  /** Awaited by each effect before it acts (tests hold a push in flight with it). */
  effectGate: Promise<void> | null = null;
  /** Called before each effect's check (tests make a person's concurrent edit here). */
  beforeEffect: ((path: string) => void) | null = null;
  /** A contract check run at every call (e.g. the store holds no unbarriered record). */
  onCall: ((where: string) => void) | null = null;
  /** Counts of calls, for tests. */
  readonly counts = { stat: 0, read: 0, walk: 0, write: 0, unlink: 0, syncDirectory: 0, racy: 0 };
  /** The clock (ms), advanced by tests. */
  now = 0;
  private inos = 0;
  private suffixes = 0;
  /** The bytes each read saw, by the racy fingerprint it answered with. */
  private readonly racyReads = new Map<string, Uint8Array>();

  constructor(
    private readonly faults: Faults | null = null,
    private readonly coarse: CoarseClock | null = null,
  ) {}

  /** Time passes. */
  advance(ms: number): void {
    this.now += ms;
  }

  private truncated(ms: number): number {
    return this.coarse === null ? ms : Math.floor(ms / this.coarse.granularityMs) * this.coarse.granularityMs;
  }

  private tick(where: string): void {
    this.onCall?.(where);
    this.faults?.tick(`disk.${where}`);
  }

  /** A new version: a new file (inode) unless `ino` keeps the one there (a save in place); `mtimeMs` kept by a chmod. */
  private version(bytes: Uint8Array | null, mode: number | null, by: Version['by'], keep: { ino?: number; mtimeMs?: number } = {}): Version {
    const serial = ++this.serial;
    const ino = keep.ino ?? ++this.inos;
    const mtimeMs = keep.mtimeMs ?? this.now;
    const ctimeMs = this.now;
    const fingerprint =
      this.coarse === null ? `fp${serial}` : `${ino}:${bytes?.length ?? 0}:${this.truncated(mtimeMs)}:${this.truncated(ctimeMs)}`;
    return { bytes, mode, fingerprint, ino, mtimeMs, ctimeMs, by, agreed: false, serial };
  }

  /** True where a stat now is within the granularity of the version's last change. */
  private racy(v: Version): boolean {
    return this.coarse !== null && this.now - this.truncated(Math.max(v.mtimeMs, v.ctimeMs)) < this.coarse.granularityMs;
  }

  private meta(v: Version): FileMeta {
    const mtimeMs = this.coarse === null ? v.serial : this.truncated(v.mtimeMs);
    const ctimeMs = this.coarse === null ? v.serial : this.truncated(v.ctimeMs);
    let fingerprint = v.fingerprint;
    if (this.racy(v)) {
      this.counts.racy++;
      fingerprint = `${v.fingerprint}~${++this.suffixes}`;
    }
    return { size: v.bytes!.length, mtimeMs, ctimeMs, mode: v.mode, fingerprint };
  }

  /** The version at `path` now (null: never existed). */
  at(path: string): Version | null {
    return this.current.get(path) ?? null;
  }

  /** The bytes at `path` now, or null. */
  bytesAt(path: string): Uint8Array | null {
    return this.current.get(path)?.bytes ?? null;
  }

  /** Every path that has a version (present or deleted). */
  paths(): string[] {
    return [...this.current.keys()];
  }

  /** Paths with unsynced effects. */
  unsyncedPaths(): string[] {
    return [...this.unsynced];
  }

  // A person's edits: durable at once.

  /** A person's save: by rename (a new file) or `inPlace` (the same inode, truncated and written). */
  personWrite(path: string, bytes: Uint8Array, mode: number | null = 0o644, inPlace = false): void {
    const there = this.current.get(path);
    const ino = inPlace && there && there.bytes !== null ? there.ino : undefined;
    this.setDurable(path, this.version(bytes, ino === undefined ? mode : there!.mode, 'person', { ino }));
  }

  personDelete(path: string): void {
    if (this.current.get(path)?.bytes == null) return;
    this.setDurable(path, this.version(null, null, 'person'));
  }

  /** A mode change: same bytes, a new fingerprint; who made the bytes is unchanged. */
  personChmod(path: string, mode: number): void {
    const v = this.current.get(path);
    if (!v || v.bytes === null) return;
    const next = this.version(v.bytes, mode, v.by, { ino: v.ino, mtimeMs: v.mtimeMs });
    next.agreed = v.agreed;
    this.setDurable(path, next);
  }

  private setDurable(path: string, v: Version): void {
    this.current.set(path, v);
    this.durable.set(path, v);
    this.unsynced.delete(path);
  }

  /** The process died: each unsynced effect is kept or lost. */
  crash(random: () => number): void {
    for (const path of this.unsynced) {
      if (random() < 0.5) this.durable.set(path, this.current.get(path)!);
      else {
        const old = this.durable.get(path);
        if (old) this.current.set(path, old);
        else this.current.delete(path);
      }
    }
    this.unsynced.clear();
  }

  private blocked(path: string): string | null {
    if (this.unreadableFiles.has(path)) return 'permission denied';
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      if (this.unreadableDirs.has(parts.slice(0, i).join('/'))) return 'permission denied';
    }
    return null;
  }

  async locateRoot(): Promise<RootLocation> {
    this.tick('locateRoot');
    this.onLocateRoot?.();
    this.onObserve?.();
    return this.rootAvailable
      ? { kind: 'available', identity: this.rootIdentity }
      : { kind: 'unavailable', reason: 'the directory is missing' };
  }

  async stat(path: string): Promise<Observation> {
    this.tick('stat');
    this.counts.stat++;
    this.onObserve?.();
    if (!this.rootAvailable) return { kind: 'unobservable', reason: 'the mount root is missing' };
    const v = this.current.get(path);
    if (!v || v.bytes === null) return { kind: 'absent' };
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      if (this.unreadableDirs.has(parts.slice(0, i).join('/'))) return { kind: 'unobservable', reason: 'permission denied' };
    }
    return { kind: 'file', meta: this.meta(v) };
  }

  async read(path: string, maxBytes: number, into?: Uint8Array): Promise<Reading> {
    this.tick('read');
    this.counts.read++;
    this.onObserve?.();
    if (!this.rootAvailable) return { kind: 'unobservable', reason: 'the mount root is missing' };
    const v = this.current.get(path);
    if (!v || v.bytes === null) return { kind: 'absent' };
    const blocked = this.blocked(path);
    if (blocked) return { kind: 'unobservable', reason: blocked };
    const meta = this.meta(v);
    if (meta.fingerprint.includes('~')) this.racyReads.set(meta.fingerprint, v.bytes);
    if (v.bytes.length > maxBytes) return { kind: 'file', meta, bytes: null };
    // Into the caller's buffer where it fits, as the real disk reads: a caller that keeps
    // the bytes past its use of them sees them overwritten by its next read.
    if (into !== undefined && into.length >= v.bytes.length) {
      into.set(v.bytes);
      return { kind: 'file', meta, bytes: into.subarray(0, v.bytes.length) };
    }
    return { kind: 'file', meta, bytes: v.bytes };
  }

  async walk(dir: string): Promise<Walk> {
    this.tick('walk');
    this.counts.walk++;
    this.onObserve?.();
    const files: { path: string; meta: FileMeta }[] = [];
    const directories = new Set<string>();
    const passedOver = new Map<string, { path: string; reason: string; directory: boolean }>();
    const unreadable = new Map<string, { path: string; reason: string }>();
    let incomplete: string | null = null;
    const prefix = dir === '' ? '' : `${dir}/`;
    const first = dir === '' ? 1 : dir.split('/').length + 1;
    for (const [path, v] of this.current) {
      if (v.bytes === null || !path.startsWith(prefix)) continue;
      const parts = path.split('/');
      let skip = false;
      let d = parts.slice(0, first - 1).join('/');
      for (let i = first; i < parts.length && !skip; i++) {
        d = d === '' ? parts[i - 1] : `${d}/${parts[i - 1]}`;
        if (this.unreadableDirs.has(d)) {
          unreadable.set(d, { path: d, reason: 'permission denied' });
          skip = true;
        } else if (parts[i - 1] === IGNORED_DIR) {
          passedOver.set(d, { path: d, reason: 'ignored', directory: true });
          skip = true;
        } else directories.add(d);
      }
      if (skip) continue;
      if (SWAP.test(path)) {
        passedOver.set(path, { path, reason: 'editor swap or backup file', directory: false });
        continue;
      }
      if (files.length >= this.cap) {
        incomplete = `the scan stopped at its cap of ${this.cap} files`;
        break;
      }
      files.push({ path, meta: this.meta(v) });
    }
    return { files, directories: [...directories], passedOver: [...passedOver.values()], unreadable: [...unreadable.values()], incomplete };
  }

  private check(path: string, expect: Expectation): Observation | null {
    const v = this.current.get(path);
    const now: Observation = !v || v.bytes === null ? { kind: 'absent' } : { kind: 'file', meta: this.meta(v) };
    if (expect.kind === 'any') return null;
    if (expect.kind === 'absent') return now.kind === 'absent' ? null : now;
    if (now.kind !== 'file') return now;
    const base = (fp: string) => fp.split('~')[0];
    if (base(now.meta.fingerprint) !== base(expect.fingerprint)) return now;
    // A racy expectation vouches for nothing: where a read saw bytes under it, they must still be there.
    const saw = this.racyReads.get(expect.fingerprint);
    if (saw !== undefined && !sameBytes(saw, v!.bytes!)) return now;
    return null;
  }

  private replace(path: string, next: Version): void {
    const prev = this.current.get(path);
    if (prev && prev.by === 'person' && !prev.agreed && !this.forceAllowed) {
      this.violations.push(`${path}: a person's ${prev.bytes === null ? 'deletion' : 'change'} (version ${prev.serial}) was replaced unseen`);
    }
    this.current.set(path, next);
    this.unsynced.add(path);
  }

  async write(path: string, bytes: Uint8Array, options: { mode: number | null; expect: Expectation }): Promise<WriteResult> {
    this.tick('write');
    this.counts.write++;
    if (this.effectGate) await this.effectGate;
    this.beforeEffect?.(path);
    if (!this.rootAvailable) return { kind: 'failed', reason: 'the mount root is missing' };
    const refused = this.check(path, options.expect);
    if (refused) return { kind: 'refused', now: refused };
    const v = this.version(bytes, options.mode ?? 0o644, 'system');
    this.replace(path, v);
    this.tick('write.done');
    return { kind: 'done', meta: this.meta(v) };
  }

  async unlink(path: string, options: { expect: Expectation }): Promise<UnlinkResult> {
    this.tick('unlink');
    this.counts.unlink++;
    this.beforeEffect?.(path);
    if (!this.rootAvailable) return { kind: 'failed', reason: 'the mount root is missing' };
    const refused = this.check(path, options.expect);
    if (refused) return { kind: 'refused', now: refused };
    if (refused === null && this.current.get(path)?.bytes == null) return { kind: 'done' };
    this.replace(path, this.version(null, null, 'system'));
    this.tick('unlink.done');
    return { kind: 'done' };
  }

  async syncDirectory(dir: string): Promise<void> {
    this.tick('syncDirectory');
    this.counts.syncDirectory++;
    for (const path of [...this.unsynced]) {
      const i = path.lastIndexOf('/');
      if ((i < 0 ? '' : path.slice(0, i)) !== dir) continue;
      this.durable.set(path, this.current.get(path)!);
      this.unsynced.delete(path);
    }
    this.tick('syncDirectory.done');
  }
}
