/**
 * `status` on a store-backed mount: drafts, conflicts, pending deletions — after a
 * whole-mount pass where the mount checks disk on tool calls, else from the store alone.
 * The one rule: a path's state from the store alone is `@ws/reconcile`'s `storedState`.
 */
import { type PassResult, storedState } from '@ws/reconcile';
import type { Report } from '@ws/tools';
import { type StoreMountContext, compare } from './context.ts';
import { passSummary, rootAdvice, toolPath } from './reports.ts';

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
  const result: PassResult | undefined = config.watch === 'on-tool-call' ? await ctx.pass({ kind: 'directory', path: '' }, { unchangedByCount: true }) : undefined;
  if (result?.kind === 'done') {
    const summary = passSummary(ctx, result);
    const drafts = result.paths.filter((r) => r.state === 'workspace-draft').map((r) => r.path);
    const deletions = result.paths.filter((r) => r.deletedInWorkspace).map((r) => r.path);
    const conflicted = result.paths.filter((r) => r.conflict !== null).map((r) => r.path);
    return {
      ...base,
      drafts: drafts.map((p) => toolPath(ctx, p)),
      conflicts: summary.conflicts,
      pendingDeletions: deletions.map((p) => toolPath(ctx, p)),
      ...alsoDrafted(ctx, branch, [...drafts, ...deletions, ...conflicted]),
      unverified: summary.unverified,
      counts: result.counts,
      passedOver: result.passedOver,
      ...rootAdvice(ctx, result.rootProblem),
      ...(result.incomplete ? { incomplete: result.incomplete } : {}),
    };
  }
  const stored = storedStatus(ctx, branch);
  return {
    ...base,
    drafts: stored.drafts.map((p) => toolPath(ctx, p)),
    conflicts: stored.conflicts.map((c) => ({ ...c, path: toolPath(ctx, c.path) })),
    pendingDeletions: stored.pendingDeletions.map((p) => toolPath(ctx, p)),
    ...alsoDrafted(ctx, branch, [...stored.drafts, ...stored.pendingDeletions, ...stored.conflicts.map((c) => c.path)]),
    passedOver: ctx.memory.lastPassedOver,
    ...(result?.kind === 'gave-up' ? { gaveUp: result.reason } : {}),
  };
}

/**
 * The overlap view of a shared store: a sentence for each of `paths` that an agent on
 * another host drafted too ("work/src/a.ts is also drafted on host ci-3"); nothing where
 * there is none.
 */
function alsoDrafted(ctx: StoreMountContext, branch: string, paths: readonly string[]): { alsoDrafted?: string[] } {
  const elsewhere = ctx.store.draftedElsewhere(branch, ctx.config.name, paths);
  if (elsewhere.size === 0) return {};
  const lines = [...elsewhere]
    .sort(([a], [b]) => compare(a, b))
    .map(([path, hosts]) => `${toolPath(ctx, path)} is also drafted on ${hosts.length === 1 ? 'host' : 'hosts'} ${hosts.join(', ')}`);
  return { alsoDrafted: lines };
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
