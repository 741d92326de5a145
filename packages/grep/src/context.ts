/**
 * Neighbouring lines around matches (`contextBefore`, `contextAfter`). The one rule:
 * every line of a file is shown at most once — a neighbour already shown (as a match
 * or as an earlier match's context) is not repeated, as ripgrep merges its context.
 */
import type { LineHit } from './matching-lines.ts';

/** A matching line, with the neighbouring lines asked for. */
export interface LineMatch {
  /** The line's number, 1-based. */
  readonly line: number;
  /** The line as read shows it. */
  readonly text: string;
  /** Up to `contextBefore` lines just before, in order: `before[i]` is line `line - before.length + i`. */
  readonly before?: readonly string[];
  /** Up to `contextAfter` lines just after, in order, stopping before the next match: `after[i]` is line `line + 1 + i`. */
  readonly after?: readonly string[];
}

/** The hits with their neighbours from `lines` (all the file's lines as read shows them). */
export function withContext(hits: readonly LineHit[], lines: readonly string[], before: number, after: number): LineMatch[] {
  const out: LineMatch[] = [];
  let shown = 0; // the highest line number shown so far
  for (let k = 0; k < hits.length; k++) {
    const { line, text } = hits[k];
    const next = k + 1 < hits.length ? hits[k + 1].line : lines.length + 1;
    const from = Math.max(shown + 1, line - before);
    const to = Math.min(line + after, next - 1);
    const b = lines.slice(from - 1, line - 1);
    const a = lines.slice(line, to);
    out.push({ line, text, ...(b.length > 0 ? { before: b } : {}), ...(a.length > 0 ? { after: a } : {}) });
    shown = Math.max(line, to);
  }
  return out;
}
