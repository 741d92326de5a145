/**
 * `ByteLines` shows, from a file's bytes, the lines `LineIndex` shows of its decoded text
 * (invalid UTF-8, BOMs, CRs, CRLF and CR CR LF ends, a missing last line end); and a
 * file shown from its bytes by `searchFiles` is decoded line by line, not whole.
 * WS_SEED fixes the run.
 */
import { describe, expect, test } from 'bun:test';
import { hasBom } from '@ws/text';
import fc from 'fast-check';
import { scanAhead, searchFiles } from '../src/index.ts';
import { ByteLines, LineIndex } from '../src/line-index.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });
const enc = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

const piece = fc.constantFrom('\n', '\r\n', '\r', '\r\r\n', '\uFEFF', '\u2028', 'a', 'foo', ' ', 'x\r', 'é', '😀', '\u212a');
const fileBytes = fc
  .tuple(fc.boolean(), fc.array(fc.oneof({ weight: 12, arbitrary: piece.map((s) => Array.from(enc.encode(s))) }, { weight: 1, arbitrary: fc.constantFrom([0xc3], [0x80], [0xe2, 0x82], [0xf0, 0x9f], [0xff]) }), { maxLength: 40 }))
  .map(([bom, parts]) => new Uint8Array([...(bom ? [0xef, 0xbb, 0xbf] : []), ...parts.flat()]));

describe('ByteLines', () => {
  test('shows every line LineIndex shows of the decoded text, and as many', () => {
    let lines = 0;
    fc.assert(
      fc.property(fileBytes, fc.boolean(), (bytes, countFirst) => {
        const bom = hasBom(bytes);
        const index = new LineIndex(decoder.decode(bytes), bom);
        const fromBytes = new ByteLines(bytes, bom);
        // Asked in either order: the count first (every start found), or the lines first (found as asked).
        if (countFirst) expect(fromBytes.count).toBe(index.count);
        for (let n = 1; n <= index.count; n++) expect(fromBytes.line(n)).toBe(index.line(n));
        expect(fromBytes.count).toBe(index.count);
        lines += index.count;
      }),
      params(3000),
    );
    expect(lines).toBeGreaterThan(3000);
  });

  test('a line asked out of order, then the ones before it', () => {
    const bytes = enc.encode('one\r\ntwo\r\r\nthree\rx\nfour');
    const fromBytes = new ByteLines(bytes, false);
    expect(fromBytes.line(4)).toBe('four');
    expect([1, 2, 3].map((n) => fromBytes.line(n))).toEqual(['one', 'two\r\r', 'three\rx']);
    expect(fromBytes.count).toBe(4);
    expect(fromBytes.line(5)).toBe('');
  });
});

describe('a file scanned from its bytes, shown', () => {
  test('decodes the lines it shows, not the whole file', async () => {
    // A large file with one match near its top: shown from the bytes the scan ahead was made of.
    const text = `const a = 1;\nfunction makeError() {}\n${'filler line of text\n'.repeat(200_000)}`;
    const bytes = enc.encode(text);
    const ahead = scanAhead('function\\s+\\w+Error', { caseInsensitive: false, fixedStrings: false, multiline: false }, bytes, 10_000);
    if (ahead.kind !== 'scanned') throw new Error(`expected a scan ahead, got ${ahead.kind}`);
    const decoded: number[] = [];
    const real = TextDecoder.prototype.decode;
    TextDecoder.prototype.decode = function (this: TextDecoder, input?: AllowSharedBufferSource, options?: TextDecodeOptions) {
      decoded.push(input === undefined ? 0 : input.byteLength);
      return real.call(this, input, options);
    };
    const shown: string[] = [];
    try {
      await searchFiles('function\\s+\\w+Error', [{ path: 'big.js', bytes }], { runner: async () => ahead.result }, {
        found(file) {
          for (let k = 0; k < file.results; k++) {
            const { line } = file.result(k);
            const { from, to } = file.shown(k);
            for (let n = from; n <= to; n++) shown.push(`${n}:${file.line(n)}@${n === line ? file.firstMatch(n) : -1}`);
          }
        },
      });
    } finally {
      TextDecoder.prototype.decode = real;
    }
    expect(shown).toEqual(['2:function makeError() {}@0']);
    expect(Math.max(0, ...decoded)).toBeLessThan(100);
  });
});
