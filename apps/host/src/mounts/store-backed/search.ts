/**
 * grep's files on a store-backed mount: which files to search is decided under the lock
 * (a pass over the path), their bytes are read afterwards, blobs a batch at a time. Where
 * the pattern requires some text (`@ws/grep`'s `indexTerms`), the store's index names the
 * blobs that may hold it; every other indexed blob is offered as `noMatch` (searched,
 * unread). The one rule: a search sees the workspace view — S where the workspace holds
 * the file (and a conflict's disk side), disk only for a file the workspace doesn't store
 * — and the index only ever leaves out files that have no matching line, so the answer is
 * the one a scan of every file gives.
 */
import type { StoredPath } from '@ws/reconcile';
import type { SearchFile, SearchQuery } from '@ws/tools';
import { ahead as aheadOf, BATCH_BYTES, BATCH_FILES, batchesOf, type Counted, ONE_SHOT_BATCH_FILES, type PrescanVerdict, prescanJob } from '../../grep/prescan.ts';
import { unpackBlob } from '../../store/blob-codec.ts';
import type { BlobIdLookup, BlobLookup } from '../../store/store.ts';
import { type StoreMountContext, scopeOf } from './context.ts';
import { passKeepingWalk, quietKeeping, quietPassOf, quietPlan } from './quiet.ts';
import { reportedItems, type SearchItem, sortedIfNeeded } from './search-items.ts';
import { NoMatchRun } from '../no-match-run.ts';
import { type NoLines, searchKey } from '../../grep/no-line-memo.ts';

export type { SearchItem } from './search-items.ts';

/**
 * Each plan made from a store's records, by the records it was made of (null: they
 * settled nothing). The store hands out the same records again (`Store.scan`'s cache)
 * until anything is written, here or by another connection, so a warm server's greps of
 * an unchanged tree plan once, and search it as the index's lookup names its blobs
 * ({@link searchStreamed}).
 */
const plans = new WeakMap<object, SearchItem[] | null>();

/** Plans made from records that were searched again (their row ids are then worth making: `idsOf`). */
const searchedAgain = new WeakSet<readonly SearchItem[]>();

/**
 * The plan a pass would make, from the records alone, for a store that holds what disk
 * does (a watched mount whose watcher has passed over all it saw): or undefined where the
 * records hold anything only a pass settles — an effect pending, a conflict, or a path the
 * store and the evidence tell different stories about — and the search passes after all.
 */
function planFromRecords(ctx: StoreMountContext, branch: string, dir: string): SearchItem[] | undefined {
  const { config } = ctx;
  const records = ctx.store.scan(branch, config.name, dir);
  const made = plans.get(records);
  if (made !== undefined) {
    // Searched again: its row ids are worth making now (`idsOf`).
    if (made !== null) searchedAgain.add(made);
    return made ?? undefined;
  }
  const plan = planOf(records);
  plans.set(records, plan ?? null);
  return plan;
}

/** The plan `records` make ({@link planFromRecords}), or undefined where they settle nothing. */
function planOf(records: Iterable<StoredPath>): SearchItem[] | undefined {
  const plan: SearchItem[] = [];
  for (const rec of records) {
    if (rec.pending !== null || rec.mark?.conflict) return undefined;
    if (rec.tree !== null) {
      plan.push({ path: rec.path, source: 'workspace', hash: rec.tree.hash, size: rec.tree.size });
      continue;
    }
    if (rec.mark?.tombstone) continue; // deleted in the workspace: not shown
    const evidence = rec.evidence;
    if (evidence === null || evidence.kind === 'absent') {
      if (rec.mark !== null) return undefined;
      continue;
    }
    if (evidence.kind === 'text') return undefined; // disk's text the branch doesn't hold: the pass decides
    // A file disk holds that the store doesn't keep (binary or too large): disk-only.
    plan.push({ path: rec.path, source: evidence.why === 'too-large' ? 'large' : 'disk' });
  }
  // The records come in the store's path order, which is this one: checked, not sorted again.
  return sortedIfNeeded(plan);
}

/** Two lists of files, each in path order, as one in path order (sorted where one is not). */
function inPathOrder(a: SearchItem[], b: SearchItem[]): SearchItem[] {
  const both: SearchItem[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j === b.length || (i < a.length && a[i].path < b[j].path)) both.push(a[i++]);
    else both.push(b[j++]);
  }
  return sortedIfNeeded(both);
}

