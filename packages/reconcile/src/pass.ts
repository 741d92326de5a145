/**
 * A pass (README, "Passes and pushes"): observe disk for a scope, then decide and record every path at
 * once. Observation is the only asynchronous step; deciding and recording never yield,
 * so the store records read for a decision are the ones its writes replace. If the
 * selected branch changes while disk is observed, gather again; after
 * {@link MAX_REGATHERS} more tries, give up and decide nothing.
 */
import { FROM_DISK, type RecordChange, changeRecorder, recordChanges, recordsDiffer } from './apply.ts';
import { type MountContext, RECLAIM_EVERY, type Scope, type Work } from './context.ts';
import { type DecideInput, type Standing, type TakeDisk, decide } from './decide.ts';
import { type DiskView, sameTree } from './disk-view.ts';
import { gather, type Gathered, type Unchanged, unchangedFile, vouched } from './observe.ts';
import { resolvePending } from './pending.ts';
import type { ConflictKind, PathRecords, StoredPath, TreeEntry, VersionCause } from './ports.ts';
import { type PathReport, pathReport } from './report.ts';
import { BRANCH_KEPT_CHANGING, CANCELLED, unverifiedReason } from './wording.ts';

/** How many times a pass gathers again after the selected branch changed during a gather. */
export const MAX_REGATHERS = 3;

export { RECLAIM_EVERY } from './context.ts';

/** What to pass over. A cancelled pass gathers no further and decides nothing: it gives up. */
export interface PassRequest extends Work {
  readonly scope: Scope;
  /**
   * An explicit sync or discard of the scope (README, "Sync and discard"): what gives way
   * to disk's side, each report saying which workspace change was given up.
   */
  readonly takeDisk?: TakeDisk;
  /**
   * Accept a root that is not the directory last agreed under (a person's explicit sync
   * after moving the mount): record its identity and compare contents as usual.
   */
  readonly acceptNewRoot?: boolean;
  /**
   * Report the paths nothing moved for by count only (a directory's pass): a file whose
   * fingerprint, tree and evidence agree, with no mark or pending effect, would be decided
   * `synced` with nothing recorded, so it is counted in `counts.synced` and left out of
   * `paths` (README, "Passes and pushes"). For callers that report only what changed.
   */
  readonly unchangedByCount?: boolean;
  /**
   * With `unchangedByCount`: the counted paths' records as well, in `unchangedRecords`
   * (for a caller that needs each file's text but no report of it: a search's plan).
   */
  readonly listUnchanged?: boolean;
}

/** A pass that decided. */
export interface PassDone {
  readonly kind: 'done';
  /** The branch it decided for. */
  readonly branch: string;
  /**
   * Every path in scope, in path order, each in exactly one state — but for the unchanged
   * ones a pass asked for `unchangedByCount` counts in `unchanged` instead.
   */
  readonly paths: readonly PathReport[];
  /** How many `synced` paths are counted but not in `paths` (0 unless `unchangedByCount`). */
  readonly unchanged: number;
  /**
   * The counted paths' records as the pass decided them (their trees hold the files'
   * text), in walk order, where the pass was asked `listUnchanged`.
   */
  readonly unchangedRecords?: readonly StoredPath[];
  /** What the walk passed over, counted by reason (`{}` for named paths). */
  readonly passedOver: Readonly<Record<string, number>>;
  /** The same, one entry each (a passed-over directory once), for a caller counting part of it: a listing of one level. */
  readonly passedOverEntries: readonly { readonly path: string; readonly reason: string }[];
  /** Directories the walk entered (for listings). */
  readonly directories: readonly string[];
  /** Why the walk stopped early, when it did. */
  readonly incomplete: string | null;
  /** Why the root could not be used (every path then `unverified`), as a sentence. */
  readonly rootProblem: string | null;
  /** How many paths are in each state. */
  readonly counts: Readonly<Partial<Record<Standing, number>>>;
}

/** A pass that gave up because the selected branch kept changing; nothing was decided. */
export interface PassGaveUp {
  readonly kind: 'gave-up';
  /** {@link BRANCH_KEPT_CHANGING}. */
  readonly reason: string;
  /** How many gathers it made. */
  readonly gathers: number;
}

/** What a pass says. */
export type PassResult = PassDone | PassGaveUp;

/** Runs one pass. */
export async function runPass(ctx: MountContext, request: PassRequest): Promise<PassResult> {
  for (let gathers = 1; ; gathers++) {
    const branch = ctx.store.selectedBranch();
    const gathered = await gather(ctx, branch, request.scope, request.acceptNewRoot ?? false, request, request.unchangedByCount === true);
    if (request.signal?.aborted) return { kind: 'gave-up', reason: CANCELLED, gathers };
    if (ctx.store.selectedBranch() === branch) return settle(ctx, branch, request, gathered);
    if (gathers > MAX_REGATHERS) return { kind: 'gave-up', reason: BRANCH_KEPT_CHANGING, gathers };
  }
}

