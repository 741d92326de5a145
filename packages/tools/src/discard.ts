/**
 * `discard`: the workspace's draft or deletion at a path dropped, so it reads disk's
 * copy again. The one rule: nothing is lost — the dropped text stays in history, where
 * `restore` brings it back — and disk is not touched.
 */
import { type InputOf, defineInput, outputOf } from './schemas.ts';
import { type CallContext, defineTool } from './tool.ts';
import type { Workspace } from './workspace.ts';
import { directHasNoDrafts, listCut, notOnThisMount, nothingToDiscard, readOnly } from './errors.ts';
import { holdList } from './hold.ts';
import { locate, prefixed } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';
import { withReport } from './reports.ts';

const schema = defineInput((z, { path }) => z.strictObject({ path }));

async function discard(workspace: Workspace, input: InputOf<typeof schema>, { budget }: CallContext): Promise<Answer> {
  const at = locate(workspace, input.path);
  if (!at.ok) return refuse(at.message);
  if (at.mount.backend === 'direct') return refuse(directHasNoDrafts(at.mount.name, 'discard'));
  if (at.mount.readOnly) return refuse(readOnly(at.mount.name, 'discard'));
  if (at.mount.discard === undefined) return refuse(notOnThisMount(at.mount.name, 'discard'));
  const dropped = await at.mount.discard(at.rel);
  if (!dropped.ok) return refuse(dropped.message);
  if (dropped.discarded.length === 0) {
    // A mount that kept a draft says why in its report; only an empty one means there was nothing to drop.
    if (Object.keys(dropped.report).length > 0) return answer(withReport({ path: at.path, discarded: [] }, dropped.report));
    return answer({ path: at.path, discarded: [], note: nothingToDiscard(at.path) });
  }
  const paths = dropped.discarded.map((p) => prefixed(at.mount.name, p));
  const data = holdList(
    paths,
    (shown) => ({
      path: at.path,
      discarded: shown,
      ...(shown.length < paths.length ? { note: listCut('discarded paths', shown.length, paths.length, 'Each is in history.') } : {}),
    }),
    budget,
  );
  return answer(withReport(data, dropped.report));
}

/** The `discard` tool. */
export const discardTool = defineTool({
  name: 'discard',
  title: 'Drop a draft',
  description: 'Drop a draft or deletion (kept in history).',
  input: schema,
  output: outputOf({ discarded: 'array' }),
  hints: { readOnly: false, destructive: false, idempotent: true },
  run: discard,
});
