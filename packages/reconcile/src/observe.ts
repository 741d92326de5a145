/**
 * Observation: the only asynchronous step of a pass. It finds D for every path in scope,
 * reading and hashing only files whose fingerprint the evidence does not vouch for, and
 * storing their text as blobs at once (so a walk never holds every file's bytes).
 * Never read an unavailable root, an unreadable region or a capped walk as "deleted".
 */
import { GATHER_RECLAIM_EVERY, type MountContext, type Scope, type Work, inDirectory, parentOf, yielder } from './context.ts';
import type { DiskView } from './disk-view.ts';
import type { Evidence, FileMeta, StoredPath, Walk } from './ports.ts';
import { unverifiedReason } from './wording.ts';

/** What a gather found. */
export type Gathered =
  /** The root is missing, unreadable or replaced: every path in scope is `unverified` with `reason`. */
  | { readonly kind: 'root-problem'; readonly reason: string }
  | {
      readonly kind: 'observed';
      readonly views: Map<string, DiskView>;
      readonly passedOver: Record<string, number>;
      /** The walk's own entries of what it passed over (none for named paths). */
      readonly passedOverEntries: Walk['passedOver'];
      readonly directories: readonly string[];
      readonly incomplete: string | null;
      /** The root's identity, to record when it is not the one on record yet. */
      readonly rootIdentity: string;
      /** Blobs were stored while observing: records that reference them wait for a barrier. */
      readonly blobsPut: boolean;
      /**
       * Where the caller asked for unchanged paths by count: the walked files the store's
       * records showed unchanged when gathered (see {@link unchangedFile}), with those
       * records, side by side — no view was made for them. Settling checks each against
       * the records as they are then; one that no longer is unchanged gets its view there.
       */
      readonly unchanged?: Unchanged;
    };

/** Walked files found unchanged, and the records that showed it (index for index). */
export interface Unchanged {
  readonly files: readonly { readonly path: string; readonly meta: FileMeta }[];
  readonly stored: readonly StoredPath[];
  /** The scan the records came from (a store serving the same scan again has had nothing written). */
  readonly scan: readonly StoredPath[];
}

/**
 * A walked file nothing has moved for: its stat's fingerprint is the evidence's (so the
 * bytes are the evidence's text, by the racy-clean rule a fingerprint keeps), the tree
 * holds that text with the same size and mode, and no mark or pending effect is recorded.
 * Deciding it would say `synced` and record nothing (decide's `agree`, the common case),
 * so a caller counting unchanged paths needs no view, decision or report for it.
 */
export function unchangedFile(meta: FileMeta, s: StoredPath): boolean {
  const p = s.evidence;
  const t = s.tree;
  return (
    p !== null &&
    p.kind === 'text' &&
    p.fingerprint !== null &&
    p.fingerprint === meta.fingerprint &&
    p.size === meta.size &&
    p.mode === meta.mode &&
    t !== null &&
    t.hash === p.hash &&
    t.size === meta.size &&
    (meta.mode === null || t.mode === meta.mode) &&
    s.mark === null &&
    s.pending === null
  );
}

/**
 * Observes every path of `scope` on disk, for `branch`'s records. `byCount`: leave the
 * unchanged files of a directory's walk out of the views (see {@link Unchanged}).
 */
