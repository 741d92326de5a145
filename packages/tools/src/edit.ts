/**
 * `edit` and `edit_many`: read each file once, plan every edit on it (`planEdits`),
 * then store all or none. The one rule: nothing is stored unless every edit of every
 * file planned cleanly, and each file is committed with `expected` set to the bytes it
 * was planned on, so an edit never lands on text it was not planned on. Where a file
 * changed between the read and the commit (a person saved), the edits are planned again
 * on the new text — an oldString still found exactly once applies there — or refused.
 */
import { fileText } from '@ws/text';
import type { Workspace } from './workspace.ts';
import { changedSinceRead, commitAll, MAX_PLANS } from './commit-all.ts';
import { type EditSpec, planEdits, spliceBytes } from './edit-plan.ts';
import {
  binaryEdit,
  editProblem,
  editsRefused,
  isDirectory,
  loneSurrogate,
  missingEdit,
  mountRootChange,
  readOnly,
  replannedNote,
  replanRefused,
  largeFileChange,
} from './errors.ts';
import { suggestions } from './close-paths.ts';
import { type Located, locate } from './paths.ts';
import { type FileReceipt, DEFAULT_RECEIPT_CHARS, receipt } from './receipt.ts';
import { type Zod, defineInput, outputOf } from './schemas.ts';
import { defineTool } from './tool.ts';
import { type Answer, answer, refuse } from './result.ts';

const oneEdit = (z: Zod) => ({
  oldString: z.string().min(1).describe('Copied from read, without line numbers.'),
  newString: z.string(),
  replaceAll: z.boolean().optional(),
});
const editSchema = defineInput((z, { path }) => z.strictObject({ path, ...oneEdit(z) }));
// edit's listing says how oldString is copied; edit_many's does not repeat it.
const editManySchema = defineInput((z, { path }) => z.strictObject({ edits: z.array(z.strictObject({ path, ...oneEdit(z), oldString: z.string().min(1) })).min(1) }));

/** One edit as the tools take it: a mount-prefixed path and what to replace. */
export interface PathEdit extends EditSpec {
  readonly path: string;
}

/** A problem and the edit number it sorts under. */
interface Problem {
  readonly at: number;
  readonly sentence: string;
}

/** The edits of one file, by the call's 1-based edit numbers. */
interface FileEdits {
  readonly at: Located;
  readonly numbers: number[];
  readonly specs: EditSpec[];
}

const encoder = new TextEncoder();

/** `Edit 3: …` in an edit_many answer; the bare sentence for a plain edit. */
function numbered(numbers: readonly number[], sentence: string, single: boolean): string {
  if (single) return sentence;
  return `Edit${numbers.length === 1 ? '' : 's'} ${numbers.join(', ')}: ${sentence}`;
}

/** Groups edits by file, refusing paths that name no file a mount can edit. */
function byFile(workspace: Workspace, edits: readonly PathEdit[], single: boolean, problems: Problem[]): Map<string, FileEdits> {
  const files = new Map<string, FileEdits>();
  edits.forEach((edit, i) => {
    const n = i + 1;
    for (const [field, text] of [['oldString', edit.oldString], ['newString', edit.newString]] as const) {
      if (!text.isWellFormed()) problems.push({ at: n, sentence: numbered([n], loneSurrogate(field), single) });
    }
    const at = locate(workspace, edit.path);
    if (!at.ok) {
      problems.push({ at: n, sentence: numbered([n], at.message, single) });
      return;
    }
    const known = files.get(at.path);
    const spec = { oldString: edit.oldString, newString: edit.newString, replaceAll: edit.replaceAll ?? false };
    if (known) {
      known.numbers.push(n);
      known.specs.push(spec);
    } else {
      files.set(at.path, { at, numbers: [n], specs: [spec] });
    }
  });
  return files;
}

/** A planned file, ready to commit. */
interface Planned {
  readonly file: FileEdits;
  readonly before: Uint8Array;
  readonly after: Uint8Array;
  readonly receipt: FileReceipt;
  readonly notes: readonly string[];
}

