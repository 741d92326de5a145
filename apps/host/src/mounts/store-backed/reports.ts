/**
 * What sync, materialize, status and autoMaterialize say about a pass or a push: the
 * summaries a report carries. The one rule: every report words a pass the same way, so a
 * conflict reads alike in sync, status and a write's receipt.
 */
import { type PassDone, type PathReport, type PushDone, skipReason, unverifiedReason } from '@ws/reconcile';
import type { StoreMountContext } from './context.ts';

/** Sizes on disk or in the workspace, whichever the view shows. */
export function sizeOf(r: PathReport): number | undefined {
  if (r.workspace) return r.workspace.size;
  return r.disk.kind === 'text' || r.disk.kind === 'opaque' ? r.disk.size : undefined;
}

/** What a pass took in from disk, for one path (null where it took nothing, or only a mode). */
function tookIn(r: PathReport): { path: string; took: string } | null {
  const taken = r.taken;
  if (taken === null || taken.kind === 'mode') return null;
  return { path: r.path, took: taken.kind === 'text' ? (taken.new ? 'new file' : 'change') : taken.kind };
}

/** A pass result, summarized for sync and status reports. */
export function passSummary(result: PassDone) {
  const conflicts = [];
  for (const r of result.paths) {
    const c = r.conflict;
    if (c === null) continue;
    conflicts.push({
      path: r.path,
      kind: c.kind,
      description: c.description,
      diskNow: c.diskNow,
      diskChangedSince: c.diskChangedSince,
      diskSide: c.diskSide.kind,
      waysOut: c.waysOut.map((w) => w.sentence),
    });
  }
  return {
    tookIn: result.paths.map(tookIn).filter((t) => t !== null),
    conflicts,
    unverified: result.paths.filter((r) => r.state === 'unverified').map((r) => ({ path: r.path, reason: r.reason })),
  };
}

/** A push result, summarized for materialize and autoMaterialize. */
export function pushSummary(ctx: StoreMountContext, done: PushDone) {
  // A cancelled push's untouched paths are counted in one sentence, not listed one by one.
  const skipped = done.skipped.filter((s) => s.reason !== skipReason.cancelled);
  const left = done.skipped.length - skipped.length;
  return {
    ...(done.cancelled ? { cancelled: ctx.words.materializeCancelled(done.written.length + done.deleted.length, left) } : {}),
    written: done.written,
    deleted: done.deleted,
    unchanged: done.unchanged.length,
    skipped: skipped.map((s) => ({ path: s.path, state: s.state, reason: s.reason })),
    ...passSummary(done.pass),
  };
}

/** A root problem for a report, with the way out where the root was replaced. */
export function rootAdvice(ctx: StoreMountContext, problem: string | null) {
  if (problem === null) return {};
  return problem === unverifiedReason.rootReplaced ? { rootProblem: problem, wayOut: ctx.words.acceptNewRoot() } : { rootProblem: problem };
}
