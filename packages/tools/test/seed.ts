/** fast-check parameters: `WS_SEED` (when set) makes every property test replay one run. */
const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;

/** `{ numRuns, seed? }` for `fc.assert`. */
export function runs(numRuns: number): { numRuns: number; seed?: number } {
  return { numRuns, ...(seed === undefined ? {} : { seed }) };
}
