import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { indexTerms } from '../src/search.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });
const plain = { caseInsensitive: false, fixedStrings: false, multiline: false };

describe('the terms an index may look up', () => {
  const cases: [string, Partial<typeof plain>, string[] | undefined][] = [
    ['createReconciler', {}, ['createReconciler']],
    ['function\\s+\\w+Error', {}, ['function', 'Error']],
    ['foo\\d+bar', {}, ['foo', 'bar']],
    ['ab', {}, undefined],
    ['a|bcdef', {}, undefined],
    ['(?:abc|abd)x', {}, undefined],
    ['abcd?', {}, ['abc']],
    ['a.b(c', { fixedStrings: true }, ['a.b(c']],
    ['Return', { caseInsensitive: true }, ['Return']],
    ['start[^\\n]*\\n[^\\n]*end', { multiline: true }, ['start', 'end']],
    ['foo\\r$', {}, undefined],
    ['\\uFEFFfoo', {}, undefined],
    ['ünïcode', {}, ['code']],
    ['(unclosed', {}, undefined],
  ];
  for (const [pattern, options, terms] of cases) {
    test(`\`${pattern}\` ${JSON.stringify(options)}: ${terms === undefined ? 'none' : terms.join(', ')}`, () => {
      expect(indexTerms(pattern, { ...plain, ...options })).toEqual(terms);
    });
  }

  test('a line a pattern matches holds every term (folded where the search is case-insensitive)', () => {
    const piece = fc.constantFrom('abc', 'Foo', 'x', '\\d', '\\w+', '\\s*', '.', '[a-z]', '(ab|cd)', '?', '+', 'ret', 'urn', 'é', '\\.');
    const line = fc.stringMatching(/^[a-zA-Z0-9 ._é]{0,40}$/);
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), fc.array(line, { maxLength: 20 }), fc.boolean(), (pieces, lines, caseInsensitive) => {
        const pattern = pieces.join('');
        let re: RegExp;
        try {
          re = new RegExp(pattern, caseInsensitive ? 'i' : '');
        } catch {
          return;
        }
        const terms = indexTerms(pattern, { ...plain, caseInsensitive });
        if (terms === undefined) return;
        // Lines built to match too: the pattern's own literal text.
        for (const l of [...lines, pattern.replace(/\\./g, '.')]) {
          if (!re.test(l)) continue;
          const folded = caseInsensitive ? l.toLowerCase() : l;
          for (const t of terms) expect(folded.includes(caseInsensitive ? t.toLowerCase() : t)).toBe(true);
        }
      }),
      params(400),
    );
  });
});
