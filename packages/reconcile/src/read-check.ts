/**
 * The read's disk check (README, "What a read shows"), as one finding per read: show the
 * workspace's copy with notes, or answer instead of a page — a sentence, a binary file, a
 * directory, or nothing there. The host runs a named pass over the path first and hands
 * its result here with what it knows of the path; nothing here looks at disk. The one
 * rule: this is the only place a read's answer is decided; hosts only map it.
 */
import type { PassResult } from './pass.ts';
import type { NotStoredWhy } from './ports.ts';
import type { PathReport } from './report.ts';
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
        | 'not-in-branch'
        | 'conflict';
      readonly message: string;
      /** For `not-stored`: why the disk file is not stored. */
      readonly why?: NotStoredWhy;
    }
  /** A binary file on disk the workspace never held: read it as any binary file (`size` in bytes). */
  | { readonly kind: 'binary'; readonly size: number }
  /** A directory is at the path, on disk or in the workspace's tree, and no file. */
  | { readonly kind: 'directory' }
  /**
   * Nothing to read: nothing on disk or in the workspace, or the workspace deleted it (it
   * reads as gone, as on a direct mount after a delete; status lists the pending deletion).
   */
  | { readonly kind: 'missing' };

/** What the host knows of the path beside the pass. */
export interface ReadFacts {
  /** The workspace (S, after the pass) holds a file at the path. */
  readonly workspaceHolds: boolean;
  /** A directory is at the path, on disk or in the workspace's tree. */
  readonly directory: boolean;
}

/**
 * The finding for `path` from the named pass over it. `facts.workspaceHolds` matters only
 * when the pass gave up (it decided nothing, so the caller says whether S has the path).
 */
export function readFinding(result: PassResult, path: string, facts: ReadFacts): ReadFinding {
  const report = result.kind === 'done' ? result.paths.find((p) => p.path === path) : undefined;
  const holds = report === undefined ? facts.workspaceHolds : report.workspace !== null;
  const finding = result.kind === 'gave-up' ? gaveUpFinding(holds) : report === undefined ? missing : stateFinding(report);
  // A directory the workspace holds no file at reads as a directory (its named check
  // found a directory where a file would be).
  return finding.kind !== 'page' && !holds && facts.directory ? { kind: 'directory' } : finding;
}

const missing: ReadFinding = { kind: 'missing' };

function gaveUpFinding(workspaceHolds: boolean): ReadFinding {
  return workspaceHolds
    ? { kind: 'page', notes: [readSentence.gaveUp] }
    : { kind: 'answer', reason: 'gave-up', message: readSentence.notHeldGaveUp };
}

function stateFinding(r: PathReport): ReadFinding {
  switch (r.state) {
    case 'unverified':
      return r.workspace !== null
        ? { kind: 'page', notes: [readSentence.unverified(r.reason ?? '')] }
        : { kind: 'answer', reason: 'unverified', message: readSentence.notHeldUnverified(r.reason ?? '') };
    case 'conflict': {
      const c = r.conflict;
      const kind = c?.kind ?? 'interrupted';
      const ways = (c?.waysOut ?? []).map((w) => w.sentence);
      return r.workspace !== null
        ? { kind: 'page', notes: [readSentence.conflict(kind, ways)] }
        : { kind: 'answer', reason: 'conflict', message: readSentence.conflictWorkspaceDeleted(kind, ways) };
    }
    case 'absent':
      return r.taken?.kind === 'deletion' ? { kind: 'answer', reason: 'deleted-on-disk', message: readSentence.deletedOnDisk } : missing;
    case 'disk-only': {
      const why: NotStoredWhy = r.disk.kind === 'opaque' ? r.disk.why : 'binary';
      const dropped = r.taken?.kind === 'not-stored' && r.taken.dropped;
      // A binary file the workspace never held reads as any binary file does; one that
      // disk just made binary says the workspace's copy was dropped.
      if (why === 'binary' && !dropped) return { kind: 'binary', size: r.disk.kind === 'opaque' ? r.disk.size : 0 };
      return { kind: 'answer', reason: 'not-stored', why, message: readSentence.notStored(why, dropped) };
    }
    case 'workspace-deleted':
      return missing;
    case 'not-in-branch':
      return { kind: 'answer', reason: 'not-in-branch', message: readSentence.notInBranch };
    case 'disk-missing-provenance-unknown':
      return { kind: 'page', notes: [readSentence.provenanceUnknown] };
    case 'synced':
      return r.taken?.kind === 'text' && !r.taken.new ? { kind: 'page', notes: [readSentence.tookDiskChange] } : { kind: 'page', notes: [] };
    case 'workspace-draft':
      return { kind: 'page', notes: [] };
  }
}