export async function gather(ctx: MountContext, branch: string, scope: Scope, acceptNewRoot: boolean, work: Work = {}, byCount = false): Promise<Gathered> {
  const root = await ctx.disk.locateRoot();
  if (root.kind === 'unavailable') return { kind: 'root-problem', reason: unverifiedReason.rootUnavailable(root.reason) };
  const agreed = ctx.store.rootIdentity(ctx.mount);
  if (agreed !== null && agreed !== root.identity && !acceptNewRoot) {
    return { kind: 'root-problem', reason: unverifiedReason.rootReplaced };
  }
  const views = new Map<string, DiskView>();
  const blobs = { put: false };
  if (scope.kind === 'paths') {
    const pause = yielder(work);
    for (const [done, path] of scope.paths.entries()) {
      await pause();
      if (work.signal?.aborted) break;
      work.progress?.(done, scope.paths.length);
      if (views.has(path)) continue;
      views.set(path, await observeNamed(ctx, path, ctx.store.read(branch, ctx.mount, path).evidence, blobs));
    }
    return { kind: 'observed', views, passedOver: {}, passedOverEntries: [], directories: [], incomplete: null, rootIdentity: root.identity, blobsPut: blobs.put };
  }

  const dir = scope.path;
  // The store is read while disk is walked (a walk may go on off this thread).
  const walking = ctx.disk.walk(dir);
  let scanned: StoredPath[];
  try {
    const scan = ctx.store.scan(branch, ctx.mount, dir);
    scanned = Array.isArray(scan) ? (scan as StoredPath[]) : [...scan];
  } catch (err) {
    await walking.catch(() => undefined); // the walk ends before the failure is told
    throw err;
  }
  const walk = await walking;
  // Each walked file's stored records, and `met` marking the stored paths a walked file
  // accounted for: side by side where both come in path order (a walk does, and a store
  // may), else by a map of the scan.
  const met = new Uint8Array(scanned.length);
  const places = new StoredPlaces(scanned, walk.files);
  const toRead: { path: string; meta: FileMeta; evidence: Evidence | null }[] = [];
  const unchanged = byCount ? { files: [] as { path: string; meta: FileMeta }[], stored: [] as StoredPath[], scan: scanned } : undefined;
  const total = walk.files.length;
  for (const file of walk.files) {
    if (!inDirectory(file.path, dir)) continue;
    const i = places.of(file.path);
    const s = i === undefined ? undefined : scanned[i];
    if (i !== undefined) met[i] = 1;
    if (unchanged !== undefined && s !== undefined && !ctx.inFlight.has(file.path) && unchangedFile(file.meta, s)) {
      unchanged.files.push(file);
      unchanged.stored.push(s);
      continue;
    }
    const p = s?.evidence ?? null;
    const known = vouched(file.meta, p);
    if (known !== null) {
      views.set(file.path, known);
    } else {
      // Its place kept in the walk's order, filled once read: the views stay in path order
      // (settling sorted a first sync's 42,000 views, a copy of every entry, when the
      // reads in flight finished out of order).
      views.set(file.path, UNREAD);
      toRead.push({ path: file.path, meta: file.meta, evidence: p });
    }
  }
  let done = total - toRead.length;
  work.progress?.(done, total);
  const pause = yielder(work);
  let read = 0;
  await inParallel(toRead, READS_IN_FLIGHT, async (f) => {
    await pause();
    if (work.signal?.aborted) return;
    views.set(f.path, await observeFile(ctx, f.path, f.meta, f.evidence, blobs));
    done++;
    work.progress?.(done, total);
    // Each read leaves its packed copy and its stat's strings behind: a gather of many
    // files lets the host collect them as it goes (see ReconcilerOptions.reclaim).
    if (++read % GATHER_RECLAIM_EVERY === 0) ctx.reclaim?.(false);
  });
  // The read buffers go with the reads (8 MiB where large files were read): a pass's
  // deciding and a server between passes do not hold them.
  scratch.length = 0;
  // Let go of the list (each file's stat): JavaScriptCore's profiling may keep a large array
  // it was handed alive after the call, and this one held every file's stat to the end of
  // the pass (about 8 MB of 42,000 files').
  toRead.length = 0;
  const passedOver: Record<string, number> = {};
  const passedOverPaths = new Set<string>();
  for (const entry of walk.passedOver) {
    passedOver[entry.reason] = (passedOver[entry.reason] ?? 0) + 1;
    passedOverPaths.add(entry.path);
  }
  const unreadable = new Map(walk.unreadable.map((u) => [u.path, u.reason] as const));
  for (let i = 0; i < scanned.length; i++) {
    if (met[i] === 1) continue;
    const { path, evidence: p } = scanned[i];
    if (views.has(path)) continue;
    const region = nearest(path, (q) => unreadable.has(q));
    if (region !== null) {
      views.set(path, { kind: 'unobservable', reason: unverifiedReason.region(region, unreadable.get(region) ?? '') });
    } else if (nearest(path, (q) => passedOverPaths.has(q)) !== null) {
      views.set(path, await observeNamed(ctx, path, p, blobs)); // held paths are checked even where a walk passes over them
    } else if (walk.incomplete !== null) {
      views.set(path, { kind: 'unobservable', reason: unverifiedReason.walkIncomplete(walk.incomplete) });
    } else {
      views.set(path, { kind: 'absent' });
    }
  }
  return {
    kind: 'observed',
    views,
    passedOver,
    passedOverEntries: walk.passedOver,
    directories: walk.directories,
    incomplete: walk.incomplete,
    rootIdentity: root.identity,
    blobsPut: blobs.put,
    ...(unchanged !== undefined ? { unchanged } : {}),
  };
}

/** Paths that ascend in plain string order, each unlike the one before. */
function ascending(items: readonly { readonly path: string }[]): boolean {
  for (let i = 1; i < items.length; i++) if (!(items[i - 1].path < items[i].path)) return false;
  return true;
}

/**
 * Where each walked path stands in the scan (asked in the walk's order), or undefined
 * where the store holds nothing for it: by walking the two side by side where both
 * ascend, else by a map of the scan. An object, not a closure: JavaScriptCore's call
 * caching keeps the last function a hot call site met, and a closure kept so held the
 * whole scan (every stored path's records, about 20 MB at 42,000 files) alive after the
 * pass — a grep's search began with it still there. A method is the class's one function.
 */
class StoredPlaces {
  private next = 0;
  private readonly byPath: Map<string, number> | null;

