/**
 * The three-way rule (README, "The rule"): from what disk holds (D), what the store holds on the
 * selected branch (S) and the last agreement (P), the path's state and the records it
 * should have next. Pure, synchronous and total: every input has exactly one decision.
 *
 * The rule a reader must not break: a decision never drops a draft or a workspace
 * deletion unless `takeDisk` asks (a sync gives up only a conflict; a discard every draft),
 * and never moves P onto a disk content the store does not hold at the same time.
 */
import {
  type DiskView,
  type ObservedDisk,
  diskEqualsEvidence,
  diskEqualsTree,
  diskHasContent,
  diskMatchesSide,
  diskSideOf,
  evidenceOfDisk,
  treeEqualsEvidence,
} from './disk-view.ts';
import type { BranchMark, ConflictKind, ConflictRecord, Evidence, Hash, NotStoredWhy, PathRecords, StoredPath, TreeEntry } from './ports.ts';
import { storedState } from './stored-state.ts';

/** The states of a path of a store-backed mount (README, "States"). */
export type PathState =
  | 'synced'
  | 'workspace-draft'
  | 'workspace-deleted'
  | 'not-in-branch'
  | 'disk-only'
  | 'conflict'
  | 'disk-missing-provenance-unknown'
  | 'unverified';

/** Every state, in the order the README's "States" lists them. */
export const PATH_STATES: readonly PathState[] = [
  'synced',
  'workspace-draft',
  'workspace-deleted',
  'not-in-branch',
  'disk-only',
  'conflict',
  'disk-missing-provenance-unknown',
  'unverified',
];

/**
 * A path's standing after a decision: one of the states, or `absent` — nothing on disk,
 * nothing in the store, nothing recorded (no longer a path of the mount).
 */
export type Standing = PathState | 'absent';

/** What of disk a decision takes into the store. */
export type Taken =
  /** Disk's text became S: a change (`new: false`) or a file the store did not have (`new: true`). */
  | { readonly kind: 'text'; readonly new: boolean }
  /** Only the mode changed on disk: taken in silently. */
  | { readonly kind: 'mode' }
  /** Disk deleted the file: S removed. */
  | { readonly kind: 'deletion' }
  /** Disk's file is binary or too large: not stored; `dropped` when S had a copy that was dropped. */
  | { readonly kind: 'not-stored'; readonly why: NotStoredWhy; readonly dropped: boolean };

/**
 * An explicit request to take disk's side (README, "Sync and discard"): `sync` (a sync of
 * a directory or the whole mount) settles each conflict for disk's copy and keeps every
 * other draft; `sync-path` (a sync of named paths) does too, and a file the branch
 * doesn't have takes disk's copy in; `discard` drops every draft, deletion and conflict
 * for disk's copy — or, where disk can't be checked, for the last agreement.
 */
export type TakeDisk = 'sync' | 'sync-path' | 'discard';

/** What a path's workspace copy is, beside disk's: a draft, a deletion, a conflict, or nothing to show (`Draft` in the host's tools). */
export type DraftKind = 'draft' | 'deletion' | 'conflict';

/** A workspace change a sync or a discard gave up: the state it was in and the copy it held. */
export interface GivenUp {
  readonly state: PathState;
  /** The conflict's kind, when the path was in conflict. */
  readonly conflict: ConflictKind | null;
  /** The workspace copy given up (null: the workspace had deleted it). */
  readonly workspace: TreeEntry | null;
}

/** What {@link decide} takes. */
export interface DecideInput extends PathRecords {
  readonly disk: DiskView;
  /** See {@link StoredPath.agreedElsewhere}. */
  readonly agreedElsewhere?: readonly Hash[];
  /** An explicit sync or discard: what gives way to disk's side, each reported in `gaveUp`. */
  readonly takeDisk?: TakeDisk;
}

/** What {@link decide} says. */
export interface Decision {
  readonly state: Standing;
  /** The records the path should have next (the input's records when nothing changes). */
  readonly next: PathRecords;
  readonly taken: Taken | null;
  readonly gaveUp: GivenUp | null;
  /** A recorded conflict this decision settles (D and S converged, or a path sync). */
  readonly settled: ConflictKind | null;
  /** Why disk could not be checked (state `unverified`), as a sentence. */
  readonly reason: string | null;
}

/** Decides one path. Pure and total. */
export function decide(input: DecideInput): Decision {
  const d = input.disk;
  if (d.kind === 'unobservable') {
    return input.takeDisk === 'discard' ? discardToAgreement(input, d.reason) : unverified(input, d.reason);
  }
  const rule = byRule(input, d);
  return input.takeDisk ? takeDisk(input, d, rule, input.takeDisk) : rule;
}

