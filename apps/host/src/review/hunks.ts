/**
 * The review page's hunks: the changes turning disk's bytes into the draft's, grouped as
 * `diff` groups them, and the bytes that result from applying any subset of them. The one
 * rule: byte for byte — lines are split after each `\n` and compared with their line
 * endings as raw bytes (Latin-1 code units), so applying every hunk gives the draft
 * exactly, applying none gives disk exactly, and no byte is ever transcoded.
 */
import { type LineChange, eachHunkLine, hunkHeader, hunkSpans, lineChanges } from '@ws/tools';

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

/** The hunks turning `disk` into `draft` (`null`: absent, as no lines), grouped as `diff` groups them. */
export function reviewHunks(disk: Uint8Array | null, draft: Uint8Array | null): ReviewHunk[] {
  const a = disk === null ? [] : rawLines(disk);
  const b = draft === null ? [] : rawLines(draft);
  return hunkSpans(a.length, lineChanges(a, b)).map((span, index) => {
    const lines: HunkLine[] = [];
    eachHunkLine(span, (mark, i) => lines.push({ mark, text: shown(mark === '+' ? b[i] : a[i]), line: i + 1 }));
    const removed = span.changes.reduce((n, ch) => n + ch.a1 - ch.a0, 0);
    const added = span.changes.reduce((n, ch) => n + ch.b1 - ch.b0, 0);
    return { index, header: hunkHeader(span), changes: span.changes, lines, removed, added };
  });
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