const NOTHING: PathRecords = { tree: null, evidence: null, mark: null };
const DISCARDED: VersionCause = { source: 'discard' };
/** The cause of the version a push's completed write or unlink records. */
export const MATERIALIZED: VersionCause = { source: 'materialize' };

/** Decides and records every gathered path, synchronously. */
function settle(ctx: MountContext, branch: string, request: PassRequest, gathered: Gathered): PassDone {
  const { store, mount } = ctx;
  const scope = request.scope;
  let views: Map<string, DiskView>;
  if (gathered.kind === 'root-problem') {
    views = new Map();
    const unobservable: DiskView = { kind: 'unobservable', reason: gathered.reason };
    const paths = scope.kind === 'paths' ? scope.paths : [...store.scan(branch, mount, scope.path)].map((s) => s.path);
    for (const path of paths) views.set(path, unobservable);
  } else {
    views = gathered.views;
  }
  const unchanged = gathered.kind === 'observed' && gathered.unchanged !== undefined ? stillUnchanged(ctx, branch, scope, gathered.unchanged, views, request.listUnchanged === true) : null;

  let stored = readAll(ctx, branch, scope, views);
  const settledByEffect = resolveStale(ctx, branch, views, stored);
  if (settledByEffect !== null) stored = readAll(ctx, branch, scope, views);

  const recordRoot =
    gathered.kind === 'observed' && store.rootIdentity(mount) !== gathered.rootIdentity
      ? () => {
          store.setRootIdentity(mount, gathered.rootIdentity);
          return true;
        }
      : undefined;
  // Each change goes to the recorder as it is decided: where the store's barriers are
  // atomic it is written at once, so no path's change is held until the last is decided.
  const recorder = changeRecorder(ctx, { blobsPut: gathered.kind === 'observed' && gathered.blobsPut, extra: recordRoot });
  const reports: PathReport[] = [];
  // The gather's garbage (every file's bytes, packed copies, stats) is dead now: collected
  // before deciding makes more (see ReconcilerOptions.reclaim).
  const reclaim = ctx.reclaim;
  if (reclaim !== undefined && views.size >= RECLAIM_EVERY && gathered.kind === 'observed' && gathered.blobsPut) reclaim(true);
  for (const [path, disk] of inPathOrder(views)) {
    if (reclaim !== undefined && reports.length > 0 && reports.length % RECLAIM_EVERY === 0) reclaim(false);
    const records = stored.get(path) ?? { path, ...NOTHING, pending: null };
    // The decision's input named field by field: no copy of every record per path.
    const inFlight = ctx.inFlight.has(path);
    const input: { -readonly [K in keyof DecideInput]: DecideInput[K] } = {
      tree: records.tree,
      evidence: records.evidence,
      mark: records.mark,
      disk: inFlight ? { kind: 'unobservable', reason: unverifiedReason.effectInProgress } : disk,
    };
    if (records.agreedElsewhere !== undefined) input.agreedElsewhere = records.agreedElsewhere;
    if (request.takeDisk && !inFlight) input.takeDisk = request.takeDisk;
    const decision = decide(input);
    const before: PathRecords = { tree: records.tree, evidence: records.evidence, mark: records.mark };
    if (recordsDiffer(before, decision.next)) {
      const announce = !sameTree(before.tree, decision.next.tree) || decision.gaveUp !== null;
      const cause: VersionCause = request.takeDisk === 'discard' && decision.gaveUp !== null ? DISCARDED : FROM_DISK;
      recorder.add({ path, branch, before, after: decision.next, announce, cause });
    }
    const settled = decision.settled ?? settledByEffect?.get(path) ?? null;
    reports.push(pathReport(path, disk, settled === decision.settled ? decision : { ...decision, settled }, ctx.readOnly));
  }
  recorder.finish();

  const counts: Partial<Record<Standing, number>> = {};
  // The states in the order a report of every path meets them: the unchanged ones' `synced` where their first path falls.
  const firstUnchanged = unchanged === null || unchanged.count === 0 ? null : unchanged.first;
  for (const r of reports) {
    if (firstUnchanged !== null && counts.synced === undefined && firstUnchanged < r.path) counts.synced = 0;
    counts[r.state] = (counts[r.state] ?? 0) + 1;
  }
  if (firstUnchanged !== null) counts.synced = (counts.synced ?? 0) + (unchanged?.count ?? 0);
  return {
    kind: 'done',
    branch,
    paths: reports,
    unchanged: unchanged?.count ?? 0,
    ...(unchanged?.records !== undefined ? { unchangedRecords: unchanged.records } : {}),
    passedOver: gathered.kind === 'observed' ? gathered.passedOver : {},
    passedOverEntries: gathered.kind === 'observed' ? gathered.passedOverEntries : [],
    directories: gathered.kind === 'observed' ? gathered.directories : [],
    incomplete: gathered.kind === 'observed' ? gathered.incomplete : null,
    rootProblem: gathered.kind === 'root-problem' ? gathered.reason : null,
    counts,
  };
}

