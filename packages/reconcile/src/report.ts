/**
 * What a pass says about each path: enough for a read's note (README, "What a read shows"), a listing's
 * state, a sync's "what was given up", a materialize report and `status`.
 */
import { type Decision, type DraftKind, type GivenUp, type Standing, type Taken, draftKind } from './decide.ts';
import type { DiskView } from './disk-view.ts';
import type { ConflictKind, ConflictRecord, DiskSide, TreeEntry } from './ports.ts';
import { conflictDescription, wayOutSentence } from './wording.ts';

/** One way to settle a conflict: the tool call and what it does. */
export interface WayOut {
  readonly tool: 'discard' | 'sync' | 'materialize';
  readonly force: boolean;
  readonly effect: 'keeps-disk' | 'takes-disk-deletion' | 'writes-workspace' | 'deletes-on-disk';
  /** The sentence to show (from `wording.ts`). */
  readonly sentence: string;
}

/** A recorded conflict, as reports and notes need it. */
export interface ConflictReport {
  readonly kind: ConflictKind;
  /** What the kind means, as a clause. */
  readonly description: string;
  /** Disk's side when recorded, and where it is kept (a stored blob, a reference, or absent). */
  readonly diskSide: DiskSide;
  /** Disk no longer holds its recorded side. */
  readonly diskChangedSince: boolean;
  /** What disk holds now (as of the last pass that could observe it). */
  readonly diskNow: 'file' | 'absent';
  /** What the workspace holds. */
  readonly workspace: 'file' | 'absent';
  /**
   * The ways out, by what disk holds now: `discard` (keep disk's side) and a forced
   * `materialize` (keep the workspace's); on a read-only mount, `sync` alone.
   */
  readonly waysOut: readonly WayOut[];
}

/** One path's outcome in a pass. */
export interface PathReport {
  readonly path: string;
  /** The path's state after the pass, or `absent` (nothing anywhere). */
  readonly state: Standing;
  /** D as the pass observed it (`unobservable` carries why). */
  readonly disk: DiskView;
  /** S after the pass. */
  readonly workspace: TreeEntry | null;
  /** The workspace deleted the path on this branch (a deletion not yet on disk). */
  readonly deletedInWorkspace: boolean;
  /** What of disk this pass took in. */
  readonly taken: Taken | null;
  /** A sync or discard only: the workspace change it gave up (it stays in the store's history). */
  readonly gaveUp: GivenUp | null;
  /** What the workspace's copy is beside disk's after the pass: a draft, a deletion, a conflict, or null (the host's `diff` and `discard`). */
  readonly draft: DraftKind | null;
  /** A conflict this pass settled (D and S converged, or a path sync). */
  readonly settled: ConflictKind | null;
  /** The recorded conflict, when there is one (state `conflict`, or `unverified` over a conflict). */
  readonly conflict: ConflictReport | null;
  /** Why disk could not be checked (state `unverified`), as a sentence. */
  readonly reason: string | null;
}

/** The ways out of a conflict, by what disk holds now. */
export function waysOut(diskNow: 'file' | 'absent', workspace: 'file' | 'absent', readOnly: boolean): WayOut[] {
  // A read-only mount refuses discard; its sync changes only the store, so it settles there.
  if (readOnly) {
    return diskNow === 'file'
      ? [{ tool: 'sync', force: false, effect: 'keeps-disk', sentence: wayOutSentence.syncKeepsDisk }]
      : [{ tool: 'sync', force: false, effect: 'takes-disk-deletion', sentence: wayOutSentence.syncTakesDeletion }];
  }
  const ways: WayOut[] =
    diskNow === 'file'
      ? [{ tool: 'discard', force: false, effect: 'keeps-disk', sentence: wayOutSentence.discardKeepsDisk }]
      : [{ tool: 'discard', force: false, effect: 'takes-disk-deletion', sentence: wayOutSentence.discardTakesDeletion }];
  ways.push(
    workspace === 'file'
      ? { tool: 'materialize', force: true, effect: 'writes-workspace', sentence: wayOutSentence.forceWrites }
      : { tool: 'materialize', force: true, effect: 'deletes-on-disk', sentence: wayOutSentence.forceDeletes },
  );
  return ways;
}

/** A conflict record as a report. */
export function conflictReport(record: ConflictRecord, workspace: TreeEntry | null, readOnly: boolean): ConflictReport {
  const held = workspace === null ? 'absent' : 'file';
  return {
    kind: record.kind,
    description: conflictDescription[record.kind],
    diskSide: record.disk,
    diskChangedSince: record.diskChangedSince,
    diskNow: record.diskNow,
    workspace: held,
    waysOut: waysOut(record.diskNow, held, readOnly),
  };
}

/** The report of one decided path. */
export function pathReport(path: string, disk: DiskView, d: Decision, readOnly: boolean): PathReport {
  const record = d.next.mark?.conflict ?? null;
  return {
    path,
    state: d.state,
    disk,
    workspace: d.next.tree,
    deletedInWorkspace: d.next.tree === null && (d.next.mark?.tombstone ?? null) !== null,
    taken: d.taken,
    gaveUp: d.gaveUp,
    draft: draftKind(d.state, d.next),
    settled: d.settled,
    conflict: record ? conflictReport(record, d.next.tree, readOnly) : null,
    reason: d.reason,
  };
}
