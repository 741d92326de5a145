/**
 * `diff`: what the workspace's drafts change, as a unified diff of the workspace's copy
 * against disk's (for a conflict, each side against the last agreed version), for a
 * file, a directory, a mount or every mount. The one rule: lines are compared as read
 * shows them, so a CRLF or BOM difference is said once in the note, never shown as
 * every line changed; a page holds whole hunks, numbered across the answer, and
 * `offset=N` continues at hunk N.
 */
import { type FileText, fileText, jsonLength, safeCut } from '@ws/text';
import { type InputOf, defineInput, outputOf } from './schemas.ts';
import { type CallContext, defineTool } from './tool.ts';
import type { Draft, Mount, ReadOutcome, Workspace } from './workspace.ts';
import {
  diffBom,
  diffConflictWithoutAgreement,
  diffCut,
  diffFinalLineEnd,
  diffLineEnds,
  diffMoreNotes,
  diffNotLines,
  diffUnseenBytes,
  diffWhyBinary,
  diffOffsetPast,
  directNothingToCompare,
  hunkCut,
  noDrafts,
  notOnThisMount,
  pathOrMount,
  largeFileWhy,
} from './errors.ts';
import { type Hunk, hunkHeader, hunksOf } from './hunks.ts';
import { locate, mountNamed, prefixed } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';

const schema = defineInput((z, { mountName, path, wholeFromOne }) => z.strictObject({
  path: path.optional(),
  mount: mountName.optional(),
  offset: wholeFromOne.optional(),
}));

/** One side of a comparison: text, nothing, or something not compared as lines. */
type Side = { readonly kind: 'text'; readonly ft: FileText; readonly bytes: Uint8Array } | { readonly kind: 'absent' } | { readonly kind: 'other'; readonly why: string };

/** One comparison of a file: `from` turned into `to`. */
interface Section {
  readonly path: string;
  readonly fromLabel: string;
  readonly toLabel: string;
  readonly hunks: readonly Hunk[];
}

/** What the comparisons found, before paging. */
interface Found {
  readonly sections: Section[];
  readonly notes: string[];
}

const LABEL = { disk: 'disk', workspace: 'workspace', agreed: 'agreed' } as const;
const WORDS = { disk: 'disk’s copy', workspace: 'the workspace’s copy', agreed: 'the agreed version' } as const;
type Name = keyof typeof LABEL;

function sideOf(outcome: ReadOutcome): Side {
  switch (outcome.kind) {
    case 'file':
      return { kind: 'text', ft: fileText(outcome.bytes), bytes: outcome.bytes };
    case 'missing':
      return { kind: 'absent' };
    case 'binary':
      return { kind: 'other', why: diffWhyBinary(outcome.size) };
    case 'directory':
      return { kind: 'other', why: 'is a directory' };
    case 'large':
      return { kind: 'other', why: largeFileWhy(outcome.size) };
    case 'answer':
      return { kind: 'other', why: `cannot be read (${outcome.message.replace(/\.$/, '')})` };
  }
}