  constructor(
    private readonly scanned: readonly StoredPath[],
    files: readonly { readonly path: string }[],
  ) {
    if (ascending(scanned) && ascending(files)) this.byPath = null;
    else {
      this.byPath = new Map();
      for (let i = 0; i < scanned.length; i++) this.byPath.set(scanned[i].path, i);
    }
  }

  of(path: string): number | undefined {
    if (this.byPath !== null) return this.byPath.get(path);
    const { scanned } = this;
    let j = this.next;
    while (j < scanned.length && scanned[j].path < path) j++;
    this.next = j;
    return j < scanned.length && scanned[j].path === path ? j : undefined;
  }
}

/** A file's place in the views until its read fills it: only a cancelled gather leaves one, and its pass decides nothing. */
const UNREAD: DiskView = { kind: 'unobservable', reason: 'not read yet' };

/** How many file reads a walk's pass keeps in flight (disk latency, not CPU, bounds a first sync). */
const READS_IN_FLIGHT = 8;

/** Runs `work` over `items` with at most `limit` in flight; after a failure, starts no more. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      try {
        await work(items[next++]);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** `path` itself or its nearest ancestor (up to the root `''`) that `has` holds, or null. */
function nearest(path: string, has: (p: string) => boolean): string | null {
  let p = path;
  for (;;) {
    if (has(p)) return p;
    if (p === '') return null;
    p = parentOf(p);
  }
}

/** D for a path named by the caller: a stat, then a read only when the evidence does not vouch. */
export async function observeNamed(
  ctx: MountContext,
  path: string,
  evidence: Evidence | null,
  blobs: { put: boolean },
): Promise<DiskView> {
  const seen = await ctx.disk.stat(path);
  if (seen.kind === 'absent') return { kind: 'absent' };
  if (seen.kind === 'unobservable') return { kind: 'unobservable', reason: unverifiedReason.path(seen.reason) };
  return observeFile(ctx, path, seen.meta, evidence, blobs);
}

async function observeFile(
  ctx: MountContext,
  path: string,
  meta: FileMeta,
  evidence: Evidence | null,
  blobs: { put: boolean },
): Promise<DiskView> {
  const known = vouched(meta, evidence);
  if (known !== null) return known;
  if (meta.size > ctx.maxFileSize) return tooLarge(meta);
  // The bytes go no further than this call (hashed, stored, let go): a buffer of the
  // pool takes them where the file fits one, and goes back when the blob is stored.
  const into = meta.size <= SCRATCH_BYTES ? (scratch.pop() ?? new Uint8Array(SCRATCH_BYTES)) : undefined;
  try {
    const reading = await ctx.disk.read(path, ctx.maxFileSize, into);
    if (reading.kind === 'absent') return { kind: 'absent' };
    if (reading.kind === 'unobservable') return { kind: 'unobservable', reason: unverifiedReason.path(reading.reason) };
    const m = reading.meta;
    if (reading.bytes === null) return tooLarge(m);
    const hash = ctx.hash(reading.bytes);
    if (ctx.isBinary(reading.bytes)) {
      return { kind: 'opaque', why: 'binary', id: hash, size: m.size, mode: m.mode, fingerprint: m.fingerprint };
    }
    if (ctx.store.putBlobSoon !== undefined) await ctx.store.putBlobSoon(hash, reading.bytes);
    else ctx.store.putBlob(hash, reading.bytes);
    blobs.put = true;
    // The walk's fingerprint where the read's stat gave the same one: one string kept, not two.
    return { kind: 'text', hash, size: m.size, mode: m.mode, fingerprint: m.fingerprint === meta.fingerprint ? meta.fingerprint : m.fingerprint };
  } finally {
    if (into !== undefined && scratch.length < READS_IN_FLIGHT) scratch.push(into);
  }
}

/**
 * Files up to this size are read into a buffer of {@link scratch}, not a fresh one: a first
 * sync of 42,000 files (243 MB) read 0.15–0.3 s sooner so, a fresh buffer costing a page
 * fault a page. Larger files get their own buffer.
 */
const SCRATCH_BYTES = 1 << 20;
/** Read buffers no read holds now, at most one for each read in flight. */
const scratch: Uint8Array[] = [];

/** D without reading, where the evidence's fingerprint vouches for the bytes; else null. */
export function vouched(meta: FileMeta, evidence: Evidence | null): DiskView | null {
  if (evidence === null || evidence.kind === 'absent' || evidence.fingerprint === null || evidence.fingerprint !== meta.fingerprint) {
    return null;
  }
  return evidence.kind === 'text'
    ? { kind: 'text', hash: evidence.hash, size: meta.size, mode: meta.mode, fingerprint: meta.fingerprint }
    : { kind: 'opaque', why: evidence.why, id: evidence.id, size: meta.size, mode: meta.mode, fingerprint: meta.fingerprint };
}

function tooLarge(meta: FileMeta): DiskView {
  return { kind: 'opaque', why: 'too-large', id: meta.fingerprint, size: meta.size, mode: meta.mode, fingerprint: meta.fingerprint };
}
