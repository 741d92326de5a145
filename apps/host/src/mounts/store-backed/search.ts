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
import { ahead as aheadOf, BATCH_BYTES, batchesOf, type Counted, ONE_SHOT_BATCH_FILES, type PrescanVerdict, prescanJob } from '../../grep/prescan.ts';
import { unpackBlob } from '../../store/blob-codec.ts';
import { type BlobLookup, hashKey } from '../../store/store.ts';
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
 * an unchanged tree plan once, and judge each file by its blob's place ({@link PlanKeys}).
 */
const plans = new WeakMap<object, SearchItem[] | null>();

/**
 * Where each blob of a plan made from records lies in it, by its hash's key (`hashKey`),
 * and the plan's verdicts with every workspace file ruled out: a search whose lookup gives
 * its named blobs' keys (`BlobLookup.may.sortedKeys`) judges the plan by the few blobs
 * named, not each of its tens of thousands of files by its hash (some 6 ms a warm grep of
 * the bench tree). Made on a plan's second search: a plan searched once judges as before.
 */
interface PlanKeys {
  readonly places: Map<number, number | number[]>;
  readonly allRuled: Uint8Array;
}
const planKeys = new WeakMap<readonly SearchItem[], PlanKeys | null>();
/** Plans made from records that were searched again. */
const searchedAgain = new WeakSet<readonly SearchItem[]>();

/** `plan`'s keys (undefined: not a plan made from records, or searched once only so far, or one holding a conflict). */
function keysOf(plan: readonly SearchItem[]): PlanKeys | undefined {
  if (!searchedAgain.has(plan)) return undefined;
  const known = planKeys.get(plan);
  if (known !== undefined) return known ?? undefined;
  const places = new Map<number, number | number[]>();
  const allRuled = new Uint8Array(plan.length);
  for (let i = 0; i < plan.length; i++) {
    const item = plan[i];
    if (item.source !== 'workspace') continue;
    if (item.conflict !== undefined) {
      planKeys.set(plan, null);
      return undefined;
    }
    allRuled[i] = RULED;
    const key = hashKey(item.hash);
    const at = places.get(key);
    if (at === undefined) places.set(key, i);
    else if (typeof at === 'number') places.set(key, [at, i]);
    else at.push(i);
  }
  const keys = { places, allRuled };
  planKeys.set(plan, keys);
  return keys;
}

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
    // Searched again: its keys are worth making now (`keysOf`).
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
}

/**
 * The store index's lookup for `query`, to be taken later (undefined: the index cannot
 * narrow it — no terms — or the lookup failed, and every file is read). Loads grep's
 * engine, which the search needs next anyway.
 */
export async function indexLookup(ctx: StoreMountContext, query: SearchQuery | undefined): Promise<(() => BlobLookup | undefined) | undefined> {
  if (query === undefined) return undefined;
  // grep's engine loads with the first search, not with the mount.
  const terms = (await import('@ws/grep')).indexTerms(query.pattern, query);
  if (terms === undefined) return undefined;
  return () => {
    try {
      return ctx.store.blobsMayHold(terms, query.caseInsensitive === true);
    } catch (err) {
      // The index is an optimisation: without it every file is read.
      if (process.env.WS_DEBUG === '1') console.error(err);
      return undefined;
    }
  };
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
function verdictsOf(plan: readonly SearchItem[], ruledOut: (hash: string) => boolean, lookup: BlobLookup | undefined): Verdicts & { judge(i: number): void } {
  const judged = lookup === undefined ? undefined : judgedByKeys(plan, lookup);
  if (judged !== undefined) return { plan, out: judged, judge: () => {} };
  const out = new Uint8Array(plan.length);
  const judge = (i: number) => {
    const item = plan[i];
    if (item.source !== 'workspace') return;
    if (ruledOut(item.hash)) out[i] |= RULED;
    if (item.conflict && ruledOut(item.conflict.hash)) out[i] |= CONFLICT_RULED;
  };
  return { plan, out, judge };
}

/**
 * Every file's verdict at once, from the blobs the lookup named (by key) and those it does
 * not cover, where the plan has its keys ({@link keysOf}) and the lookup gives its keys;
 * else undefined. As {@link verdictsOf} judges each file: a file is ruled out unless its
 * blob's key is among the named ones or its blob is not indexed (a key shared by two
 * hashes keeps both in: read, never wrongly left out).
 */
function judgedByKeys(plan: readonly SearchItem[], lookup: BlobLookup): Uint8Array | undefined {
  const named = lookup.may.sortedKeys;
  if (named === undefined) return undefined;
  const keys = keysOf(plan);
  if (keys === undefined) return undefined;
  const out = keys.allRuled.slice();
  const keep = (key: number) => {
    const at = keys.places.get(key);
    if (at === undefined) return;
    if (typeof at === 'number') out[at] = 0;
    else for (const i of at) out[i] = 0;
  };
  for (const key of named) keep(key);
  for (const hash of lookup.unindexed) keep(hashKey(hash));
  return out;
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
export async function* searchBytes(ctx: StoreMountContext, plan: readonly SearchItem[], query: SearchQuery | undefined, after: Pick<PlanAfter, 'lookFor' | 'lookup'>): AsyncIterable<SearchFile> {
  // The plan's own lookup where it took one; else taken now, after the plan.
  const lookup = after.lookup ?? after.lookFor?.();
  const may = lookup?.may;
  const unindexed = lookup?.unindexed;
  const ruledOut = (hash: string) => may !== undefined && !may.has(hash) && !(unindexed as ReadonlySet<string>).has(hash);
  const verdicts = verdictsOf(plan, ruledOut, lookup);
  const { out } = verdicts;
  // What a file costs a batch: the bytes it reads (its verdict looked up first).
  const sizeOf = (i: number) => {
    verdicts.judge(i);
    const item = plan[i];
    if (item.source !== 'workspace') return 0;
    return ((out[i] & RULED) === 0 ? item.size : 0) + (item.conflict !== undefined && (out[i] & CONFLICT_RULED) === 0 ? item.conflict.size : 0);
  };
  const noLines = query === undefined ? undefined : ctx.noLines?.search(searchKey(prescanJob(query, [], 0)));
  const ahead: Ahead | undefined = query === undefined ? undefined : { query, on: true, misses: 0, readFile: false, ...(noLines === undefined ? {} : { noLines }) };
  // Batches in flight: one a Worker and one more; a long-running host's search keeps two
  // a Worker (`Prescanner.longRunning`: a warm regex grep took some 5% less time than with
  // one), where a one-shot command's caller shares the cores with its Worker.
  const depth = ctx.prescanner === undefined || query === undefined ? 1 : (ctx.prescanner.longRunning === true ? 2 : 1) * ctx.prescanner.parallel + 1;
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
        let found: SearchFile[];
        try {
          if (item.source === 'workspace' && batch.error !== undefined) throw batch.error;
          found = await bytesOf(ctx, item, batch, (hash) => ruledOut(hash) || batch.none.has(hash));
        } catch (err) {
          // One file that can't be read is skipped with why; the search goes on.
          if (process.env.WS_DEBUG === '1') console.error(err);
          const why = err instanceof Error ? err.message : String(err);
          found = [{ path: item.path, skipped: err instanceof Error && err.name === 'StoreError' ? why : ctx.words.failed('Reading', item.path, why) }];
        }
        yield* found;
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