/**
 * What a search's plan leaves its caller beside the files. `keep`: the quiet record to keep
 * once every file was read. `lookFor`: the index's lookup for the search's query
 * ({@link indexLookup}); where the plan comes from a quiet record, it is taken while a
 * Worker checks the record's stats, after the tree's rows, and left in `lookup` for
 * {@link searchBytes}, which otherwise takes it after the plan (the Worker idle
 * meanwhile). Taken there, it names the same files: the plan's blobs are all in the store
 * when the rows are read (no pass writes on that path), and a blob the index covers later
 * is one it named as not covered, which is read. Where the stats do not hold, it is
 * dropped: the pass that follows may store blobs it never saw.
 */
export interface PlanAfter {
  keep?: () => void;
  lookFor?: () => BlobLookup | undefined;
  lookup?: BlobLookup;
  /** The same lookup read as it goes (`Store.blobIdsMayHold`), for {@link searchStreamed}; undefined where the store has none. */
  streamFor?: () => BlobIdLookup | undefined;
}

/**
 * The store index's lookup for `query`, to be taken later (undefined: the index cannot
 * narrow it — no terms — or the lookup failed, and every file is read). Loads grep's
 * engine, which the search needs next anyway.
 */
export async function indexLookup(ctx: StoreMountContext, query: SearchQuery | undefined): Promise<Pick<PlanAfter, 'lookFor' | 'streamFor'>> {
  if (query === undefined) return {};
  // grep's engine loads with the first search, not with the mount.
  const terms = (await import('@ws/grep')).indexTerms(query.pattern, query);
  if (terms === undefined) return {};
  const caseInsensitive = query.caseInsensitive === true;
  const { store } = ctx;
  // The index is an optimisation: where a lookup fails, every file is read.
  const failed = (err: unknown) => {
    if (process.env.WS_DEBUG === '1') console.error(err);
    return undefined;
  };
  const lookFor = () => {
    try {
      return store.blobsMayHold(terms, caseInsensitive);
    } catch (err) {
      return failed(err);
    }
  };
  if (store.blobIdsMayHold === undefined) return { lookFor };
  const streamFor = () => {
    try {
      return store.blobIdsMayHold?.(terms, caseInsensitive);
    } catch (err) {
      return failed(err);
    }
  };
  return { lookFor, streamFor };
}

/**
 * The files grep looks at under `path` (contained already), decided under the lock: after
 * a pass over the path, or — `settled`: the mount's watcher keeps the store current — from
 * the records alone, or from a quiet record (the README, "A quiet sync"). Where a pass of
 * the whole mount may keep its record, `after.keep` is set: the caller keeps it once the
 * search has read every file (see `quietKeeping`).
 */
