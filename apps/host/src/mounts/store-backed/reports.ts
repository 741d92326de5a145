/**
 * What sync, materialize, status and autoMaterialize say about a pass or a push: the
 * summaries a report carries. The one rule: every report words a pass the same way, so a
 * conflict reads alike in sync, status and a write's receipt — and names each path as the
 * tools take it (`work/src/a.ts`, the mount's name first), so a path copied from a report
 * into `read`, `diff`, `discard` or `materialize` names that file.
 */
import { type PassDone, type PathReport, type PushDone, skipReason, unverifiedReason } from '@ws/reconcile';
import type { StoreMountContext } from './context.ts';

/** Sizes on disk or in the workspace, whichever the view shows. */
export function sizeOf(r: PathReport): number | undefined {
  if (r.workspace) return r.workspace.size;
  return r.disk.kind === 'text' || r.disk.kind === 'opaque' ? r.disk.size : undefined;
}

/** A path inside the mount as the tools take it: the mount's name, then the path (the name alone for the root). */
export function toolPath(ctx: StoreMountContext, path: string): string {
  return path === '' ? ctx.config.name : `${ctx.config.name}/${path}`;
}

/** What a pass took in from disk, for one path (null where it took nothing, or only a mode). */
function tookIn(ctx: StoreMountContext, r: PathReport): { path: string; took: string } | null {
  const taken = r.taken;
  if (taken === null || taken.kind === 'mode') return null;
  return { path: toolPath(ctx, r.path), took: taken.kind === 'text' ? (taken.new ? 'new file' : 'change') : taken.kind };
}

/** A pass result, summarized for sync and status reports; `settled` (paths inside the mount) leaves out conflicts an effect since settled. */
export function passSummary(ctx: StoreMountContext, result: PassDone, settled?: ReadonlySet<string>) {
  const conflicts = [];
  for (const r of result.paths) {
    const c = r.conflict;
    if (c === null || settled?.has(r.path)) continue;
    conflicts.push({
      path: toolPath(ctx, r.path),
      kind: c.kind,
      description: c.description,
      diskNow: c.diskNow,
      diskChangedSince: c.diskChangedSince,
      diskSide: c.diskSide.kind,
      waysOut: c.waysOut.map((w) => w.sentence),
    });
  }
  return {
    tookIn: result.paths.map((r) => tookIn(ctx, r)).filter((t) => t !== null),
    conflicts,
    unverified: result.paths.filter((r) => r.state === 'unverified').map((r) => ({ path: toolPath(ctx, r.path), reason: r.reason })),
  };
}

/** A push result, summarized for materialize and autoMaterialize. */
export function pushSummary(ctx: StoreMountContext, done: PushDone) {
  // A cancelled push's untouched paths are counted in one sentence, not listed one by one.
  const skipped = done.skipped.filter((s) => s.reason !== skipReason.cancelled);
  const left = done.skipped.length - skipped.length;
  // The pass's reports are each path's state before the push: a conflict the push wrote
  // or deleted over (with force) is settled, and is not offered again with its ways out.
  const acted = new Set([...done.written, ...done.deleted]);
  return {
    ...(done.cancelled ? { cancelled: ctx.words.materializeCancelled(done.written.length + done.deleted.length, left) } : {}),
    written: done.written.map((p) => toolPath(ctx, p)),
    deleted: done.deleted.map((p) => toolPath(ctx, p)),
    unchanged: done.unchanged.length,
    skipped: skipped.map((s) => ({ path: toolPath(ctx, s.path), state: s.state, reason: s.reason })),
    ...passSummary(ctx, done.pass, acted),
  };
}

/** A root problem for a report, with the way out where the root was replaced. */
export function rootAdvice(ctx: StoreMountContext, problem: string | null) {
  if (problem === null) return {};
  return problem === unverifiedReason.rootReplaced ? { rootProblem: problem, wayOut: ctx.words.acceptNewRoot() } : { rootProblem: problem };
}
