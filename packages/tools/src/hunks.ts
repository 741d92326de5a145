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
export interface Hunk {
  readonly aStart: number;
  readonly aLength: number;
  readonly bStart: number;
  readonly bLength: number;
  /** Each line with its mark: ` `, `-` or `+`. */
  readonly lines: readonly string[];
}

/** A run of lines changed: `a[a0..a1)` replaced by `b[b0..b1)`. */
interface Change {
  readonly a0: number;
  readonly a1: number;
  readonly b0: number;
  readonly b1: number;
}

function changesOf(a: readonly string[], b: readonly string[]): Change[] {
  const m = matchLines(a, b);
  const changes: Change[] = [];
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

/** The hunks turning `a` into `b`, with `context` lines around each change; changes closer than twice that share a hunk. */
export function hunksOf(a: readonly string[], b: readonly string[], context = CONTEXT): Hunk[] {
  const changes = changesOf(a, b);
  const hunks: Hunk[] = [];
  let g = 0;
  while (g < changes.length) {
    let last = g;
    while (last + 1 < changes.length && changes[last + 1].a0 - changes[last].a1 <= 2 * context) last++;
    const first = changes[g];
    const end = changes[last];
    const lead = Math.min(context, first.a0);
    const trail = Math.min(context, a.length - end.a1);
    const lines: string[] = [];
    for (let i = first.a0 - lead; i < first.a0; i++) lines.push(` ${a[i]}`);
    for (let c = g; c <= last; c++) {
      const ch = changes[c];
      for (let i = ch.a0; i < ch.a1; i++) lines.push(`-${a[i]}`);
      for (let j = ch.b0; j < ch.b1; j++) lines.push(`+${b[j]}`);
      const next = c < last ? changes[c + 1].a0 : ch.a1 + trail;
      for (let i = ch.a1; i < next; i++) lines.push(` ${a[i]}`);
    }
    const aStart = first.a0 - lead;
    const bStart = first.b0 - lead;
    hunks.push({ aStart, aLength: end.a1 + trail - aStart, bStart, bLength: end.b1 + trail - bStart, lines });
    g = last + 1;
  }
  return hunks;
}

/** `@@ -3,7 +3,8 @@`: 1-based starts, or the line before where a side has no lines. */
export function hunkHeader(h: Hunk): string {
  const side = (start: number, length: number) => `${length === 0 ? start : start + 1},${length}`;
  return `@@ -${side(h.aStart, h.aLength)} +${side(h.bStart, h.bLength)} @@`;
}