export async function searchPlan(ctx: StoreMountContext, path: string, settled: boolean, after: PlanAfter): Promise<SearchItem[]> {
  const { store, config } = ctx;
  const branch = store.selectedBranch();
  if (settled && ctx.checksDisk) {
    const scope = await scopeOf(ctx, path, branch);
    const fromRecords = scope.kind === 'directory' ? planFromRecords(ctx, branch, scope.path) : undefined;
    if (fromRecords !== undefined) return fromRecords;
  }
  const fromStore = () =>
    store.treeFiles(branch, config.name, path).map((f): SearchItem => ({ path: f.path, source: 'workspace', hash: f.entry.hash, size: f.entry.size }));
  if (!ctx.checksDisk) return fromStore();
  // The files nothing moved for come as their records, not as reports: a whole tree's
  // reports (and the views and decisions behind them) were some 15 MiB of a one-shot
  // grep's peak.
  const scope = await scopeOf(ctx, path, branch);
  // A whole-mount search where nothing changed since a pass kept its record: the store's
  // tree and that record say what the pass would ("A quiet sync" in the README).
  const whole = scope.kind === 'directory' && scope.path === '';
  if (whole) {
    const quiet = await quietPlan(ctx, branch, after.lookFor);
    if (quiet !== undefined) {
      if (quiet.lookup !== undefined) after.lookup = quiet.lookup;
      return quiet.plan;
    }
  }
  const passing = () => ctx.pass(scope, { unchangedByCount: true, listUnchanged: true });
  // A one-shot grep's peak is its pass: a walk's Worker would add its heap to it (the host
  // README, "A walk's Worker on two cores"), so this walk keeps to one thread.
  const result = await passKeepingWalk(ctx, whole, () => (ctx.oneShot ? ctx.walkingAlone(passing) : passing()));
  if (result.kind === 'gave-up') return fromStore();
  const quietPass = whole ? quietPassOf(ctx, result) : null;
  const reported = reportedItems(result.paths);
  const unchanged: SearchItem[] = [];
  for (const s of result.unchangedRecords ?? []) {
    if (s.tree !== null) unchanged.push({ path: s.path, source: 'workspace', hash: s.tree.hash, size: s.tree.size });
  }
  const plan = inPathOrder(reported, unchanged);
  // The reports and records are let go here, not when the pass's result goes out of
  // scope: a stale pointer to it on the stack (which JavaScriptCore scans conservatively)
  // kept every path's report, and the records they refer to, alive through the search.
  (result.paths as unknown[]).length = 0;
  if (result.unchangedRecords !== undefined) (result.unchangedRecords as unknown[]).length = 0;
  // A one-shot grep's pass leaves tens of MiB of garbage; collected before the search (and
  // its Workers) makes more, the search reuses the room instead of adding to it.
  if (ctx.oneShot) Bun.gc(true);
  if (whole) after.keep = quietKeeping(ctx, quietPass, null) ?? undefined;
  return plan;
}

/**
 * How many batches may fail in Workers (a Worker ended, stuck or slow on a loaded
 * machine) before a search reads and scans the rest itself.
 */
const AHEAD_MISSES = 3;

/**
 * How a search reads ahead: in Workers while `on`, how many batches failed there, whether
 * they read the store's file (which they are told to let go at the end), and the blobs a
 * long-running host's searches found no line of matching under this search (`noLines`).
 */
interface Ahead {
  readonly query: SearchQuery;
  on: boolean;
  misses: number;
  readFile: boolean;
  readonly noLines?: NoLines;
}

/** The index's verdict on each planned file, by its place in the plan: {@link RULED} and {@link CONFLICT_RULED}. */
interface Verdicts {
  readonly plan: readonly SearchItem[];
  readonly out: Uint8Array;
}
/** The index rules out the file's blob (it has no matching line). */
const RULED = 1;
/** The index rules out a conflict's disk side. */
const CONFLICT_RULED = 2;

/**
 * Each planned file's verdict, looked up once: a plan holds tens of thousands of files,
 * and a warm regex grep spent some 7 ms a call looking each one up three times. Looked up
 * as the batches are made (`judge`, before a file's size is asked), not all before the
 * first: a one-shot regex grep of the bench tree spent some 25 ms on its 42,000 files'
 * verdicts and batches while its Worker waited for the first. A file not judged yet reads
 * as not ruled out — read, never wrongly left out.
 */
function verdictsOf(plan: readonly SearchItem[], ruledOut: (hash: string) => boolean): Verdicts & { judge(i: number): void } {
  const out = new Uint8Array(plan.length);
  const judge = (i: number) => {
    const item = plan[i];
    if (item.source !== 'workspace') return;
    if (ruledOut(item.hash)) out[i] |= RULED;
    if (item.conflict && ruledOut(item.conflict.hash)) out[i] |= CONFLICT_RULED;
  };
  return { plan, out, judge };
}

/** One batch of the plan, read: the blobs by hash, or why they could not be read. */
interface ReadBatch {
  /** The batch's files, by their place in the plan. */
  readonly items: readonly number[];
  readonly blobs: Map<string, Uint8Array>;
  /** Files that no line of matches (a prescan said so), by hash. */
  readonly none: ReadonlySet<string>;
  /** Files scanned ahead for a full page, their scans alone (`Counted`), by hash. */
  readonly counted: ReadonlyMap<string, Counted['counted']>;
  readonly error?: unknown;
}

/**
 * The hashes of a batch to read: each planned blob the index does not rule out, once.
 */
