import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { literalPrefilter } from '../src/literal-prefilter.ts';
import { scanPattern } from '../src/pattern-syntax.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });
const enc = new TextEncoder();

const prefilter = (pattern: string, caseInsensitive = false) => literalPrefilter(scanPattern(pattern).topLevel, caseInsensitive);
/** The run as text: characters as themselves, sets as `\d` and `\w`. */
const runOf = (pattern: string) =>
  prefilter(pattern)
    ?.run.map((e) => (e === 'digit' ? '\\d' : e === 'word' ? '\\w' : String.fromCharCode(e)))
    .join('');

describe('the text every match contains', () => {
  const cases = [
    ['foo\\d+$', 'foo\\d'],
    ['foo\\d*$', 'foo'],
    ['id_\\w{2}x', 'id_\\w'],
    ['\\d\\d', undefined],
    ['\\D\\s\\W', undefined],
    ['a\\sb', 'a'],
    ['renderFooter', 'renderFooter'],
    ['ab*c', 'a'],
    ['ab+c', 'ab'],
    ['x{2}yz', 'yz'],
    ['(foo)barbaz?', 'barba'],
    ['\\.git\\/', '.git/'],
    ['[ab]cd', 'cd'],
    ['a|b', undefined],
    ['(?:a|b)', undefined],
    ['\u00e9t\u00e9', 't'],
    ['^$', undefined],
    ['x*', undefined],
    ['a{', 'a{'],
  ] as const;
  for (const [pattern, literal] of cases) {
    test(`\`${pattern}\`: ${literal === undefined ? 'none' : `"${literal}"`}`, () => {
      expect(runOf(pattern)).toBe(literal);
    });
  }
});

describe('mayMatch', () => {
  test('is true exactly when the bytes hold the run (ASCII letters in either case where asked), so every match gets through', () => {
    const text = fc.array(fc.constantFrom('ab', 'AB', 'aB', 'b', 'a', 'x', '\u00e9', '\u212a', 'k', 'K', '\n', '\r', '1', '_', '\u0661'), { maxLength: 40 }).map((xs) => xs.join(''));
    const pattern = fc.constantFrom('ab', 'abk', 'bx', 'ka', 'xAB', 'b\\r', 'a\\nb', 'a\\d', 'k\\w+b', 'x\\d*a', 'ab\\d', '\\wab', 'x\\dab1', 'ab\\wkab_');
    fc.assert(
      fc.property(text, pattern, fc.boolean(), (t, p, ci) => {
        const f = prefilter(p, ci)!;
        // The run read as a pattern of its own: where it is found, the bytes hold it.
        const holds = new RegExp(runOf(p)!, ci ? 'i' : '').test(t);
        // Small texts never use up the filter's budget, so its answer is exact here.
        expect(f.mayMatch(enc.encode(t))).toBe(holds);
        if (new RegExp(p, ci ? 'i' : '').test(t)) expect(holds).toBe(true);
      }),
      params(5000),
    );
  });

  test('turns away bytes without the run, in either case where asked', () => {
    expect(prefilter('needle')!.mayMatch(enc.encode('hay\nneedl e\n'))).toBe(false);
    expect(prefilter('needle')!.mayMatch(enc.encode('NEEDLE'))).toBe(false);
    expect(prefilter('needle', true)!.mayMatch(enc.encode('NEEDLE'))).toBe(true);
    expect(prefilter('needle', true)!.mayMatch(enc.encode('NEEDL'))).toBe(false);
  });

  test('the run is found at the very start and the very end of the bytes', () => {
    expect(prefilter('zq')!.mayMatch(enc.encode('zq...'))).toBe(true);
    expect(prefilter('zq')!.mayMatch(enc.encode('...zq'))).toBe(true);
    expect(prefilter('zq')!.mayMatch(enc.encode('...z'))).toBe(false);
  });

  test('lets a file through rather than spend more than decoding it would cost', () => {
    // Thousands of near misses of a run looked up by its rarest byte (either case: no
    // one string to look for): the filter gives up and says the file may match.
    expect(prefilter('zq', true)!.mayMatch(enc.encode('z.'.repeat(10_000)))).toBe(true);
    // A stretch looked up whole (`foo` of `foo\d`) counts its near misses too.
    expect(prefilter('foo\\d')!.mayMatch(enc.encode('foo.'.repeat(10_000)))).toBe(true);
    expect(prefilter('foo\\d')!.mayMatchLine(enc.encode('foo.'.repeat(10_000)))).toBe(true);
    expect(prefilter('foo\\d')!.mayMatch(enc.encode('foo.'.repeat(50)))).toBe(false);
  });

  test('a run with a class in it looks up its longest stretch of plain characters whole: near misses of its rarest byte cost nothing', () => {
    // `f` thousands of times, `foo` never: looked up by its rarest byte, the filter gave up and let the file through.
    expect(prefilter('foo\\d')!.mayMatch(enc.encode('fo.'.repeat(10_000)))).toBe(false);
    expect(prefilter('foo\\d')!.mayMatch(enc.encode(`${'fo.'.repeat(10_000)}foo7`))).toBe(true);
    expect(prefilter('foo\\d')!.mayMatchLine(enc.encode('fo.\n'.repeat(10_000)))).toBe(false);
    // The stretch need not start the run: the places before it are checked around each place found.
    expect(prefilter('\\d\\dfoo')!.mayMatch(enc.encode('x1foo 12fo 1 foo'))).toBe(false);
    expect(prefilter('\\d\\dfoo')!.mayMatch(enc.encode('x1foo 12fo 12foo'))).toBe(true);
    expect(prefilter('\\d\\dfoo')!.mayMatch(enc.encode('12foo'))).toBe(true);
    // A later run starts after the one before it ends, its stretch too: `1ab` shares the `1` of `Err1`.
    expect(prefilter('Err1.*\\dab')!.mayMatchLine(enc.encode('Err1ab\n'))).toBe(false);
    expect(prefilter('Err1.*\\dab')!.mayMatchLine(enc.encode('Err1ab\nErr1 2ab\n'))).toBe(true);
  });

  test('a run of one byte an element is looked up whole, so near misses cost nothing and it turns the file away', () => {
    expect(prefilter('zq')!.mayMatch(enc.encode('z.'.repeat(10_000)))).toBe(false);
    expect(prefilter('zq')!.mayMatch(enc.encode(`${'z.'.repeat(10_000)}zq`))).toBe(true);
    expect(prefilter('z\\dq')!.mayMatch(enc.encode('z.'.repeat(10_000)))).toBe(true);
  });
});

