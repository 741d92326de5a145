/**
 * `discard` on a store-backed mount: the workspace's drafts, deletions and conflicts at
 * or beneath a path dropped for disk's copy (`@ws/reconcile`'s discard), so it reads
 * disk's copy again. The one rule: disk is never touched and nothing is lost — each
 * dropped copy is already a version in history, and the new one is recorded as a
 * `discard` version in the same transaction.
 */
import type { Refusal, Report } from '@ws/tools';
import { type StoreMountContext, scopeOf } from './context.ts';

/** Drops the drafts at or beneath `path` (contained already; `''`: the whole mount), under the lock. */
export async function discardAt(
  ctx: StoreMountContext,
  path: string,
): Promise<{ readonly ok: true; readonly discarded: readonly string[]; readonly report: Report } | Refusal> {
  if (ctx.config.readOnly) return { ok: false, message: ctx.words.readOnly() };
  const scope = await scopeOf(ctx, path, ctx.store.selectedBranch());
  const result = await ctx.reconciler.discard({ scope });
  if (result.kind === 'gave-up') return { ok: false, message: ctx.words.gaveUp(result.reason) };
  const discarded: string[] = [];
  const kept: { path: string; reason: string | null }[] = [];
  for (const r of result.paths) {
    if (r.gaveUp !== null) discarded.push(r.path);
    else if (r.draft !== null) kept.push({ path: r.path, reason: r.reason });
  }
  // A draft disk can't be checked for and no agreement records: nothing to go back to yet.
  const report: Report = kept.length > 0 ? { notDiscarded: kept, note: ctx.words.notDiscarded() } : {};
  return { ok: true, discarded, report };
}