function wantedOf(items: readonly number[], { plan, out }: Verdicts): string[] {
  const wanted = new Set<string>();
  for (const i of items) {
    const item = plan[i];
    if (item.source !== 'workspace') continue;
    if ((out[i] & RULED) === 0) wanted.add(item.hash);
    if (item.conflict && (out[i] & CONFLICT_RULED) === 0) wanted.add(item.conflict.hash);
  }
  return [...wanted];
}

/**
 * Reads one batch's blobs; with a query and Workers, searched ahead there — read there
 * too, straight from the store's file, where the store has one (else read here, packed,
 * and unpacked there) — so only files that may match come back. A blob a Worker did not
 * look at is read here.
 */
async function readBatch(ctx: StoreMountContext, items: readonly number[], verdicts: Verdicts, ahead: Ahead | undefined, ids?: BlobLookup['ids']): Promise<ReadBatch> {
  const none = new Set<string>();
  const counted = new Map<string, Counted['counted']>();
  const blobs = new Map<string, Uint8Array>();
  const known = ahead?.noLines;
  /** A Worker's verdict on blob `h`, taken (a `'none'` remembered for this search); false where it gave none. */
  const took = (h: string, v: PrescanVerdict | null): boolean => {
    if (v === null) return false;
    if (v === 'none') {
      none.add(h);
      known?.add(h);
    } else if ('counted' in v) counted.set(h, v.counted);
    else blobs.set(h, v);
    return true;
  };
  // Blobs this search (the same pattern and options) found no line in before: neither read nor scanned again.
  const wanted: string[] = [];
  for (const h of wantedOf(items, verdicts)) {
    if (known?.has(h)) none.add(h);
    else wanted.push(h);
  }
  try {
    if (wanted.length === 0) return { items, blobs: new Map(), none, counted };
    const { store, prescanner } = ctx;
    if (ahead === undefined || !ahead.on || prescanner === undefined || store.getPackedBlobs === undefined) return { items, blobs: store.getBlobs(wanted), none, counted };
    let largest = 0;
    for (const i of items) {
      const item = verdicts.plan[i];
      if (item.source === 'workspace') largest = Math.max(largest, item.size, item.conflict?.size ?? 0);
    }
    const file = store.packedBlobFile?.();
    if (file !== undefined) {
      ahead.readFile = true;
      const answer = await prescanner.blobs(prescanJob(ahead.query, [], largest, undefined, { file, hashes: wanted, ...(ids === undefined ? {} : { ids: wanted.map((h) => ids.get(h) ?? null) }) }));
      // The Worker could not read the file (or failed, or was ended): this batch is read
      // here, and after a few such batches the rest of the search too.
      if (answer === undefined && ++ahead.misses >= AHEAD_MISSES) ahead.on = false;
      const left: string[] = [];
      wanted.forEach((h, k) => {
        if (!took(h, answer?.verdicts[k] ?? null)) left.push(h);
      });
      if (left.length > 0) for (const [h, bytes] of store.getBlobs(left)) blobs.set(h, bytes);
      return { items, blobs, none, counted };
    }
    const packed = store.getPackedBlobs(wanted);
    const hashes = [...packed.keys()];
    const answer = await prescanner.run(prescanJob(ahead.query, hashes.map((h) => {
      const p = packed.get(h) as { codec: string; bytes: Uint8Array };
      return { codec: p.codec, packed: p.bytes };
    }), largest));
    // A Worker ended inside a file (or failed): this search takes the batch itself (and,
    // after a few such batches, the rest). A batch that stopped at a slow file leaves only
    // its own rest to the search, whose deadline then bounds it; a loaded machine makes a
    // file slow now and then.
    if (answer === undefined && ++ahead.misses >= AHEAD_MISSES) ahead.on = false;
    hashes.forEach((h, k) => {
      if (took(h, answer?.verdicts[k] ?? null)) return;
      const p = packed.get(h) as { codec: string; bytes: Uint8Array };
      blobs.set(h, unpackBlob(p.codec, p.bytes));
    });
    return { items, blobs, none, counted };
  } catch (err) {
    return { items, blobs: new Map(), none, counted, error: err };
  }
}

/**
 * The bytes of each planned file, read outside the lock (blobs never change; disk is read
 * as it is), in plan order; with a query the index can narrow, the files it rules out
 * come as `noMatch`, and with grep's Workers, so do the files they searched ahead and
 * found no line of matching.
 */
