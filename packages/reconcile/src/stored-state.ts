/**
 * A path's state from the store's records alone, without looking at disk — for a mount
 * that never checks disk (`watch = "never"`) or a pass that gave up. The one rule: this
 * names only what the records prove; anything that needs D (`disk-only`, `not-in-branch`,
 * `unverified`…) is left to {@link decide}.
 */
import type { PathState, Standing } from './decide.ts';
import type { PathRecords } from './ports.ts';

/** The states the store's records alone can name. */
export type StoredState = Extract<PathState, 'conflict' | 'workspace-deleted' | 'synced' | 'workspace-draft'>;

/**
 * The state of a path from its records: `conflict` where one is recorded; where S holds
 * the file, `synced` when the evidence is the same text, else `workspace-draft`; where S
 * doesn't, `workspace-deleted` for a tombstone, else null (the workspace holds nothing).
 */
export function storedState(records: PathRecords): StoredState | null {
  if (records.mark?.conflict) return 'conflict';
  if (records.tree === null) return records.mark?.tombstone ? 'workspace-deleted' : null;
  return records.evidence?.kind === 'text' && records.evidence.hash === records.tree.hash ? 'synced' : 'workspace-draft';
}

/**
 * True when a path in `state` is a file of the workspace's view, so listings and searches
 * show it: every state but a workspace deletion and `absent`.
 */
export function showsFile(state: Standing): boolean {
  return state !== 'workspace-deleted' && state !== 'absent';
}
