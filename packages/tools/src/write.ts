/**
 * `write`: a file replaced whole (created, with its parents, where missing). The one
 * rule: the content is stored exactly as given — no line-end or BOM conversion — and a
 * write takes no disk change in first (SPEC §4.5): it replaces whatever is there.
 */
import { fileText } from '@ws/text';
import type { ToolInput } from './schemas.ts';
import type { Workspace } from './workspace.ts';
import { loneSurrogate, mountRootChange, readOnly } from './errors.ts';
import { locate } from './paths.ts';
import { type ToolResult, answer, refuse } from './result.ts';
import { withReport } from './reports.ts';

const encoder = new TextEncoder();

/** Writes `content` to `path`, replacing the file whole. */
export async function write(workspace: Workspace, input: ToolInput<'write'>): Promise<ToolResult> {
  const at = locate(workspace, input.path);
  if (!at.ok) return refuse(at.error);
  if (at.rel === '') return refuse(mountRootChange(at.path, 'write'));
  if (at.mount.readOnly) return refuse(readOnly(at.mount.name, 'write'));
  if (!input.content.isWellFormed()) return refuse(loneSurrogate('content'));
  const bytes = encoder.encode(input.content);
  const stored = await at.mount.commit([{ path: at.rel, bytes }]);
  if (!stored.ok) return refuse(stored.message);
  return answer(withReport({ path: at.path, bytes: bytes.length, lines: fileText(input.content).lines.length }, stored.report));
}
