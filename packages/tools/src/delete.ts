/**
 * `delete`: one file removed. The one rule: a deletion takes no disk change in first
 * (SPEC §4.5) — its push would remove that change unseen — so it goes straight to the
 * mount, which refuses a directory or a path with nothing to delete.
 */
import type { ToolInput } from './schemas.ts';
import type { Workspace } from './workspace.ts';
import { mountRootChange, readOnly } from './errors.ts';
import { locate } from './paths.ts';
import { type ToolResult, answer, refuse } from './result.ts';
import { withReport } from './reports.ts';

/** Deletes the file at `path`. */
export async function remove(workspace: Workspace, input: ToolInput<'delete'>): Promise<ToolResult> {
  const at = locate(workspace, input.path);
  if (!at.ok) return refuse(at.error);
  if (at.rel === '') return refuse(mountRootChange(at.path, 'delete'));
  if (at.mount.readOnly) return refuse(readOnly(at.mount.name, 'delete'));
  const stored = await at.mount.commit([{ path: at.rel, bytes: null }]);
  if (!stored.ok) return refuse(stored.message);
  return answer(withReport({ path: at.path, deleted: true }, stored.report));
}
