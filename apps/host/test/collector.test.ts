import { describe, expect, test } from 'bun:test';
import { GROWTH_BYTES, collector } from '../src/collector.ts';

const MiB = 1024 * 1024;

/** A runtime whose RSS the test sets, noting each collection ('full' or 'young'). */
function runtime() {
  const state = { rss: 100 * MiB, made: [] as string[], afterFull: 60 * MiB };
  return {
    state,
    rt: {
      rss: () => state.rss,
      gc: (full: boolean) => {
        state.made.push(full ? 'full' : 'young');
        if (full) state.rss = state.afterFull;
      },
    },
  };
}

describe('the host’s collector', () => {
  test('collects the old generation where the work asks, else only the young until RSS grew by GROWTH_BYTES', () => {
    const { state, rt } = runtime();
    const reclaim = collector(rt);
    reclaim(false);
    expect(state.made).toEqual(['young']); // no growth since it was made
    state.rss += GROWTH_BYTES - 1;
    reclaim(false);
    expect(state.made).toEqual(['young', 'young']);
    state.rss += 1;
    reclaim(false);
    expect(state.made).toEqual(['young', 'young', 'full']);
    // Growth counts from what the full collection left (60 MiB).
    state.rss = 60 * MiB + GROWTH_BYTES - 1;
    reclaim(false);
    expect(state.made.at(-1)).toBe('young');
    state.rss = 60 * MiB + GROWTH_BYTES;
    reclaim(false);
    expect(state.made.at(-1)).toBe('full');
    reclaim(true);
    expect(state.made.at(-1)).toBe('full');
  });
});
