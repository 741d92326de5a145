/**
 * The workspace's own changes (an agent's write, edit or delete on a store-backed mount):
 * drafts recorded in the store, all or none, with where they came from. A write records
 * its origin; a deletion records a tombstone naming what it removed. Neither looks at
 * disk first (README, "What a read shows"): a push then finds any disk change as a conflict, never removes it.
 */
import type { MountContext } from './context.ts';
import { contentOfEvidence } from './disk-view.ts';
import type { BranchMark, ContentId, VersionSource } from './ports.ts';

/** The sources a draft is recorded under (the host's tools: a write, an edit, a deletion, a move, a restore). */
export type DraftSource = Extract<VersionSource, 'write' | 'edit' | 'delete' | 'move' | 'restore' | 'review'>;

/** One workspace change: new bytes, or null to delete. */
export interface DraftChange {
  readonly path: string;
  readonly bytes: Uint8Array | null;
  /** The history source of the new version; default `write` for bytes, `delete` for null. */
  readonly source?: DraftSource;
  /** A move within the mount: the path the bytes come from (deleted by another change of the same call). */
  readonly movedFrom?: string;
}

/** What {@link recordDrafts} recorded. */
export interface DraftsRecorded {
  readonly branch: string;
  readonly written: readonly string[];
  readonly deleted: readonly string[];
}

/**
 * Records changes as drafts on the selected branch: their blobs, a barrier, then the
 * records, a barrier. When it returns every change is durable, and no record ever
 * outlives a crash without its blob. Synchronous, so no pass records anything in between.
 */
export function recordDrafts(ctx: MountContext, changes: readonly DraftChange[]): DraftsRecorded {
  const { store, mount } = ctx;
  const branch = store.selectedBranch();
  const written: string[] = [];
  const deleted: string[] = [];
  const hashes = changes.map((c) => (c.bytes === null ? null : ctx.hash(c.bytes)));
  changes.forEach((c, i) => {
    const hash = hashes[i];
    if (c.bytes !== null && hash !== null) store.putBlob(hash, c.bytes);
  });
  if (hashes.some((h) => h !== null)) store.barrier();
  changes.forEach((change, i) => {
    const current = store.read(branch, mount, change.path);
    const conflict = current.mark?.conflict ?? null;
    const hash = hashes[i];
    const cause = {
      source: change.source ?? (change.bytes === null ? 'delete' : 'write'),
      ...(change.movedFrom === undefined ? {} : { movedFrom: change.movedFrom }),
    };
    if (change.bytes !== null && hash !== null) {
      const p = current.evidence;
      const mode = current.tree?.mode ?? (p !== null && p.kind !== 'absent' ? p.mode : null);
      store.setTree(branch, mount, change.path, { hash, size: change.bytes.length, mode }, cause);
      const mark: BranchMark = { origin: 'workspace', tombstone: null, conflict };
      store.setMark(branch, mount, change.path, mark);
      written.push(change.path);
    } else {
      const base: ContentId | null = current.tree
        ? { kind: 'text', hash: current.tree.hash }
        : current.evidence
          ? contentOfEvidence(current.evidence)
          : null;
      store.setTree(branch, mount, change.path, null, cause);
      const mark: BranchMark = { origin: current.mark?.origin ?? null, tombstone: { base }, conflict };
      store.setMark(branch, mount, change.path, mark);
      deleted.push(change.path);
    }
  });
  store.barrier();
  return { branch, written, deleted };
}
