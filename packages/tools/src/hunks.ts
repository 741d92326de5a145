/**
 * Unified-diff hunks between two lists of lines, from `matchLines`. The one rule: each
 * hunk's header gives 1-based line numbers in each text and each line says where it
 * stands (` ` in both, `-` only in the first, `+` only in the second), so a page of
 * hunks is a unified diff `patch` reads, and a model can read the lines it names.
 */
import { matchLines } from './line-diff.ts';

/** Lines of context around each change. */
export const CONTEXT = 3;

/** One hunk: where it begins (0-based) and how many lines it covers in each text, and its lines. */
export interface Hunk extends HunkExtent {
  /** Each line with its mark: ` `, `-` or `+`. */
  readonly lines: readonly string[];
}

/** A run of lines changed: `a[a0..a1)` replaced by `b[b0..b1)`. */
export interface LineChange {
  readonly a0: number;
  readonly a1: number;
  readonly b0: number;
  readonly b1: number;
}

/** The runs of lines changed between `a` and `b`, in order. */
export function lineChanges(a: readonly string[], b: readonly string[]): LineChange[] {
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

/** Where a hunk begins (0-based) and how many lines it covers in each text. */
export interface HunkExtent {
  readonly aStart: number;
  readonly aLength: number;
  readonly bStart: number;
  readonly bLength: number;
}

/** One hunk's extent and the changes it groups. */
export interface HunkSpan extends HunkExtent {
  readonly changes: readonly LineChange[];
}

/**
 * The changes of a text of `aLines` lines grouped into hunks with `context` lines around
 * each change: changes closer than twice that share a hunk.
 */
export function hunkSpans(aLines: number, changes: readonly LineChange[], context = CONTEXT): HunkSpan[] {
  const spans: HunkSpan[] = [];
  let g = 0;
  while (g < changes.length) {
    let last = g;
    while (last + 1 < changes.length && changes[last + 1].a0 - changes[last].a1 <= 2 * context) last++;
    const first = changes[g];
    const end = changes[last];
    const lead = Math.min(context, first.a0);
    const trail = Math.min(context, aLines - end.a1);
    const aStart = first.a0 - lead;
    const bStart = first.b0 - lead;
    spans.push({ aStart, aLength: end.a1 + trail - aStart, bStart, bLength: end.b1 + trail - bStart, changes: changes.slice(g, last + 1) });
    g = last + 1;
  }
  return spans;
}

/**
 * A hunk's lines in order, each with its mark and its index: in the first text for ` `
 * and `-`, in the second for `+`.
 */
export function eachHunkLine(span: HunkSpan, visit: (mark: ' ' | '-' | '+', index: number) => void): void {
  const { changes } = span;
  for (let i = span.aStart; i < changes[0].a0; i++) visit(' ', i);
  changes.forEach((ch, c) => {
    for (let i = ch.a0; i < ch.a1; i++) visit('-', i);
    for (let j = ch.b0; j < ch.b1; j++) visit('+', j);
    const next = c < changes.length - 1 ? changes[c + 1].a0 : span.aStart + span.aLength;
    for (let i = ch.a1; i < next; i++) visit(' ', i);
  });
}

/** The hunks turning `a` into `b`, with `context` lines around each change; changes closer than twice that share a hunk. */
export function hunksOf(a: readonly string[], b: readonly string[], context = CONTEXT): Hunk[] {
  return hunkSpans(a.length, lineChanges(a, b), context).map((span) => {
    const lines: string[] = [];
    eachHunkLine(span, (mark, i) => lines.push(`${mark}${mark === '+' ? b[i] : a[i]}`));
    return { aStart: span.aStart, aLength: span.aLength, bStart: span.bStart, bLength: span.bLength, lines };
  });
}

/** `@@ -3,7 +3,8 @@`: 1-based starts, or the line before where a side has no lines. */
export function hunkHeader(h: HunkExtent): string {
  const side = (start: number, length: number) => `${length === 0 ? start : start + 1},${length}`;
  return `@@ -${side(h.aStart, h.aLength)} +${side(h.bStart, h.bLength)} @@`;
}
