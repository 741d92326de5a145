/**
 * `ls`: a directory's entries with kind, size and (store-backed) state; without a path,
 * the mounts. The one rule: entries carry mount-prefixed paths, as every other tool
 * takes them, and the answer is held to the call's budget.
 */
import { z } from 'zod';
import { outputOf, path } from './schemas.ts';
import { type CallContext, defineTool } from './tool.ts';
import type { Workspace } from './workspace.ts';
import { listCut, narrow, passedOver } from './errors.ts';
import { holdList } from './hold.ts';
import { locate, prefixed } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';

const schema = z.strictObject({
  path: path.optional(),
  recursive: z.boolean().optional(),
});

/** One listed entry as `ls` answers it. */
export interface LsEntry {
  readonly path: string;
  readonly kind: 'file' | 'directory' | 'mount';
  readonly size?: number;
  readonly state?: string;
  /** For a mount: how it keeps files. */
  readonly backend?: 'store' | 'direct';
  readonly readOnly?: boolean;
}

/** Lists the mounts, or one directory of one (the whole tree beneath it with `recursive`). */
async function ls(workspace: Workspace, input: z.infer<typeof schema>, { budget }: CallContext): Promise<Answer> {
  if (input.path === undefined) {
    const entries: LsEntry[] = workspace.mounts.map((m) => ({
      path: m.name,
      kind: 'mount',
      backend: m.backend,
      readOnly: m.readOnly,
    }));
    return answer({ entries });
  }
  const at = locate(workspace, input.path);
  if (!at.ok) return refuse(at.message);
  const listed = await at.mount.list(at.rel, { recursive: input.recursive ?? false });
  if (!listed.ok) return refuse(listed.message);
  const entries: LsEntry[] = listed.entries.map((e) => ({
    path: prefixed(at.mount.name, e.path),
    kind: e.kind,
    ...(e.size === undefined ? {} : { size: e.size }),
    ...(e.state === undefined ? {} : { state: e.state }),
  }));
  const notes = [listed.incomplete, passedOver(listed.passedOver)].filter((n): n is string => n !== undefined);
  return answer(
    holdList(
      entries,
      (shown) => {
        const all = shown.length === entries.length ? notes : [listCut('entries', shown.length, entries.length, narrow.ls), ...notes];
        return { path: at.path, entries: shown, ...(all.length ? { note: all.join(' ') } : {}) };
      },
      budget,
    ),
  );
}

/** The `ls` tool. */
export const lsTool = defineTool({
  name: 'ls',
  title: 'List a directory',
  description: 'List a directory’s entries; without a path, the mounts.',
  input: schema,
  output: outputOf({ entries: 'array', note: 'string' }),
  hints: { readOnly: true, destructive: false, idempotent: true },
  run: ls,
});
