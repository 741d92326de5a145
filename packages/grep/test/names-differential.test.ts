/**
 * namesCr and namesBom decided a second way: by a real parser of JavaScript regular
 * expressions (@eslint-community/regexpp, a devDependency only), on at least 100,000
 * generated patterns per run that both it and the engine accept. The same run checks the
 * rest of what search takes from the shipped scanner: every character it reads, whether
 * the pattern looks around (which picks the per-line way), and the run of text every
 * match contains (which lets a file be skipped unread). WS_SEED fixes the run.
 */
import { describe, expect, test } from 'bun:test';
import { type AST, RegExpParser, visitRegExpAST } from '@eslint-community/regexpp';
import fc from 'fast-check';
import { namesBom, namesCr } from '../src/index.ts';
import { type RunElement, literalPrefilter } from '../src/literal-prefilter.ts';
import { scanPattern } from '../src/pattern-syntax.ts';

type Pattern = AST.Pattern;

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : Date.now() % 2 ** 31;
const parser = new RegExpParser({ ecmaVersion: 2025 });

interface Reading {
  readonly cr: boolean;
  readonly bom: boolean;
  /** Every Character node's value, sorted. */
  readonly characters: readonly number[];
  readonly lookaround: boolean;
  /** The run of ASCII text every match contains, as the prefilter picks it (none under a top-level `|`). */
  readonly requiredRun: readonly RunElement[];
}

/** What regexpp reads the pattern as (no `u`, no `v` flag), or undefined if it rejects it. */
function reference(pattern: string): Reading | undefined {
  let ast: Pattern;
  try {
    ast = parser.parsePattern(pattern, 0, pattern.length, { unicode: false, unicodeSets: false });
  } catch {
    return undefined;
  }
  const characters: number[] = [];
  let lookaround = false;
  visitRegExpAST(ast, {
    onCharacterEnter(node) {
      characters.push(node.value);
    },
    onAssertionEnter(node) {
      if (node.kind === 'lookahead' || node.kind === 'lookbehind') lookaround = true;
    },
  });
  // The same choice as the prefilter's, made on regexpp's tree: characters below 128 and
  // non-negated \d and \w, a quantified one kept (and ending the run) when it must occur.
  const element = (node: AST.Node): RunElement | undefined => {
    if (node.type === 'Character' && node.value < 128) return node.value;
    if (node.type === 'CharacterSet' && node.kind === 'digit' && !node.negate) return 'digit';
    if (node.type === 'CharacterSet' && node.kind === 'word' && !node.negate) return 'word';
    return undefined;
  };
  const weight = (r: RunElement[]) => r.reduce<number>((w, e) => w + (typeof e === 'number' ? 1 : 0.5), 0);
  let requiredRun: RunElement[] = [];
  if (ast.alternatives.length === 1) {
    let run: RunElement[] = [];
    const close = () => {
      if (run.some((e) => typeof e === 'number') && weight(run) > weight(requiredRun)) requiredRun = run;
      run = [];
    };
    for (const node of ast.alternatives[0].elements) {
      const e = element(node);
      if (e !== undefined) {
        run.push(e);
      } else if (node.type === 'Quantifier') {
        const q = element(node.element);
        if (q !== undefined && node.min >= 1) run.push(q);
        close();
      } else {
        close();
      }
    }
    close();
  }
  return {
    cr: characters.includes(0x0d),
    bom: characters.includes(0xfeff),
    characters: characters.sort((a, b) => a - b),
    lookaround,
    requiredRun,
  };
}

/** The same reading by the shipped, dependency-free scanner. */
function ours(pattern: string): Reading {
  const scan = scanPattern(pattern);
  return {
    cr: namesCr(pattern),
    bom: namesBom(pattern),
    characters: [...scan.characters].sort((a, b) => a - b),
    lookaround: scan.lookaround,
    requiredRun: literalPrefilter(scan.topLevel, false)?.run ?? [],
  };
}

const same = (a: Reading, b: Reading) =>
  a.cr === b.cr &&
  a.bom === b.bom &&
  a.lookaround === b.lookaround &&
  a.characters.join() === b.characters.join() &&
  a.requiredRun.join() === b.requiredRun.join();

function engineAccepts(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

// Pieces that make escapes ambiguous: hex and octal digits, control letters, the letters
// of identity escapes, literal CRs and BOMs.
const tailChar = fc.constantFrom(...'0123456789dDfFeEaAbBcCmMrRxXuUkK_-{}<>\r\uFEFF\\'.split(''));
const escape = fc
  .tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom(...'rxXuUcC0123456789kdDsSwWbBfntv-/\r\uFEFF\\pP'.split('')), fc.array(tailChar, { maxLength: 3 }))
  .map(([backslashes, head, tail]) => '\\'.repeat(backslashes) + head + tail.join(''));
