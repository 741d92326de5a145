/**
 * Crash injection shared by the fake store and the fake disk: every effectful call is a
 * step boundary; an armed countdown throws {@link Crash} at one of them, and from then on
 * every call throws (the process is dead) until the harness restarts it.
 */

/** The process died here. */
export class Crash extends Error {
  constructor(where: string) {
    super(`crash at ${where}`);
  }
}

/** A countdown to a crash. */
export class Faults {
  private countdown: number | null = null;
  dead = false;

  /** Crash at the `n`-th step boundary from now (1: the next one). */
  arm(n: number): void {
    this.countdown = n;
  }

  disarm(): void {
    this.countdown = null;
  }

  /** A step boundary. */
  tick(where: string): void {
    if (this.dead) throw new Crash(`${where} (after death)`);
    if (this.countdown !== null && --this.countdown <= 0) {
      this.countdown = null;
      this.dead = true;
      throw new Crash(where);
    }
  }

  /** The process starts again. */
  restart(): void {
    this.dead = false;
    this.countdown = null;
  }
}

/** A small seeded PRNG (mulberry32): the same seed gives the same run. */
export { mulberry32 as rng } from '../../../../test/random.ts';

/** A deterministic 64-bit content hash for the fakes (two FNV-1a lanes), as hex. */
export function fakeHash(bytes: Uint8Array): string {
  let h1 = 0x811c9dc5;
  let h2 = 0xcbf29ce4;
  for (let i = 0; i < bytes.length; i++) {
    h1 = Math.imul(h1 ^ bytes[i], 0x01000193);
    h2 = Math.imul(h2 ^ bytes[i], 0x0100019d) ^ (h1 >>> 7);
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}
