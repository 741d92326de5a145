/**
 * A quiet sync (the host README, "A quiet sync"): a whole-mount sync that finds nothing
 * changed answers with the report of the last one, kept in the store beside the stats of
 * every directory and file that sync's walk saw — checked with one stat each, where a pass
 * lists every directory and reads every stored record. The one rule: a kept report is
 * given only where it is the report a pass would give now — nothing a pass reads in the
 * store written since (the store's count of changes is the record's), the same config
 * and rules, and every directory, ignore file and file stat'd as that walk saw it (so no
 * name was added or removed, and no file's bytes changed, by the rule fingerprints keep).
 * A report is kept only from a pass that wrote nothing and whose answer time cannot change:
 * no path taken in, given up or unverified, no racy fingerprint, no temporary file met,
 * every path it decided a file the walk found.
 */
import type { PassDone } from '@ws/reconcile';
import type { Report } from '@ws/tools';
import type { StoreMountContext } from './context.ts';

/** The form of a kept report and of the stats: a change to either changes this, and no older record is given. */
const QUIET_FORMAT = 1;

/** What a quiet sync needs of the mount's own disk (never a wrapped one: a test acting between observations sees every pass). */
export interface QuietDisk {
  keepWholeWalks(): void;
  quietStats(decided?: { readonly reported: readonly string[]; readonly counted: number }): Uint8Array | null;
  stillQuiet(stats: Uint8Array): boolean;
}

/** Reasons a walk passes over a name that time alone can change: a report that counts one is not kept. */
const PASSING = new Set(['ws temporary file', 'a directory that vanished during the walk']);

/** Syncs answered from a kept report in this process (tests check which way a sync went). */
export const quietAnswers = { count: 0 };

/** What the kept report depends on beside the store and the tree. */
function keyOf(ctx: StoreMountContext): string {
  return JSON.stringify([QUIET_FORMAT, ctx.config]);
}

/** The kept report of a whole-mount sync of `branch`, where it is the one a pass would give now; else undefined. */
export function quietReport(ctx: StoreMountContext, branch: string): Report | undefined {
  const records = ctx.store.quiet;
  const disk = ctx.quietDisk;
  if (records === undefined || disk === undefined) return undefined;
  try {
    const kept = records.get(ctx.config.name, branch);
    if (kept === null || kept.key !== keyOf(ctx)) return undefined;
    if (!disk.stillQuiet(Bun.zstdDecompressSync(kept.stats))) return undefined;
    const report = JSON.parse(kept.report) as Report & { passedOver?: Record<string, number> };
    if (report.branch !== branch) return undefined;
    ctx.memory.lastPassedOver = { ...(report.passedOver ?? {}) };
    if (ctx.memory.watch !== undefined) ctx.memory.passedSinceWatch = true;
    quietAnswers.count++;
    return report;
  } catch {
    // A record that cannot be read is no record: the pass answers.
    return undefined;
  }
}

/**
 * Before a whole-mount pass whose report may be kept: the disk keeps its walk. Not for a
 * mount's first sync (the store holds no evidence of it yet), which writes every path: its
 * walk is let go as the pass goes, as before (a first sync's peak memory is a target).
 */
export function beforeQuietPass(ctx: StoreMountContext): void {
  if (ctx.store.quiet?.synced(ctx.config.name) === true) ctx.quietDisk?.keepWholeWalks();
}

/** After that pass: keeps `report` where the pass wrote nothing and its answer cannot change with time alone. */
export function keepQuietReport(ctx: StoreMountContext, result: PassDone, report: Report): void {
  const records = ctx.store.quiet;
  const disk = ctx.quietDisk;
  if (records === undefined || disk === undefined) return;
  try {
    const changes = records.scanned();
    const r = report as Report & { tookIn?: unknown[]; gaveUp?: unknown[]; unverified?: unknown[] };
    const keeps =
      changes !== undefined &&
      result.rootProblem === null &&
      result.incomplete === null &&
      (r.tookIn?.length ?? 0) === 0 &&
      (r.gaveUp?.length ?? 0) === 0 &&
      (r.unverified?.length ?? 0) === 0 &&
      !Object.keys(result.passedOver).some((reason) => PASSING.has(reason)) &&
      // Nothing written since the pass read the store (its own writes included): asked before the stats are made.
      records.changes() === changes;
    // The pass decided on the walk alone (no stored path looked at by name beyond it): the disk checks.
    const stats = disk.quietStats(keeps ? { reported: result.paths.map((p) => p.path), counted: result.unchanged } : undefined);
    if (!keeps || stats === null) return;
    records.put(ctx.config.name, result.branch, changes, { key: keyOf(ctx), report: JSON.stringify(report), stats: Bun.zstdCompressSync(stats, { level: 1 }) });
  } catch {
    disk.quietStats(); // the walk kept is let go
    // Keeping a record is never a reason for a sync to fail.
  }
}
