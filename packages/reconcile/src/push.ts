/**
 * A push (README, "Crash safety"; the host's `materialize`): make disk hold S. It runs a
 * pass first (so a disk change is taken in, never pushed over), then four phases: plan
 * each path with {@link planPush}, announce every effect durably, act with the disk
 * checking at the point of effect and make the directories durable, and only then record
 * the outcomes. The rule a reader must not
 * break: no outcome is recorded before its effect is durable.
 */
import { FROM_DISK, writeRecords } from './apply.ts';
import { type MountContext, type Scope, type Work, parentOf, yielder } from './context.ts';
import type { Standing } from './decide.ts';
import { type DiskView, contentOfDisk } from './disk-view.ts';
import { MATERIALIZED, type PassDone, type PassGaveUp, runPass } from './pass.ts';
import { resolvePending } from './pending.ts';
import type { BranchMark, ContentId, Evidence, Expectation, PendingEffect, TreeEntry, UnlinkResult, WriteResult } from './ports.ts';
import type { PathReport } from './report.ts';
import { skipReason } from './wording.ts';

/**
 * What to push. A cancelled push stops between two paths: each path is written whole or
 * not at all, what was written is recorded, and the rest are skipped as cancelled.
 */
export interface PushRequest extends Work {
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
  /** Set when the caller cancelled it before every planned path was acted on. */
  readonly cancelled?: true;
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
      const c = report.conflict;
      if (!force) return { kind: 'skip', reason: skipReason.conflict(c?.kind ?? 'interrupted', (c?.waysOut ?? []).map((w) => w.sentence)) };
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
  /** The bytes to write (null for an unlink). */
  readonly bytes: Uint8Array | null;
}

/** What the plan phase decided: the effects to make, and the paths left as they are. */
interface Planned {
  readonly effects: Effect[];
  readonly unchanged: string[];
  readonly skipped: Skipped[];
}

/** Runs one push: plan, announce, act, record (README, "Crash safety"). */
export async function runPush(ctx: MountContext, request: PushRequest): Promise<PushResult> {
  const pass = await runPass(ctx, { scope: request.scope, ...(request.signal ? { signal: request.signal } : {}) });
  if (request.signal?.aborted && pass.kind === 'done') return { kind: 'done', pass, written: [], deleted: [], unchanged: [], skipped: [], cancelled: true };
  if (pass.kind === 'gave-up') return pass;
  const { effects, unchanged, skipped } = plan(ctx, pass, request);
  const written: string[] = [];
  const deleted: string[] = [];
  if (effects.length === 0) return { kind: 'done', pass, written, deleted, unchanged, skipped };
  try {
    announce(ctx, effects);
    const results = await act(ctx, effects, request);
    record(ctx, effects, results, { written, deleted, skipped });
    if (results.some((r) => r.kind === 'cancelled')) return { kind: 'done', pass, written, deleted, unchanged, skipped, cancelled: true };
  } finally {
    for (const e of effects) ctx.inFlight.delete(e.report.path);
  }
  return { kind: 'done', pass, written, deleted, unchanged, skipped };
}

/** Plan: each path of the pass, by {@link planPush}, into an effect or a reason to leave it. */
function plan(ctx: MountContext, pass: PassDone, request: PushRequest): Planned {
  const options: PlanOptions = {
    named: request.scope.kind === 'paths',
    force: request.force ?? false,
    readOnly: ctx.readOnly,
    rootProblem: pass.rootProblem,
  };
  const planned: Planned = { effects: [], unchanged: [], skipped: [] };
  for (const report of pass.paths) {
    const p = planPush(report, options);
    const skip = (reason: string) => planned.skipped.push({ path: report.path, state: report.state, reason });
    if (p.kind === 'unchanged') planned.unchanged.push(report.path);
    else if (p.kind === 'skip') skip(p.reason);
    else if (ctx.inFlight.has(report.path)) skip(skipReason.busy);
    else {
      const effect = effectOf(ctx, pass.branch, report, p);
      if (effect === null) skip(skipReason.blobMissing);
      else planned.effects.push(effect);
    }
  }
  return planned;
}

/** The effect for one planned write or unlink; null where the text to write is missing from the store. */
function effectOf(ctx: MountContext, branch: string, report: PathReport, p: Extract<PushPlan, { kind: 'write' | 'unlink' }>): Effect | null {
  const expectId: ContentId | null = report.disk.kind === 'unobservable' ? null : contentOfDisk(report.disk);
  if (p.kind === 'unlink') {
    return { report, pending: { kind: 'unlink', branch, expect: p.expect, expectId, forced: p.forced }, bytes: null };
  }
  const tree = report.workspace;
  const bytes = tree === null ? null : ctx.store.getBlob(tree.hash);
  if (tree === null || bytes === null) return null;
  const pending: Effect['pending'] = { kind: 'write', branch, hash: tree.hash, size: tree.size, mode: tree.mode, expect: p.expect, expectId, forced: p.forced };
  return { report, pending, bytes };
}

