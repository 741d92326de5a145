/**
 * Mount reports in answers: what `commit`, `sync`, `materialize` and `status` said. The
 * one rule: a report is the mount's own words, never reinterpreted — the tools add the
 * mount's name and, under a budget, shorten its lists to fit (saying so in a note); an
 * empty report adds nothing to an answer.
 */
import { type Fields, type InputOf, defineInput, outputOf } from './schemas.ts';
import { type CallContext, defineTool, workOf } from './tool.ts';
import type { Mount, Report, Workspace } from './workspace.ts';
import { pathOrMount, reportWayOn } from './errors.ts';
import { withDraftsNote } from './drafts-note.ts';
import { locate, mountNamed } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';

const scope = ({ path, mountName }: Fields) => ({
  path: path.optional(),
  mount: mountName.optional(),
});
const syncSchema = defineInput((z, fields) => z.strictObject(scope(fields)));
const materializeSchema = defineInput((z, fields) => z.strictObject({
  ...scope(fields),
  force: z.boolean().optional().describe('Even over a conflict.'),
}));
const statusSchema = defineInput((z, fields) => z.strictObject({ mount: scope(fields).mount }));
import { holdReport } from './hold.ts';

/** `data` with the mount's report beside it, where the report says anything. */
export function withReport<D extends object>(data: D, report: Report): D | (D & { report: Report }) {
  return Object.keys(report).length === 0 ? data : { ...data, report };
}

/** Which mounts a sync or materialize acts on: one path's, one named, or all. */
type Target = { ok: true; targets: { mount: Mount; path?: string }[] } | { ok: false; message: string };

function targets(workspace: Workspace, tool: string, input: { path?: string; mount?: string }): Target {
  if (input.path !== undefined && input.mount !== undefined) return { ok: false, message: pathOrMount(tool) };
  if (input.path !== undefined) {
    const at = locate(workspace, input.path);
    if (!at.ok) return at;
    return { ok: true, targets: [{ mount: at.mount, ...(at.rel === '' ? {} : { path: at.rel }) }] };
  }
  if (input.mount !== undefined) {
    const named = mountNamed(workspace, input.mount);
    if (!named.ok) return named;
    return { ok: true, targets: [{ mount: named.mount }] };
  }
  return { ok: true, targets: workspace.mounts.map((mount) => ({ mount })) };
}

type Outcome = { readonly ok: true; readonly report: Report } | { readonly ok: false; readonly message: string };

/** Runs `act` on each target; one target's refusal is the answer, several report per mount. */
async function perMount(
  workspace: Workspace,
  tool: keyof typeof reportWayOn,
  input: { path?: string; mount?: string },
  act: (mount: Mount, path: string | undefined) => Promise<Outcome>,
  budget: number | undefined,
  annotate: (data: { mounts: Report[] }) => Record<string, unknown> = (data) => data,
): Promise<Answer> {
  const wayOn = reportWayOn[tool];
  const chosen = targets(workspace, tool, input);
  if (!chosen.ok) return refuse(chosen.message);
  const mounts: Report[] = [];
  for (const { mount, path } of chosen.targets) {
    const outcome = await act(mount, path);
    if (!outcome.ok && chosen.targets.length === 1) return refuse(outcome.message);
    mounts.push({ mount: mount.name, ...(outcome.ok ? outcome.report : { refused: outcome.message }) });
  }
  return answer(holdReport(annotate({ mounts }), budget, wayOn));
}

/** `sync`: takes disk's changes in, for a path, a mount or every mount. */
function sync(workspace: Workspace, input: InputOf<typeof syncSchema>, call: CallContext): Promise<Answer> {
  return perMount(workspace, 'sync', input, (mount, path) => mount.sync(path, workOf(call)), call.budget);
}

/** `materialize`: pushes drafts to disk, for a path, a mount or every mount. */
function materialize(workspace: Workspace, input: InputOf<typeof materializeSchema>, call: CallContext): Promise<Answer> {
  const force = input.force ?? false;
  return perMount(
    workspace,
    'materialize',
    input,
    (mount, path) => mount.materialize({ ...(path === undefined ? {} : { path }), force }, workOf(call)),
    call.budget,
  );
}


/** `status`: each mount's own report (or one mount's). */
async function status(workspace: Workspace, input: InputOf<typeof statusSchema>, { budget }: CallContext): Promise<Answer> {
  // Where drafts exist, status says which tools show and drop them.
  return perMount(workspace, 'status', input, async (mount) => ({ ok: true, report: await mount.status() }), budget, withDraftsNote);
}

const perMountOutput = outputOf({ mounts: 'array' });

/** The `sync` tool. */
export const syncTool = defineTool({
  name: 'sync',
  title: 'Take disk’s changes in',
  description: 'Take disk’s changes into the workspace.',
  input: syncSchema,
  output: perMountOutput,
  hints: { readOnly: false, destructive: false, idempotent: true },
  run: sync,
});

/** The `materialize` tool. */
export const materializeTool = defineTool({
  name: 'materialize',
  title: 'Write drafts to disk',
  description: 'Write the workspace’s drafts to disk.',
  input: materializeSchema,
  output: perMountOutput,
  hints: { readOnly: false, destructive: true, idempotent: true },
  run: materialize,
});

/** The `status` tool. */
export const statusTool = defineTool({
  name: 'status',
  title: 'Report the mounts',
  description: 'Each mount’s backend, branch, drafts and conflicts.',
  input: statusSchema,
  output: perMountOutput,
  hints: { readOnly: true, destructive: false, idempotent: true },
  run: status,
});
