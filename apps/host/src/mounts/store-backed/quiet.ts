/**
 * Quiet records (the host README, "A quiet sync"): a whole-mount sync that finds nothing
 * changed answers with the report of the last one, and a whole-mount grep plans its files
 * from the store's tree and the record, both without a pass — the record kept in the store
 * beside the stats of every directory and file that pass's walk saw, and checked with one
 * stat each, where a pass lists every directory and reads every stored record. The one
 * rule: a record is used only where it says what a pass would now — nothing a pass reads
 * in the store written since (the store's count of changes is the record's), the same
 * config (but how the mount is watched), and every directory, ignore file and file stat'd
 * as that walk saw it (so no name was added or removed, and no file's bytes changed, by
 * the rule fingerprints keep). A record is kept only from a pass that wrote nothing and
 * whose answer time cannot change: nothing unverified, no racy fingerprint, no temporary
 * file met, and no stored path looked at by name beyond the walk.
 */
import { type PassDone, type PassResult, showsFile } from '@ws/reconcile';
import type { Report } from '@ws/tools';
import type { BlobLookup, QuietRecord, QuietRecords } from '../../store/store.ts';
import { QUIET_SHARING, quietEntries, quietShare } from '../../disk/quiet.ts';
import type { StoreMountContext } from './context.ts';
import { reportedItems, type SearchItem, sortedIfNeeded } from './search-items.ts';

/** The form of a kept report and of the stats: a change to either changes this, and no older record is given. */
const QUIET_FORMAT = 1;

/** What a quiet sync needs of the mount's own disk (never a wrapped one: a test acting between observations sees every pass). */
export interface QuietDisk {
  keepWholeWalks(): void;
  quietStats(decided?: { readonly reported: readonly string[]; readonly counted: number }): Uint8Array | null;
  stillQuiet(stats: Uint8Array, share?: Int32Array): boolean;
  readonly quietRoot: string | null;
}

/** Reasons a walk passes over a name that time alone can change: a report that counts one is not kept. */
const PASSING = new Set(['ws temporary file', 'a directory that vanished during the walk']);

/** Syncs and searches answered from a kept record in this process (tests check which way one went). */
export const quietAnswers = { count: 0 };

/** What the kept report depends on beside the store and the tree. */
function keyOf(ctx: StoreMountContext): string {
  // The whole config but how the mount is watched, which changes no answer: a watching
  // server and a one-shot command share their records.
  const { watch: _watch, ...config } = ctx.config;
  return JSON.stringify([QUIET_FORMAT, config]);
}

/** The record of `mount` on `branch` where the store's count and the key are still its own (its stats not checked yet). */
function keptRecord(ctx: StoreMountContext, branch: string): QuietRecord | undefined {
  const records = ctx.store.quiet;
  if (records === undefined || ctx.quietDisk === undefined) return undefined;
  try {
    const kept = records.get(ctx.config.name, branch);
    return kept === null || kept.key !== keyOf(ctx) ? undefined : kept;
  } catch {
    // A record that cannot be read is no record: the pass answers.
    return undefined;
  }
}

/**
 * Whether every stat of `kept` is as it was, checked by this thread and one of grep's
 * Workers together: the Worker starts at once and takes chunks of the stats while this
 * thread reads the store (`meanwhile`), then both take what is left. Where no Worker is
 * free, or the stats are too few to be worth one (`QUIET_SHARING`), this thread checks
 * every chunk; where one took chunks and did not answer (it failed or was ended), this
 * thread checks them all again.
 */
async function statsHoldShared<T>(ctx: StoreMountContext, kept: QuietRecord, meanwhile: () => T): Promise<{ holds: boolean; value: T | undefined }> {
  const disk = ctx.quietDisk as QuietDisk;
  const root = disk.quietRoot;
  const share = quietShare();
  let stats: Uint8Array;
  try {
    stats = Bun.zstdDecompressSync(kept.stats);
  } catch {
    // Stats that cannot be unpacked hold nothing: what the caller would read is not wanted.
    return { holds: false, value: undefined };
  }
  const shared = root !== null && ctx.prescanner !== undefined && quietEntries(stats) >= QUIET_SHARING.from;
  if (shared) {
    // One copy both threads read (its bytes never move), not one each.
    const unpacked = stats;
    stats = new Uint8Array(new SharedArrayBuffer(unpacked.length));
    stats.set(unpacked);
  }
  const away = shared ? ctx.prescanner.stillQuiet({ root, stats, share }).catch(() => undefined) : Promise.resolve(null);
  let value: T;
  let here = false;
  try {
    value = meanwhile();
    here = disk.stillQuiet(stats, share);
  } finally {
    // Told to stop where this thread gave up, so the Worker is free for the search.
    if (!here) Atomics.store(share, 1, 1);
  }
  const there = await away;
  // No Worker took part: this thread checked every chunk.
  if (there === null) return { holds: here, value };
  // One took chunks and never said how they were: checked again, here.
  if (there === undefined) return { holds: here && disk.stillQuiet(stats), value };
  return { holds: here && there, value };
}

