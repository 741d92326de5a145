/**
 * `write`: a file replaced whole (created, with its parents, where missing). The one
 * rule: the content is stored exactly as given — no line-end or BOM conversion — and a
 * write takes no disk change in first (see the README's "write and delete"): it replaces
 * whatever is there.
 */
import { fileText } from '@ws/text';
import { type InputOf, defineInput, outputOf } from './schemas.ts';
import { defineTool } from './tool.ts';
import type { Workspace } from './workspace.ts';
import { loneSurrogate, mountRootChange, readOnly } from './errors.ts';
import { locate } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';
import { withReport } from './reports.ts';

const encoder = new TextEncoder();

const schema = defineInput((z, { path }) => z.strictObject({
  path,
  content: z.string(),
}));

/** Writes `content` to `path`, replacing the file whole. */
async function write(workspace: Workspace, input: InputOf<typeof schema>): Promise<Answer> {
  const at = locate(workspace, input.path);
  if (!at.ok) return refuse(at.message);
  if (at.rel === '') return refuse(mountRootChange(at.path, 'write'));
  if (at.mount.readOnly) return refuse(readOnly(at.mount.name, 'write'));
  if (!input.content.isWellFormed()) return refuse(loneSurrogate('content'));
  const bytes = encoder.encode(input.content);
  const stored = await at.mount.commit([{ path: at.rel, bytes }]);
  if (!stored.ok) return refuse(stored.message);
  return answer(withReport({ path: at.path, bytes: bytes.length, lines: fileText(input.content).lines.length }, stored.report));
}

/** The `write` tool. */
export const writeTool = defineTool({
  name: 'write',
  title: 'Write a file',
  description: 'Replace or create a file whole.',
  input: schema,
  output: outputOf({ path: 'string', bytes: 'integer' }),
  hints: { readOnly: false, destructive: true, idempotent: true },
  run: (workspace, input) => write(workspace, input),
});
