/**
 * The linear-time engine: a JavaScript pattern written in RE2's syntax, for `re2js`
 * (a pure-JS port of RE2, which cannot backtrack and so cannot blow up). Only patterns
 * whose meaning is the same in both engines are translated — characters, classes, `.`,
 * `\d \w \s` and their negations, `^ $ \b \B`, groups, alternation and bounded
 * repetition; nothing with a lookaround or a backreference, no surrogate halves, and
 * under `caseInsensitive` no class or character beyond ASCII letters' simple folding.
 * The one rule: a translated pattern matches a line (without surrogates) exactly when
 * the JavaScript one does; anything not certain to mean the same is left untranslated.
 * Where a line holds a surrogate (an emoji), the caller tests it with JavaScript: JS
 * reads it as two units, RE2 as one character.
 */
import type { AST, RegExpParser as Parser } from '@eslint-community/regexpp';
import type { RE2JS as Engine } from 're2js';

// Both load on first use, not at import: re2js alone is about 12 ms of a process's
// start, and most calls (every `ws call` but a grep) never need either. Bun (and a
// bundle, which takes both modules in since the names are literal) has `require` in a
// module; Node takes one from its module builtin. Where neither exists, the load throws
// inside `parsed` and `re2Line`, which then answer "not translated".
declare const require: ((id: string) => unknown) | undefined;
type NodeProcess = { getBuiltinModule?: (id: string) => { createRequire(url: string): (id: string) => unknown } | undefined };
const nodeRequire = (name: string): unknown => {
  const builtin = (globalThis as { process?: NodeProcess }).process?.getBuiltinModule?.('node:module');
  if (builtin === undefined) throw new Error(`@ws/grep: cannot load ${name} here`);
  return builtin.createRequire(import.meta.url)(name);
};
let parserClass: typeof Parser | undefined;
let engine: typeof Engine | undefined;
const RegExpParser = (): typeof Parser => (parserClass ??= ((typeof require === 'function' ? require('@eslint-community/regexpp') : nodeRequire('@eslint-community/regexpp')) as { RegExpParser: typeof Parser }).RegExpParser);
const RE2JS = (): typeof Engine => (engine ??= ((typeof require === 'function' ? require('re2js') : nodeRequire('re2js')) as { RE2JS: typeof Engine }).RE2JS);

/** Not translatable: thrown inside, caught at the top. */
class Untranslatable extends Error {}

/** What JavaScript's `\s` matches (without the `u` flag), as an RE2 class body. */
const JS_SPACE = '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
/** What JavaScript's `.` matches without the `s` flag: anything but a line terminator. */
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';
/** RE2 refuses repetition counts above this. */
const RE2_MAX_REPEAT = 1000;

const isSurrogate = (c: number) => c >= 0xd800 && c <= 0xdfff;
const isAsciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAlnum = (c: number) => isAsciiLetter(c) || (c >= 48 && c <= 57);

function literal(c: number): string {
  if (isSurrogate(c)) throw new Untranslatable();
  return isAlnum(c) ? String.fromCharCode(c) : `\\x{${c.toString(16)}}`;
}

/** A character outside a class; under `i` an ASCII letter becomes both its cases. */
function character(c: number, fold: boolean): string {
  if (fold) {
    if (c >= 128) throw new Untranslatable();
    if (isAsciiLetter(c)) return `[${String.fromCharCode(c | 0x20)}${String.fromCharCode(c & ~0x20)}]`;
  }
  return literal(c);
}

/** One escape set (`\d`, `\W`, …) inside or outside a class. */
function escapeSet(set: AST.EscapeCharacterSet, inClass: boolean): string {
  if (set.kind === 'digit') return set.negate ? '\\D' : '\\d';
  if (set.kind === 'word') return set.negate ? '\\W' : '\\w';
  // JavaScript's \s is wider than RE2's: spelled out; its negation only alone.
  if (!set.negate) return inClass ? JS_SPACE : `[${JS_SPACE}]`;
  if (inClass) throw new Untranslatable();
  return `[^${JS_SPACE}]`;
}

function classElement(e: AST.CharacterClassElement, fold: boolean): string {
  switch (e.type) {
    case 'Character':
      if (fold && (e.value >= 128 || isAsciiLetter(e.value))) throw new Untranslatable();
      return literal(e.value);
    case 'CharacterClassRange': {
      const { min, max } = e;
      // A range touching letters folds in ways not worth spelling out: left to JavaScript.
      if (fold && (max.value >= 65 || isAsciiLetter(min.value))) throw new Untranslatable();
      return `${literal(min.value)}-${literal(max.value)}`;
    }
    case 'CharacterSet':
      if (e.kind === 'digit' || e.kind === 'word' || e.kind === 'space') return escapeSet(e, true);
      throw new Untranslatable();
    default:
      throw new Untranslatable();
  }
}

function characterClass(c: AST.CharacterClass, fold: boolean): string {
  if (c.unicodeSets) throw new Untranslatable();
  const body = c.elements.map((e) => classElement(e as AST.CharacterClassElement, fold)).join('');
  // `[]` matches nothing and `[^]` anything in JavaScript; RE2 has no empty class.
  if (body === '') return c.negate ? '(?s:.)' : '[^\\x00-\\x{10FFFF}]';
  return `[${c.negate ? '^' : ''}${body}]`;
}

function alternatives(alts: readonly AST.Alternative[], fold: boolean): string {
  return alts.map((a) => a.elements.map((e) => element(e, fold)).join('')).join('|');
}