/**
 * Announce: every effect recorded as pending, durably, before any acts; their paths are in
 * flight from here. A forced effect over a conflict records first, as a `disk` version,
 * the text of disk's it may replace (see {@link overwrittenVersion}): in history before a
 * byte of it can be lost, so a person's save the agent chose to overwrite can be restored.
 */
function announce(ctx: MountContext, effects: readonly Effect[]): void {
  const { store, mount } = ctx;
  // Only a forced effect reads its records again (on a shared store, a round trip each).
  const overwritten = effects.map((e) => (e.pending.forced ? overwrittenVersion(store, e.pending.expectId, store.read(e.pending.branch, mount, e.report.path)) : null));
  // The versions' text made durable before a version names it: a blob put since the last
  // barrier (a pass's, unbarriered) may be lost in a crash, and a version must never name
  // text the store lost.
  if (overwritten.some((v) => v !== null)) {
    for (const v of overwritten) if (v !== null) store.putBlob(v.entry.hash, v.bytes);
    store.barrier();
  }
  effects.forEach((e, i) => {
    ctx.inFlight.add(e.report.path);
    const v = overwritten[i];
    if (v !== null) store.addVersion(e.pending.branch, mount, e.report.path, v.entry, FROM_DISK);
    store.setPending(mount, e.report.path, e.pending);
  });
  store.barrier();
}

/**
 * The text a forced write or deletion may replace, as a version to keep: disk's text the
 * effect will be checked against (`expectId`), where the path is in conflict and that text
 * is not the last agreement (history holds that already, and the text the workspace
 * wrote). Null where there is nothing more to keep — disk holds the agreed text, a binary
 * or too-large file, or nothing. (Recorded when announced, so it never waits on the
 * effect's outcome; where the effect is then refused, disk still holds that text, and
 * history says it held it.)
 */
function overwrittenVersion(
  store: MountContext['store'],
  id: ContentId | null,
  before: { readonly evidence: Evidence | null; readonly mark: BranchMark | null },
): { readonly entry: TreeEntry; readonly bytes: Uint8Array } | null {
  if (before.mark?.conflict == null || id === null || id.kind !== 'text') return null;
  const agreed = before.evidence;
  if (agreed !== null && agreed.kind === 'text' && agreed.hash === id.hash) return null;
  const held = store.getBlob(id.hash);
  return held === null ? null : { entry: { hash: id.hash, size: held.length, mode: null }, bytes: held };
}

/** An effect's outcome, or that the call was cancelled before it acted. */
type Acted = WriteResult | UnlinkResult | { readonly kind: 'cancelled' };

/**
 * Act: each effect, checked by the disk at the point of effect, until the caller cancels;
 * then the touched directories made durable.
 */
async function act(ctx: MountContext, effects: readonly Effect[], work: Work): Promise<Acted[]> {
  const results: Acted[] = [];
  const pause = yielder(work);
  for (const [done, e] of effects.entries()) {
    work.progress?.(done, effects.length);
    await pause();
    if (work.signal?.aborted) {
      results.push({ kind: 'cancelled' });
      continue;
    }
    const p = e.pending;
    results.push(
      p.kind === 'write' && e.bytes !== null
        ? await ctx.disk.write(e.report.path, e.bytes, { mode: p.mode, expect: p.expect })
        : await ctx.disk.unlink(e.report.path, { expect: p.expect }),
    );
  }
  const dirs = new Set<string>();
  effects.forEach((e, i) => {
    if (results[i].kind === 'done') dirs.add(parentOf(e.report.path));
  });
  for (const dir of [...dirs].sort()) await ctx.disk.syncDirectory(dir);
  return results;
}

/** Record: each done effect's outcome and its `materialize` version (after its effect is durable), then the announcements cleared. */
function record(
  ctx: MountContext,
  effects: readonly Effect[],
  results: readonly Acted[],
  out: { written: string[]; deleted: string[]; skipped: Skipped[] },
): void {
  const { store, mount } = ctx;
  let wrote = false;
  effects.forEach((e, i) => {
    const path = e.report.path;
    const result = results[i];
    if (result.kind === 'refused') {
      out.skipped.push({ path, state: e.report.state, reason: skipReason.changedAtEffect });
      return;
    }
    if (result.kind === 'failed') {
      out.skipped.push({ path, state: e.report.state, reason: skipReason.failed(result.reason) });
      return;
    }
    if (result.kind === 'cancelled') {
      out.skipped.push({ path, state: e.report.state, reason: skipReason.cancelled });
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
      wrote = writeRecords(store, mount, { path, branch: p.branch, before, after: resolution.next, announce: false, cause: FROM_DISK }) || wrote;
    }
    // Every materialize is a version, its bytes the ones written (recorded with the outcome).
    store.addVersion(p.branch, mount, path, p.kind === 'write' ? { hash: p.hash, size: p.size, mode: p.mode } : null, MATERIALIZED);
    wrote = true;
    (p.kind === 'write' ? out.written : out.deleted).push(path);
  });
  if (wrote) store.barrier();
  for (const e of effects) store.setPending(mount, e.report.path, null);
  store.barrier();
}
