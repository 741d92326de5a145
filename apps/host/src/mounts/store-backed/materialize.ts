/**
 * `materialize` on a store-backed mount: drafts pushed to disk by `@ws/reconcile`, which
 * checks at the point of effect that disk still holds what was decided on. The one rule:
 * nothing here writes disk; the push does, through the disk port.
 */
import type { Refusal, Report, Work } from '@ws/tools';
import { type StoreMountContext, reconcileWork, scopeOf } from './context.ts';
import { pushSummary } from './reports.ts';

/** Pushes `path` (contained already; undefined or `''`: the whole mount), under the lock. */
export async function materializePath(
  ctx: StoreMountContext,
  path: string | undefined,
  force: boolean,
  work?: Work,
): Promise<{ readonly ok: true; readonly report: Report } | Refusal> {
  const scope = await scopeOf(ctx, path, ctx.store.selectedBranch());
  const pushed = await ctx.reconciler.push({ scope, force, ...reconcileWork(work) });
  if (pushed.kind === 'gave-up') return { ok: false, message: ctx.words.gaveUp(pushed.reason) };
  const report: Report = {
    mount: ctx.config.name,
    branch: pushed.pass.branch,
    ...(ctx.config.readOnly ? { readOnly: ctx.words.readOnly() } : {}),
    ...pushSummary(ctx, pushed),
  };
  return { ok: true, report };
}
