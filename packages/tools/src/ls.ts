/**
 * `ls`: a directory's entries with kind, size and (store-backed) state; without a path,
 * the mounts. The one rule: entries carry mount-prefixed paths, as every other tool
 * takes them, and the answer is held to the call's budget.
 */
import { type InputOf, defineInput, outputOf } from './schemas.ts';
import { type CallContext, defineTool, workOf } from './tool.ts';
import type { Workspace } from './workspace.ts';
import { pageNote, passedOver } from './errors.ts';
import { StreamPage } from './hold.ts';
import { jsonLength } from '@ws/text';
import { locate, prefixed } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';

const schema = defineInput((z, { scope, wholeFromZero }) => z.strictObject({
  path: scope.optional(),
  recursive: z.boolean().optional(),
  offset: wholeFromZero.optional(),
}));

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
async function ls(workspace: Workspace, input: InputOf<typeof schema>, call: CallContext): Promise<Answer> {
  const { budget } = call;
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
  const listed = await at.mount.list(at.rel, { recursive: input.recursive ?? false }, workOf(call));
  if (!listed.ok) return refuse(listed.message);
  call.progress?.({ done: listed.entries.length, total: listed.entries.length });
  const entries: LsEntry[] = listed.entries.map((e) => ({
    path: prefixed(at.mount.name, e.path),
    kind: e.kind,
    ...(e.size === undefined ? {} : { size: e.size }),
    ...(e.state === undefined ? {} : { state: e.state }),
  }));
  const notes = [listed.incomplete, passedOver(listed.passedOver)].filter((n): n is string => n !== undefined);
  return answer(pageOf(entries, input.offset ?? 0, budget, 'entries', (shown, note) => ({ path: at.path, entries: shown, ...(note ? { note } : {}) }), notes));
}

/**
 * One page of a listing (ls's entries, glob's files) from `offset`, as many as fit the
 * budget, with the listing's own notes and where the page stopped.
 */
export function pageOf<T, D>(
  items: readonly T[],
  offset: number,
  budget: number | undefined,
  what: string,
  wrap: (shown: readonly T[], note: string | undefined) => D,
  notes: readonly string[],
): D {
  const page = new StreamPage<T>(budget, offset, jsonLength(wrap([], undefined)));
  page.skip(Math.min(offset, items.length));
  for (let k = offset; k < items.length && page.wants(); k++) {
    page.offer(items[k], jsonLength(items[k]) + 1);
    page.next();
  }
  return page.finish((shown) => {
    const said = [...notes, pageNote(what, offset, shown.length, items.length)].filter((n): n is string => n !== undefined);
    return wrap(shown, said.length > 0 ? said.join(' ') : undefined);
  });
}

/** The `ls` tool. */
export const lsTool = defineTool({
  name: 'ls',
  title: 'List a directory',
  description: 'List a directory’s entries; without a path, the mounts.',
  input: schema,
  output: outputOf({ entries: 'array' }),
  hints: { readOnly: true, destructive: false, idempotent: true },
  run: ls,
});