export async function* searchBytes(ctx: StoreMountContext, plan: readonly SearchItem[], query: SearchQuery | undefined, after: Pick<PlanAfter, 'lookFor' | 'lookup' | 'streamFor'>): AsyncIterable<SearchFile> {
  const noLines = query === undefined ? undefined : ctx.noLines?.search(searchKey(prescanJob(query, [], 0)));
  const ahead: Ahead | undefined = query === undefined ? undefined : { query, on: true, misses: 0, readFile: false, ...(noLines === undefined ? {} : { noLines }) };
  // Batches in flight: one a Worker and one more; a long-running host's search keeps two
  // a Worker (`Prescanner.longRunning`: a warm regex grep took some 5% less time than with
  // one), where a one-shot command's caller shares the cores with its Worker.
  const depth = ctx.prescanner === undefined || query === undefined ? 1 : (ctx.prescanner.longRunning === true ? 2 : 1) * ctx.prescanner.parallel + 1;
  const streamed = ahead === undefined || after.lookup !== undefined ? undefined : streamedLane(ctx, plan, after);
  if (streamed !== undefined && ahead !== undefined) {
    try {
      yield* searchStreamed(ctx, plan, streamed.ids, streamed.named, ahead, depth);
    } finally {
      // The Workers kept the store's file open from batch to batch: the search is over.
      if (ahead.readFile) await ctx.prescanner?.release();
    }
    return;
  }
  // The plan's own lookup where it took one; else taken now, after the plan.
  const lookup = after.lookup ?? after.lookFor?.();
  const may = lookup?.may;
  const unindexed = lookup?.unindexed;
  const ruledOut = (hash: string) => may !== undefined && !may.has(hash) && !(unindexed as ReadonlySet<string>).has(hash);
  const verdicts = verdictsOf(plan, ruledOut);
  const { out } = verdicts;
  // What a file costs a batch: the bytes it reads (its verdict looked up first).
  const sizeOf = (i: number) => {
    verdicts.judge(i);
    const item = plan[i];
    if (item.source !== 'workspace') return 0;
    return ((out[i] & RULED) === 0 ? item.size : 0) + (item.conflict !== undefined && (out[i] & CONFLICT_RULED) === 0 ? item.conflict.size : 0);
  };
  // A one-shot command's batches are smaller: fewer bytes held at once (`ONE_SHOT_BATCH_FILES`).
  const limits = ctx.oneShot ? { files: ONE_SHOT_BATCH_FILES, bytes: BATCH_BYTES } : undefined;
  // Files with no match, in a row, go to the search as one: a step each through the
  // generators between here and the search was most of a warm regex grep's time on this
  // thread (the index rules out some 37,000 files of the bench tree).
  const none = new NoMatchRun();
  try {
    for await (const batch of aheadOf(batchesOf(plan.keys(), sizeOf, limits), (items) => readBatch(ctx, items, verdicts, ahead, lookup?.ids), depth)) {
      for (const i of batch.items) {
        const item = plan[i];
        // Most files: one blob, read or ruled out (a plan holds tens of thousands, so this is kept short).
        if (item.source === 'workspace' && item.conflict === undefined && batch.error === undefined) {
          if ((out[i] & RULED) !== 0 || batch.none.has(item.hash)) {
            none.add(item.path, item.size);
            continue;
          }
          const bytes = batch.blobs.get(item.hash);
          const counted = bytes === undefined ? batch.counted.get(item.hash) : undefined;
          if (bytes === undefined && counted === undefined) continue;
          const run = none.take();
          if (run !== undefined) yield run;
          if (bytes !== undefined) yield { path: item.path, bytes };
          else if (counted !== undefined) yield { path: item.path, counted };
          continue;
        }
        const run = none.take();
        if (run !== undefined) yield run;
        yield* await filesFrom(ctx, item, batch, ruledOut);
      }
      // A batch's run is told before the next batch is waited for: the search's progress and deadline see it.
      const run = none.take();
      if (run !== undefined) yield run;
    }
  } finally {
    // The Workers kept the store's file open from batch to batch: the search is over.
    if (ahead?.readFile) await ctx.prescanner?.release();
  }
}