describe('mayMatchLine', () => {
  /** The runs as one pattern: each run's text, anything between them, all on one line. */
  const linePattern = (pattern: string) =>
    prefilter(pattern)!
      .runs.map((r) => r.map((e) => (e === 'digit' ? '\\d' : e === 'word' ? '\\w' : String.fromCharCode(e).replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'))).join(''))
      .join('[^\\n]*');

  test('is true exactly when one line holds every run in order, so every matching line gets through', () => {
    const text = fc
      .array(fc.constantFrom('ab', 'AB', 'fun', 'Err', 'Error', 'function', 'x', 'E', '\u00e9', '\u212a', 'k', '\n', '\r', '\r\n', '1', '_', ' ', '\uFFFD'), { maxLength: 40 })
      .map((xs) => xs.join(''));
    const pattern = fc.constantFrom('function\\s+\\w+Error', 'ab.*x', 'x\\s*ab', 'E\\d+k', 'ab', 'a\\nb', 'k\\w+b\\s?_', 'fun.Err', 'Err(?=o)or', '\\bab\\b\\s1', 'fun\\w+Error', 'Err\\d', 'x\\dab\\s+Err1', 'Err.*\\dab', 'Err1.*\\dab', 'ab\\s\\w1ab');
    const bytesOf = fc.oneof(
      text.map((t) => enc.encode(t)),
      // Invalid UTF-8 between ASCII: the decoder keeps every ASCII byte, in order.
      fc.array(fc.constantFrom(0x61, 0x62, 0x45, 0x72, 0x6f, 0x0a, 0x20, 0xe2, 0x80, 0xff, 0xc3), { maxLength: 40 }).map((xs) => Uint8Array.from(xs)),
    );
    fc.assert(
      fc.property(bytesOf, pattern, fc.boolean(), (bytes, p, ci) => {
        const f = prefilter(p, ci)!;
        const lines = new TextDecoder().decode(bytes).split('\n');
        const reference = new RegExp(linePattern(p), ci ? 'i' : '');
        // Small texts never use up the filter's budget, so its answer is exact here.
        expect(f.mayMatchLine(bytes)).toBe(lines.some((l) => reference.test(l)));
        // Every line the pattern matches holds the runs: the filter never turns one away.
        if (lines.some((l) => new RegExp(p, ci ? 'i' : '').test(l))) expect(f.mayMatchLine(bytes)).toBe(true);
      }),
      params(5000),
    );
  });

  test('turns away files whose lines each lack one of the runs', () => {
    const f = prefilter('function\\s+\\w+Error')!;
    expect(f.mayMatchLine(enc.encode('function a() {}\nthrow new Error()\n'))).toBe(false);
    expect(f.mayMatchLine(enc.encode('Error function x\n'))).toBe(false);
    expect(f.mayMatchLine(enc.encode('x\r\nfunction fooError() {}\r\n'))).toBe(true);
    expect(f.mayMatch(enc.encode('function a() {}\nthrow new Error()\n'))).toBe(true);
  });

  test('lets a file through rather than spend more than decoding it would cost', () => {
    expect(prefilter('ab\\s+zq', true)!.mayMatchLine(enc.encode('z.'.repeat(10_000)))).toBe(true);
    // Lines read in vain count too, wherever the runs are looked up.
    expect(prefilter('ab\\s+zq')!.mayMatchLine(enc.encode('zq\n'.repeat(10_000)))).toBe(true);
    expect(prefilter('ab\\s+zq')!.mayMatchLine(enc.encode('z.'.repeat(10_000)))).toBe(false);
  });

  test('one prefilter asked of many files in turn answers each as a new one does (what a lookup found in one file is not taken for the next)', () => {
    const text = fc
      .array(fc.constantFrom('ab', 'fun', 'Err', 'Error', 'function', 'x', 'E', '\n', ' ', '1', '_'), { maxLength: 30 })
      .map((xs) => enc.encode(xs.join('')));
    const pattern = fc.constantFrom('function\\s+\\w+Error', 'ab.*x', 'x\\s*ab', 'fun\\w+Error', 'Err\\d', 'E\\d+k', 'ab');
    fc.assert(
      fc.property(fc.array(text, { minLength: 2, maxLength: 8 }), pattern, fc.boolean(), (files, p, ci) => {
        const kept = prefilter(p, ci)!;
        for (const bytes of files) expect(kept.mayMatchLine(bytes)).toBe(prefilter(p, ci)!.mayMatchLine(bytes));
      }),
      params(2000),
    );
  });

  test('a line test made inside another one\'s visit sees its own file, and leaves the other seeing its own', () => {
    const lines = (f: NonNullable<ReturnType<typeof prefilter>>, bytes: Uint8Array, inner?: () => void) => {
      const found: [number, number][] = [];
      f.linesHolding(bytes, (start, end) => {
        found.push([start, end]);
        inner?.();
        return false;
      });
      return found;
    };
    const outer = enc.encode('function aError\nx\nfunction bError z\nError function\nfunction c d Error\n');
    const other = enc.encode('Error\nfunction\n  function q_Error\n');
    const f = prefilter('function\\s+\\w+Error')!;
    const alone = lines(prefilter('function\\s+\\w+Error')!, outer);
    const otherAlone = lines(prefilter('function\\s+\\w+Error')!, other);
    expect(alone.length).toBe(3);
    const inside: [number, number][][] = [];
    expect(lines(f, outer, () => inside.push(lines(f, other)))).toEqual(alone);
    expect(inside).toEqual(alone.map(() => otherAlone));
  });

  test('a run holding a line feed is on no line, also where it is the only run', () => {
    expect(prefilter('a\\nb')!.mayMatchLine(enc.encode('xa\nbx\n'))).toBe(false);
    expect(prefilter('a\\nb')!.mayMatch(enc.encode('xa\nbx\n'))).toBe(true);
    expect(prefilter('a\\nb', true)!.mayMatchLine(enc.encode('xA\nBx\n'))).toBe(false);
  });
});

describe('exact', () => {
  test('only a pattern that is its run: ASCII characters and \\d or \\w, no line end', () => {
    for (const p of ['return', 'createReconciler', 'a\\db', 'id_\\w', '\\.git\\/', 'a{', 'x\\ty', '\\x41b']) expect(prefilter(p)!.exact).toBe(true);
    for (const p of ['^return', 'return$', 'ab+c', 'a\\sb', '\\breturn', 'foo\\d+', 'a\\nb', 'x\\ry', '(foo)bar', 'r.turn', 'caf\u00e9x', 'a(?=b)', 'a{2}b']) expect(prefilter(p)?.exact ?? false).toBe(false);
  });

  test('a line holds the run exactly when the pattern matches it, in either case where asked', () => {
    const line = fc.array(fc.constantFrom('re', 'RE', 'turn', 'Return', 'return', 'k', 'K', '\u212a', '\u017f', 's', 'S', '1', '_', ' ', '\uFFFD', '\u00e9', '\r', '\t', 'a{', 'id_'), { maxLength: 12 }).map((xs) => xs.join(''));
    const pattern = fc.constantFrom('return', 'Return', 'k', 'ks', 're\\d', 'e\\w', 'turn\\w\\d', '_\\w', 'a{', 'id_\\w', '\\ts');
    let matched = 0;
    fc.assert(
      fc.property(line, pattern, fc.boolean(), (l, p, ci) => {
        const f = prefilter(p, ci)!;
        expect(f.exact).toBe(true);
        const matches = new RegExp(p, ci ? 'i' : '').test(l);
        if (matches) matched++;
        expect(f.mayMatchLine(enc.encode(l))).toBe(matches);
      }),
      params(5000),
    );
    expect(matched).toBeGreaterThan(500);
  });
});
