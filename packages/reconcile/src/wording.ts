/**
 * Every sentence this package says, in one place, so tests, the README and the host can
 * refer to them. Sentences are full and say what to do next; clauses (a disk port's
 * `reason`) are lower-case fragments that a sentence here carries.
 */
import type { ConflictKind, NotStoredWhy } from './ports.ts';

/** The reason a pass gives up (README, "Passes and pushes"). */
export const BRANCH_KEPT_CHANGING = 'the selected branch kept changing while the scan ran';

/** Why a pass gave up when its caller cancelled it: it decided and recorded nothing. */
export const CANCELLED = 'the call was cancelled before anything was decided; nothing was changed';

/** Why a path is `unverified`. */
export const unverifiedReason = {
  /** The mount root is missing or unreadable. */
  rootUnavailable: (clause: string): string =>
    `The mount root is unavailable (${clause}), so disk could not be checked; nothing was taken as deleted.`,
  /** The root exists but is not the directory last agreed under. */
  rootReplaced:
    'The mount root is not the directory last agreed under (it was moved or replaced), so disk could not be checked; nothing was taken as deleted.',
  /** The disk port could not observe the path. */
  path: (clause: string): string => `Disk could not be checked: ${clause}.`,
  /** The walk could not read a directory above the path. */
  region: (region: string, clause: string): string =>
    `Disk could not be checked: ${region === '' ? 'the mount root' : region} could not be read (${clause}).`,
  /** The walk stopped at its cap before reaching the path. */
  walkIncomplete: (clause: string): string => `Disk could not be checked: ${clause}, before reaching this path.`,
  /** A push in this process is writing the path. */
  effectInProgress: 'Materialize is writing this path right now; check again in a moment.',
} as const;

/** What each conflict kind means, as a clause. */
export const conflictDescription: Readonly<Record<ConflictKind, string>> = {
  'deleted-on-disk': 'disk deleted the file while the workspace has a draft of it',
  'changed-after-workspace-delete': 'disk changed the file after the workspace deleted it',
  'both-changed': 'disk and the workspace both changed the file',
  'unknown-provenance': "disk's file differs from the workspace's copy and nothing records which came first",
  'store-origin-collision': 'the workspace made this file and disk has a different file at the same path',
  interrupted: 'an effect on this file was interrupted and disk now holds something else, so which side is newer is unknown',
};

/** The ways out of a conflict, by what they do (README, "What a read shows"). */
export const wayOutSentence = {
  discardKeepsDisk: "`discard` on this path keeps disk's copy (the workspace's draft stays in history)",
  discardTakesDeletion: "`discard` on this path takes disk's deletion (the workspace's copy stays in history)",
  syncKeepsDisk: "`sync` on this path keeps disk's copy and gives up the workspace's (it stays in history)",
  syncTakesDeletion: "`sync` on this path takes disk's deletion and removes the workspace's copy (it stays in history)",
  forceWrites: "`materialize` with force on this path writes the workspace's copy to disk",
  forceDeletes: "`materialize` with force on this path deletes disk's file, as the workspace did",
} as const;

/** Why a push did not write a path. */
export const skipReason = {
  readOnly: 'The mount is read-only, so nothing is written to disk.',
  rootProblem: (sentence: string): string => `${sentence} Nothing was written.`,
  conflict: (kind: ConflictKind, ways: readonly string[]): string =>
    `It is in conflict: ${conflictDescription[kind]}. To settle it: ${ways.join('; or ')}.`,
  unverified: (sentence: string): string =>
    `${sentence} Materialize this path with force to write the workspace's copy anyway.`,
  unverifiedDeletion: (sentence: string): string =>
    `${sentence} A deletion is not pushed to a disk copy that could not be checked.`,
  busy: unverifiedReason.effectInProgress,
  deletionNotAsked:
    'The workspace deleted this file; a deletion reaches disk only when asked: materialize this path to delete it on disk.',
  notInBranchNotAsked:
    "The selected branch doesn't have this file; materialize this path to delete it on disk, or sync it to take disk's copy in.",
  forcedDeletionNotAsked:
    "The workspace deleted this file and disk changed it since; a forced deletion reaches disk only when asked: materialize this path with force.",
  provenanceNotAsked:
    "Disk has no copy and nothing records whether it was deleted there; materialize this path to write the workspace's copy.",
  changedAtEffect: 'Disk changed while materialize ran, so nothing was written; run materialize again to see what changed.',
  failed: (clause: string): string => `Disk refused the change: ${clause}.`,
  cancelled: 'The call was cancelled before this path was written; it is still a draft: materialize it again.',
  blobMissing: "The workspace's copy is missing from the store, so nothing was written.",
} as const;

function notStoredClause(why: NotStoredWhy): string {
  return why === 'binary' ? 'it is binary' : "it is larger than the mount's size limit";
}

/** The read's disk-check sentences (README, "What a read shows"). */
export const readSentence = {
  tookDiskChange: "Disk's copy changed and the workspace's didn't, so it was taken in: this read shows disk's text.",
  unverified: (sentence: string): string => `${sentence} This read shows the workspace's copy.`,
  gaveUp: `The disk check gave up: ${BRANCH_KEPT_CHANGING}. This read shows the workspace's copy; read again.`,
  notHeldUnverified: (sentence: string): string => `This file isn't in the workspace, and disk could not be checked. ${sentence}`,
  notHeldGaveUp: `This file isn't in the workspace, and disk could not be checked: ${BRANCH_KEPT_CHANGING}. Read again.`,
  provenanceUnknown:
    "Disk has no copy of this file and nothing records whether it was deleted there; this read shows the workspace's copy.",
  deletedOnDisk: 'Disk deleted this file and the deletion was taken in: it is no longer in the workspace.',
  notStored: (why: NotStoredWhy, dropped: boolean): string =>
    dropped
      ? `Disk's copy of this file changed so that ${notStoredClause(why)}: it is on disk but no longer stored in the workspace.`
      : `This file is on disk but not stored in the workspace: ${notStoredClause(why)}.`,
  conflict: (kind: ConflictKind, ways: readonly string[]): string =>
    `This file is in conflict: ${conflictDescription[kind]}. This read shows the workspace's draft; \`read\` with version "disk" shows disk's copy and \`diff\` both sides. To settle it: ${ways.join('; or ')}.`,
  conflictWorkspaceDeleted: (kind: ConflictKind, ways: readonly string[]): string =>
    `This file is in conflict: ${conflictDescription[kind]}. The workspace has no copy to show. To settle it: ${ways.join('; or ')}.`,
  notInBranch: "The selected branch doesn't have this file; disk has it. `sync` on this path takes disk's copy into the branch.",
} as const;
