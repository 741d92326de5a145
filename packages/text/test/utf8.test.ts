import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { fileText, utf8Layout } from '../src/index.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { ignoreBOM: true });

/** Random bytes biased towards UTF-8's edges: lead bytes, continuations, the ranges E0, ED, F0, F4 narrow. */
const edgeByte = fc.constantFrom(0x00, 0x0a, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff);
const pieces = fc.oneof(
  fc.array(edgeByte, { maxLength: 4 }),
  fc.string({ maxLength: 6 }).map((s) => Array.from(enc.encode(s))),
  fc.constantFrom([0xef, 0xbb, 0xbf], [0xef, 0xbf, 0xbd], [0xf0, 0x9f, 0x98, 0x80]),
);
const bytes = fc.array(pieces, { maxLength: 30 }).map((p) => new Uint8Array(p.flat()));

/** Every index of `text` that begins a code point, and the text's end. */
function boundaries(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!(c >= 0xdc00 && c <= 0xdfff && i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff)) out.push(i);
  }
  out.push(text.length);
  return out;
}

describe('utf8Layout decodes as TextDecoder does', () => {
  test('each character’s bytes, cut out alone, decode to that character; the invalid ones are U+FFFD', () => {
    fc.assert(
      fc.property(bytes, (b) => {
        const text = dec.decode(b);
        const at = boundaries(text);
        const { offsets, invalid } = utf8Layout(b, at);
        expect(offsets[0]).toBe(0);
        expect(offsets[at.length - 1]).toBe(b.length);
        for (let k = 0; k + 1 < at.length; k++) {
          expect(dec.decode(b.subarray(offsets[k], offsets[k + 1]))).toBe(text.slice(at[k], at[k + 1]));
        }
        for (const s of invalid) {
          expect(text[s.at]).toBe('\uFFFD');
          expect(offsets[at.indexOf(s.at)]).toBe(s.byte);
        }
        // A U+FFFD not listed as invalid is the character itself, stored as EF BF BD.
        const listed = new Set(invalid.map((s) => s.at));
        for (let i = 0; i < text.length; i++) {
          if (text[i] === '\uFFFD' && !listed.has(i)) expect(Array.from(b.subarray(offsets[at.indexOf(i)], offsets[at.indexOf(i)] + 3))).toEqual([0xef, 0xbf, 0xbd]);
        }
        expect(invalid.length === 0).toBe(fileText(b).validUtf8);
        expect(fileText(b).invalidAt).toEqual(invalid.map((s) => s.at));
      }),
      params(2000),
    );
  });

  test('a table of broken sequences: each is one U+FFFD or several, as the Encoding Standard says', () => {
    const cases: [number[], { byte: number; length: number }[]][] = [
      [[0x80], [{ byte: 0, length: 1 }]],
      [[0xe2, 0x82], [{ byte: 0, length: 2 }]],
      [[0xe2, 0x82, 0x41], [{ byte: 0, length: 2 }]],
      [[0xed, 0xa0, 0x80], [{ byte: 0, length: 1 }, { byte: 1, length: 1 }, { byte: 2, length: 1 }]],
      [[0xf0, 0x9f, 0x98], [{ byte: 0, length: 3 }]],
      [[0xf4, 0x90, 0x80, 0x80], [{ byte: 0, length: 1 }, { byte: 1, length: 1 }, { byte: 2, length: 1 }, { byte: 3, length: 1 }]],
      [[0xc0, 0xaf], [{ byte: 0, length: 1 }, { byte: 1, length: 1 }]],
      [[0xef, 0xbb, 0xbf, 0xff], [{ byte: 3, length: 1 }]],
    ];
    for (const [b, want] of cases) expect(utf8Layout(new Uint8Array(b)).invalid.map(({ byte, length }) => ({ byte, length }))).toEqual(want);
  });
});
