/**
 * `history` and `restore`: the versions a store-backed mount holds for a file, newest
 * first, and one of them made the draft again. The one rule: nothing here touches
 * disk — a restored version is a draft like any write, written to disk only by
 * materialize — and a version's bytes come back exactly as recorded.
 */
import { fileText, jsonLength } from '@ws/text';
import { type InputOf, defineInput, outputOf } from './schemas.ts';
import { type CallContext, defineTool } from './tool.ts';
import type { Mount, ReadOutcome, Version, Workspace } from './workspace.ts';
import {
  binaryRead,
  directHasNoDrafts,
  historyCut,
  historyOffsetPast,
  isDirectory,
  mountRootChange,
  notOnThisMount,
  readOnly,
  largeFileChange,
} from './errors.ts';
import { linesChanged } from './line-diff.ts';
import { type Located, locate } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';
import { withReport } from './reports.ts';

const historySchema = defineInput((z, { path, wholeFromOne }) => z.strictObject({ path, offset: wholeFromOne.optional() }));
const restoreSchema = defineInput((z, { path }) => z.strictObject({ path, version: z.string().min(1) }));

/** A located file on a store-backed mount that offers `method`, or the sentence why not. */
function storeFile<K extends 'history' | 'readVersion'>(
  workspace: Workspace,
  raw: string,
  tool: string,
  method: K,
): { ok: true; at: Located; mount: Mount & Required<Pick<Mount, K | 'readVersion'>> } | { ok: false; message: string } {
  const at = locate(workspace, raw);
  if (!at.ok) return at;
  if (at.rel === '') return { ok: false, message: tool === 'history' ? isDirectory(at.path, 'history') : mountRootChange(at.path, tool) };
  if (at.mount.backend === 'direct') return { ok: false, message: directHasNoDrafts(at.mount.name, tool) };
  if (at.mount[method] === undefined || at.mount.readVersion === undefined) return { ok: false, message: notOnThisMount(at.mount.name, tool) };
  return { ok: true, at, mount: at.mount as Mount & Required<Pick<Mount, K | 'readVersion'>> };
}

/** One version as history shows it. */
interface Shown extends Version {
  /** Lines added and removed against the version before it (all its lines for the first); null where either is not text. */
  readonly linesChanged: number | null;
}

function linesOf(outcome: ReadOutcome): readonly string[] | null {
  if (outcome.kind === 'file') return fileText(outcome.bytes).lines;
  if (outcome.kind === 'missing') return [];
  return null;
}

/** `history`: a file's versions, newest first, from `offset`, held to the budget. */
async function history(workspace: Workspace, input: InputOf<typeof historySchema>, { budget }: CallContext): Promise<Answer> {
  const found = storeFile(workspace, input.path, 'history', 'history');
  if (!found.ok) return refuse(found.message);
  const { at, mount } = found;
  const listed = await mount.history(at.rel);
  if (!listed.ok) return refuse(listed.message);
  const versions = listed.versions;
  const offset = input.offset ?? 1;
  if (versions.length === 0) {
    if (offset > 1) return refuse(historyOffsetPast(at.path, offset, 0));
    return answer({ path: at.path, versions: [], note: `The store holds no versions of ${at.path}; ls or glob finds the files it has.` });
  }
  if (offset > versions.length) return refuse(historyOffsetPast(at.path, offset, versions.length));
  const lines = new Map<string, readonly string[] | null>();
  const linesAt = async (i: number): Promise<readonly string[] | null> => {
    if (i >= versions.length) return [];
    const id = versions[i].id;
    if (!lines.has(id)) lines.set(id, linesOf(await mount.readVersion(at.rel, id)));
    return lines.get(id) ?? null;
  };
  const shown: Shown[] = [];
  const note = (to: number) => (to < versions.length ? { note: historyCut(offset, to, versions.length) } : {});
  const reserve = jsonLength({ note: historyCut(versions.length, versions.length, versions.length) });
  let used = jsonLength({ path: at.path, versions: [] }) + reserve;
  for (let i = offset - 1; i < versions.length; i++) {
    const [now, before] = [await linesAt(i), await linesAt(i + 1)];
    const { id, at: when, source, size } = versions[i];
    const entry: Shown = { id, at: when, source, size, linesChanged: now === null || before === null ? null : linesChanged(before, now) };
    const cost = jsonLength(entry) + (shown.length > 0 ? 1 : 0);
    if (budget !== undefined && shown.length > 0 && used + cost > budget) break;
    shown.push(entry);
    used += cost;
    lines.delete(versions[i].id);
  }
  return answer({ path: at.path, versions: shown, ...note(offset - 1 + shown.length) });
}

/** `restore`: a version made the draft (a deletion, where the version is an absence). */
async function restore(workspace: Workspace, input: InputOf<typeof restoreSchema>): Promise<Answer> {
  const found = storeFile(workspace, input.path, 'restore', 'readVersion');
  if (!found.ok) return refuse(found.message);
  const { at, mount } = found;
  if (mount.readOnly) return refuse(readOnly(mount.name, 'restore'));
  const version = await mount.readVersion(at.rel, input.version);
  switch (version.kind) {
    case 'answer':
      return refuse(version.message);
    case 'binary':
      return refuse(binaryRead(at.path, version.size));
    case 'large':
      return refuse(largeFileChange(at.path, version.size, mount.maxFileSize));
    case 'directory':
      return refuse(isDirectory(at.path, 'restore'));
    case 'missing': {
      const now = await mount.read(at.rel);
      if (now.kind === 'missing') return answer({ path: at.path, version: input.version, deleted: true });
      const stored = await mount.commit([{ path: at.rel, bytes: null }], { source: 'restore' });
      if (!stored.ok) return refuse(stored.message);
      return answer(withReport({ path: at.path, version: input.version, deleted: true }, stored.report));
    }
    case 'file': {
      const stored = await mount.commit([{ path: at.rel, bytes: version.bytes }], { source: 'restore' });
      if (!stored.ok) return refuse(stored.message);
      const data = { path: at.path, version: input.version, bytes: version.bytes.length, lines: fileText(version.bytes).lines.length };
      return answer(withReport(data, stored.report));
    }
  }
}

/** The `history` tool. */
export const historyTool = defineTool({
  name: 'history',
  title: 'File versions',
  description: 'A file’s versions, newest first.',
  input: historySchema,
  output: outputOf({ versions: 'array' }),
  hints: { readOnly: true, destructive: false, idempotent: true },
  run: history,
});

/** The `restore` tool. */
export const restoreTool = defineTool({
  name: 'restore',
  title: 'Restore a version',
  description: 'Make a version from history the draft.',
  input: restoreSchema,
  output: outputOf({ path: 'string' }),
  hints: { readOnly: false, destructive: false, idempotent: true },
  run: (workspace, input) => restore(workspace, input),
});
