/**
 * A batch's verdicts as they cross from a grep Worker to the caller. Most files of a
 * search come back with nothing but numbers — no line matches (a read file's size), or a
 * full page's count of a pattern that is its run (`@ws/grep`'s unnumbered scan: its
 * size, its lines, its BOM) — and an object apiece cost the Worker more to send than
 * the caller to take: a common word's 368 store batches spent some 100 ms of the
 * Worker's time in `postMessage`, cloning 22,000 such objects and moving two buffers
 * for each. Here they go as numbers: a read file with no match as its size (a number
 * ≥ 0 in the list), an unnumbered count as `-1 - k`, its size, lines and BOM at `3k` in
 * one `Float64Array` moved with the batch. Every other verdict goes as it is. The one
 * rule: `takeVerdicts(sendVerdicts(v))` gives verdicts the search cannot tell from `v`.
 */
import type { MatchJobResult } from '@ws/grep';
import type { WorkerReadVerdict, WorkerVerdict } from './prescan.ts';

/** A verdict as it crosses: itself, or a number standing for it. */
export type SentVerdict<V> = V | number;

/** A batch's verdicts as sent, with the numbers the counted ones stand for. */
export interface SentVerdicts<V> {
  readonly verdicts: SentVerdict<V>[];
  /** Size, lines and BOM (1 or 0) of each count sent as a number; absent where there is none. */
  readonly tallies?: Float64Array;
}

type Counted = { readonly counted: { readonly size: number; readonly scan: MatchJobResult } };

/** An unnumbered count that crosses as numbers: nothing in it but its lines and BOM (no line gave up, no line ends read, not stopped). */
function plainCount(v: Counted): boolean {
  const { scan } = v.counted;
  return scan.unnumbered === true && scan.gaveUp.length === 0 && scan.stoppedAt === undefined && scan.lost === undefined && scan.crlfEnds === undefined && scan.ends === undefined && scan.aheadMs === undefined;
}

/**
 * The verdicts as a Worker sends them, and `moved` without the buffers of the counts
 * now sent as numbers (they stay behind, garbage).
 */
export function sendVerdicts<V extends WorkerVerdict | WorkerReadVerdict>(verdicts: readonly V[], moved: ArrayBuffer[]): { sent: SentVerdicts<V>; moved: ArrayBuffer[] } {
  const counts: number[] = [];
  const left = new Set<ArrayBuffer>();
  const sent = verdicts.map((v): SentVerdict<V> => {
    if (v === null || typeof v !== 'object') return v;
    if ('none' in v) return v.none;
    if (!('counted' in v) || !plainCount(v)) return v;
    const { size, scan } = v.counted;
    counts.push(size, scan.lines, scan.bom ? 1 : 0);
    left.add(scan.hits.buffer as ArrayBuffer);
    left.add(scan.gaveUp.buffer as ArrayBuffer);
    return -counts.length / 3;
  });
  if (counts.length === 0) return { sent: { verdicts: sent }, moved };
  const tallies = Float64Array.from(counts);
  return { sent: { verdicts: sent, tallies }, moved: [...moved.filter((b) => !left.has(b)), tallies.buffer as ArrayBuffer] };
}

/** One verdict as the Worker made it, from what crossed. */
export function takeVerdict<V extends WorkerVerdict | WorkerReadVerdict>(v: SentVerdict<V>, tallies: Float64Array | undefined): V {
  if (typeof v !== 'number') return v;
  if (v >= 0) return { none: v } as V;
  const k = -1 - v;
  if (tallies === undefined || 3 * k + 2 >= tallies.length) throw new Error(`a grep Worker sent count ${k}, which its batch does not hold`);
  const lines = tallies[3 * k + 1];
  const scan: MatchJobResult = { hits: new Uint32Array(lines), lines, gaveUp: new Uint32Array(0), bom: tallies[3 * k + 2] === 1, unnumbered: true };
  return { counted: { size: tallies[3 * k], scan } } as V;
}

/** The verdicts as the Worker made them, from what crossed. */
export function takeVerdicts<V extends WorkerVerdict | WorkerReadVerdict>(sent: SentVerdicts<V>): V[] {
  return sent.verdicts.map((v) => takeVerdict(v, sent.tallies));
}
