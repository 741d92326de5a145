/**
 * Mount reports in answers: what `commit`, `sync`, `materialize` and `status` said. The
 * one rule: a report is the mount's own words, never reinterpreted — the tools add the
 * mount's name and, under a budget, shorten its lists to fit (saying so in a note); an
 * empty report adds nothing to an answer.
 */
import type { ToolInput } from './schemas.ts';
import type { Mount, Report, Workspace } from './workspace.ts';
import { pathOrMount } from './errors.ts';
import { locate, mountNamed } from './paths.ts';
import { type ToolResult, answer, refuse } from './result.ts';
import { holdReport } from './hold.ts';

/** `data` with the mount's report beside it, where the report says anything. */
export function withReport<D extends object>(data: D, report: Report): D | (D & { report: Report }) {
  return Object.keys(report).length === 0 ? data : { ...data, report };
}

/** Which mounts a sync or materialize acts on: one path's, one named, or all. */
type Target = { ok: true; targets: { mount: Mount; path?: string }[] } | { ok: false; error: string };

function targets(workspace: Workspace, tool: string, input: { path?: string; mount?: string }): Target {
  if (input.path !== undefined && input.mount !== undefined) return { ok: false, error: pathOrMount(tool) };
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
  tool: string,
  input: { path?: string; mount?: string },
  act: (mount: Mount, path: string | undefined) => Promise<Outcome>,
  budget: number | undefined,
): Promise<ToolResult> {
  const chosen = targets(workspace, tool, input);
  if (!chosen.ok) return refuse(chosen.error);
  const mounts: Report[] = [];
  for (const { mount, path } of chosen.targets) {
    const outcome = await act(mount, path);
    if (!outcome.ok && chosen.targets.length === 1) return refuse(outcome.message);
    mounts.push({ mount: mount.name, ...(outcome.ok ? outcome.report : { refused: outcome.message }) });
  }
  return answer(holdReport({ mounts }, budget));
}

/** `sync`: takes disk's changes in, for a path, a mount or every mount. */
export function sync(workspace: Workspace, input: ToolInput<'sync'>, budget?: number): Promise<ToolResult> {
  return perMount(workspace, 'sync', input, (mount, path) => mount.sync(path), budget);
}

/** `materialize`: pushes drafts to disk, for a path, a mount or every mount. */
export function materialize(workspace: Workspace, input: ToolInput<'materialize'>, budget?: number): Promise<ToolResult> {
  const force = input.force ?? false;
  return perMount(
    workspace,
    'materialize',
    input,
    (mount, path) => mount.materialize({ ...(path === undefined ? {} : { path }), force }),
    budget,
  );
}

/** `status`: each mount's own report (or one mount's). */
export async function status(workspace: Workspace, input: ToolInput<'status'>, budget?: number): Promise<ToolResult> {
  return perMount(workspace, 'status', input, async (mount) => ({ ok: true, report: await mount.status() }), budget);
}
