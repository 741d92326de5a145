/**
 * The textbook longest-common-subsequence table: every pair of lines compared. The
 * reference the line diff is checked against (its length) and measured against (its
 * cost). The one rule: keep it the plain table — it is right because it is simple.
 */

/** The length of a longest common subsequence of `a` and `b`. */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  const row = new Int32Array(b.length + 1);
  for (let i = a.length - 1; i >= 0; i--) {
    let diag = 0;
    for (let j = b.length - 1; j >= 0; j--) {
      const keep = row[j];
      row[j] = a[i] === b[j] ? diag + 1 : Math.max(row[j], row[j + 1]);
      diag = keep;
    }
  }
  return row[0];
}