/** The kept report of a whole-mount sync of `branch`, where it is the one a pass would give now; else undefined. */
export async function quietReport(ctx: StoreMountContext, branch: string): Promise<Report | undefined> {
  const kept = keptRecord(ctx, branch);
  if (kept === undefined || kept.report === '') return undefined;
  try {
    const checked = await statsHoldShared(ctx, kept, () => JSON.parse(kept.report) as Report & { passedOver?: Record<string, number> });
    const report = checked.value;
    if (!checked.holds || report === undefined || report.branch !== branch) return undefined;
    ctx.memory.lastPassedOver = { ...(report.passedOver ?? {}) };
    if (ctx.memory.watch !== undefined) ctx.memory.passedSinceWatch = true;
    quietAnswers.count++;
    return report;
  } catch {
    return undefined;
  }
}

/**
 * True where a kept record of `branch` says what a whole-mount pass would now (its stats
 * checked as a quiet sync checks them): the store's records then hold what disk does, so
 * a listing may be made from them (`fromRecords` in `list.ts`), as from a settled watcher's.
 */
export async function quietHolds(ctx: StoreMountContext, branch: string): Promise<boolean> {
  const kept = keptRecord(ctx, branch);
  if (kept === undefined) return false;
  try {
    if (!(await statsHoldShared(ctx, kept, () => true)).holds) return false;
  } catch {
    return false;
  }
  if (ctx.memory.watch !== undefined) ctx.memory.passedSinceWatch = true;
  return true;
}

/**
 * Runs a pass whose record may be kept (`quiet`: a whole-mount pass), the disk keeping its
 * walk for the record's stats, and letting it go where the pass fails or gives up. Not for
 * a mount's first sync (the store holds no evidence of it yet), which writes every path:
 * its walk is let go as the pass goes, as before (a first sync's peak memory is a target).
 */
export async function passKeepingWalk(ctx: StoreMountContext, quiet: boolean, pass: () => Promise<PassResult>): Promise<PassResult> {
  if (!quiet) return pass();
  if (ctx.store.quiet?.synced(ctx.config.name) === true) ctx.quietDisk?.keepWholeWalks();
  let result: PassResult;
  try {
    result = await pass();
  } catch (err) {
    ctx.quietDisk?.quietStats(); // the walk kept is let go
    throw err;
  }
  if (result.kind === 'gave-up') ctx.quietDisk?.quietStats();
  return result;
}

/** What a pass leaves for its record to be kept (see {@link quietPassOf}): a few paths and numbers, not the pass. */
export interface QuietPass {
  readonly branch: string;
  /** The store's count of changes the pass read its records at. */
  readonly changes: number;
  /** The paths it decided one by one, and how many more it counted unchanged. */
  readonly reported: readonly string[];
  readonly counted: number;
  /** What a whole-mount search adds to the workspace's tree (see {@link planBeside}). */
  readonly plan: string;
}

/**
 * What of a whole-mount pass its record needs, where one may be kept: it wrote nothing
 * (the store's count is still the one it read at) and its answer cannot change with time
 * alone. Null otherwise — and then the walk the disk kept is let go.
 */
export function quietPassOf(ctx: StoreMountContext, result: PassDone): QuietPass | null {
  const records = ctx.store.quiet;
  try {
    const changes = records?.scanned();
    if (
      records !== undefined &&
      changes !== undefined &&
      result.rootProblem === null &&
      result.incomplete === null &&
      (result.counts.unverified ?? 0) === 0 &&
      !Object.keys(result.passedOver).some((reason) => PASSING.has(reason)) &&
      // Nothing written since the pass read the store (its own writes included).
      records.changes() === changes
    ) {
      return { branch: result.branch, changes, reported: result.paths.map((p) => p.path), counted: result.unchanged, plan: planBeside(result) };
    }
  } catch {
    // Keeping a record is never a reason for a sync or a search to fail.
  }
  ctx.quietDisk?.quietStats(); // the walk kept is let go
  return null;
}

