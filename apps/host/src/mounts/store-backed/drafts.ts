/**
 * The drafts at or beneath a path on a store-backed mount: the paths whose workspace copy
 * differs from disk's, for `diff`. The one rule: what is a draft is `@ws/reconcile`'s
 * (`PathReport.draft` after the disk check a read makes, `storedState` from the store
 * alone); nothing here changes a draft.
 */
import { storedState } from '@ws/reconcile';
import type { Draft, Refusal } from '@ws/tools';
import { type StoreMountContext, compare, scopeOf } from './context.ts';

/** The drafts at or beneath `path` (contained already; `''`: the whole mount), in path order, under the lock. */
export async function draftsAt(ctx: StoreMountContext, path: string): Promise<{ readonly ok: true; readonly drafts: readonly Draft[] } | Refusal> {
  const branch = ctx.store.selectedBranch();
  const scope = await scopeOf(ctx, path, branch);
  const result = ctx.checksDisk ? await ctx.pass(scope) : undefined;
  if (result?.kind === 'done') {
    const drafts: Draft[] = [];
    for (const r of result.paths) if (r.draft !== null) drafts.push({ path: r.path, kind: r.draft });
    return { ok: true, drafts };
  }
  return { ok: true, drafts: storedDrafts(ctx, branch, scope.kind === 'paths' ? scope.paths[0] : scope.path, scope.kind === 'paths') };
}

/** The drafts the store's records alone show (`watch = "never"`, or a disk check that gave up). */
function storedDrafts(ctx: StoreMountContext, branch: string, at: string, one: boolean): Draft[] {
  const drafts: Draft[] = [];
  for (const rec of ctx.store.scan(branch, ctx.config.name, at)) {
    if (one && rec.path !== at) continue;
    const state = storedState(rec);
    if (state === 'conflict') drafts.push({ path: rec.path, kind: 'conflict' });
    else if (state === 'workspace-deleted') drafts.push({ path: rec.path, kind: 'deletion' });
    else if (state === 'workspace-draft') drafts.push({ path: rec.path, kind: 'draft' });
  }
  return drafts.sort((a, b) => compare(a.path, b.path));
}
