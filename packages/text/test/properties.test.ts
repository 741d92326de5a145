import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { fileText, jsonLength, safeCut } from '../src/index.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });

const enc = new TextEncoder();

/** Pieces that stress the reading: every kind of line end, BOMs, emoji, invalid bytes. */
const piece = fc.oneof(
  fc.constantFrom('\n', '\r\n', '\r', '\r\r\n', '\uFEFF', '\ud83d\ude00', 'é', '\t', '"', '\\', 'a', 'bc'),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
);
const invalidBytes = fc.constantFrom([0x80], [0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]);

const fileBytes = fc
  .tuple(
    fc.boolean(),
    fc.array(fc.oneof({ weight: 5, arbitrary: piece.map((s) => Array.from(enc.encode(s))) }, { weight: 1, arbitrary: invalidBytes }), {
      maxLength: 40,
    }),
  )
  .map(([bom, parts]) => new Uint8Array([...(bom ? [0xef, 0xbb, 0xbf] : []), ...parts.flat()]));

describe('fileText properties', () => {
  test('every line is the slice of text its start names', () => {
    fc.assert(
      fc.property(fileBytes, (b) => {
        const ft = fileText(b);
        expect(ft.starts.length).toBe(ft.lines.length);
        for (let i = 0; i < ft.lines.length; i++) {
          expect(ft.text.slice(ft.starts[i], ft.starts[i] + ft.lines[i].length)).toBe(ft.lines[i]);
        }
      }),
      params(5000),
    );
  });

  test('text is exactly what a non-fatal TextDecoder makes of the bytes, BOM kept', () => {
    fc.assert(
      fc.property(fileBytes, (b) => {
        expect(fileText(b).text).toBe(new TextDecoder('utf-8', { ignoreBOM: true }).decode(b));
      }),
      params(3000),
    );
  });

  test('validUtf8 agrees with a fatal TextDecoder', () => {
    fc.assert(
      fc.property(fileBytes, (b) => {
        let valid = true;
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(b);
        } catch {
          valid = false;
        }
        expect(fileText(b).validUtf8).toBe(valid);
      }),
      params(3000),
    );
  });

  test('lines and their ends rebuild the text exactly', () => {
    fc.assert(
      fc.property(fileBytes, (b) => {
        const ft = fileText(b);
        let rebuilt = ft.bom ? '\uFEFF' : '';
        ft.lines.forEach((line, i) => {
          const after = ft.starts[i] + line.length;
          const next = i + 1 < ft.lines.length ? ft.starts[i + 1] : ft.text.length;
          rebuilt += line + ft.text.slice(after, next);
          // What lies between a line and the next is only its line end.
          expect(['', '\n', '\r\n']).toContain(ft.text.slice(after, next));
        });
        expect(rebuilt).toBe(ft.text);
        expect(ft.crlf + ft.lf).toBe((ft.text.match(/\n/g) ?? []).length);
      }),
      params(3000),
    );
  });
});

describe('safeCut and jsonLength properties', () => {
  const text = fc.string({ unit: fc.constantFrom('a', '\ud83d\ude00', '\ud800', '\udc00', '"', '\\', '\n', '\u0001', '\u2028', '\u2029', 'é'), maxLength: 300 });

  test('safeCut never splits a surrogate pair and is the largest such cut', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: -2, max: 700 }), (s, max) => {
        const cut = safeCut(s, max);
        expect(cut).toBeLessThanOrEqual(Math.max(0, Math.min(max, s.length)));
        const hi = s.charCodeAt(cut - 1);
        const lo = s.charCodeAt(cut);
        expect(hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff).toBe(false);
        expect(cut).toBeGreaterThanOrEqual(Math.min(max, s.length) - 1);
      }),
      params(5000),
    );
  });

  test('jsonLength equals JSON.stringify(v).length on generated strings', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), (s) => {
        expect(jsonLength(s)).toBe(JSON.stringify(s).length);
      }),
      params(5000),
    );
  });

  test('jsonLength equals JSON.stringify(v).length on long generated strings (the byte-counting path)', () => {
    // Well-formed (no lone surrogate), so the byte-counting path measures them; a lone
    // surrogate sends a string to JSON.stringify, which the other properties cover.
    const long = fc.string({ unit: fc.constantFrom('a', 'b', '\ud83d\ude00', '"', '\\', '\n', '\u0001', '\u2028', 'é', '\u007f'), minLength: 256, maxLength: 3000 });
    fc.assert(
      fc.property(long, (s) => {
        expect(jsonLength(s)).toBe(JSON.stringify(s).length);
      }),
      params(1000),
    );
  });

  test('jsonLength equals JSON.stringify(v).length on generated JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.anything(), (v, w) => {
        expect(jsonLength(v)).toBe(JSON.stringify(v).length);
        const out = JSON.stringify(w);
        expect(jsonLength(w)).toBe(out === undefined ? 0 : out.length);
      }),
      params(3000),
    );
  });
});
