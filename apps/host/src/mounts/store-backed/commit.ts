/**
 * An agent's changes on a store-backed mount: drafts in the store (pushed at once where
 * the mount has `autoMaterialize`). The one rule: every change is checked before any is
 * recorded — all or none — and a deletion names what it removes.
 */
import type { DraftChange } from '@ws/reconcile';
import { type Change, type CommitIntent, type Refusal, type Report, largeFileChange } from '@ws/tools';
import { type StoreMountContext, isDirectoryPath, parentOf } from './context.ts';
import { pushSummary } from './reports.ts';

/** Why a change can't be made, before the lock is taken; null when each may go ahead. */
export function refuseBeforeLock(ctx: StoreMountContext, changes: readonly Change[]): Refusal | null {
  const { config, words } = ctx;
  if (config.readOnly) return { ok: false, message: words.readOnly() };
  for (const ch of changes) {
    const where = ctx.contain(ch.path, 'change');
    if (!where.ok) return { ok: false, message: where.message };
    if (ch.bytes !== null && ch.bytes.length > config.maxFileSize) {
      return { ok: false, message: words.contentTooLarge(ch.path, ch.bytes.length, config.maxFileSize) };
    }
  }
  return null;
}

/**
 * Records `changes` as drafts, under the lock, each version under the intent's source
 * (without one: `write`, or `delete` for a deletion) and, for a move, the path it came from.
 */
export async function commitChanges(ctx: StoreMountContext, changes: readonly Change[], intent?: CommitIntent): Promise<{ readonly ok: true; readonly report: Report } | Refusal> {
  const branch = ctx.store.selectedBranch();
  for (const ch of changes) {
    const refused = await checkChange(ctx, branch, ch);
    if (refused !== null) return { ok: false, message: refused };
  }
  ctx.reconciler.recordDrafts(
    changes.map((c): DraftChange => ({
      path: c.path,
      bytes: c.bytes,
      ...(intent ? { source: intent.source } : {}),
      ...(c.movedFrom === undefined ? {} : { movedFrom: c.movedFrom }),
    })),
  );
  // A plain commit answers as a direct mount's does (the receipt says what changed);
  // only a push made at once has more to say.
  const report: Record<string, unknown> = {};
  if (ctx.config.autoMaterialize) {
    const pushed = await ctx.reconciler.push({ scope: { kind: 'paths', paths: changes.map((c) => c.path) } });
    report.materialized = pushed.kind === 'done' ? pushSummary(ctx, pushed) : { gaveUp: pushed.reason };
  }
  return { ok: true, report };
}

/** The size of the file over `maxFileSize` that disk holds at `path` (as disk is now, or as the records say for `watch = "never"`), or undefined. */
async function largeOnDisk(ctx: StoreMountContext, branch: string, path: string): Promise<number | undefined> {
  const { config } = ctx;
  if (!ctx.checksDisk) {
    const evidence = ctx.store.read(branch, config.name, path).evidence;
    return evidence?.kind === 'opaque' && evidence.why === 'too-large' ? evidence.size : undefined;
  }
  const seen = await ctx.disk.stat(path);
  return seen.kind === 'file' && seen.meta.size > config.maxFileSize ? seen.meta.size : undefined;
}

/** Why one change can't be recorded (a sentence), or null. */
async function checkChange(ctx: StoreMountContext, branch: string, ch: Change): Promise<string | null> {
  const { store, config, words } = ctx;
  const tree = store.read(branch, config.name, ch.path).tree;
  const held = tree === null ? null : store.getBlob(tree.hash);
  if (ch.expected !== undefined) {
    const same = held === null || ch.expected === null ? held === ch.expected : Buffer.compare(held, ch.expected) === 0;
    if (!same) return words.changedSincePlanned(ch.path);
  }
  if (tree === null) {
    // A file over the limit that only disk holds is read-only, as on a direct mount: a
    // draft over it could never be compared with it, only collide with it.
    const size = await largeOnDisk(ctx, branch, ch.path);
    if (size !== undefined) return largeFileChange(words.shown(ch.path), size, config.maxFileSize);
    // A new file where a directory is, or inside a file: a draft no materialize could
    // write, and a tree holding one path as both a file and a directory.
    if (ch.bytes !== null) {
      if (await isDirectoryPath(ctx, ch.path, branch)) return words.directoryInTheWay(ch.path);
      for (let above = parentOf(ch.path); above !== ''; above = parentOf(above)) {
        if (store.read(branch, config.name, above).tree !== null) return words.fileInTheWay(above, ch.path);
        if (ctx.checksDisk && (await ctx.disk.stat(above)).kind === 'file') return words.fileInTheWay(above, ch.path);
      }
    }
  }
  if (ch.bytes !== null || held !== null) return null;
  if (await isDirectoryPath(ctx, ch.path, branch)) return words.directoryNotDeleted(ch.path);
  let rec = store.read(branch, config.name, ch.path);
  if (rec.mark?.tombstone) return words.missing(ch.path); // already deleted here
  if (rec.evidence === null && rec.mark === null && ctx.checksDisk) {
    // A file the store has never seen: take it in first, so the deletion names what it
    // removes. (A known path is not passed over: that could take in a disk change the
    // deletion's push would then remove unseen.)
    await ctx.pass({ kind: 'paths', paths: [ch.path] });
    rec = store.read(branch, config.name, ch.path);
  }
  const diskHadIt = rec.evidence !== null && rec.evidence.kind !== 'absent';
  return !diskHadIt && rec.tree === null ? words.missing(ch.path) : null;
}
