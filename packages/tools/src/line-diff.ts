/**
 * Which lines two texts share: a longest common subsequence of their lines (Myers'
 * O(ND) bisection, in linear space), the base of `diff`'s hunks and `history`'s lines
 * changed. The one rule: the matches are always a valid alignment — increasing in both
 * texts, each pair of equal lines — and minimal except where a region's cost passes
 * `MAX_COST`, which is then shown as replaced whole rather than searched further.
 *
 * Fast on large files by three cuts before the search: lines are compared as integers
 * (each distinct line interned once), the common head and tail are matched directly,
 * and a line found on one side only can never match, so it is left out of the search.
 */

/** Where the search stops minimizing: a region needing more edits than this is replaced whole. */
export const MAX_COST = 4096;

/** Matched lines: `a[i]` equals `b[j]` for each pair `(matchA[k], matchB[k])`, increasing. */
export interface LineMatches {
  readonly a: Int32Array;
  readonly b: Int32Array;
}

/** Matches a longest common subsequence of the lines `a` and `b`. */
export function matchLines(a: readonly string[], b: readonly string[]): LineMatches {
  const ids = new Map<string, number>();
  const intern = (lines: readonly string[]) =>
    Int32Array.from(lines, (l) => {
      let id = ids.get(l);
      if (id === undefined) ids.set(l, (id = ids.size));
      return id;
    });
  const A = intern(a);
  const B = intern(b);
  const outA: number[] = [];
  const outB: number[] = [];

  let head = 0;
  while (head < A.length && head < B.length && A[head] === B[head]) head++;
  let tail = 0;
  while (tail < A.length - head && tail < B.length - head && A[A.length - 1 - tail] === B[B.length - 1 - tail]) tail++;
  for (let i = 0; i < head; i++) {
    outA.push(i);
    outB.push(i);
  }

  // Only lines both sides hold can match: search those, then map back.
  const inA = new Uint8Array(ids.size);
  const inB = new Uint8Array(ids.size);
  for (let i = head; i < A.length - tail; i++) inA[A[i]] = 1;
  for (let j = head; j < B.length - tail; j++) inB[B[j]] = 1;
  const keptA: number[] = [];
  const keptB: number[] = [];
  for (let i = head; i < A.length - tail; i++) if (inB[A[i]]) keptA.push(i);
  for (let j = head; j < B.length - tail; j++) if (inA[B[j]]) keptB.push(j);
  const SA = Int32Array.from(keptA, (i) => A[i]);
  const SB = Int32Array.from(keptB, (j) => B[j]);
  const midA: number[] = [];
  const midB: number[] = [];
  lcs(SA, 0, SA.length, SB, 0, SB.length, midA, midB);
  for (let k = 0; k < midA.length; k++) {
    outA.push(keptA[midA[k]]);
    outB.push(keptB[midB[k]]);
  }

  for (let t = tail; t > 0; t--) {
    outA.push(A.length - t);
    outB.push(B.length - t);
  }
  return { a: Int32Array.from(outA), b: Int32Array.from(outB) };
}

/** Appends the matches of a longest common subsequence of `A[a0..a1)` and `B[b0..b1)`. */
function lcs(A: Int32Array, a0: number, a1: number, B: Int32Array, b0: number, b1: number, outA: number[], outB: number[]): void {
  while (a0 < a1 && b0 < b1 && A[a0] === B[b0]) {
    outA.push(a0++);
    outB.push(b0++);
  }
  let tail = 0;
  while (a1 - tail > a0 && b1 - tail > b0 && A[a1 - 1 - tail] === B[b1 - 1 - tail]) tail++;
  a1 -= tail;
  b1 -= tail;
  if (a0 < a1 && b0 < b1) {
    const split = bisect(A, a0, a1, B, b0, b1);
    if (split !== undefined) {
      lcs(A, a0, split[0], B, b0, split[1], outA, outB);
      lcs(A, split[0], a1, B, split[1], b1, outA, outB);
    }
  }
  for (let t = 0; t < tail; t++) {
    outA.push(a1 + t);
    outB.push(b1 + t);
  }
}

/**
 * A point on a shortest edit path through the region, where the forward and reverse
 * searches meet (Myers 1986, §4b); undefined where the region costs more than
 * `MAX_COST` or shares nothing (it is then replaced whole).
 */
function bisect(A: Int32Array, a0: number, a1: number, B: Int32Array, b0: number, b1: number): [number, number] | undefined {
  const n = a1 - a0;
  const m = b1 - b0;
  const maxD = Math.min(Math.ceil((n + m) / 2), MAX_COST);
  const offset = maxD + 1;
  const size = 2 * maxD + 3;
  const forward = new Int32Array(size).fill(-1);
  const reverse = new Int32Array(size).fill(-1);
  forward[offset + 1] = 0;
  reverse[offset + 1] = 0;
  const delta = n - m;
  const front = (delta & 1) !== 0;
  let k1start = 0;
  let k1end = 0;
  let k2start = 0;
  let k2end = 0;
  for (let d = 0; d < maxD; d++) {
    for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      const at = offset + k1;
      let x1 = k1 === -d || (k1 !== d && forward[at - 1] < forward[at + 1]) ? forward[at + 1] : forward[at - 1] + 1;
      let y1 = x1 - k1;
      while (x1 < n && y1 < m && A[a0 + x1] === B[b0 + y1]) {
        x1++;
        y1++;
      }
      forward[at] = x1;
      if (x1 > n) k1end += 2;
      else if (y1 > m) k1start += 2;
      else if (front) {
        const k2 = offset + delta - k1;
        if (k2 >= 0 && k2 < size && reverse[k2] !== -1 && x1 >= n - reverse[k2]) return [a0 + x1, b0 + y1];
      }
    }
    for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      const at = offset + k2;
      let x2 = k2 === -d || (k2 !== d && reverse[at - 1] < reverse[at + 1]) ? reverse[at + 1] : reverse[at - 1] + 1;
      let y2 = x2 - k2;
      while (x2 < n && y2 < m && A[a1 - 1 - x2] === B[b1 - 1 - y2]) {
        x2++;
        y2++;
      }
      reverse[at] = x2;
      if (x2 > n) k2end += 2;
      else if (y2 > m) k2start += 2;
      else if (!front) {
        const k1 = offset + delta - k2;
        if (k1 >= 0 && k1 < size && forward[k1] !== -1) {
          const x1 = forward[k1];
          const y1 = offset + x1 - k1;
          if (x1 >= n - x2) return [a0 + x1, b0 + y1];
        }
      }
    }
  }
  return undefined;
}

/** How many lines an alignment adds and removes: the lines of `a` and of `b` it leaves unmatched. */
export function linesChanged(a: readonly string[], b: readonly string[]): number {
  const { a: matched } = matchLines(a, b);
  return a.length - matched.length + (b.length - matched.length);
}
