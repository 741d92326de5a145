/**
 * The edit planner: where each edit lands in a file's text, and the text after all of
 * them. Pure: text in, a plan or the problems out. The one rule: every edit is located
 * on `fileText`'s lines of the text as it was before the call — never on the text as an
 * earlier edit left it — so edits are independent, and two that touch the same
 * characters are a clash, not an order-dependent surprise.
 *
 * Locating works on the *line view* V: the file's lines as read shows them, joined by
 * LF (no BOM; a CRLF end's CR dropped unless the line's own text ends in a CR). An
 * `oldString` is put into the same view by the same rule, so a copy from a read or grep
 * of a CRLF file matches. Positions found in V map back to the stored text, and
 * `newString`'s line ends are written in the file's own.
 */
import { type FileText, utf8Layout } from '@ws/text';
import { nearestLine } from './nearest-line.ts';

/** One edit of one file. */
export interface EditSpec {
  readonly oldString: string;
  readonly newString: string;
  readonly replaceAll?: boolean;
}

/** Why an edit (by its index in the planned list) cannot be made. */
export type EditProblem =
  | { readonly kind: 'invalid-utf8'; readonly edits: readonly number[] }
  | { readonly kind: 'empty'; readonly edit: number }
  | { readonly kind: 'unchanged'; readonly edit: number }
  | {
      readonly kind: 'not-found';
      readonly edit: number;
      /** The first line of `oldString` (1-based) that occurs nowhere in the file, where one does. */
      readonly missing?: { readonly line: number; readonly text: string };
      /** The file's line most like the line looked for. */
      readonly nearest?: { readonly line: number; readonly text: string };
      /** `oldString` would match with read's line-number prefixes taken off. */
      readonly numbered?: boolean;
      /** The file has no text to match (it is empty, or holds only a BOM). */
      readonly empty?: boolean;
    }
  | { readonly kind: 'not-unique'; readonly edit: number; readonly count: number; readonly lines: readonly number[] }
  | { readonly kind: 'clash'; readonly edit: number; readonly other: number; readonly line: number }
  /** In a file that is not valid UTF-8: the text an edit matched holds a U+FFFD standing for bytes that are not UTF-8, on `line`. */
  | { readonly kind: 'spans-invalid'; readonly edit: number; readonly line: number }
  /** In a file that is not valid UTF-8: newString holds a U+FFFD, which could stand for the bytes or be the character. */
  | { readonly kind: 'replacement-in-new'; readonly edit: number };

