import { describe, expect, test } from 'bun:test';
import { fileText } from '@ws/text';
import fc from 'fast-check';
import { crlfEnds, crlfEndsOfBytes } from '../src/file-kind.ts';

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

  test('read from the bytes, it agrees with the decoded text\u2019s, invalid UTF-8 next to a CR or LF included', () => {
    const piece = fc.constantFrom('\n', '\r\n', '\r', '\r\r\n', '\uFEFF', 'a', '\r\r', '\n\r', '\u00e9').map((s) => Array.from(enc.encode(s)));
    const broken = fc.constantFrom([0xc3], [0xe2, 0x82], [0x80], [0xff]);
    const bytes = fc.array(fc.oneof(piece, broken), { maxLength: 30 }).map((ps) => new Uint8Array(ps.flat()));
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    fc.assert(
      fc.property(bytes, (b) => {
        expect(crlfEndsOfBytes(b)).toBe(crlfEnds(decoder.decode(b)));
      }),
      params(5000),
    );
  });
});