/** What a search offers of one planned file from its batch; one that can't be read is skipped with why (the search goes on). */
async function filesFrom(ctx: StoreMountContext, item: SearchItem, batch: ReadBatch, ruledOut: (hash: string) => boolean): Promise<SearchFile[]> {
  try {
    if (item.source === 'workspace' && batch.error !== undefined) throw batch.error;
    return await bytesOf(ctx, item, batch, (hash) => ruledOut(hash) || batch.none.has(hash));
  } catch (err) {
    if (process.env.WS_DEBUG === '1') console.error(err);
    const why = err instanceof Error ? err.message : String(err);
    return [{ path: item.path, skipped: err instanceof Error && err.name === 'StoreError' ? why : ctx.words.failed('Reading', item.path, why) }];
  }
}

/**
 * A plan's workspace files by their blobs' row ids (`Store.blobIds`), for
 * {@link searchStreamed}; made on the plan's second search (a plan searched once, the
 * tree changed since, pays nothing for them).
 */
interface PlanIds {
  /** Each blob's places in the plan, by its row id. */
  readonly places: Map<number, number | number[]>;
  /** Each of the plan's blobs' row ids, by hash (what grep's Workers read them by). */
  readonly ids: Map<string, number>;
  /** The places of files whose blob had no row id when this was made: read every search. */
  readonly unnamed: readonly number[];
  /** Every workspace file ruled out (the lookup's named blobs are then let in). */
  readonly allRuled: Uint8Array;
  /** Each planned file's path and size, in plan order: a run of files with no match goes to the search as a slice of each. */
  readonly paths: readonly string[];
  readonly sizes: readonly number[];
}
const planIds = new WeakMap<readonly SearchItem[], PlanIds | null>();

/** `plan`'s ids (undefined: not a plan made from records searched again, one holding a conflict, or a store without ids). */
function idsOf(ctx: StoreMountContext, plan: readonly SearchItem[]): PlanIds | undefined {
  if (!searchedAgain.has(plan)) return undefined;
  const known = planIds.get(plan);
  if (known !== undefined) return known ?? undefined;
  const made = planIdsOf(plan, ctx.store.blobIds?.());
  planIds.set(plan, made ?? null);
  return made;
}

function planIdsOf(plan: readonly SearchItem[], all: Map<string, number> | undefined): PlanIds | undefined {
  if (all === undefined) return undefined;
  const places = new Map<number, number | number[]>();
  const ids = new Map<string, number>();
  const unnamed: number[] = [];
  const allRuled = new Uint8Array(plan.length);
  const paths: string[] = [];
  const sizes: number[] = [];
  for (let i = 0; i < plan.length; i++) {
    const item = plan[i];
    paths.push(item.path);
    sizes.push(item.source === 'workspace' ? item.size : 0);
    if (item.source !== 'workspace') continue;
    if (item.conflict !== undefined) return undefined;
    allRuled[i] = RULED;
    const id = all.get(item.hash);
    if (id === undefined) {
      unnamed.push(i);
      continue;
    }
    ids.set(item.hash, id);
    const at = places.get(id);
    if (at === undefined) places.set(id, i);
    else if (typeof at === 'number') places.set(id, [at, i]);
    else at.push(i);
  }
  return { places, ids, unnamed, allRuled, paths, sizes };
}

/**
 * The streamed lane's plan ids and lookup, where a search takes it: a plan made from
 * records and searched again, with no conflict, whose store reads its lookup as it goes
 * and whose Workers read blobs from the store's file.
 */
function streamedLane(ctx: StoreMountContext, plan: readonly SearchItem[], after: Pick<PlanAfter, 'streamFor'>): { ids: PlanIds; named: BlobIdLookup } | undefined {
  if (after.streamFor === undefined || ctx.prescanner === undefined || ctx.store.packedBlobFile?.() === undefined) return undefined;
  const ids = idsOf(ctx, plan);
  if (ids === undefined) return undefined;
  const named = after.streamFor();
  return named === undefined ? undefined : { ids, named };
}

/**
 * A batch of {@link searchStreamed}: its files by place, how many of them the search has
 * not yet taken, its reading once started, and the bytes of the blobs it read.
 */
interface StreamedBatch {
  readonly items: number[];
  left: number;
  started?: true;
  read?: Promise<ReadBatch>;
  done?: ReadBatch;
  bytes?: number;
}

