/**
 * The read's disk check (SPEC §4.5), as one finding per read: show the workspace's copy
 * with notes, or answer with a sentence instead of a page. The host runs a named pass over
 * the path first and hands its result here; nothing here looks at disk.
 */
import type { PassResult } from './pass.ts';
import type { NotStoredWhy } from './ports.ts';
import { readSentence } from './wording.ts';

/** What a read of one path should do after its disk check. */
export type ReadFinding =
  /** Show the workspace's copy (S, after the pass), with these notes in the page's note. */
  | { readonly kind: 'page'; readonly notes: readonly string[] }
  /** No page: this sentence is the answer. */
  | {
      readonly kind: 'answer';
      readonly reason:
        | 'gave-up'
        | 'unverified'
        | 'deleted-on-disk'
        | 'not-stored'
        | 'workspace-deleted'
        | 'not-in-branch'
        | 'conflict';
      readonly message: string;
      /** For `not-stored`: why the disk file is not stored (a host may answer a binary read its own way). */
      readonly why?: NotStoredWhy;
    }
  /** Nothing on disk or in the workspace. */
  | { readonly kind: 'missing' };

/**
 * The finding for `path` from the named pass over it. `workspaceHolds` matters only
 * when the pass gave up (it decided nothing, so the caller says whether S has the path).
 */
export function readFinding(result: PassResult, path: string, workspaceHolds: boolean): ReadFinding {
  if (result.kind === 'gave-up') {
    return workspaceHolds
      ? { kind: 'page', notes: [readSentence.gaveUp] }
      : { kind: 'answer', reason: 'gave-up', message: readSentence.notHeldGaveUp };
  }
  const r = result.paths.find((p) => p.path === path);
  if (r === undefined) return { kind: 'missing' };
  switch (r.state) {
    case 'unverified':
      return r.workspace !== null
        ? { kind: 'page', notes: [readSentence.unverified(r.reason ?? '')] }
        : { kind: 'answer', reason: 'unverified', message: readSentence.notHeldUnverified(r.reason ?? '') };
    case 'conflict': {
      const c = r.conflict!;
      const ways = c.waysOut.map((w) => w.sentence);
      return r.workspace !== null
        ? { kind: 'page', notes: [readSentence.conflict(c.kind, ways)] }
        : { kind: 'answer', reason: 'conflict', message: readSentence.conflictWorkspaceDeleted(c.kind, ways) };
    }
    case 'absent':
      return r.taken?.kind === 'deletion'
        ? { kind: 'answer', reason: 'deleted-on-disk', message: readSentence.deletedOnDisk }
        : { kind: 'missing' };
    case 'disk-only': {
      const why: NotStoredWhy = r.disk.kind === 'opaque' ? r.disk.why : 'binary';
      const dropped = r.taken?.kind === 'not-stored' && r.taken.dropped;
      return { kind: 'answer', reason: 'not-stored', why, message: readSentence.notStored(why, dropped) };
    }
    case 'workspace-deleted':
      return { kind: 'answer', reason: 'workspace-deleted', message: readSentence.workspaceDeleted };
    case 'not-in-branch':
      return { kind: 'answer', reason: 'not-in-branch', message: readSentence.notInBranch };
    case 'disk-missing-provenance-unknown':
      return { kind: 'page', notes: [readSentence.provenanceUnknown] };
    case 'synced':
      return r.taken?.kind === 'text' && !r.taken.new
        ? { kind: 'page', notes: [readSentence.tookDiskChange] }
        : { kind: 'page', notes: [] };
    case 'workspace-draft':
      return { kind: 'page', notes: [] };
  }
}
