import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { COLLECT_EVERY, printJson, prettyJsonChunks } from '../src/pretty-json.ts';

const joined = (value: unknown, chunkChars?: number): string | undefined => {
  const chunks = [...prettyJsonChunks(value, chunkChars)];
  return chunks.length === 0 ? undefined : chunks.join('');
};

describe('JSON printed in chunks', () => {
  test('the chunks joined are JSON.stringify(value, null, 2), for any JSON value and chunk size', () => {
    const value = fc.jsonValue({ maxDepth: 5 });
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 200 }), (v, chunkChars) => {
        expect(joined(v, chunkChars)).toBe(JSON.stringify(v, null, 2));
      }),
      { numRuns: 400 },
    );
  });

  test('what JSON leaves out, turns to null or hands to toJSON comes out as JSON.stringify has it', () => {
    const many = (v: unknown) => Array.from({ length: 20 }, () => v);
    const cases: unknown[] = [
      undefined,
      null,
      'a ’ "quoted"\nline',
      [],
      {},
      [[[]], [{}], {}],
      [undefined, () => 1, Symbol('s')],
      { gone: undefined, fn: () => 1, kept: 1 },
      { date: new Date(0), nan: Number.NaN, inf: -Infinity, zero: -0 },
      Object.assign(Object.create(null), { a: [1, { b: [2, { c: many('x') }] }] }),
      { map: new Map([[1, 2]]), bytes: new Uint8Array([1, 2]), boxed: new String('s'), n: new Number(3) },
      // Sparse, and long enough to be walked rather than left to JSON.stringify whole.
      [, 1, ...many(undefined)],
      { list: many({ path: 'p', took: 'new file', nested: { deep: many(undefined) } }) },
    ];
    for (const v of cases) for (const chunkChars of [1, 7, 1 << 16]) expect(joined(v, chunkChars)).toBe(JSON.stringify(v, null, 2));
  });

  test('a long listing comes out in many chunks, none much past the chunk size', () => {
    const value = { mounts: [{ mount: 'work', tookIn: Array.from({ length: 20_000 }, (_, i) => ({ path: `copy0/dir${i % 97}/file${i}.ts`, took: 'new file' })) }] };
    const chunks = [...prettyJsonChunks(value, 4096)];
    expect(chunks.length).toBeGreaterThan(100);
    // Each chunk ends at the first member past the size: a member here is under 100 characters.
    for (const c of chunks) expect(c.length).toBeLessThan(4096 + 100);
    expect(chunks.join('')).toBe(JSON.stringify(value, null, 2));
  });

  test('a cycle is refused, as JSON.stringify refuses it', () => {
    const v: Record<string, unknown> = { list: Array.from({ length: 20 }, (_, i) => i) };
    (v.list as unknown[]).push(v);
    expect(() => joined(v)).toThrow(TypeError);
  });

  test('printing writes each chunk before making the next, collecting every few chunks, and ends with a line end', async () => {
    const value = { tookIn: Array.from({ length: 30_000 }, (_, i) => ({ path: `dir/file${i}.ts`, took: 'new file' })) };
    const events: string[] = [];
    let text = '';
    await printJson(
      value,
      async (t) => {
        events.push('write');
        text += t;
      },
      () => events.push('collect'),
    );
    expect(text).toBe(`${JSON.stringify(value, null, 2)}\n`);
    const writes = events.filter((e) => e === 'write').length;
    expect(writes).toBeGreaterThan(2 * COLLECT_EVERY);
    // A collection after every COLLECT_EVERY writes, none before.
    for (const [i, e] of events.entries()) if (e === 'collect') expect(events.slice(0, i).filter((x) => x === 'write').length % COLLECT_EVERY).toBe(0);
    expect(events.filter((e) => e === 'collect').length).toBe(Math.floor((writes - 1) / COLLECT_EVERY));
  });
});