/** The draft a path in `state` (with these records after the decision) holds, or null. */
export function draftKind(state: Standing, next: PathRecords): DraftKind | null {
  switch (state) {
    case 'conflict':
      return 'conflict';
    case 'workspace-draft':
    case 'disk-missing-provenance-unknown':
      return 'draft';
    case 'workspace-deleted':
      return 'deletion';
    case 'unverified': {
      const stored = storedState(next);
      return stored === 'conflict' ? 'conflict' : stored === 'workspace-deleted' ? 'deletion' : stored === 'workspace-draft' ? 'draft' : null;
    }
    default:
      return null;
  }
}

function byRule(input: DecideInput, d: ObservedDisk): Decision {
  const { tree: s, evidence: p, mark } = input;
  if (diskEqualsTree(d, s)) return agree(input, d);
  if (mark?.conflict) return keepConflict(input, d, mark, mark.conflict);
  if (p === null) {
    if (s === null) {
      const tombstone = mark?.tombstone;
      if (!tombstone) return adopt(input, d);
      // With no evidence, the tombstone's record of what it removed stands in for P.
      if (tombstone.base && diskHasContent(d, tombstone.base)) return stands(input, 'workspace-deleted');
      return conflict(input, d, 'changed-after-workspace-delete');
    }
    if (mark?.origin === 'disk') return adopt(input, d); // S is disk's last text: S = P
    if (mark?.origin === 'workspace') {
      if (d.kind === 'absent') return stands(input, 'workspace-draft');
      // Disk holds a text another host's disk agreed on: that is this disk's agreement too (P := D), S a draft over it.
      if (d.kind === 'text' && input.agreedElsewhere?.includes(d.hash)) {
        const evidence: Evidence = { kind: 'text', hash: d.hash, size: d.size, mode: d.mode, fingerprint: d.fingerprint };
        return decision('workspace-draft', { tree: s, evidence, mark });
      }
      return conflict(input, d, 'store-origin-collision');
    }
    return d.kind === 'absent' ? stands(input, 'disk-missing-provenance-unknown') : conflict(input, d, 'unknown-provenance');
  }
  const dIsP = diskEqualsEvidence(d, p);
  // A workspace deletion is a store change, even where P's store side was "nothing" (disk-only).
  const sIsP = treeEqualsEvidence(s, p) && !(s === null && mark?.tombstone);
  if (dIsP && sIsP) return refreshed(input, d, 'disk-only');
  if (dIsP) {
    if (s !== null) return refreshed(input, d, 'workspace-draft');
    return refreshed(input, d, input.mark?.tombstone ? 'workspace-deleted' : 'not-in-branch');
  }
  if (sIsP) return adopt(input, d);
  if (d.kind === 'absent') return conflict(input, d, 'deleted-on-disk');
  return conflict(input, d, s === null ? 'changed-after-workspace-delete' : 'both-changed');
}

const ABSENT: Evidence = { kind: 'absent' };

function decision(state: Standing, next: PathRecords, extra?: Partial<Decision>): Decision {
  const made: Decision = { state, next, taken: null, gaveUp: null, settled: null, reason: null };
  return extra === undefined ? made : { ...made, ...extra };
}

function unverified(input: DecideInput, reason: string): Decision {
  return decision('unverified', records(input), { reason });
}

function records(input: PathRecords): PathRecords {
  return { tree: input.tree, evidence: input.evidence, mark: input.mark };
}

/** The store's side stands; nothing changes. */
function stands(input: DecideInput, state: PathState): Decision {
  return decision(state, records(input));
}

/** D = P: the store's side stands; P's fingerprint and a mode change are taken in. */
function refreshed(input: DecideInput, d: ObservedDisk, state: PathState): Decision {
  const p = input.evidence;
  if (p === null || p.kind === 'absent' || d.kind === 'absent') return stands(input, state); // nothing to refresh
  const modeChanged = d.mode !== null && d.mode !== p.mode;
  const tree = input.tree && modeChanged ? { ...input.tree, mode: d.mode } : input.tree;
  return decision(state, { tree, evidence: { ...p, mode: d.mode ?? p.mode, fingerprint: d.fingerprint }, mark: input.mark }, {
    taken: modeChanged ? { kind: 'mode' } : null,
  });
}

/**
 * D = S: agreement. P := D; a recorded conflict or workspace deletion settles. Agreed
 * absence is recorded only over known evidence (a path nobody ever had stays unrecorded).
 */
