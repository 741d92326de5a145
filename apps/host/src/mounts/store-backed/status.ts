/**
 * `status` on a store-backed mount: drafts, conflicts, pending deletions — after a
 * whole-mount pass where the mount checks disk on tool calls, else from the store alone.
 * The one rule: a path's state from the store alone is `@ws/reconcile`'s `storedState`.
 */
import { type PassResult, storedState } from '@ws/reconcile';
import type { Report } from '@ws/tools';
import { type StoreMountContext, compare } from './context.ts';
import { passSummary, rootAdvice } from './reports.ts';

/** The mount's status, under the lock. */
export async function mountStatus(ctx: StoreMountContext): Promise<Report> {
  const { config } = ctx;
  const branch = ctx.store.selectedBranch();
  const base = {
    mount: config.name,
    backend: 'store',
    root: config.root,
    readOnly: config.readOnly,
    branch,
    autoMaterialize: config.autoMaterialize,
    watch: config.watch,
  };
  const result: PassResult | undefined = config.watch === 'on-tool-call' ? await ctx.pass({ kind: 'directory', path: '' }) : undefined;
  if (result?.kind === 'done') {
    const summary = passSummary(result);
    return {
      ...base,
      drafts: result.paths.filter((r) => r.state === 'workspace-draft').map((r) => r.path),
      conflicts: summary.conflicts,
      pendingDeletions: result.paths.filter((r) => r.deletedInWorkspace).map((r) => r.path),
      unverified: summary.unverified,
      counts: result.counts,
      passedOver: result.passedOver,
      ...rootAdvice(ctx, result.rootProblem),
      ...(result.incomplete ? { incomplete: result.incomplete } : {}),
    };
  }
  return {
    ...base,
    ...storedStatus(ctx, branch),
    passedOver: ctx.memory.lastPassedOver,
    ...(result?.kind === 'gave-up' ? { gaveUp: result.reason } : {}),
  };
}

/** Status from the store alone (no disk check): drafts, conflicts, pending deletions, in path order. */
function storedStatus(ctx: StoreMountContext, branch: string) {
  const drafts: string[] = [];
  const conflicts: { path: string; kind: string }[] = [];
  const pendingDeletions: string[] = [];
  for (const rec of ctx.store.scan(branch, ctx.config.name, '')) {
    const state = storedState(rec);
    const conflict = rec.mark?.conflict;
    if (state === 'conflict' && conflict) conflicts.push({ path: rec.path, kind: conflict.kind });
    else if (state === 'workspace-deleted') pendingDeletions.push(rec.path);
    else if (state === 'workspace-draft') drafts.push(rec.path);
  }
  return {
    drafts: drafts.sort(compare),
    conflicts: conflicts.sort((a, b) => compare(a.path, b.path)),
    pendingDeletions: pendingDeletions.sort(compare),
  };
}
