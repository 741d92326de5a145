/**
 * `delete`: one file removed. The one rule: a deletion takes no disk change in first
 * (see the README's "write and delete") — its push would remove that change unseen — so it goes straight to the
 * mount, which refuses a directory or a path with nothing to delete.
 */
import { type InputOf, defineInput, outputOf } from './schemas.ts';
import { defineTool } from './tool.ts';
import type { Workspace } from './workspace.ts';
import { mountRootChange, readOnly } from './errors.ts';
import { locate } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';

const schema = defineInput((z, { path }) => z.strictObject({ path }));
import { withReport } from './reports.ts';

/** Deletes the file at `path`. */
async function remove(workspace: Workspace, input: InputOf<typeof schema>): Promise<Answer> {
  const at = locate(workspace, input.path);
  if (!at.ok) return refuse(at.message);
  if (at.rel === '') return refuse(mountRootChange(at.path, 'delete'));
  if (at.mount.readOnly) return refuse(readOnly(at.mount.name, 'delete'));
  const stored = await at.mount.commit([{ path: at.rel, bytes: null }]);
  if (!stored.ok) return refuse(stored.message);
  return answer(withReport({ path: at.path, deleted: true }, stored.report));
}

/** The `delete` tool. */
export const deleteTool = defineTool({
  name: 'delete',
  title: 'Delete a file',
  description: 'Delete one file.',
  input: schema,
  output: outputOf({ path: 'string', deleted: 'boolean' }),
  hints: { readOnly: false, destructive: true, idempotent: true },
  run: (workspace, input) => remove(workspace, input),
});