/**
 * How many bytes of blobs read {@link searchStreamed} lets wait for the search before it
 * starts no more batches in the lookup's order: the lookup names blobs in the store's
 * order, the search takes them in the plan's, and a batch read long before the search
 * reaches its files would otherwise hold their bytes meanwhile — every batch of a tree
 * stored against path order, before the page is full and later batches only count.
 * Mutable for tests only (an answer must not change with it).
 */
export const STREAM_HOLD: { bytes: number } = { bytes: 32 << 20 };

/** The bytes of the blobs a batch read holds. */
function bytesHeld(read: ReadBatch): number {
  let n = 0;
  for (const bytes of read.blobs.values()) n += bytes.length;
  return n;
}

/** A batch of no blobs, for a planned file read from disk. */
const NO_BLOBS: ReadBatch = { items: [], blobs: new Map(), none: new Set(), counted: new Map() };

/** Yields to the event loop: a batch just started reaches its Worker, an answer is taken. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * {@link searchBytes} as the index's lookup names the blobs: each named blob's files go
 * into a batch as the lookup reads on (in row-id order, the store file's), and a batch
 * starts in grep's Workers as soon as it is full, while the lookup still reads — a warm
 * regex grep of the bench tree waited some 12 ms for the whole lookup before its first
 * batch left. Fewer than `depth` batches run at a time, each started as one ends, so a
 * batch takes the search's page as full (`counting`) once it is. The files are offered
 * in plan order, each once its batch is read; those between (ruled out, or found with no
 * matching line) as one run, a slice of the plan's paths and sizes. The one rule is
 * {@link searchBytes}': a file is left out only where the index or a Worker's scan says
 * no line of it matches. Where the lookup fails part way, every file it did not name
 * is read.
 */
