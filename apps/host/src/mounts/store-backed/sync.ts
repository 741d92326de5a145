/**
 * `sync` on a store-backed mount: disk's changes taken in, for one path, a directory or
 * the whole mount. A draft disk has not changed is kept and listed (`drafts`, with the
 * sentence naming `discard`); only a conflict gives the draft up for disk's copy (it
 * stays in history); a named path the branch doesn't have takes disk's copy in
 * (`@ws/reconcile`'s README, "Sync and discard"). The one rule: only a person's
 * `ws sync --accept-new-root` accepts a replaced root directory; a tool's sync never
 * does, so a replaced root can't read as every file deleted.
 */
import { keptDraftsNote, type Refusal, type Report, type Work } from '@ws/tools';
import { type StoreMountContext, reconcileWork, scopeOf } from './context.ts';
import { passKeepingWalk, quietKeeping, quietPassOf, quietReport } from './quiet.ts';
import { passSummary, rootAdvice, toolPath } from './reports.ts';

/** Syncs `path` (contained already; undefined or `''`: the whole mount), under the lock. */
export async function syncPath(ctx: StoreMountContext, path: string | undefined, work?: Work): Promise<{ readonly ok: true; readonly report: Report } | Refusal> {
  const branch = ctx.store.selectedBranch();
  const whole = path === undefined || path === '';
  const scope = await scopeOf(ctx, path, branch);
  const directory = scope.kind === 'directory';
  // A person accepting a new root directory says which directory the mount is, not how to
  // settle conflicts: that sync gives nothing up.
  const accepting = whole && ctx.memory.acceptingNewRoot;
  const options = accepting ? { acceptNewRoot: true } : { takeDisk: directory ? ('sync' as const) : ('sync-path' as const) };
  // A whole-mount sync where nothing changed since the last one answers as that one did.
  const quiet = whole && !accepting;
  if (quiet) {
    const kept = await quietReport(ctx, branch);
    if (kept !== undefined) return { ok: true, report: kept };
  }
  // The report names only what changed: unchanged paths are counted, not decided one by one.
  const result = await passKeepingWalk(ctx, quiet, () => ctx.pass(scope, { ...options, unchangedByCount: true, ...reconcileWork(work) }));
  if (result.kind === 'gave-up') return { ok: false, message: ctx.words.gaveUp(result.reason) };
  // Taken at once: the store's count as the pass read it, before anything else reads the store.
  const quietPass = quiet ? quietPassOf(ctx, result) : null;
  const summary = passSummary(ctx, result);
  const gaveUp = [];
  const kept: string[] = [];
  for (const r of result.paths) {
    if (r.gaveUp !== null) gaveUp.push({ path: toolPath(ctx, r.path), was: r.gaveUp.state, ...(r.gaveUp.conflict ? { conflict: r.gaveUp.conflict } : {}) });
    else if (r.state !== 'unverified' && (r.draft === 'draft' || r.draft === 'deletion')) kept.push(toolPath(ctx, r.path));
  }
  const report: Report = {
    mount: ctx.config.name,
    branch: result.branch,
    scope: whole ? '(whole mount)' : toolPath(ctx, path),
    tookIn: summary.tookIn,
    gaveUp,
    ...(kept.length > 0 ? { drafts: kept, note: keptDraftsNote } : {}),
    conflicts: summary.conflicts,
    unverified: summary.unverified,
    counts: result.counts,
    passedOver: result.passedOver,
    ...rootAdvice(ctx, result.rootProblem),
    ...(result.incomplete ? { incomplete: result.incomplete } : {}),
  };
  if (quiet) quietKeeping(ctx, quietPass, report)?.();
  return { ok: true, report };
}

/** A whole-mount sync that accepts a root directory other than the one last agreed under, under the lock. */
export async function acceptRoot(ctx: StoreMountContext): Promise<{ readonly ok: true; readonly report: Report } | Refusal> {
  ctx.memory.acceptingNewRoot = true;
  try {
    return await syncPath(ctx, undefined);
  } finally {
    ctx.memory.acceptingNewRoot = false;
  }
}