function element(e: AST.Element, fold: boolean): string {
  switch (e.type) {
    case 'Character':
      return character(e.value, fold);
    case 'CharacterClass':
      return characterClass(e, fold);
    case 'CharacterSet':
      if (e.kind === 'any') return JS_DOT;
      if (e.kind === 'digit' || e.kind === 'word' || e.kind === 'space') return escapeSet(e, false);
      throw new Untranslatable();
    case 'Assertion':
      if (e.kind === 'start') return '^';
      if (e.kind === 'end') return '$';
      if (e.kind === 'word') return e.negate ? '\\B' : '\\b';
      throw new Untranslatable(); // lookarounds
    case 'Group':
      if (e.modifiers) throw new Untranslatable();
      return `(?:${alternatives(e.alternatives, fold)})`;
    case 'CapturingGroup':
      return `(${alternatives(e.alternatives, fold)})`;
    case 'Quantifier': {
      const { min, max } = e;
      if (min > RE2_MAX_REPEAT || (max !== Infinity && max > RE2_MAX_REPEAT)) throw new Untranslatable();
      const inner = `(?:${element(e.element, fold)})`;
      const count = max === Infinity ? (min === 0 ? '*' : min === 1 ? '+' : `{${min},}`) : min === 0 && max === 1 ? '?' : `{${min},${max}}`;
      return inner + count + (e.greedy ? '' : '?');
    }
    default:
      throw new Untranslatable(); // backreferences and anything newer
  }
}

/** The pattern's syntax tree as JavaScript reads it without flags (Annex B), or undefined where it can't be parsed. */
export function parsed(pattern: string): AST.Pattern | undefined {
  try {
    return new (RegExpParser())({ strict: false, ecmaVersion: 2025 }).parsePattern(pattern, 0, pattern.length, { unicode: false });
  } catch {
    return undefined;
  }
}

/** The pattern in RE2's syntax, or undefined where the two engines might differ. */
export function toRe2Syntax(pattern: string, caseInsensitive: boolean): string | undefined {
  const ast = parsed(pattern);
  if (ast === undefined) return undefined;
  try {
    return alternatives(ast.alternatives, caseInsensitive);
  } catch (e) {
    if (e instanceof Untranslatable) return undefined;
    throw e;
  }
}

/**
 * True where backtracking can take exponential time: a repetition of something that
 * itself repeats or branches (`(a+)+`, `(a|aa)*`). Such patterns go to RE2 where they translate.
 */
export function backtracksBadly(pattern: string): boolean {
  const ast = parsed(pattern);
  if (ast === undefined) return false;
  const repeatsOrBranches = (node: AST.Node): boolean => {
    if (node.type === 'Quantifier' && node.max > 1) return true;
    if ((node.type === 'Group' || node.type === 'CapturingGroup' || node.type === 'Pattern') && node.alternatives.length > 1) return true;
    return children(node).some(repeatsOrBranches);
  };
  const bad = (node: AST.Node): boolean => {
    if (node.type === 'Quantifier' && node.max > 1 && repeatsOrBranches(node.element)) return true;
    return children(node).some(bad);
  };
  return bad(ast);
}

function children(node: AST.Node): AST.Node[] {
  switch (node.type) {
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup':
      return node.alternatives;
    case 'Alternative':
      return node.elements;
    case 'Quantifier':
      return [node.element];
    case 'Assertion':
      return node.kind === 'lookahead' || node.kind === 'lookbehind' ? node.alternatives : [];
    default:
      return [];
  }
}

/** A compiled RE2 pattern: where in a line its first match starts, or -1. */
export interface Re2Line {
  firstMatch(line: string): number;
}

/** The RE2 engine for a pattern, or undefined where it does not translate. */
export function re2Line(pattern: string, caseInsensitive: boolean): Re2Line | undefined {
  const syntax = toRe2Syntax(pattern, caseInsensitive);
  if (syntax === undefined) return undefined;
  let compiled: Engine;
  try {
    compiled = RE2JS().compile(syntax);
  } catch {
    return undefined;
  }
  return {
    firstMatch(line) {
      const m = compiled.matcher(line);
      return m.find() ? m.start() : -1;
    },
  };
}

/** Whether one character element can match a line feed (U+000A). */
function elementTakesLf(e: AST.CharacterClassElement | AST.CharacterSet | AST.Character): boolean {
  switch (e.type) {
    case 'Character':
      return e.value === 10;
    case 'CharacterClassRange':
      return e.min.value <= 10 && e.max.value >= 10;
    case 'CharacterSet':
      if (e.kind === 'any') return false; // `.` without the `s` flag
      if (e.kind === 'digit' || e.kind === 'word') return e.negate;
      if (e.kind === 'space') return !e.negate;
      return true;
    default:
      return true;
  }
}

/**
 * False only where no match of the pattern can hold a line feed, so every match lies in
 * one line of the text (the whole-text search may then map a match to its line by where
 * it ends). True where unsure.
 */
export function mayMatchLineFeed(pattern: string): boolean {
  const ast = parsed(pattern);
  if (ast === undefined) return true;
  const takes = (node: AST.Node): boolean => {
    switch (node.type) {
      case 'Character':
      case 'CharacterSet':
        return elementTakesLf(node);
      case 'CharacterClass': {
        if (node.unicodeSets) return true;
        const inside = node.elements.some((e) => elementTakesLf(e as AST.CharacterClassElement));
        return node.negate ? !inside : inside;
      }
      case 'Backreference':
        return true;
      default:
        return children(node).some(takes);
    }
  };
  return takes(ast);
}
