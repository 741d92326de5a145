/**
 * A push (SPEC §4.4, `materialize`): make disk hold S. It runs a pass first (so a disk
 * change is taken in, never pushed over), plans each path with {@link planPush}, announces
 * every effect durably, acts with the disk checking at the point of effect, makes the
 * directories durable, and only then records the outcomes. The rule a reader must not
 * break: no outcome is recorded before its effect is durable.
 */
import { writeRecords } from './apply.ts';
import { type MountContext, type Scope, parentOf } from './context.ts';
import type { Standing } from './decide.ts';
import { type DiskView, contentOfDisk } from './disk-view.ts';
import { type PassDone, type PassGaveUp, runPass } from './pass.ts';
import { resolvePending } from './pending.ts';
import type { ContentId, Expectation, PendingEffect, UnlinkResult, WriteResult } from './ports.ts';
import type { PathReport } from './report.ts';
import { skipReason } from './wording.ts';

/** What to push. */
export interface PushRequest {
  /** Named paths (deletions and paths without evidence are pushed only when named), or a directory. */
  readonly scope: Scope;
  /** Push conflicts and unverifiable disk copies too, making disk hold the workspace's side. */
  readonly force?: boolean;
}

/** A path a push did not write, and why (a sentence). */
export interface Skipped {
  readonly path: string;
  readonly state: Standing;
  readonly reason: string;
}

/** A push that ran. */
export interface PushDone {
  readonly kind: 'done';
  /** The pass the push ran first: its reports carry what it took in and each path's state before the push. */
  readonly pass: PassDone;
  /** Paths whose workspace copy was written to disk. */
  readonly written: readonly string[];
  /** Paths deleted on disk. */
  readonly deleted: readonly string[];
  /** Paths where disk already held S (or nothing was the workspace's to push). */
  readonly unchanged: readonly string[];
  readonly skipped: readonly Skipped[];
}

/** What a push says; it gives up, pushing nothing, when its pass gave up. */
export type PushResult = PushDone | PassGaveUp;

/** What a push does with one path. */
export type PushPlan =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'skip'; readonly reason: string }
  | { readonly kind: 'write'; readonly expect: Expectation; readonly forced: boolean }
  | { readonly kind: 'unlink'; readonly expect: Expectation; readonly forced: boolean };

/** The push's options that a plan depends on. */
export interface PlanOptions {
  /** The call named this path. */
  readonly named: boolean;
  readonly force: boolean;
  readonly readOnly: boolean;
  /** The pass found the root unusable: nothing can be written, forced or not. */
  readonly rootProblem: string | null;
}

/** Plans one path from its pass report. Pure. */
export function planPush(report: PathReport, options: PlanOptions): PushPlan {
  const { named, force } = options;
  const state = report.state;
  if (state === 'absent' || state === 'synced' || state === 'disk-only') return { kind: 'unchanged' };
  const nothingToPush = report.workspace === null && !report.deletedInWorkspace && report.conflict === null;
  if (state === 'unverified' && nothingToPush) return { kind: 'unchanged' };
  if (options.readOnly) return { kind: 'skip', reason: skipReason.readOnly };
  if (options.rootProblem !== null) return { kind: 'skip', reason: skipReason.rootProblem(options.rootProblem) };
  const seen = expectationOf(report.disk);
  switch (state) {
    case 'workspace-draft':
      return { kind: 'write', expect: seen, forced: false };
    case 'workspace-deleted':
      return named ? { kind: 'unlink', expect: seen, forced: false } : { kind: 'skip', reason: skipReason.deletionNotAsked };
    case 'not-in-branch':
      return named ? { kind: 'unlink', expect: seen, forced: false } : { kind: 'skip', reason: skipReason.notInBranchNotAsked };
    case 'disk-missing-provenance-unknown':
      return named ? { kind: 'write', expect: seen, forced: false } : { kind: 'skip', reason: skipReason.provenanceNotAsked };
    case 'conflict': {
      const c = report.conflict!;
      if (!force) return { kind: 'skip', reason: skipReason.conflict(c.kind, c.waysOut.map((w) => w.sentence)) };
      if (report.workspace !== null) return { kind: 'write', expect: seen, forced: true };
      return named ? { kind: 'unlink', expect: seen, forced: true } : { kind: 'skip', reason: skipReason.forcedDeletionNotAsked };
    }
    case 'unverified': {
      const why = report.reason ?? '';
      if (report.reason === skipReason.busy) return { kind: 'skip', reason: skipReason.busy };
      if (!force) return { kind: 'skip', reason: skipReason.unverified(why) };
      if (report.workspace === null) return { kind: 'skip', reason: skipReason.unverifiedDeletion(why) };
      return { kind: 'write', expect: { kind: 'any' }, forced: true };
    }
  }
}