function agree(input: DecideInput, d: ObservedDisk): Decision {
  const settled = input.mark?.conflict?.kind ?? null;
  if (d.kind !== 'text') {
    return decision('absent', { tree: null, evidence: input.evidence === null ? null : ABSENT, mark: null }, { settled });
  }
  // D = S here, so S is disk's text (the tree is only ever absent when D is).
  const s = input.tree ?? { hash: d.hash, size: d.size, mode: d.mode };
  const p = input.evidence;
  if (input.mark === null && p?.kind === 'text' && p.hash === d.hash && p.fingerprint === d.fingerprint && p.mode === d.mode && p.size === d.size) {
    if (s.size === d.size && (d.mode === null || s.mode === d.mode)) return stands(input, 'synced'); // the common case: nothing moved
  }
  const modeOnly = p?.kind === 'text' && p.hash === d.hash && d.mode !== null && d.mode !== p.mode;
  return decision(
    'synced',
    { tree: { hash: s.hash, size: d.size, mode: d.mode ?? s.mode }, evidence: evidenceOfDisk(d), mark: null },
    { settled, taken: modeOnly ? { kind: 'mode' } : null },
  );
}

/** Only disk changed (or nothing vouches otherwise): S := D, P := D. */
function adopt(input: DecideInput, d: ObservedDisk): Decision {
  const s = input.tree;
  if (d.kind === 'absent') {
    return decision('absent', { tree: null, evidence: ABSENT, mark: null }, { taken: { kind: 'deletion' } });
  }
  if (d.kind === 'opaque') {
    return decision(
      'disk-only',
      { tree: null, evidence: evidenceOfDisk(d), mark: null },
      { taken: { kind: 'not-stored', why: d.why, dropped: s !== null } },
    );
  }
  return decision(
    'synced',
    { tree: { hash: d.hash, size: d.size, mode: d.mode }, evidence: evidenceOfDisk(d), mark: null },
    { taken: { kind: 'text', new: s === null } },
  );
}

/** A new conflict, recorded with disk's side as it is now. */
function conflict(input: DecideInput, d: ObservedDisk, kind: ConflictKind): Decision {
  const record: ConflictRecord = {
    kind,
    disk: diskSideOf(d),
    diskChangedSince: false,
    diskNow: d.kind === 'absent' ? 'absent' : 'file',
  };
  const mark: BranchMark = { origin: input.mark?.origin ?? null, tombstone: input.mark?.tombstone ?? null, conflict: record };
  return decision('conflict', { tree: input.tree, evidence: input.evidence, mark });
}

/** A recorded conflict stays until settled or converged; note whether disk moved since. */
function keepConflict(input: DecideInput, d: ObservedDisk, mark: BranchMark, record: ConflictRecord): Decision {
  const updated: ConflictRecord = {
    ...record,
    diskChangedSince: !diskMatchesSide(d, record.disk),
    diskNow: d.kind === 'absent' ? 'absent' : 'file',
  };
  return decision('conflict', { tree: input.tree, evidence: input.evidence, mark: { ...mark, conflict: updated } });
}

/** A sync or discard: disk's side wins where the request gives the workspace's change up (README, "Sync and discard"). */
function takeDisk(input: DecideInput, d: ObservedDisk, rule: Decision, mode: TakeDisk): Decision {
  const draft = draftKind(rule.state, rule.next);
  const givesUp =
    mode === 'discard'
      ? draft !== null
      : rule.state === 'conflict' || (mode === 'sync-path' && rule.state === 'not-in-branch');
  if (!givesUp) return rule;
  const conflictKind = rule.state === 'conflict' ? (rule.next.mark?.conflict?.kind ?? null) : null;
  const taken = adopt(input, d);
  return {
    ...taken,
    gaveUp: { state: rule.state as PathState, conflict: conflictKind, workspace: input.tree },
    settled: conflictKind,
  };
}

/**
 * A discard where disk can't be checked: S goes back to the last agreement (P), so the
 * draft is dropped without guessing at disk; with no agreement recorded there is nothing
 * to go back to, and the draft stays.
 */
function discardToAgreement(input: DecideInput, reason: string): Decision {
  const p = input.evidence;
  const draft = draftKind('unverified', input);
  if (p === null || draft === null) return unverified(input, reason);
  const tree: TreeEntry | null = p.kind === 'text' ? { hash: p.hash, size: p.size, mode: p.mode } : null;
  const conflict = input.mark?.conflict?.kind ?? null;
  return decision('unverified', { tree, evidence: p, mark: null }, {
    reason,
    gaveUp: { state: storedState(input) as PathState, conflict, workspace: input.tree },
    settled: conflict,
  });
}
