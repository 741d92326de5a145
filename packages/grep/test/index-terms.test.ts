import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { type IndexTerm, indexTerms } from '../src/search.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });
const plain = { caseInsensitive: false, fixedStrings: false, multiline: false };
const D = '0123456789';
const W = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz${D}_`;

/** The term stands somewhere in `line`, place by place (folded: in either case). */
function holds(line: string, term: IndexTerm, folded: boolean): boolean {
  const fold = (s: string) => (folded ? s.toLowerCase() : s);
  const places = (typeof term === 'string' ? [...term] : term).map(fold);
  const l = fold(line);
  for (let i = 0; i + places.length <= l.length; i++) if (places.every((p, k) => p.includes(l[i + k]))) return true;
  return false;
}

describe('the terms an index may look up', () => {
  const cases: [string, Partial<typeof plain>, IndexTerm[] | undefined][] = [
    ['createReconciler', {}, ['createReconciler']],
    // The last of a repeated word character is next to `Error`: a place of 63 characters.
    ['function\\s+\\w+Error', {}, ['function', [W, 'E', 'r', 'r', 'o', 'r']]],
    ['function\\s+\\w+Error', { caseInsensitive: true }, ['function', 'Error']],
    ['foo\\d+bar', {}, [['f', 'o', 'o', D], [D, 'b', 'a', 'r']]],
    ['foo\\d+bar', { caseInsensitive: true }, ['foo', 'bar']],
    ['a+bcd', {}, ['abcd']],
    ['abc\\w?def', {}, ['abc', 'def']],
    ['x\\d{2}px', {}, [[D, 'p', 'x']]],
    ['\\w+\\w+ab', {}, [[W, 'a', 'b']]],
    ['\\w\\wab', {}, [[W, W, 'a', 'b']]],
    ['a\\w\\wb', {}, undefined],
    ['abc\\w\\w\\wd', {}, [['a', 'b', 'c', W, W, W, 'd']]],
    ['ab+c', {}, undefined],
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
          for (const t of terms) expect(holds(l, t, caseInsensitive)).toBe(true);
        }
      }),
      params(400),
    );
  });
  test('a line made to match a pattern holds every term, where repeats, sets and optional pieces meet', () => {
    // Each piece with a way of writing what it matches; a quantifier repeats what the piece before wrote.
    type Piece = { readonly src: string; readonly write?: (r: () => number) => string; readonly times?: readonly [number, number] };
    const pick = (s: string) => (r: () => number) => s[Math.floor(r() * s.length)];
    const pieces: Piece[] = [
      { src: 'abc', write: () => 'abc' },
      { src: 'Err', write: () => 'Err' },
      { src: 'x', write: () => 'x' },
      { src: 'o', write: () => 'o' },
      { src: '_', write: () => '_' },
      { src: '\\d', write: pick(D) },
      { src: '\\w', write: pick(W) },
      { src: '\\s', write: pick(' \t') },
      { src: '.', write: pick('a_ .9E') },
      { src: '[a-c]', write: pick('abc') },
      { src: '(?:ab|9)', write: (r) => (r() < 0.5 ? 'ab' : '9') },
      { src: '+', times: [1, 3] },
      { src: '*', times: [0, 2] },
      { src: '?', times: [0, 1] },
      { src: '{2}', times: [2, 2] },
      { src: '{1,3}', times: [1, 3] },
    ];
    fc.assert(
      fc.property(fc.array(fc.nat(pieces.length - 1), { minLength: 1, maxLength: 9 }), fc.integer(), fc.boolean(), (chosen, seed, caseInsensitive) => {
        const pattern = chosen.map((k) => pieces[k].src).join('');
        let re: RegExp;
        try {
          re = new RegExp(pattern, caseInsensitive ? 'i' : '');
        } catch {
          return;
        }
        let state = seed >>> 0;
        const r = () => {
          state = (Math.imul(state, 1103515245) + 12345) >>> 0;
          return state / 2 ** 32;
        };
        const terms = indexTerms(pattern, { ...plain, caseInsensitive });
        if (terms === undefined) return;
        for (let round = 0; round < 4; round++) {
          // Every piece written once, each quantifier repeating the piece before it.
          const written: string[] = [];
          const wrote: ((r: () => number) => string)[] = [];
          for (const k of chosen) {
            const p = pieces[k];
            if (p.times === undefined) {
              const write = p.write as (r: () => number) => string;
              wrote.push(write);
              written.push(write(r));
              continue;
            }
            const write = wrote.at(-1);
            if (write === undefined || wrote.length === 0) return;
            const n = p.times[0] + Math.floor(r() * (p.times[1] - p.times[0] + 1));
            written.pop();
            written.push(Array.from({ length: n }, () => write(r)).join(''));
            wrote.push(() => '');
          }
          const line = `${pick('q- ')(r)}${written.join('')}${pick('q- ')(r)}`;
          if (!re.test(line)) continue;
          for (const t of terms) expect(holds(line, t, caseInsensitive)).toBe(true);
        }
      }),
      params(1500),
    );
  });
});