async function planFile(file: FileEdits, single: boolean, problems: Problem[]): Promise<Planned | undefined> {
  const { at, numbers } = file;
  const fail = (sentence: string) => {
    problems.push({ at: numbers[0], sentence: numbered(numbers, sentence, single) });
    return undefined;
  };
  if (at.rel === '') return fail(mountRootChange(at.path, 'edit'));
  if (at.mount.readOnly) return fail(readOnly(at.mount.name, single ? 'edit' : 'edit_many'));
  const read = await at.mount.read(at.rel);
  switch (read.kind) {
    case 'missing':
      return fail(missingEdit(at.path, await suggestions(at.mount, at.path)));
    case 'binary':
      return fail(binaryEdit(at.path));
    case 'directory':
      return fail(isDirectory(at.path, 'edit'));
    case 'answer':
      return fail(read.message);
    case 'large':
      return fail(largeFileChange(at.path, read.size, at.mount.maxFileSize));
    case 'file':
      break;
  }
  const ft = fileText(read.bytes);
  const plan = planEdits(ft, file.specs);
  if (!plan.ok) {
    for (const p of plan.problems) {
      const sentence = editProblem(p, at.path, (i) => numbers[i], single);
      problems.push({ at: p.kind === 'invalid-utf8' ? numbers[0] : numbers[p.edit], sentence });
    }
    return undefined;
  }
  return {
    file,
    before: read.bytes,
    // Valid UTF-8 encodes back to itself; other bytes are kept exactly where nothing matched.
    after: ft.invalidAt.length === 0 ? encoder.encode(plan.text) : spliceBytes(read.bytes, plan.splices),
    receipt: { path: at.path, numbers, edits: plan.edits, replacements: plan.replacements },
    notes: read.notes,
  };
}

/**
 * Plans and stores `edits` (one for `edit`, any number for `edit_many`), answering a
 * receipt held to `budget` (24,000 characters where the call states none), or every
 * problem found, with nothing stored.
 */
async function editFiles(
  workspace: Workspace,
  edits: readonly PathEdit[],
  budget: number | undefined,
  single: boolean,
): Promise<Answer> {
  let changed: string[] = [];
  const replannedFor = new Set<string>();
  for (let plans = 1; ; plans++) {
    const problems: Problem[] = [];
    const files = byFile(workspace, edits, single, problems);
    const planned: Planned[] = [];
    for (const file of files.values()) {
      const p = await planFile(file, single, problems);
      if (p) planned.push(p);
    }
    if (problems.length > 0) {
      const sorted = problems.map((p, i) => ({ ...p, i })).sort((a, b) => a.at - b.at || a.i - b.i);
      const refused = editsRefused(sorted.map((p) => p.sentence), single);
      return refuse(changed.length > 0 ? replanRefused(changed, refused) : refused);
    }
    const changes = planned.map((p) => ({
      mount: p.file.at.mount,
      change: { path: p.file.at.rel, bytes: p.after, expected: p.before },
      undo: { path: p.file.at.rel, bytes: p.before, expected: p.after },
      shown: p.file.at.path,
    }));
    const stored = await commitAll(changes, { source: 'edit' });
    if (!stored.ok) {
      // A file changed after it was read: plan again on what it holds now.
      changed = plans < MAX_PLANS ? await changedSinceRead(changes) : [];
      for (const path of changed) replannedFor.add(path);
      if (changed.length > 0) continue;
      return refuse(stored.message);
    }
    // The notes are the read's ("this read shows disk's text"): said as what the edit's read found.
    const checks = Object.fromEntries(planned.filter((p) => p.notes.length > 0).map((p) => [p.file.at.path, p.notes.map((note) => `The edit read the file first. ${note}`)]));
    const extra = {
      ...(Object.keys(checks).length ? { diskCheck: checks } : {}),
      ...(Object.keys(stored.reports).length ? { reports: stored.reports } : {}),
      ...(replannedFor.size > 0 ? { replanned: replannedNote([...replannedFor]) } : {}),
    };
    return answer(receipt(planned.map((p) => p.receipt), budget ?? DEFAULT_RECEIPT_CHARS, extra));
  }
}

const receiptOutput = outputOf({ edits: 'array' });

/** The `edit` tool. */
export const editTool = defineTool({
  name: 'edit',
  title: 'Edit a file',
  description: 'Replace text in a file: oldString must occur exactly once, unless replaceAll.',
  input: editSchema,
  output: receiptOutput,
  hints: { readOnly: false, destructive: true, idempotent: false },
  run: (workspace, input, { budget }) => editFiles(workspace, [input], budget, true),
});

/** The `edit_many` tool. */
export const editManyTool = defineTool({
  name: 'edit_many',
  title: 'Edit several files',
  description: 'Several edits, in one file or many: all stored or none.',
  input: editManySchema,
  output: receiptOutput,
  hints: { readOnly: false, destructive: true, idempotent: false },
  run: (workspace, input, { budget }) => editFiles(workspace, input.edits, budget, false),
});
