/**
 * All or none across mounts: each mount commits all of its changes or none (the
 * `Mount.commit` contract), and where a later mount refuses, the mounts already
 * committed are taken back. The one rule: every change carries its undo — the commit
 * that restores what the path held, `expected` to hold what the change wrote — so a
 * take-back never lands on text a person changed in between; where a take-back fails
 * too, the answer names exactly which files kept the new bytes. `edit_many` and `move`
 * share it, and plan again (at most {@link MAX_PLANS} times in all) where a commit was
 * refused because a file changed after it was read ({@link changedSinceRead}).
 */
import type { Change, CommitIntent, Mount, Report } from './workspace.ts';
import { commitPartly, commitRefused } from './errors.ts';

/** One change to commit, with the change that takes it back and the path as answers show it. */
export interface PlannedChange {
  readonly mount: Mount;
  readonly change: Change;
  readonly undo: Change;
  readonly shown: string;
}

/**
 * How many times an edit or a move is planned in all when a file it read changes before
 * its commit lands (a person saving meanwhile): each time on the text the path holds then.
 */
export const MAX_PLANS = 5;

function sameBytes(a: Uint8Array | null | undefined, b: Uint8Array | null): boolean {
  if (a === undefined) return false;
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The paths (as answers show them) that no longer hold what their change was planned on
 * (`expected`): read again, after a refused commit, to tell a collision with someone's
 * save (plan again on the new text) from a refusal that stands.
 */
export async function changedSinceRead(planned: readonly PlannedChange[]): Promise<string[]> {
  const changed: string[] = [];
  for (const p of planned) {
    const expected = p.change.expected;
    if (expected === undefined) continue;
    const now = await p.mount.read(p.change.path);
    const bytes = now.kind === 'file' ? now.bytes : now.kind === 'missing' ? null : undefined;
    if (!sameBytes(bytes, expected)) changed.push(p.shown);
  }
  return changed;
}

/** Commits each mount's changes in turn (in the order mounts first appear); a later refusal takes earlier mounts' back. */
export async function commitAll(
  planned: readonly PlannedChange[],
  intent: CommitIntent,
): Promise<{ ok: true; reports: Record<string, Report> } | { ok: false; message: string }> {
  const byMount = new Map<Mount, PlannedChange[]>();
  for (const p of planned) byMount.set(p.mount, [...(byMount.get(p.mount) ?? []), p]);
  const done: [Mount, PlannedChange[]][] = [];
  const reports: Record<string, Report> = {};
  for (const [mount, changes] of byMount) {
    const stored = await mount.commit(
      changes.map((p) => p.change),
      intent,
    );
    if (stored.ok) {
      done.push([mount, changes]);
      if (Object.keys(stored.report).length > 0) reports[mount.name] = stored.report;
      continue;
    }
    const undone: string[] = [];
    const kept: string[] = [];
    for (const [earlier, earlierChanges] of done.reverse()) {
      const back = await earlier.commit(
        earlierChanges.map((p) => p.undo),
        intent,
      );
      if (back.ok) undone.push(earlier.name);
      else kept.push(...earlierChanges.map((p) => p.shown));
    }
    return { ok: false, message: kept.length > 0 ? commitPartly(stored.message, kept) : commitRefused(stored.message, undone) };
  }
  return { ok: true, reports };
}
