import { describe, expect, test } from 'bun:test';
import { fileText } from '@ws/text';
import fc from 'fast-check';
import { BINARY_SNIFF_BYTES, crlfEnds, looksBinary } from '../src/file-kind.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });
const enc = new TextEncoder();

describe('crlfEnds', () => {
  test('agrees with fileText\u2019s lineEndings wherever a line end is CRLF', () => {
    const piece = fc.constantFrom('\n', '\r\n', '\r', '\r\r\n', '\uFEFF', 'a', '\r\r', '\n\r');
    const bytes = fc.tuple(fc.boolean(), fc.array(piece, { maxLength: 30 })).map(([bom, ps]) => enc.encode((bom ? '\uFEFF' : '') + ps.join('')));
    fc.assert(
      fc.property(bytes, (b) => {
        const ft = fileText(b);
        const le = ft.lineEndings;
        expect(crlfEnds(ft.text)).toBe(le === 'CRLF' || le === 'mixed' ? le : undefined);
      }),
      params(5000),
    );
  });
});

describe('looksBinary', () => {
  test('a NUL byte in the first 8 KB makes a file binary; one after it does not', () => {
    const at = (k: number) => {
      const b = new Uint8Array(BINARY_SNIFF_BYTES + 10).fill(0x61);
      b[k] = 0;
      return b;
    };
    expect(BINARY_SNIFF_BYTES).toBe(8192);
    expect(looksBinary(at(0))).toBe(true);
    expect(looksBinary(at(8191))).toBe(true);
    expect(looksBinary(at(8192))).toBe(false);
    expect(looksBinary(enc.encode('text \u00e9 \ud83d\ude00\r\n'))).toBe(false);
    expect(looksBinary(new Uint8Array(0))).toBe(false);
  });
});