function endsOf(ft: FileText): string {
  if (ft.crlf > 0 && ft.lf > 0) return `mixed line ends (${ft.crlf} CRLF, ${ft.lf} LF)`;
  if (ft.crlf > 0) return 'CRLF line ends';
  if (ft.lf > 0) return 'LF line ends';
  return 'no line end';
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What differs between two texts that their lines do not show: line ends, the BOM, a final line end. */
function unseenDifferences(path: string, from: Name, a: Side & { kind: 'text' }, to: Name, b: Side & { kind: 'text' }): string[] {
  const notes: string[] = [];
  const [ea, eb] = [endsOf(a.ft), endsOf(b.ft)];
  if (ea !== eb && ea !== 'no line end' && eb !== 'no line end') {
    notes.push(diffLineEnds(path, WORDS[from], ea, WORDS[to], eb));
  }
  if (a.ft.bom !== b.ft.bom) {
    const [has, lacks] = a.ft.bom ? [from, to] : [to, from];
    notes.push(diffBom(path, WORDS[has], WORDS[lacks]));
  }
  const endA = a.ft.text.endsWith('\n');
  const endB = b.ft.text.endsWith('\n');
  if (endA !== endB && a.ft.lines.length > 0 && b.ft.lines.length > 0) {
    const [ends, open] = endA ? [from, to] : [to, from];
    notes.push(diffFinalLineEnd(path, WORDS[open], WORDS[ends]));
  }
  if (notes.length === 0 && !same(a.bytes, b.bytes) && a.ft.lines.length === b.ft.lines.length && a.ft.lines.every((l, i) => l === b.ft.lines[i])) {
    notes.push(diffUnseenBytes(path, WORDS[from], WORDS[to]));
  }
  return notes;
}

/** Compares two sides of one file into `found`. */
function compare(found: Found, path: string, from: Name, a: Side, to: Name, b: Side): void {
  for (const [name, side] of [[from, a], [to, b]] as const) {
    if (side.kind === 'other') {
      found.notes.push(diffNotLines(path, WORDS[name], side.why));
      return;
    }
  }
  const linesOf = (s: Side) => (s.kind === 'text' ? s.ft.lines : []);
  const hunks = hunksOf(linesOf(a), linesOf(b));
  if (a.kind === 'text' && b.kind === 'text') found.notes.push(...unseenDifferences(path, from, a, to, b));
  if (hunks.length === 0) return;
  const label = (name: Name, s: Side) => `${path} (${LABEL[name]}${s.kind === 'absent' ? ': none' : ''})`;
  found.sections.push({ path, fromLabel: label(from, a), toLabel: label(to, b), hunks });
}

/** The comparisons for one draft: workspace against disk, or for a conflict each side against the agreed version. */
async function compareDraft(found: Found, mount: Mount & Required<Pick<Mount, 'readVersion'>>, draft: Draft): Promise<void> {
  const shown = prefixed(mount.name, draft.path);
  const workspace = draft.kind === 'deletion' ? ({ kind: 'absent' } as const) : sideOf(await mount.read(draft.path));
  const disk = sideOf(await mount.readVersion(draft.path, 'disk'));
  if (draft.kind === 'conflict') {
    const agreed = await mount.readVersion(draft.path, 'agreed');
    if (agreed.kind !== 'answer') {
      const base = sideOf(agreed);
      compare(found, shown, 'agreed', base, 'workspace', workspace);
      compare(found, shown, 'agreed', base, 'disk', disk);
      return;
    }
    found.notes.push(diffConflictWithoutAgreement(shown));
  }
  compare(found, shown, 'disk', disk, 'workspace', workspace);
}

/** Which mounts (and where in them) a diff looks at. */
function scopes(workspace: Workspace, input: InputOf<typeof schema>): { ok: true; scopes: { mount: Mount; rel: string; shown: string }[] } | { ok: false; message: string } {
  if (input.path !== undefined && input.mount !== undefined) return { ok: false, message: pathOrMount('diff') };
  if (input.path !== undefined) {
    const at = locate(workspace, input.path);
    return at.ok ? { ok: true, scopes: [{ mount: at.mount, rel: at.rel, shown: at.path }] } : at;
  }
  if (input.mount !== undefined) {
    const named = mountNamed(workspace, input.mount);
    return named.ok ? { ok: true, scopes: [{ mount: named.mount, rel: '', shown: named.mount.name }] } : named;
  }
  return { ok: true, scopes: workspace.mounts.map((mount) => ({ mount, rel: '', shown: mount.name })) };
}

/** The most per-file notes an answer names one by one. */
const MAX_FILE_NOTES = 10;

/** Gathers every comparison, then pages its hunks from `offset` within `budget`. */
async function diff(workspace: Workspace, input: InputOf<typeof schema>, { budget }: CallContext): Promise<Answer> {
  const chosen = scopes(workspace, input);
  if (!chosen.ok) return refuse(chosen.message);
  const found: Found = { sections: [], notes: [] };
  const general: string[] = [];
  for (const { mount, rel, shown } of chosen.scopes) {
    if (mount.backend === 'direct') {
      general.push(directNothingToCompare(mount.name));
      continue;
    }
    if (mount.drafts === undefined || mount.readVersion === undefined) {
      if (chosen.scopes.length === 1) return refuse(notOnThisMount(mount.name, 'diff'));
      general.push(notOnThisMount(mount.name, 'diff'));
      continue;
    }
    const drafted = await mount.drafts(rel);
    if (!drafted.ok) return refuse(drafted.message);
    if (drafted.drafts.length === 0) general.push(noDrafts(shown));
    const versioned = mount as Mount & Required<Pick<Mount, 'readVersion'>>;
    for (const draft of drafted.drafts) await compareDraft(found, versioned, draft);
  }
  const page = paged(found, general, input.offset ?? 1, budget);
  return 'error' in page ? refuse(page.error) : answer(page);
}

/** One hunk, numbered across the answer, and the section it belongs to. */
interface Numbered {
  readonly section: Section;
  readonly hunk: Hunk;
  /** The first hunk of its section: the file headers come before it. */
  readonly first: boolean;
}

function hunkText(n: Numbered, withHeaders: boolean, lines: readonly string[] = n.hunk.lines): string {
  const head = withHeaders ? [`--- ${n.section.fromLabel}`, `+++ ${n.section.toLabel}`] : [];
  return [...head, hunkHeader(n.hunk), ...lines].join('\n');
}

/** The characters a string adds inside a JSON string: its JSON length less the quotes. */
function inJson(s: string): number {
  return jsonLength(s) - 2;
}

/** The answer's data: whole hunks from `offset` that fit `budget` (the first cut to fit where it alone does not), and the notes. */
function paged(found: Found, general: readonly string[], offset: number, budget: number | undefined): { diff: string; note?: string } | { error: string } {
  const all: Numbered[] = found.sections.flatMap((section) => section.hunks.map((hunk, i) => ({ section, hunk, first: i === 0 })));
  const fileNotes =
    found.notes.length <= MAX_FILE_NOTES
      ? found.notes
      : [...found.notes.slice(0, MAX_FILE_NOTES), diffMoreNotes(found.notes.length - MAX_FILE_NOTES)];
  if (offset > 1 && offset > all.length) return { error: diffOffsetPast(offset, all.length) };
  const start = offset - 1;
  const texts = all.slice(start).map((n, i) => hunkText(n, n.first || i === 0));
  const data = (diff: string, notes: readonly (string | undefined)[]) => {
    const note = notes.filter((s): s is string => s !== undefined && s !== '').join(' ');
    return { diff, ...(note ? { note } : {}) };
  };
  if (budget === undefined) return data(texts.join('\n'), [...general, ...fileNotes]);
  // Where the notes alone leave no room, the per-file ones go first (each is one diff of one path away).
  const fits = (d: object) => jsonLength(d) <= budget;
  const firstNotes = fits(data('', [...general, ...fileNotes, diffCut(offset, all.length, all.length)])) ? [...general, ...fileNotes] : [...general];
  const cutNote = (count: number) => (start + count < all.length ? diffCut(offset, start + count, all.length) : undefined);
  // The most whole hunks that fit: each adds its JSON length and a line end between.
  let count = 0;
  let used = 0;
  while (count < texts.length) {
    const next = used + inJson(texts[count]) + (count > 0 ? 2 : 0);
    if (jsonLength(data('', [...firstNotes, cutNote(count + 1)])) + next > budget) break;
    used = next;
    count++;
  }
  if (count > 0 || texts.length === 0) return data(texts.slice(0, count).join('\n'), [...firstNotes, cutNote(count)]);
  // The first hunk alone is longer than the budget: as many of its lines as fit, the next one cut to the room left.
  const n = all[start];
  let kept = firstNotes;
  const notesFor = (shown: number) => {
    const toLine = n.hunk.bStart + 1 + n.hunk.lines.slice(0, shown).filter((l) => l[0] !== '-').length;
    return [...kept, hunkCut(offset, n.section.path, shown, n.hunk.lines.length, toLine), cutNote(1)];
  };
  if (!fits(data(`${hunkText(n, true, [])}\n${n.hunk.lines[0]}`, notesFor(n.hunk.lines.length)))) kept = [...general];
  const lines: string[] = [];
  let room = budget - jsonLength(data(hunkText(n, true, []), notesFor(n.hunk.lines.length))) - 2;
  for (const line of n.hunk.lines) {
    const c = inJson(line) + 2;
    if (c > room) {
      // A character takes at most 6 in JSON (\u001f), so this cut always fits.
      if (room > 8) lines.push(`${line.slice(0, safeCut(line, Math.floor((room - 5) / 6)))}…`);
      return data(hunkText(n, true, lines), notesFor(lines.length - (room > 8 ? 1 : 0)));
    }
    lines.push(line);
    room -= c;
  }
  return data(hunkText(n, true, lines), notesFor(lines.length));
}

/** The `diff` tool. */
export const diffTool = defineTool({
  name: 'diff',
  title: 'Diff drafts',
  description: 'Unified diff of drafts against disk.',
  input: schema,
  output: outputOf({ diff: 'string' }),
  hints: { readOnly: true, destructive: false, idempotent: true },
  run: diff,
});
