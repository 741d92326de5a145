/**
 * The two engines agree where both apply: on generated patterns that translate to RE2
 * and generated lines without surrogate halves, RE2's first match starts exactly where
 * JavaScript's does (so both find the same lines and show the same window). WS_SEED
 * fixes the run.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { backtracksBadly, re2Line, toRe2Syntax } from '../src/re2.ts';
import { compileMatcher } from '../src/matcher.ts';
import { search } from '../src/index.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });

const atom = fc.constantFrom(
  'a', 'b', 'A', 'k', 's', 'é', ' ', '\\.', '.', '\\d', '\\D', '\\w', '\\W', '\\s', '\\S', '\\b', '\\B', '^', '$',
  '[ab]', '[^ab]', '[a-c]', '[^\\s]', '[\\s]', '[\\d_]', '[]', '[^]', '\\x41', '\\u00e9', '\\t', '\\r', '\\u2028', '\\0', '-', '\\/',
  '\\uFEFF', '[\\u00a0]', '\\(', '\\)',
);
const quantifier = fc.constantFrom('', '', '', '*', '+', '?', '{2}', '{1,3}', '{0,}', '*?', '+?', '{2,}?');
const node: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(atom, quantifier).map(([a, q]) => a + q),
    fc.tuple(fc.array(tie('node'), { minLength: 1, maxLength: 3 }), fc.constantFrom('(', '(?:'), quantifier).map(([xs, open, q]) => `${open}${xs.join('')})${q}`),
    fc.tuple(tie('node'), tie('node')).map(([x, y]) => `(?:${x}|${y})`),
  ),
})).node;
const pattern = fc.array(node, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(''));
const line = fc
  .array(fc.constantFrom('a', 'b', 'A', 'B', 'k', 'K', '\u212a', 's', '\u017f', 'S', 'é', 'É', ' ', '\t', '\r', '\u2028', '\u00a0', '.', '_', '1', '-', '/', '(', ')', '\uFEFF', '\u000b', 'ab', 'aaa'), { maxLength: 10 })
  .map((xs) => xs.join(''));

describe('RE2 and JavaScript agree where both apply', () => {
  test('on generated patterns and lines, RE2 finds the first match where JavaScript does', () => {
    let translated = 0;
    let found = 0;
    fc.assert(
      fc.property(pattern, fc.boolean(), fc.array(line, { minLength: 1, maxLength: 8 }), (p, caseInsensitive, lines) => {
        let js: RegExp;
        try {
          js = new RegExp(p, caseInsensitive ? 'i' : '');
        } catch {
          return;
        }
        const re2 = re2Line(p, caseInsensitive);
        if (re2 === undefined) return;
        translated++;
        for (const l of lines) {
          const t0 = performance.now();
          const at = l.search(js);
          // A slow JavaScript search may have given up (JavaScriptCore stops silently): its -1 proves nothing.
          if (performance.now() - t0 > 10) continue;
          if (at !== -1) found++;
          expect([p, caseInsensitive, l, re2.firstMatch(l)]).toEqual([p, caseInsensitive, l, at]);
        }
      }),
      params(6000),
    );
    // Most generated patterns must translate, and must both match and miss, or agreement proves little.
    expect(translated).toBeGreaterThan(1500);
    expect(found).toBeGreaterThan(translated);
  }, 120_000);

  test('what is not certain to mean the same is left to JavaScript', () => {
    for (const p of ['a(?=b)', '(?<!a)b', '(a)\\1', '\\uD83D', '[\\S\\d]', '(?<n>a)\\k<n>', 'a{1001}']) {
      expect([p, toRe2Syntax(p, false)]).toEqual([p, undefined]);
    }
    for (const p of ['é', '[a-z]', '[k]']) expect([p, toRe2Syntax(p, true)]).toEqual([p, undefined]);
    expect(toRe2Syntax('k', true)).toBe('[kK]');
  });

  test('a pattern that repeats what repeats or branches runs on RE2; others on JavaScript', () => {
    for (const p of ['(a+)+c', '(a|aa)*b', '(?:x*y?)+', '(\\w+\\s?)*$']) expect([p, compileMatcher(p, { caseInsensitive: false, fixedStrings: false, multiline: false }).engine]).toEqual([p, 're2']);
    for (const p of ['return', 'a+b+', '(ab)+', 'foo\\d+$', '(a+)+(?=$)']) {
      expect([p, compileMatcher(p, { caseInsensitive: false, fixedStrings: false, multiline: false }).engine]).toEqual([p, 'js']);
    }
    expect(backtracksBadly('(ab)+')).toBe(false);
  });

  test('`(a+)+c` finds the line with `ac` after a long run of a’s, which JavaScriptCore gives up on', async () => {
    const text = `${'a'.repeat(40)}b ac\n${'a'.repeat(40)}b\n`;
    const found = await search('(a+)+c', [{ path: 'work/a.txt', bytes: new TextEncoder().encode(text) }]);
    expect(found.engine).toBe('re2');
    expect(found.totalMatches).toBe(1);
    expect(found.results[0].matches[0].line).toBe(1);
  });
});