/**
 * Keeps the record of a pass `quietPassOf` let through — with `report` where it was a
 * sync's (null: a search's) — where the walk it decided on can vouch for it (the stats,
 * `disk/quiet.ts`) and the store's count has not moved since; in two steps: the stats
 * made now (the disk lets its walk go), the record kept when the returned function is
 * called (null: nothing to keep). A search
 * makes the stats after its pass's garbage is collected, in the room that freed, and
 * keeps the record only once it has read every file it planned: a store a search finds
 * damaged is refused from then on, and is left as it was.
 */
export function quietKeeping(ctx: StoreMountContext, pass: QuietPass | null, report: Report | null): (() => void) | null {
  const records = ctx.store.quiet;
  const disk = ctx.quietDisk;
  if (records === undefined || disk === undefined) return null;
  try {
    // The pass decided on the walk alone (no stored path looked at by name beyond it): the disk checks.
    const stats = disk.quietStats(pass === null ? undefined : { reported: pass.reported, counted: pass.counted });
    if (pass === null || stats === null) return null;
    const packed = Bun.zstdCompressSync(stats, { level: 1 });
    return () => {
      try {
        records.put(ctx.config.name, pass.branch, pass.changes, { key: keyOf(ctx), report: report === null ? '' : JSON.stringify(report), plan: pass.plan, stats: packed });
      } catch {
        // Keeping a record is never a reason for a sync or a search to fail.
      }
    };
  } catch {
    disk.quietStats(); // the walk kept is let go
    return null;
  }
}

/**
 * What a whole-mount search looks at beside the workspace's tree, by the pass's reports
 * (a disk-only file; a file with a conflict, with its disk side), as JSON; '' where the
 * tree alone would not say the rest (a reported path the workspace holds but does not show).
 */
function planBeside(result: PassDone): string {
  for (const r of result.paths) if (r.workspace !== null && !showsFile(r.state)) return '';
  return JSON.stringify(reportedItems(result.paths).filter((item) => item.source !== 'workspace' || item.conflict !== undefined));
}

/**
 * The files a search of the whole mount looks at, where a kept record says nothing changed
 * since its pass; else undefined. `lookFor`: the index's lookup for the search, taken
 * after the tree's rows while a Worker checks the stats (see `PlanAfter` in search.ts),
 * and given back beside the plan.
 */
export async function quietPlan(ctx: StoreMountContext, branch: string, lookFor?: () => BlobLookup | undefined): Promise<{ plan: SearchItem[]; lookup?: BlobLookup } | undefined> {
  const kept = keptRecord(ctx, branch);
  if (kept === undefined || kept.plan === '') return undefined;
  // The tree's rows are read while a Worker checks the stats; they are used only where the stats hold.
  const rows = (): SearchItem[] | undefined => {
    try {
      const beside = new Map((JSON.parse(kept.plan) as SearchItem[]).map((item) => [item.path, item] as const));
      const plan: SearchItem[] = (ctx.store.quiet as QuietRecords).workspaceFiles(ctx.config.name, branch);
      if (beside.size > 0) {
        for (let i = 0; i < plan.length; i++) {
          const item = beside.get(plan[i].path);
          if (item === undefined) continue;
          plan[i] = item; // a conflict's: the workspace's file with its disk side
          beside.delete(item.path);
        }
        for (const item of beside.values()) plan.push(item); // disk-only files
      }
      return plan;
    } catch {
      return undefined;
    }
  };
  let lookup: BlobLookup | undefined;
  let checked: { holds: boolean; value: SearchItem[] | undefined };
  try {
    checked = await statsHoldShared(ctx, kept, () => {
      const plan = rows();
      if (plan !== undefined) lookup = lookFor?.();
      return plan;
    });
  } catch {
    return undefined;
  }
  const plan = checked.value;
  if (!checked.holds || plan === undefined) return undefined;
  // As a whole pass would: with its watcher's passes from here, the store holds what disk does.
  if (ctx.memory.watch !== undefined) ctx.memory.passedSinceWatch = true;
  quietAnswers.count++;
  return { plan: sortedIfNeeded(plan), ...(lookup === undefined ? {} : { lookup }) };
}