const literal = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...'arx0dMmcC\r\uFEFF-^$.{}]k<>15FE'.split('')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 2 }) },
);
const classAtom = fc.oneof({ weight: 3, arbitrary: escape }, { weight: 3, arbitrary: literal }, { weight: 1, arbitrary: fc.tuple(fc.oneof(escape, literal), fc.oneof(escape, literal)).map(([a, b]) => `${a}-${b}`) });
const klass = fc.tuple(fc.boolean(), fc.array(classAtom, { maxLength: 3 })).map(([neg, atoms]) => `[${neg ? '^' : ''}${atoms.join('')}]`);
const quantifier = fc.constantFrom('', '', '', '*', '+', '?', '{2}', '{1,}', '{1,3}', '*?', '{');
const groupOpen = fc.constantFrom('(', '(', '(?:', '(?=', '(?!', '(?<=', '(?<!', '(?<n>', '(?i:', '(?-i:');

const { pattern: structured } = fc.letrec<{ pattern: string; atom: string; group: string }>((tie) => ({
  pattern: fc.array(fc.array(tie('atom'), { minLength: 1, maxLength: 3 }).map((xs) => xs.join('')), { minLength: 1, maxLength: 2 }).map((alts) => alts.join('|')),
  atom: fc
    .tuple(
      fc.oneof(
        { maxDepth: 2, depthIdentifier: 'group' },
        { weight: 4, arbitrary: escape },
        { weight: 3, arbitrary: literal },
        { weight: 2, arbitrary: klass },
        { weight: 1, arbitrary: tie('group') },
      ),
      quantifier,
    )
    .map(([a, q]) => a + q),
  group: fc.tuple(groupOpen, tie('pattern')).map(([open, inner]) => `${open}${inner})`),
}));

// Free pieces, so that odd syntax (a lone `(`, `\k<n>` without a group) comes up too.
const soup = fc
  .array(fc.oneof(escape, literal, fc.constantFrom('(', ')', '[', ']', '|', '*', '(?<n>', '\\k<n>', '{2}')), { minLength: 1, maxLength: 8 })
  .map((xs) => xs.join(''));

// Sometimes 14 to 16 groups first, so `\15` is a backreference in some patterns and a CR in others.
const patterns = fc
  .tuple(fc.constantFrom('', '', '', '', '', '', '', '', '', '(a)'.repeat(14), '(a)'.repeat(15), '(a)'.repeat(16)), fc.oneof({ weight: 3, arbitrary: structured }, { weight: 1, arbitrary: soup }))
  .map(([groups, p]) => groups + p);

const TABLE = [
  '\r', '\\r', '\\x0d', '\\x0D', '\\u000d', '\\u000D', '\\cM', '\\cm', '\\015', '\\\r', '[\\r]', '[\\x0d]', '[\\cm]', '[\\015]',
  '\\\\r', '\\X0D', '\\CM', '\\\\x0d', '\\15', '(a)\\15', `${'(a)'.repeat(15)}\\15`, '\\0015', '\\c\\r', '[\\c+M]',
  '\uFEFF', '\\uFEFF', '\\ufeff', '\\\uFEFF', '[\\uFEFF]', '\\\\uFEFF', '\\UFEFF', '\\u{FEFF}',
];

describe('namesCr and namesBom against a real parser', () => {
  test('agree with regexpp on every pattern of the spec\u2019s tables', () => {
    for (const p of TABLE) {
      const ref = reference(p);
      expect(ref).toBeDefined();
      expect({ pattern: p, ...ours(p) }).toEqual({ pattern: p, ...ref! });
    }
  });

  test('agree with regexpp on at least 100,000 generated patterns, as does everything else the scanner reads', () => {
    let compared = 0;
    let cr = 0;
    let bom = 0;
    let lookaround = 0;
    let withRun = 0;
    let batch = 0;
    const agree = fc.property(patterns, (p) => {
      const ref = reference(p);
      if (ref === undefined || !engineAccepts(p)) return;
      compared++;
      if (ref.cr) cr++;
      if (ref.bom) bom++;
      if (ref.lookaround) lookaround++;
      if (ref.requiredRun.length > 0) withRun++;
      // A plain comparison: expect() on each of 100,000 patterns costs more than the check.
      const mine = ours(p);
      if (!same(mine, ref)) expect({ pattern: p, ...mine }).toEqual({ pattern: p, ...ref });
    });
    while (compared < 100_000) {
      fc.assert(agree, { numRuns: 20_000, seed: seed + batch++ });
    }
    console.log(
      `scanner vs regexpp: ${compared} patterns agreed (${cr} name a CR, ${bom} name U+FEFF, ` +
        `${lookaround} look around, ${withRun} have a required run); seed ${seed}`,
    );
    // The generator must reach each answer often, or agreement would prove little.
    expect(cr).toBeGreaterThan(compared / 10);
    expect(bom).toBeGreaterThan(compared / 50);
    expect(compared - cr).toBeGreaterThan(compared / 10);
    expect(lookaround).toBeGreaterThan(compared / 50);
    expect(withRun).toBeGreaterThan(compared / 10);
  }, 120_000);
});
