/**
 * The review page's hunks: the changes turning disk's bytes into the draft's, grouped as
 * `diff` groups them, and the bytes that result from applying any subset of them. The one
 * rule: byte for byte — lines are split after each `\n` and compared with their line
 * endings as raw bytes (Latin-1 code units), so applying every hunk gives the draft
 * exactly, applying none gives disk exactly, and no byte is ever transcoded.
 */
import { matchLines } from '@ws/tools';

/** Lines of context around each change, as `diff` shows them. */
export const CONTEXT_LINES = 3;

/** One run of lines changed: disk's `a[a0..a1)` replaced by the draft's `b[b0..b1)`. */
export interface LineChange {
  readonly a0: number;
  readonly a1: number;
  readonly b0: number;
  readonly b1: number;
}

/** One line of a hunk as the page shows it. */
export interface HunkLine {
  /** ` ` in both, `-` only on disk, `+` only in the draft. */
  readonly mark: ' ' | '-' | '+';
  /** The line's text (UTF-8, invalid bytes as U+FFFD), without its line ending. */
  readonly text: string;
  /** 1-based line number on disk (`-` and ` `) or in the draft (`+`). */
  readonly line: number;
}

/** One hunk: the changes it groups and the lines it shows. */
export interface ReviewHunk {
  readonly index: number;
  /** `@@ -3,7 +3,8 @@`, as `diff` prints it. */
  readonly header: string;
  readonly changes: readonly LineChange[];
  readonly lines: readonly HunkLine[];
  /** Lines removed and added. */
  readonly removed: number;
  readonly added: number;
}

/** Raw lines: each ends after its `\n` (the last may have none), as Latin-1 strings. */
export function rawLines(bytes: Uint8Array): string[] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) break;
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** A raw line as the page shows it. */
function shown(raw: string): string {
  const body = raw.endsWith('\r\n') ? raw.slice(0, -2) : raw.endsWith('\n') ? raw.slice(0, -1) : raw;
  return Buffer.from(body, 'latin1').toString('utf8');
}

function changesOf(a: readonly string[], b: readonly string[]): LineChange[] {
  const m = matchLines(a, b);
  const changes: LineChange[] = [];
  let i = 0;
  let j = 0;
  for (let k = 0; k <= m.a.length; k++) {
    const ni = k < m.a.length ? m.a[k] : a.length;
    const nj = k < m.b.length ? m.b[k] : b.length;
    if (ni > i || nj > j) changes.push({ a0: i, a1: ni, b0: j, b1: nj });
    i = ni + 1;
    j = nj + 1;
  }
  return changes;
}

/** The hunks turning `disk` into `draft` (`null`: absent, as no lines). */
export function reviewHunks(disk: Uint8Array | null, draft: Uint8Array | null): ReviewHunk[] {
  const a = disk === null ? [] : rawLines(disk);
  const b = draft === null ? [] : rawLines(draft);
  const changes = changesOf(a, b);
  const hunks: ReviewHunk[] = [];
  let g = 0;
  while (g < changes.length) {
    let last = g;
    while (last + 1 < changes.length && changes[last + 1].a0 - changes[last].a1 <= 2 * CONTEXT_LINES) last++;
    const group = changes.slice(g, last + 1);
    const first = group[0];
    const end = group[group.length - 1];
    const lead = Math.min(CONTEXT_LINES, first.a0);
    const trail = Math.min(CONTEXT_LINES, a.length - end.a1);
    const lines: HunkLine[] = [];
    let removed = 0;
    let added = 0;
    for (let i = first.a0 - lead; i < first.a0; i++) lines.push({ mark: ' ', text: shown(a[i]), line: i + 1 });
    group.forEach((ch, c) => {
      for (let i = ch.a0; i < ch.a1; i++) lines.push({ mark: '-', text: shown(a[i]), line: i + 1 });
      for (let j = ch.b0; j < ch.b1; j++) lines.push({ mark: '+', text: shown(b[j]), line: j + 1 });
      removed += ch.a1 - ch.a0;
      added += ch.b1 - ch.b0;
      const next = c < group.length - 1 ? group[c + 1].a0 : ch.a1 + trail;
      for (let i = ch.a1; i < next; i++) lines.push({ mark: ' ', text: shown(a[i]), line: i + 1 });
    });
    const aStart = first.a0 - lead;
    const bStart = first.b0 - lead;
    const aLength = end.a1 + trail - aStart;
    const bLength = end.b1 + trail - bStart;
    const side = (start: number, length: number) => `${length === 0 ? start : start + 1},${length}`;
    hunks.push({ index: hunks.length, header: `@@ -${side(aStart, aLength)} +${side(bStart, bLength)} @@`, changes: group, lines, removed, added });
    g = last + 1;
  }
  return hunks;
}

/**
 * Disk's bytes with the hunks in `chosen` applied (by index) and every other hunk left
 * as disk has it. `reviewHunks(disk, draft)` must be the hunks given.
 */
export function applyHunks(disk: Uint8Array | null, draft: Uint8Array | null, hunks: readonly ReviewHunk[], chosen: ReadonlySet<number>): Uint8Array {
  const a = disk === null ? [] : rawLines(disk);
  const b = draft === null ? [] : rawLines(draft);
  let out = '';
  let i = 0;
  for (const h of hunks) {
    for (const ch of h.changes) {
      out += a.slice(i, ch.a0).join('');
      out += (chosen.has(h.index) ? b.slice(ch.b0, ch.b1) : a.slice(ch.a0, ch.a1)).join('');
      i = ch.a1;
    }
  }
  out += a.slice(i).join('');
  return new Uint8Array(Buffer.from(out, 'latin1'));
}