function expectationOf(d: DiskView): Expectation {
  if (d.kind === 'absent') return { kind: 'absent' };
  if (d.kind === 'unobservable') return { kind: 'any' };
  return { kind: 'file', fingerprint: d.fingerprint };
}

interface Effect {
  readonly report: PathReport;
  readonly pending: Exclude<PendingEffect, { kind: 'adopt' }>;
  readonly bytes: Uint8Array | null;
}

/** Runs one push. */
export async function runPush(ctx: MountContext, request: PushRequest): Promise<PushResult> {
  const pass = await runPass(ctx, { scope: request.scope });
  if (pass.kind === 'gave-up') return pass;
  const { store, mount } = ctx;
  const options: PlanOptions = {
    named: request.scope.kind === 'paths',
    force: request.force ?? false,
    readOnly: ctx.readOnly,
    rootProblem: pass.rootProblem,
  };
  const unchanged: string[] = [];
  const skipped: Skipped[] = [];
  const effects: Effect[] = [];
  for (const report of pass.paths) {
    const plan = planPush(report, options);
    if (plan.kind === 'unchanged') unchanged.push(report.path);
    else if (plan.kind === 'skip') skipped.push({ path: report.path, state: report.state, reason: plan.reason });
    else if (ctx.inFlight.has(report.path)) skipped.push({ path: report.path, state: report.state, reason: skipReason.busy });
    else {
      const expectId: ContentId | null = report.disk.kind === 'unobservable' ? null : contentOfDisk(report.disk);
      if (plan.kind === 'unlink') {
        const pending: Effect['pending'] = { kind: 'unlink', branch: pass.branch, expect: plan.expect, expectId, forced: plan.forced };
        effects.push({ report, pending, bytes: null });
        continue;
      }
      const tree = report.workspace!;
      const bytes = store.getBlob(tree.hash);
      if (bytes === null) {
        skipped.push({ path: report.path, state: report.state, reason: skipReason.blobMissing });
        continue;
      }
      const pending: Effect['pending'] = {
        kind: 'write',
        branch: pass.branch,
        hash: tree.hash,
        size: tree.size,
        mode: tree.mode,
        expect: plan.expect,
        expectId,
        forced: plan.forced,
      };
      effects.push({ report, pending, bytes });
    }
  }
  const written: string[] = [];
  const deleted: string[] = [];
  if (effects.length === 0) return { kind: 'done', pass, written, deleted, unchanged, skipped };

  for (const e of effects) {
    ctx.inFlight.add(e.report.path);
    store.setPending(mount, e.report.path, e.pending);
  }
  try {
    store.barrier();
    const results: (WriteResult | UnlinkResult)[] = [];
    for (const e of effects) {
      const p = e.pending;
      results.push(
        p.kind === 'write'
          ? await ctx.disk.write(e.report.path, e.bytes!, { mode: p.mode, expect: p.expect })
          : await ctx.disk.unlink(e.report.path, { expect: p.expect }),
      );
    }
    const dirs = new Set<string>();
    effects.forEach((e, i) => {
      if (results[i].kind === 'done') dirs.add(parentOf(e.report.path));
    });
    for (const dir of [...dirs].sort()) await ctx.disk.syncDirectory(dir);

    let wrote = false;
    effects.forEach((e, i) => {
      const path = e.report.path;
      const result = results[i];
      if (result.kind === 'refused') {
        skipped.push({ path, state: e.report.state, reason: skipReason.changedAtEffect });
        return;
      }
      if (result.kind === 'failed') {
        skipped.push({ path, state: e.report.state, reason: skipReason.failed(result.reason) });
        return;
      }
      const p = e.pending;
      const now: DiskView =
        p.kind === 'write' && 'meta' in result
          ? { kind: 'text', hash: p.hash, size: p.size, mode: result.meta.mode, fingerprint: result.meta.fingerprint }
          : { kind: 'absent' };
      const current = store.read(p.branch, mount, path);
      const before = { tree: current.tree, evidence: current.evidence, mark: current.mark };
      const resolution = resolvePending(p, before, now);
      if (resolution.kind === 'completed') {
        wrote = writeRecords(store, mount, { path, branch: p.branch, before, after: resolution.next, announce: false }) || wrote;
      }
      (p.kind === 'write' ? written : deleted).push(path);
    });
    if (wrote) store.barrier();
    for (const e of effects) store.setPending(mount, e.report.path, null);
    store.barrier();
  } finally {
    for (const e of effects) ctx.inFlight.delete(e.report.path);
  }
  return { kind: 'done', pass, written, deleted, unchanged, skipped };
}