/**
 * How many of the files gathered as unchanged still are, by the records as they are now
 * (the first of them in path order, for the counts' order). One that no longer is — a
 * record written meanwhile, a push under way — gets the view its gather-time evidence
 * vouched for, and is decided with the rest. Where the store serves the very scan the
 * gather read, nothing was written since and every one still is.
 */
function stillUnchanged(ctx: MountContext, branch: string, scope: Scope, u: Unchanged, views: Map<string, DiskView>, list: boolean): { count: number; first: string; records?: StoredPath[] } {
  const n = u.files.length;
  let first: string | null = null;
  const records: StoredPath[] | undefined = list ? [] : undefined;
  const unchangedAt = (i: number, s: StoredPath) => {
    const path = u.files[i].path;
    if (first === null || path < first) first = path;
    records?.push(s);
  };
  const now = scope.kind === 'directory' ? ctx.store.scan(branch, ctx.mount, scope.path) : null;
  if (now === u.scan && ctx.inFlight.size === 0) {
    for (let i = 0; i < n; i++) unchangedAt(i, u.stored[i]);
    return { count: n, first: first ?? '', ...(records ? { records } : {}) };
  }
  const fresh = new Map<string, StoredPath>();
  if (now !== null) for (const s of now) fresh.set(s.path, s);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const { path, meta } = u.files[i];
    const s = fresh.get(path);
    if (s !== undefined && !ctx.inFlight.has(path) && unchangedFile(meta, s)) {
      count++;
      unchangedAt(i, s);
    } else {
      // Its D as gathered: the fingerprint vouched for the text then.
      views.set(path, vouched(meta, u.stored[i].evidence) as DiskView);
    }
  }
  return { count, first: first ?? '', ...(records ? { records } : {}) };
}

/** The views in path order: the map itself where a walk gave them so (the common case: no copy of every entry), else sorted. */
function inPathOrder(views: Map<string, DiskView>): Iterable<[string, DiskView]> {
  let last: string | null = null;
  for (const path of views.keys()) {
    if (last !== null && last > path) return [...views].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    last = path;
  }
  return views;
}

/** The store's records for every path in scope: one scan for a directory, one read per named path. */
function readAll(ctx: MountContext, branch: string, scope: Scope, views: Map<string, DiskView>): Map<string, StoredPath> {
  const out = new Map<string, StoredPath>();
  if (scope.kind === 'directory') {
    for (const s of ctx.store.scan(branch, ctx.mount, scope.path)) if (views.has(s.path)) out.set(s.path, s);
  } else {
    for (const path of views.keys()) out.set(path, ctx.store.read(branch, ctx.mount, path));
  }
  return out;
}

/**
 * Resolves pending effects left by a process that stopped (not by a push of this process,
 * which is still in flight): record each resolution, barrier, clear, barrier. Returns null
 * when there were none, else the conflicts on `branch` that a completed forced effect settled.
 */
function resolveStale(
  ctx: MountContext,
  branch: string,
  views: Map<string, DiskView>,
  stored: Map<string, StoredPath>,
): Map<string, ConflictKind> | null {
  const { store, mount } = ctx;
  const resolved: RecordChange[] = [];
  const pushed: { path: string; branch: string; entry: TreeEntry | null }[] = [];
  for (const [path, s] of stored) {
    const pending = s.pending;
    if (pending === null || ctx.inFlight.has(path)) continue;
    const own = pending.branch === branch ? s : store.read(pending.branch, mount, path);
    const before: PathRecords = { tree: own.tree, evidence: own.evidence, mark: own.mark };
    const view = views.get(path);
    if (view === undefined) continue;
    const resolution = resolvePending(pending, before, view);
    if (resolution.kind === 'unresolved') continue;
    resolved.push({ path, branch: pending.branch, before, after: resolution.next, announce: false, cause: FROM_DISK });
    // A push's effect found done: its materialize version, with the outcome (addVersion is idempotent).
    if (resolution.kind === 'completed' && pending.kind !== 'adopt') {
      pushed.push({ path, branch: pending.branch, entry: pending.kind === 'write' ? { hash: pending.hash, size: pending.size, mode: pending.mode } : null });
    }
  }
  if (resolved.length === 0) return null;
  recordChanges(ctx, resolved, {
    blobsPut: true,
    extra: () => {
      for (const v of pushed) store.addVersion(v.branch, mount, v.path, v.entry, MATERIALIZED);
      return pushed.length > 0;
    },
  });
  for (const r of resolved) store.setPending(mount, r.path, null);
  store.barrier();
  const settled = new Map<string, ConflictKind>();
  for (const r of resolved) {
    const was = r.before.mark?.conflict ?? null;
    if (r.branch === branch && was !== null && (r.after.mark?.conflict ?? null) === null) settled.set(r.path, was.kind);
  }
  return settled;
}
