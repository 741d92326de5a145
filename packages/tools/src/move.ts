/**
 * `move`: a file, or a directory's files, moved to a new path — within a mount or
 * between mounts of one kind — all or none. The one rule: a move is one commit per
 * mount of plain changes (the deletion of each `from`, the creation of each `to`, each
 * with `expected` set to what was read), through the same all-or-none commit as the
 * edits, so every mount that can commit can move; a target that exists is refused
 * unless `overwrite`. Where a file changed between the reads and the commit (a person
 * saved), the move is planned again on what disk holds then.
 */
import { type InputOf, defineInput, outputOf } from './schemas.ts';
import { defineTool } from './tool.ts';
import type { Workspace } from './workspace.ts';
import {
  isDirectory,
  moveAcrossKinds,
  moveMissing,
  moveNotText,
  moveOntoDirectory,
  moveOntoItself,
  moveTargetsExist,
  mountRootChange,
  readOnly,
  replanRefused,
  largeFileWhy,
} from './errors.ts';
import { suggestions } from './close-paths.ts';
import { type PlannedChange, changedSinceRead, commitAll, MAX_PLANS } from './commit-all.ts';
import { locate, prefixed } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';

const schema = defineInput((z, { path }) => z.strictObject({
  from: path,
  to: path,
  overwrite: z.boolean().optional(),
}));

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

/** Moves `from` to `to`, planned again (at most `MAX_PLANS` times in all) where a file changed before the commit landed. */
async function move(workspace: Workspace, input: InputOf<typeof schema>): Promise<Answer> {
  let changed: string[] = [];
  for (let plans = 1; ; plans++) {
    const moved = await moveOnce(workspace, input, plans < MAX_PLANS);
    if ('changed' in moved) {
      changed = moved.changed;
      continue;
    }
    return !moved.ok && changed.length > 0 ? refuse(replanRefused(changed, moved.message)) : moved;
  }
}

/**
 * One plan of a move: each file read, each target checked, then one all-or-none commit
 * per mount. `changed`: the commit was refused because these paths changed after they
 * were read (only where `mayReplan`).
 */
async function moveOnce(workspace: Workspace, input: InputOf<typeof schema>, mayReplan: boolean): Promise<Answer | { changed: string[] }> {
  const from = locate(workspace, input.from);
  if (!from.ok) return refuse(from.message);
  const to = locate(workspace, input.to);
  if (!to.ok) return refuse(to.message);
  if (from.rel === '') return refuse(mountRootChange(from.path, 'move'));
  if (to.rel === '') return refuse(mountRootChange(to.path, 'move'));
  if (from.mount.backend !== to.mount.backend) return refuse(moveAcrossKinds(from.path, from.mount.backend, to.path, to.mount.backend));
  for (const m of [from.mount, to.mount]) if (m.readOnly) return refuse(readOnly(m.name, 'move'));
  if (from.mount === to.mount && inside(to.rel, from.rel)) return refuse(moveOntoItself(from.path, to.path));
  // The new path holds the path moved, so it is a directory (work/src for work/src/a.ts).
  if (from.mount === to.mount && inside(from.rel, to.rel)) return refuse(moveOntoDirectory(to.path));

  // What moves: the file itself, or every file the workspace holds beneath the directory.
  const sources: { rel: string; bytes: Uint8Array }[] = [];
  const notText: { path: string; why: string }[] = [];
  const first = await from.mount.read(from.rel);
  let rels: string[];
  if (first.kind === 'directory') {
    // The files alone: each is read next, which looks at disk.
    const listed = await from.mount.list(from.rel, { recursive: true, filesOnly: true });
    if (!listed.ok) return refuse(listed.message);
    rels = listed.entries.filter((e) => e.kind === 'file').map((e) => e.path);
  } else if (first.kind === 'missing') {
    return refuse(moveMissing(from.path, await suggestions(from.mount, from.path)));
  } else {
    rels = [from.rel];
  }
  for (const rel of rels) {
    const read = rel === from.rel ? first : await from.mount.read(rel);
    if (read.kind === 'file') sources.push({ rel, bytes: read.bytes });
    else if (read.kind === 'binary') notText.push({ path: prefixed(from.mount.name, rel), why: 'binary' });
    else if (read.kind === 'large') notText.push({ path: prefixed(from.mount.name, rel), why: largeFileWhy(read.size) });
    else if (read.kind === 'answer') notText.push({ path: prefixed(from.mount.name, rel), why: read.message.replace(/\.$/, '') });
    // A path the workspace deleted (disk still has it) is not in the workspace: nothing of it moves.
  }
  if (notText.length > 0) return refuse(moveNotText(notText));
  if (sources.length === 0) return refuse(moveMissing(from.path, []));

  // Where each goes, and what is there now (the commit expects exactly that).
  const planned: PlannedChange[] = [];
  const existing: string[] = [];
  const creations: PlannedChange[] = [];
  for (const source of sources) {
    const rel = source.rel === from.rel ? to.rel : `${to.rel}/${source.rel.slice(from.rel.length + 1)}`;
    const shown = prefixed(to.mount.name, rel);
    const there = await to.mount.read(rel);
    if (there.kind === 'directory') return refuse(first.kind === 'directory' ? isDirectory(shown, 'move') : moveOntoDirectory(shown));
    if (there.kind === 'binary' || there.kind === 'answer') return refuse(moveNotText([{ path: shown, why: there.kind === 'binary' ? 'binary' : there.message.replace(/\.$/, '') }]));
    if (there.kind === 'large') return refuse(moveNotText([{ path: shown, why: largeFileWhy(there.size) }]));
    const current = there.kind === 'file' ? there.bytes : null;
    if (current !== null) existing.push(shown);
    const within = from.mount === to.mount ? { movedFrom: source.rel } : {};
    creations.push({
      mount: to.mount,
      change: { path: rel, bytes: source.bytes, expected: current, ...within },
      undo: { path: rel, bytes: current, expected: source.bytes },
      shown,
    });
  }
  if (existing.length > 0 && input.overwrite !== true) return refuse(moveTargetsExist(existing));
  // The target mount first: should the source refuse after, the new copies are taken back and nothing is lost.
  planned.push(...creations);
  for (const source of sources) {
    planned.push({
      mount: from.mount,
      change: { path: source.rel, bytes: null, expected: source.bytes },
      undo: { path: source.rel, bytes: source.bytes, expected: null },
      shown: prefixed(from.mount.name, source.rel),
    });
  }
  const stored = await commitAll(planned, { source: 'move' });
  if (!stored.ok) {
    const changed = mayReplan ? await changedSinceRead(planned) : [];
    return changed.length > 0 ? { changed } : refuse(stored.message);
  }
  const reports = Object.keys(stored.reports).length > 0 ? { reports: stored.reports } : {};
  return answer({ from: from.path, to: to.path, files: sources.length, overwritten: existing.length, ...reports });
}

/** The `move` tool. */
export const moveTool = defineTool({
  name: 'move',
  title: 'Move or rename',
  description: 'Move or rename a file or directory.',
  input: schema,
  output: outputOf({ files: 'integer' }),
  hints: { readOnly: false, destructive: true, idempotent: false },
  run: (workspace, input) => move(workspace, input),
});
