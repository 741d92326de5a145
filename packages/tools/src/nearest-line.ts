/**
 * The line of a file most like a line the model looked for, so a not-found edit can
 * point at what it probably meant. The one rule: cheap — character bigrams on trimmed,
 * capped text — because it runs over every line of a file on an error path.
 */

const CAP = 400;
/**
 * The least similarity a line needs to be offered: below it the line shares a stray
 * bigram or two (`zzzz-not-there` and "It serves until Ctrl-C. Then, in another
 * terminal:" score 0.1) and would point the model at a line it never meant; a typo or a
 * changed number scores 0.6 and more.
 */
const MIN_SIMILARITY = 0.3;

function bigrams(s: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (let i = 0; i + 1 < s.length; i++) {
    const g = s.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  return grams;
}

/** Dice similarity of two strings' bigram multisets, 0 (nothing shared) to 1 (same). */
function similarity(a: Map<string, number>, aSize: number, b: string): number {
  if (b.length < 2) return 0;
  const seen = new Map<string, number>();
  let shared = 0;
  for (let i = 0; i + 1 < b.length; i++) {
    const g = b.slice(i, i + 2);
    const used = seen.get(g) ?? 0;
    if (used < (a.get(g) ?? 0)) shared++;
    seen.set(g, used + 1);
  }
  return (2 * shared) / (aSize + b.length - 1);
}

/**
 * The 1-based number and text of the line in `lines` most like `wanted` (compared with
 * surrounding whitespace trimmed), or `undefined` when no line is at least
 * {@link MIN_SIMILARITY} like it.
 */
export function nearestLine(lines: readonly string[], wanted: string): { line: number; text: string } | undefined {
  const w = wanted.trim().slice(0, CAP);
  if (w === '') return undefined;
  let best = -1;
  let bestScore = MIN_SIMILARITY - Number.EPSILON;
  if (w.length < 2) {
    for (let i = 0; i < lines.length; i++) if (lines[i].includes(w)) return { line: i + 1, text: lines[i] };
    return undefined;
  }
  const grams = bigrams(w);
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i].trim().slice(0, CAP);
    if (t === w) return { line: i + 1, text: lines[i] };
    const score = similarity(grams, w.length - 1, t);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return best < 0 ? undefined : { line: best + 1, text: lines[best] };
}
