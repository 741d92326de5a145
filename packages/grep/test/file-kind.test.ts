import { describe, expect, test } from 'bun:test';
import { fileText } from '@ws/text';
import fc from 'fast-check';
import { crlfEnds } from '../src/file-kind.ts';

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
