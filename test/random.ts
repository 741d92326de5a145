/**
 * One seeded generator for every package's tests and benchmarks (mulberry32), so a
 * failing seed repeats and every benchmark run measures the same input. The one rule:
 * never `Math.random` where a run must repeat.
 */

/** A generator of numbers in [0, 1): the same seed gives the same sequence. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A generator of whole numbers in [0, n), from `mulberry32(seed)`. */
export function seededBelow(seed: number): (n: number) => number {
  const next = mulberry32(seed);
  return (n) => Math.floor(next() * n);
}