async function* searchStreamed(ctx: StoreMountContext, plan: readonly SearchItem[], ids: PlanIds, named: BlobIdLookup, ahead: Ahead, depth: number): AsyncIterable<SearchFile> {
  const out = ids.allRuled.slice();
  const verdicts: Verdicts = { plan, out };
  const batches: StreamedBatch[] = [];
  // Each place's batch (-1: none; a file ruled out, or read from disk).
  const batchOf = new Int32Array(plan.length).fill(-1);
  // The bytes of the batches read whose files the search has not all taken (their blobs wait for it here).
  let held = 0;
  let running = 0;
  // The search let go of (returned early: its deadline, a cancelled call): nothing more starts.
  let over = false;
  // Batches before this one were all started (some after it too, out of turn).
  let next = 0;
  const start = (batch: StreamedBatch) => {
    batch.started = true;
    running++;
    // `readBatch` answers a failure as the batch's error; it never rejects.
    batch.read = readBatch(ctx, batch.items, verdicts, ahead, ids.ids).then((read) => {
      batch.done = read;
      batch.bytes = bytesHeld(read);
      held += batch.bytes;
      running--;
      startMore();
      return read;
    });
  };
  // In the lookup's order, fewer than `depth` at a time, and none while the blobs read wait
  // past {@link STREAM_HOLD} for the search (which starts the batch it waits for itself).
  const startMore = () => {
    while (!over && running < depth && held < STREAM_HOLD.bytes && next < batches.length) {
      const batch = batches[next++];
      if (!batch.started) start(batch);
    }
  };
  // The search has taken a file of batch `k`: a batch all taken lets its blobs go.
  const taken = (k: number) => {
    const batch = batches[k];
    if (--batch.left > 0) return;
    held -= batch.bytes ?? 0;
    batch.done = undefined;
    batch.read = undefined;
    startMore();
  };
  let items: number[] = [];
  let bytes = 0;
  let files = 0;
  const cut = (): boolean => {
    if (items.length === 0) return false;
    for (const i of items) batchOf[i] = batches.length;
    batches.push({ items, left: items.length });
    items = [];
    bytes = 0;
    files = 0;
    startMore();
    return true;
  };
  // A blob's places into the batch being made (a place already in one stays there).
  const take = (at: number | readonly number[]): boolean => {
    const places = typeof at === 'number' ? [at] : at;
    let size = 0;
    for (const i of places) if (out[i] !== 0) size = Math.max(size, (plan[i] as { size: number }).size);
    const full = files > 0 && (files >= BATCH_FILES || bytes + size > BATCH_BYTES) && cut();
    for (const i of places) {
      if (out[i] === 0) continue;
      out[i] = 0;
      items.push(i);
    }
    bytes += size;
    files++;
    return full;
  };
  let failed = false;
  try {
    for (let id = named.next(); id !== undefined; id = named.next()) {
      const at = ids.places.get(id);
      // A batch just started: its Worker takes it while the lookup reads on.
      if (at !== undefined && take(at)) await turn();
    }
  } catch (err) {
    if (process.env.WS_DEBUG === '1') console.error(err);
    failed = true;
  } finally {
    named.close();
  }
  for (const hash of named.unindexed) {
    const id = ids.ids.get(hash);
    const at = id === undefined ? undefined : ids.places.get(id);
    if (at !== undefined) take(at);
  }
  for (const i of ids.unnamed) take(i);
  if (failed) for (let i = 0; i < plan.length; i++) if (out[i] !== 0) take(i);
  cut();

  // The planned files before `from` were offered to the search.
  let from = 0;
  const runTo = (to: number): SearchFile | undefined => {
    if (to <= from) return undefined;
    const run = { noMatches: { paths: ids.paths.slice(from, to), sizes: ids.sizes.slice(from, to) } };
    from = to;
    return run;
  };
  try {
    for (let i = 0; i < plan.length; i++) {
      if (out[i] !== 0) continue;
      const item = plan[i];
      const k = batchOf[i];
      let batch = k === -1 ? NO_BLOBS : batches[k].done;
      if (batch === undefined) {
        // The files before it are told before its batch is waited for: the search's progress and deadline see them.
        const run = runTo(i);
        if (run !== undefined) yield run;
        const waited = batches[k];
        // Not started yet (the lookup's order is not the plan's): started now, out of turn.
        if (!waited.started) start(waited);
        batch = await (waited.read as Promise<ReadBatch>);
      }
      if (k !== -1) taken(k);
      if (item.source === 'workspace' && batch.error === undefined) {
        if (batch.none.has(item.hash)) continue; // in the run
        const found = batch.blobs.get(item.hash);
        const counted = found === undefined ? batch.counted.get(item.hash) : undefined;
        const run = runTo(i);
        if (run !== undefined) yield run;
        from = i + 1;
        if (found !== undefined) yield { path: item.path, bytes: found };
        else if (counted !== undefined) yield { path: item.path, counted };
        continue;
      }
      const run = runTo(i);
      if (run !== undefined) yield run;
      from = i + 1;
      yield* await filesFrom(ctx, item, batch, () => false);
    }
    const run = runTo(plan.length);
    if (run !== undefined) yield run;
  } finally {
    // Let go of early (its deadline, a cancelled call): no batch starts after.
    over = true;
  }
}

async function bytesOf(ctx: StoreMountContext, item: SearchItem, { blobs, counted }: Pick<ReadBatch, 'blobs' | 'counted'>, ruledOut: (hash: string) => boolean): Promise<SearchFile[]> {
  if (item.source === 'skip') return [{ path: item.path, skipped: item.reason }];
  if (item.source === 'large') {
    const large = await ctx.searchLarge(item.path);
    return large === undefined ? [] : [large];
  }
  if (item.source === 'disk') {
    const read = await ctx.disk.read(item.path, ctx.config.maxFileSize);
    return read.kind === 'file' && read.bytes !== null ? [{ path: item.path, bytes: read.bytes }] : [];
  }
  const out: SearchFile[] = [];
  if (ruledOut(item.hash)) out.push({ path: item.path, noMatch: true, size: item.size });
  else {
    const bytes = blobs.get(item.hash);
    const scan = counted.get(item.hash);
    if (bytes !== undefined) out.push({ path: item.path, bytes });
    else if (scan !== undefined) out.push({ path: item.path, counted: scan });
  }
  if (item.conflict) {
    if (ruledOut(item.conflict.hash)) out.push({ path: item.path, noMatch: true, size: item.conflict.size, version: 'conflicting-disk' });
    else {
      const other = blobs.get(item.conflict.hash);
      const scan = counted.get(item.conflict.hash);
      if (other !== undefined) out.push({ path: item.path, bytes: other, version: 'conflicting-disk' });
      else if (scan !== undefined) out.push({ path: item.path, counted: scan, version: 'conflicting-disk' });
    }
  }
  return out;
}
