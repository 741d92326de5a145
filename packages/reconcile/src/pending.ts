/**
 * Resolving a pending effect found later (README, "Crash safety"): an adoption is resolved from what
 * the store shows, a push's write or unlink from what disk shows. An outcome that cannot
 * be told becomes an `interrupted` conflict — never a silent pick.
 */
import { type DiskView, diskHasContent, diskSideOf, sameTree } from './disk-view.ts';
import type { BranchMark, ConflictRecord, PathRecords, PendingEffect } from './ports.ts';

/** How a pending effect was resolved. */
export type Resolution =
  /** The effect happened: the records it would have written. */
  | { readonly kind: 'completed'; readonly next: PathRecords }
  /** The effect did not happen: the records as they were before it. */
  | { readonly kind: 'undone'; readonly next: PathRecords }
  /** Neither can be told: an `interrupted` conflict is recorded. */
  | { readonly kind: 'interrupted'; readonly next: PathRecords }
  /** Disk could not be checked: the effect stays pending. */
  | { readonly kind: 'unresolved'; readonly reason: string };

/**
 * Resolves `pending` against the records of its own branch and what disk holds now.
 * Pure; the caller records `next` durably before it clears the pending effect.
 */
export function resolvePending(pending: PendingEffect, records: PathRecords, disk: DiskView): Resolution {
  if (pending.kind === 'adopt') {
    if (sameTree(records.tree, pending.after.tree)) return { kind: 'completed', next: { ...pending.after, tree: records.tree } };
    if (sameTree(records.tree, pending.before.tree)) return { kind: 'undone', next: { ...pending.before, tree: records.tree } };
    return interrupted(records, disk);
  }
  if (disk.kind === 'unobservable') return { kind: 'unresolved', reason: disk.reason };
  const mark = records.mark;
  if (pending.kind === 'write') {
    const p = records.evidence;
    const recorded = p?.kind === 'text' && p.hash === pending.hash;
    if (recorded || (disk.kind === 'text' && disk.hash === pending.hash)) {
      const fingerprint: string | null =
        disk.kind === 'text' && disk.hash === pending.hash ? disk.fingerprint : p?.kind === 'text' ? p.fingerprint : null;
      const mode = disk.kind === 'text' ? disk.mode : pending.mode;
      return {
        kind: 'completed',
        next: {
          tree: records.tree,
          evidence: { kind: 'text', hash: pending.hash, size: pending.size, mode, fingerprint },
          mark: settledMark(mark, pending.forced, false),
        },
      };
    }
  } else if (disk.kind === 'absent') {
    return { kind: 'completed', next: { tree: records.tree, evidence: { kind: 'absent' }, mark: settledMark(mark, pending.forced, true) } };
  }
  if (stillExpected(pending, disk)) return { kind: 'undone', next: records };
  return interrupted(records, disk);
}

function stillExpected(pending: Exclude<PendingEffect, { kind: 'adopt' }>, disk: Exclude<DiskView, { kind: 'unobservable' }>): boolean {
  const e = pending.expect;
  if (e.kind === 'absent') return disk.kind === 'absent';
  if (disk.kind === 'absent') return false;
  if (e.kind === 'file' && disk.fingerprint === e.fingerprint) return true;
  return pending.expectId !== null && diskHasContent(disk, pending.expectId);
}

/**
 * After a push's effect: a forced one settles the conflict; an unlink ends the workspace
 * deletion; a write makes P known, so S's origin no longer matters.
 */
export function settledMark(mark: BranchMark | null, forced: boolean, unlinked: boolean): BranchMark | null {
  if (mark === null) return null;
  const next: BranchMark = {
    origin: unlinked ? mark.origin : null,
    tombstone: unlinked ? null : mark.tombstone,
    conflict: forced ? null : mark.conflict,
  };
  return next.origin === null && next.tombstone === null && next.conflict === null ? null : next;
}

function interrupted(records: PathRecords, disk: DiskView): Resolution {
  if (disk.kind === 'unobservable') return { kind: 'unresolved', reason: disk.reason };
  const conflict: ConflictRecord = {
    kind: 'interrupted',
    disk: diskSideOf(disk),
    diskChangedSince: false,
    diskNow: disk.kind === 'absent' ? 'absent' : 'file',
  };
  const mark: BranchMark = { origin: records.mark?.origin ?? null, tombstone: records.mark?.tombstone ?? null, conflict };
  return { kind: 'interrupted', next: { ...records, mark } };
}
