/**
 * `holdsNoMatch` lets a host offer a file as `noMatch` — searched, unread — so it must
 * never say so of a file with a match, of a binary-looking file, or where the pattern
 * names a CR or U+FEFF (those facts need every file). A property: on generated files and
 * patterns, a search given `noMatch` where `holdsNoMatch` said so answers exactly what
 * it answers given every file's bytes. WS_SEED fixes the run.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { type GrepFile, holdsNoMatch, search } from '../src/index.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });
const enc = new TextEncoder();
const plain = { caseInsensitive: false, fixedStrings: false, multiline: false };

const piece = fc.constantFrom('\n', '\r\n', '\r', '\uFEFF', '\u2028', 'a', 'b', 'ab', 'foo', 'foo12', ' ', '\t', 'x\r', 'é', 'K', '\u212a', '_', '.', 'Error', 'function ');
const fileBytes = fc
  .tuple(fc.boolean(), fc.array(fc.oneof({ weight: 30, arbitrary: piece.map((s) => Array.from(enc.encode(s))) }, { weight: 1, arbitrary: fc.constantFrom([0], [0x80], [0xc3, 0x41]) }), { maxLength: 40 }))
  .map(([bom, parts]) => new Uint8Array([...(bom ? [0xef, 0xbb, 0xbf] : []), ...parts.flat()]));
const patternPiece = fc.constantFrom(
  '^', '$', '\\r', '\\s', '\\s+', '\\w+', '[^a]', '.', '\\b', 'a', 'b', 'ab', 'foo', 'foo\\d+', 'k', 'é', '(?=a)', '(?<!a)', '(', ')', '*', '+', '?', '|',
  '\\uFEFF', '\\u2028', '[\\s\\S]', '(a|b)+', '\\n', 'Error', 'function',
);
const pattern = fc.array(patternPiece, { minLength: 1, maxLength: 5 }).map((xs) => xs.join(''));
const options = fc.record({ caseInsensitive: fc.boolean(), fixedStrings: fc.boolean(), multiline: fc.boolean() });

function accepted(p: string, fixed: boolean): boolean {
  if (fixed) return true;
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
}

describe('holdsNoMatch', () => {
  test('a search given noMatch where it said so answers as one given every file', async () => {
    let said = 0;
    let notSaid = 0;
    await fc.assert(
      fc.asyncProperty(pattern, fc.array(fileBytes, { minLength: 1, maxLength: 4 }), options, async (p, bs, opts) => {
        if (!accepted(p, opts.fixedStrings)) return;
        const read: GrepFile[] = bs.map((bytes, k) => ({ path: `f${k}`, bytes }));
        const ahead: GrepFile[] = bs.map((bytes, k) => {
          if (!holdsNoMatch(p, opts, bytes, 10_000)) {
            notSaid++;
            return { path: `f${k}`, bytes };
          }
          said++;
          return { path: `f${k}`, noMatch: true, size: bytes.length };
        });
        const [a, b] = [await search(p, read, opts), await search(p, ahead, opts)];
        expect(b).toEqual(a);
      }),
      params(3000),
    );
    // Both answers must be common, or agreement proves little.
    expect(said).toBeGreaterThan(500);
    expect(notSaid).toBeGreaterThan(500);
  }, 120_000);

  test('never for a binary-looking file, a pattern naming a CR or a BOM, a match, or a scan out of time', () => {
    expect(holdsNoMatch('zzz', plain, new Uint8Array([0x61, 0, 0x62]), 10_000)).toBe(false);
    expect(holdsNoMatch('zzz', plain, enc.encode('abc\n'), 10_000)).toBe(true);
    expect(holdsNoMatch('zzz\\r', plain, enc.encode('abc\r\n'), 10_000)).toBe(false);
    expect(holdsNoMatch('\\uFEFFzzz', plain, enc.encode('abc\n'), 10_000)).toBe(false);
    expect(holdsNoMatch('b', plain, enc.encode('abc\n'), 10_000)).toBe(false);
    // Tested line by line (a lookaround, no literal to skip by) on a clock past its limit at once: stopped, so nothing is certain.
    let t = 0;
    expect(holdsNoMatch('(?<=a)\\d', plain, enc.encode('aaa\n'.repeat(200)), 5, () => (t += 10))).toBe(false);
    expect(holdsNoMatch('(?<=a)\\d', plain, enc.encode('aaa\n'.repeat(200)), 10_000)).toBe(true);
  });
});
