/**
 * `scanBytes` answers, from a file's bytes, what `scanText` answers for its decoded text,
 * decoding only the lines that hold every run the pattern requires: a property on
 * generated files and patterns (invalid UTF-8, BOMs, CRs, CRLF ends), and a check that
 * `scanAhead`, which uses it, never decodes a file's text whole where it applies.
 * WS_SEED fixes the run.
 */
import { describe, expect, test } from 'bun:test';
import { hasBom } from '@ws/text';
import fc from 'fast-check';
import { scanAhead } from '../src/index.ts';
import { scanBytes } from '../src/line-scan.ts';
import { compileMatcher } from '../src/matcher.ts';
import { scanText } from '../src/scan.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });
const enc = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const plain = { caseInsensitive: false, fixedStrings: false, multiline: false };

const piece = fc.constantFrom('\n', '\r\n', '\r', '\r\r\n', '\uFEFF', '\u2028', 'a', 'ab', 'foo', 'foo12', ' ', 'x\r', 'é', 'K', '\u212a', 'Error', 'function ', 'return');
const fileBytes = fc
  .tuple(fc.boolean(), fc.array(fc.oneof({ weight: 20, arbitrary: piece.map((s) => Array.from(enc.encode(s))) }, { weight: 1, arbitrary: fc.constantFrom([0xc3], [0x80], [0xe2, 0x82]) }), { maxLength: 40 }))
  .map(([bom, parts]) => new Uint8Array([...(bom ? [0xef, 0xbb, 0xbf] : []), ...parts.flat()]));
const patternPiece = fc.constantFrom('^', '$', '\\s+', '\\w+', '.', '\\b', 'a', 'ab', 'foo', 'foo\\d+', 'k', 'é', '(?<!a)', '(?=b)', 'Error', 'function', 'return', '\\r?$', 'x\\r');
const pattern = fc.array(patternPiece, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(''));

describe('scanBytes', () => {
  test('finds the lines scanText finds in the decoded text, where it can say', () => {
    let said = 0;
    let hits = 0;
    fc.assert(
      fc.property(pattern, fileBytes, fc.boolean(), (p, bytes, caseInsensitive) => {
        let matcher: ReturnType<typeof compileMatcher>;
        try {
          matcher = compileMatcher(p, { ...plain, caseInsensitive });
        } catch {
          return;
        }
        const got = scanBytes(matcher, bytes, Infinity, () => 0);
        if (got === undefined) return;
        said++;
        const want = scanText(decoder.decode(bytes), hasBom(bytes), matcher, false, { deadline: Infinity, now: () => 0 });
        if (want.hits.length > 0) hits++;
        expect({ ...got, hits: [...got.hits], gaveUp: [...got.gaveUp] }).toEqual({ ...want, hits: [...want.hits], gaveUp: [...want.gaveUp] });
      }),
      params(5000),
    );
    // Most generated cases must be answered, and many with matches, or agreement proves little.
    expect(said).toBeGreaterThan(1500);
    expect(hits).toBeGreaterThan(100);
  });

  test('says nothing where the pattern has no required run, is multiline, or the deadline passed', () => {
    const bytes = enc.encode('foo\nbar foo\n');
    expect(scanBytes(compileMatcher('.', plain), bytes, Infinity, () => 0)).toBeUndefined();
    expect(scanBytes(compileMatcher('foo', { ...plain, multiline: true }), bytes, Infinity, () => 0)).toBeUndefined();
    let t = 0;
    expect(scanBytes(compileMatcher('foo', plain), bytes, 5, () => (t += 10))).toBeUndefined();
    expect(scanBytes(compileMatcher('foo', plain), bytes, Infinity, () => 0)?.hits).toEqual(new Uint32Array([1, 2]));
  });
});

describe('scanAhead from the bytes', () => {
  test('a file with many matches is decoded a line at a time, never whole', () => {
    // Few lines without a match hold the runs (the prefilter reads such a file whole past a budget of false starts).
    const text = `${'  return x;\n  const y = 1\n'.repeat(500)}\uFEFFend é\r\n`;
    const bytes = enc.encode(text);
    const decode = TextDecoder.prototype.decode;
    let longest = 0;
    TextDecoder.prototype.decode = function (this: TextDecoder, input?: AllowSharedBufferSource, options?: TextDecodeOptions) {
      longest = Math.max(longest, input === undefined ? 0 : input.byteLength);
      return decode.call(this, input, options);
    };
    try {
      for (const p of ['return', 'return\\s+\\w+;', 'end é$']) {
        const ahead = scanAhead(p, plain, bytes, 10_000);
        expect(ahead.kind).toBe('scanned');
      }
    } finally {
      TextDecoder.prototype.decode = decode;
    }
    expect(longest).toBeGreaterThan(0);
    expect(longest).toBeLessThan(20);
  });
});

describe('compileMatcher', () => {
  test('the same pattern asked for again with the same options is the matcher made for them; other options, one of their own', () => {
    const plain = { caseInsensitive: false, fixedStrings: false, multiline: false };
    const made = compileMatcher('a.b', plain);
    expect(compileMatcher('a.b', { ...plain })).toBe(made);
    // Asked in turn, each set of options gets its own matcher, whatever was asked just before.
    for (const options of [{ ...plain, caseInsensitive: true }, plain, { ...plain, fixedStrings: true }, { ...plain, multiline: true }, plain]) {
      const m = compileMatcher('a.b', options);
      expect(m.options).toEqual(options);
      expect(m.line.test('A-B')).toBe(options.caseInsensitive && !options.fixedStrings);
      expect(m.line.test('a.b')).toBe(true);
      expect(m.line.test('a-b')).toBe(!options.fixedStrings);
    }
    expect(compileMatcher('a.c', plain).pattern).toBe('a.c');
  });
});
