/**
 * A batch's verdicts cross from a grep Worker as numbers where they can (a read file with
 * no match, a full page's unnumbered count) and as themselves otherwise: what the caller
 * takes must be what the Worker made, for every kind, in any order, and a list that does
 * not add up must fail the batch rather than give a wrong count. WS_SEED fixes the run.
 */
import { describe, expect, test } from 'bun:test';
import { scanAhead } from '@ws/grep';
import fc from 'fast-check';
import type { WorkerReadVerdict, WorkerVerdict } from '../src/grep/prescan.ts';
import { sendVerdicts, takeVerdict, takeVerdicts } from '../src/grep/verdict-wire.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });
const enc = new TextEncoder();
const plain = { caseInsensitive: false, fixedStrings: false, multiline: false };

/** A scan as a Worker makes one: `countOnly` for a full page (unnumbered where the pattern is its run). */
function scanOf(pattern: string, text: string, countOnly: boolean) {
  const a = scanAhead(pattern, plain, enc.encode(text), 10_000, undefined, countOnly);
  if (a.kind !== 'scanned') throw new Error(`expected ${pattern} to match ${JSON.stringify(text)}`);
  return a;
}

const texts = fc.constantFrom('return x\nreturn\n', '\uFEFFreturn 1\r\nno\r\nreturn 2\r\n', 'a return b\n', 'return', 'x\nreturn\nreturn\nreturn\n');
const patterns = fc.constantFrom('return', 'eturn', 'tur', 'r\\wturn', 'return\\b', 'r\\w+n', 'e?turn', 'ret(urn)');
const verdict: fc.Arbitrary<WorkerVerdict | WorkerReadVerdict> = fc.oneof(
  fc.constant(null),
  fc.constant('none' as const),
  fc.nat({ max: 1 << 30 }).map((none) => ({ none })),
  fc.tuple(patterns, texts, fc.boolean()).map(([p, t, countOnly]) => ({ counted: { size: enc.encode(t).length, scan: scanOf(p, t, countOnly).result } })),
  fc.tuple(patterns, texts).map(([p, t]) => {
    const a = scanOf(p, t, false);
    return { bytes: enc.encode(t), scan: { result: a.result, lineEnds: a.lineEnds } };
  }),
  fc.string().map((t) => ({ bytes: enc.encode(t), aheadMs: 3 })),
  fc.string().map((t) => ({ reading: { kind: 'file' as const, bytes: enc.encode(t), fingerprint: 'f', mode: 0o644 } as never })),
);

/** A verdict's contents, typed arrays as plain lists, so equal verdicts compare equal. */
function plainOf(v: unknown): unknown {
  if (v instanceof Uint8Array || v instanceof Uint32Array) return { [v.constructor.name]: [...v] };
  if (Array.isArray(v)) return v.map(plainOf);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainOf(x)]));
  return v;
}

describe('a batch of verdicts crossing from a Worker', () => {
  test('is taken as it was made, whatever its kinds and order; only its numbers cross without their buffers', () => {
    let asNumbers = 0;
    let asThemselves = 0;
    fc.assert(
      fc.property(fc.array(verdict, { maxLength: 40 }), (made) => {
        const moved: ArrayBuffer[] = [];
        for (const v of made) {
          if (v !== null && typeof v === 'object' && 'counted' in v) moved.push(v.counted.scan.hits.buffer as ArrayBuffer, v.counted.scan.gaveUp.buffer as ArrayBuffer);
          if (v !== null && typeof v === 'object' && 'bytes' in v) moved.push(v.bytes.buffer as ArrayBuffer);
        }
        const wire = sendVerdicts(made, moved);
        // What crosses is what structured cloning keeps: nothing but numbers where it could be.
        const crossed = structuredClone(wire.sent);
        expect(plainOf(takeVerdicts(crossed))).toEqual(plainOf(made));
        wire.sent.verdicts.forEach((s, i) => {
          const v = made[i];
          const plainCount = v !== null && typeof v === 'object' && 'counted' in v && v.counted.scan.unnumbered === true;
          const none = v !== null && typeof v === 'object' && 'none' in v;
          expect(typeof s === 'number').toBe(plainCount || none);
          if (plainCount) {
            asNumbers++;
            // Its buffers stay behind; the others still move.
            expect(wire.moved.includes(v.counted.scan.hits.buffer as ArrayBuffer)).toBe(false);
          } else if (v !== null && typeof v === 'object' && 'bytes' in v) {
            asThemselves++;
            expect(wire.moved.includes(v.bytes.buffer as ArrayBuffer)).toBe(true);
          }
        });
        if (wire.sent.tallies !== undefined) expect(wire.moved.includes(wire.sent.tallies.buffer as ArrayBuffer)).toBe(true);
      }),
      params(1500),
    );
    expect(asNumbers).toBeGreaterThan(100);
    expect(asThemselves).toBeGreaterThan(200);
  });

  test('an unnumbered count with anything more than its lines crosses as itself', () => {
    const { result } = scanOf('return', 'return\nreturn\n', true);
    expect(result.unnumbered).toBe(true);
    const odd = { counted: { size: 14, scan: { ...result, aheadMs: 5 } } };
    const wire = sendVerdicts([odd], []);
    expect(wire.sent.verdicts[0]).toBe(odd);
    expect(wire.sent.tallies).toBeUndefined();
  });

  test('a count the batch does not hold fails it, in one sentence', () => {
    expect(() => takeVerdict(-3, new Float64Array(3))).toThrow('a grep Worker sent count 2, which its batch does not hold');
    expect(() => takeVerdict(-1, undefined)).toThrow('which its batch does not hold');
    expect(takeVerdict(-1, new Float64Array([9, 2, 1]))).toEqual({ counted: { size: 9, scan: { hits: new Uint32Array(2), lines: 2, gaveUp: new Uint32Array(0), bom: true, unnumbered: true } } });
  });
});