/** One replacement in the stored text: `text.slice(start, end)` becomes `text`. */
export interface Splice {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** What one located edit does, for receipts. */
export interface PlannedEdit {
  /** How many places it replaces. */
  readonly replaced: number;
  /** Line ends in what it replaces (as read shows it) and in what it writes. */
  readonly oldNewlines: number;
  readonly newNewlines: number;
  /** The written text ends with a line end. */
  readonly endsWithNewline: boolean;
}

/** Every replacement, in text order: its edit's index and the 1-based line (before the call) where it begins. */
export interface Replacements {
  readonly count: number;
  readonly edit: Int32Array;
  readonly line: Int32Array;
}

/** A plan: the file's new text, or every problem found. */
export type EditPlan =
  | {
      readonly ok: true;
      /** The whole new text (BOM kept, line ends in the file's own). */
      readonly text: string;
      /**
       * Every replacement in the stored text, in text order: what a byte-exact edit of a
       * file that is not valid UTF-8 splices into the original bytes (`spliceBytes`).
       */
      readonly splices: readonly Splice[];
      readonly edits: readonly PlannedEdit[];
      readonly replacements: Replacements;
    }
  | { readonly ok: false; readonly problems: readonly EditProblem[] };

/** The most line numbers a not-unique problem carries. */
export const MAX_LISTED_LINES = 20;

/** `s` in the line view: a CR before LF is part of the line end, unless the line's own text ends in a CR. */
export function asLineView(s: string): string {
  if (!s.includes('\r\n')) return s;
  return s.replace(/\r\n/g, (m: string, at: number) => (s.charCodeAt(at - 1) === 13 ? m : '\n'));
}

/** `s` (line view or copied text) with every line end written as `eol`: own text kept, a CR before LF read as the end's. */
function withLineEnds(s: string, eol: string): string {
  if (!s.includes('\n')) return s;
  const parts = s.split('\n');
  for (let i = 0; i < parts.length - 1; i++) {
    if (parts[i].endsWith('\r')) parts[i] = parts[i].slice(0, -1);
  }
  return parts.join(eol);
}

function countNewlines(s: string): number {
  let n = 0;
  for (let at = s.indexOf('\n'); at !== -1; at = s.indexOf('\n', at + 1)) n++;
  return n;
}

/** The line view of a file and how its positions map back to the stored text. */
interface View {
  readonly v: string;
  /** V index where each line starts; one more entry (V's length) when the file ends with a line end. */
  readonly vStarts: ArrayLike<number>;
  /** Text index for each entry of `vStarts`. */
  readonly tStarts: ArrayLike<number>;
  /** V is the stored text itself (no BOM, no CRLF end). */
  readonly identity: boolean;
  readonly lineCount: number;
}

function lineView(ft: FileText): View {
  const lineCount = ft.lines.length;
  const endsWithEol = ft.text.endsWith('\n');
  if (!ft.bom && ft.crlf === 0) {
    const starts = endsWithEol ? [...ft.starts, ft.text.length] : ft.starts;
    return { v: ft.text, vStarts: starts, tStarts: starts, identity: true, lineCount };
  }
  const size = lineCount + (endsWithEol ? 1 : 0);
  const vStarts = new Int32Array(size);
  const tStarts = new Int32Array(size);
  let at = 0;
  for (let i = 0; i < lineCount; i++) {
    vStarts[i] = at;
    tStarts[i] = ft.starts[i];
    at += ft.lines[i].length + 1;
  }
  const v = ft.lines.join('\n') + (endsWithEol ? '\n' : '');
  if (endsWithEol) {
    vStarts[lineCount] = v.length;
    tStarts[lineCount] = ft.text.length;
  }
  return { v, vStarts, tStarts, identity: false, lineCount };
}

/** The last index i with `starts[i] <= at` (0 when none). */
function entryAt(starts: ArrayLike<number>, at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function lineOf(view: View, at: number): number {
  return Math.min(entryAt(view.vStarts, at), view.lineCount - 1) + 1;
}

function notFound(ft: FileText, view: View, edit: number, old: string): EditProblem {
  if (view.v === '') return { kind: 'not-found', edit, empty: true };
  const wanted = old.split('\n');
  const stripped = wanted.map((l) => l.replace(/^\s*\d+\t/, ''));
  const numbered = wanted.every((l, i) => l === '' || l !== stripped[i]) && view.v.includes(stripped.join('\n'));
  if (numbered) return { kind: 'not-found', edit, numbered: true };
  const k = wanted.findIndex((l) => l.trim() !== '' && !view.v.includes(l));
  const probe = k >= 0 ? wanted[k] : (wanted.find((l) => l.trim() !== '') ?? old);
  const nearest = nearestLine(ft.lines, probe);
  return {
    kind: 'not-found',
    edit,
    ...(k >= 0 && wanted.length > 1 ? { missing: { line: k + 1, text: wanted[k] } } : {}),
    ...(nearest ? { nearest } : {}),
  };
}

/** Every (possibly overlapping) occurrence's line, for a not-unique answer. */
function occurrences(view: View, old: string): { count: number; lines: number[] } {
  const lines: number[] = [];
  let count = 0;
  for (let at = view.v.indexOf(old); at !== -1; at = view.v.indexOf(old, at + 1)) {
    count++;
    if (lines.length < MAX_LISTED_LINES) lines.push(lineOf(view, at));
  }
  return { count, lines };
}

/**
 * Plans `edits` on a file's text. Each edit's `oldString` must occur exactly once in
 * the text as it was before the call (every occurrence, left to right, with
 * `replaceAll`); edits whose spans overlap clash. All or none: any problem and the plan
 * carries every problem found, by edit, instead of a text.
 */
export function planEdits(ft: FileText, edits: readonly EditSpec[]): EditPlan {
  // A string with a lone surrogate has no bytes to keep: nothing can be edited byte for byte.
  if (!ft.validUtf8 && ft.invalidAt.length === 0) return { ok: false, problems: [{ kind: 'invalid-utf8', edits: edits.map((_, i) => i) }] };
  const view = lineView(ft);
  const problems: EditProblem[] = [];
  const olds = edits.map((e) => asLineView(e.oldString));
  const found: number[][] = [];
  const located = new Map<string, number[]>();
  let total = 0;

  for (let i = 0; i < edits.length; i++) {
    const old = olds[i];
    const spans: number[] = [];
    found.push(spans);
    if (old === '') {
      problems.push({ kind: 'empty', edit: i });
      continue;
    }
    if (old === asLineView(edits[i].newString)) {
      problems.push({ kind: 'unchanged', edit: i });
      continue;
    }
    if (ft.invalidAt.length > 0 && edits[i].newString.includes('\uFFFD')) {
      problems.push({ kind: 'replacement-in-new', edit: i });
      continue;
    }
    const first = view.v.indexOf(old);
    if (first === -1) {
      problems.push(notFound(ft, view, i, old));
      continue;
    }
    if (edits[i].replaceAll) {
      // The same text is found at the same places: locate it once per call.
      const known = located.get(old);
      if (known) {
        found[i] = known;
        total += known.length;
        continue;
      }
      for (let at = first; at !== -1; at = view.v.indexOf(old, at + old.length)) spans.push(at);
      located.set(old, spans);
    } else if (view.v.indexOf(old, first + 1) !== -1) {
      problems.push({ kind: 'not-unique', edit: i, ...occurrences(view, old) });
      spans.length = 0;
      continue;
    } else {
      spans.push(first);
    }
    total += spans.length;
  }

  const { edit: order, start: startOf } = inTextOrder(found, total, view.v.length);
  // The sweep: a span that starts before the furthest end so far overlaps that span's edit.
  const clashed = new Uint8Array(edits.length);
  const length = Int32Array.from(olds, (o) => o.length);
  let reach = -1;
  let owner = -1;
  for (let j = 0; j < total; j++) {
    const start = startOf[j];
    const e = order[j];
    if (start < reach) {
      const later = e > owner ? e : owner;
      if (clashed[later] === 0) {
        clashed[later] = 1;
        problems.push({ kind: 'clash', edit: later, other: e > owner ? owner : e, line: lineOf(view, start) });
      }
    }
    const end = start + length[e];
    if (end > reach) {
      reach = end;
      owner = e;
    }
  }

  if (problems.length > 0) {
    problems.sort((a, b) => problemEdit(a) - problemEdit(b));
    return { ok: false, problems };
  }
  const line = new Int32Array(total);
  const splices: Splice[] = [];
  const text = rebuild(ft, view, edits, olds, order, startOf, line, splices);
  const spanning = spansInvalid(ft, splices, order);
  if (spanning.length > 0) return { ok: false, problems: spanning };
  return {
    ok: true,
    text,
    splices,
    edits: edits.map((e, i) => {
      const written = withLineEnds(e.newString, '\n');
      return {
        replaced: found[i].length,
        oldNewlines: countNewlines(olds[i]),
        newNewlines: countNewlines(written),
        endsWithNewline: written.endsWith('\n'),
      };
    }),
    replacements: { count: total, edit: order, line },
  };
}

/**
 * Every span, ordered by start and then by edit: a counting sort over the text's
 * positions where the spans are dense (replaceAll over a small file), else a native
 * sort of `start * edits + edit`.
 */
function inTextOrder(found: readonly number[][], total: number, length: number): { edit: Int32Array; start: Int32Array } {
  const edit = new Int32Array(total);
  const start = new Int32Array(total);
  const n = found.length;
  if (length <= 8 * total + 4096) {
    const slot = new Int32Array(length + 1);
    for (const spans of found) for (const at of spans) slot[at + 1]++;
    for (let i = 1; i <= length; i++) slot[i] += slot[i - 1];
    for (let i = 0; i < n; i++) {
      for (const at of found[i]) {
        const k = slot[at]++;
        edit[k] = i;
        start[k] = at;
      }
    }
    return { edit, start };
  }
  const keys = new Float64Array(total);
  let k = 0;
  for (let i = 0; i < n; i++) for (const at of found[i]) keys[k++] = at * n + i;
  keys.sort();
  for (let j = 0; j < total; j++) {
    const at = Math.floor(keys[j] / n);
    start[j] = at;
    edit[j] = keys[j] - at * n;
  }
  return { edit, start };
}

/** Each edit (once, by its first) whose matched text holds a U+FFFD standing for bytes that are not UTF-8. */
function spansInvalid(ft: FileText, splices: readonly Splice[], order: Int32Array): EditProblem[] {
  const bad = ft.invalidAt;
  if (bad.length === 0) return [];
  const problems: EditProblem[] = [];
  const named = new Set<number>();
  let k = 0;
  splices.forEach((s, j) => {
    while (k < bad.length && bad[k] < s.start) k++;
    const e = order[j];
    if (k < bad.length && bad[k] < s.end && !named.has(e)) {
      named.add(e);
      problems.push({ kind: 'spans-invalid', edit: e, line: entryAt(ft.starts, bad[k]) + 1 });
    }
  });
  return problems.sort((a, b) => problemEdit(a) - problemEdit(b));
}

function problemEdit(p: EditProblem): number {
  return p.kind === 'invalid-utf8' ? -1 : p.edit;
}

/**
 * How a replacement's last line meets what follows it. Before a CRLF end, the written
 * text is in read's terms: its last line's own text (a CR shown for the end taken off)
 * and, where the span took the end's CR with it (a line whose own text ends in a CR,
 * copied whole), that CR put back — so the line keeps its CRLF end.
 */
const enum Tail {
  /** Mid-line, before an LF end, or at the end of the text: written as given. */
  Plain = 0,
  /** Before a CRLF end whose CR the span left in place. */
  BeforeCr = 1,
  /** The span ends between a CRLF end's CR and its LF. */
  TookCr = 2,
}

function tailOf(text: string, tStart: number, tEnd: number): Tail {
  const next = text.charCodeAt(tEnd);
  if (next === 10 && tEnd > tStart && text.charCodeAt(tEnd - 1) === 13) return Tail.TookCr;
  if (next === 13 && text.charCodeAt(tEnd + 1) === 10) return Tail.BeforeCr;
  return Tail.Plain;
}

/** `newString` as written: line ends in `eol`, its last line fitted to what follows. */
function writtenText(newString: string, eol: string, tail: Tail): string {
  const s = withLineEnds(newString, eol);
  if (tail === Tail.Plain) return s;
  const own = s.endsWith('\r') ? s.slice(0, -1) : s;
  return tail === Tail.TookCr ? `${own}\r` : own;
}

/** The stored text with every (sorted, non-overlapping) span replaced; each span's 1-based line goes to `line`. */
function rebuild(
  ft: FileText,
  view: View,
  edits: readonly EditSpec[],
  olds: readonly string[],
  order: Int32Array,
  startOf: Int32Array,
  line: Int32Array,
  splices: Splice[],
): string {
  const text = ft.text;
  const prevailing = ft.crlf > ft.lf ? '\r\n' : '\n';
  const cache = new Map<string, string>();
  const written = (e: number, eol: string, tail: Tail): string => {
    const key = `${e}:${eol.length}:${tail}`;
    let s = cache.get(key);
    if (s === undefined) {
      s = writtenText(edits[e].newString, eol, tail);
      cache.set(key, s);
    }
    return s;
  };
  // A line's own end: CRLF where its LF follows a CR; the last line, unended, takes the prevailing end.
  const eolOfLine = (i: number): string => {
    if (ft.lineEndings === 'CRLF') return '\r\n';
    if (ft.lineEndings !== 'mixed') return '\n';
    if (i + 1 >= view.tStarts.length) return prevailing;
    return text.charCodeAt(view.tStarts[i + 1] - 2) === 13 ? '\r\n' : '\n';
  };
  const pieces: string[] = [];
  let cursor = 0;
  let a = 0;
  let b = 0;
  for (let j = 0; j < order.length; j++) {
    const start = startOf[j];
    const e = order[j];
    const end = start + olds[e].length;
    while (a + 1 < view.vStarts.length && view.vStarts[a + 1] <= start) a++;
    line[j] = (a < view.lineCount ? a : view.lineCount - 1) + 1;
    if (view.identity) {
      const w = written(e, '\n', Tail.Plain);
      pieces.push(text.slice(cursor, start), w);
      splices.push({ start, end, text: w });
      cursor = end;
      continue;
    }
    while (b + 1 < view.vStarts.length && view.vStarts[b + 1] <= end) b++;
    const tStart = view.tStarts[a] + (start - view.vStarts[a]);
    const tEnd = view.tStarts[b] + (end - view.vStarts[b]);
    const w = written(e, eolOfLine(a), tailOf(text, tStart, tEnd));
    pieces.push(text.slice(cursor, tStart), w);
    splices.push({ start: tStart, end: tEnd, text: w });
    cursor = tEnd;
  }
  pieces.push(text.slice(cursor));
  return pieces.join('');
}

const encoder = new TextEncoder();

/**
 * The original bytes with each splice's span (text indexes, as `fileText` decoded
 * them) replaced by its text in UTF-8, every other byte kept as it was: how an edit
 * of a file that is not valid UTF-8 is stored, so ws never transcodes what it did not match.
 */
export function spliceBytes(bytes: Uint8Array, splices: readonly Splice[]): Uint8Array {
  const at = new Int32Array(splices.length * 2);
  splices.forEach((s, i) => {
    at[2 * i] = s.start;
    at[2 * i + 1] = s.end;
  });
  const { offsets } = utf8Layout(bytes, at);
  const parts: Uint8Array[] = [];
  let cursor = 0;
  let size = 0;
  splices.forEach((s, i) => {
    const before = bytes.subarray(cursor, offsets[2 * i]);
    const written = encoder.encode(s.text);
    parts.push(before, written);
    size += before.length + written.length;
    cursor = offsets[2 * i + 1];
  });
  const rest = bytes.subarray(cursor);
  parts.push(rest);
  size += rest.length;
  const out = new Uint8Array(size);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
