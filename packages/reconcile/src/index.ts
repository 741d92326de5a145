export type {
  BranchMark,
  ConflictKind,
  ConflictRecord,
  ContentId,
  DiskPort,
  DiskSide,
  EffectRefusal,
  Evidence,
  Expectation,
  FileMeta,
  Hash,
  Hasher,
  NotStoredWhy,
  Observation,
  PathRecords,
  PendingEffect,
  Reading,
  RootLocation,
  StorePort,
  StoredPath,
  TreeEntry,
  UnlinkResult,
  VersionCause,
  VersionSource,
  Walk,
  WriteResult,
} from './ports.ts';
export { type Reconciler, type ReconcilerOptions, createReconciler } from './reconciler.ts';
export type { Scope, Work } from './context.ts';
export {
  type DecideInput,
  type Decision,
  type DraftKind,
  type GivenUp,
  type PathState,
  type Standing,
  type TakeDisk,
  type Taken,
  PATH_STATES,
  decide,
  draftKind,
} from './decide.ts';
export type { DiskView } from './disk-view.ts';
export { type StoredState, showsFile, storedState } from './stored-state.ts';
export { type Resolution, resolvePending } from './pending.ts';
export { MAX_REGATHERS, RECLAIM_EVERY, type PassDone, type PassGaveUp, type PassRequest, type PassResult } from './pass.ts';
export {
  type PlanOptions,
  type PushDone,
  type PushPlan,
  type PushRequest,
  type PushResult,
  type Skipped,
  planPush,
} from './push.ts';
export type { DraftChange, DraftSource, DraftsRecorded } from './drafts.ts';
export { type ConflictReport, type PathReport, type WayOut, waysOut } from './report.ts';
export { type ReadFacts, type ReadFinding, readFinding } from './read-check.ts';
export { looksBinary } from './binary.ts';
export {
  BRANCH_KEPT_CHANGING,
  CANCELLED,
  conflictDescription,
  readSentence,
  skipReason,
  unverifiedReason,
  wayOutSentence,
} from './wording.ts';
