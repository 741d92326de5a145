/**
 * Reads a JavaScript regular expression the way the engine does without the `u` flag
 * (the grammar of ECMAScript Annex B), far enough to say which single characters it
 * spells, whether it looks around, and what its top level is a sequence of. No
 * dependencies: a real parser checks this one in the tests, on generated patterns.
 * The one rule: a character is reported only where the engine reads one character —
 * `\\r` is a backslash and an `r`, `\X0D` is an `X`, `0`, `D`, and `\15` is a CR only
 * while the pattern has fewer than 15 capturing groups (else it is a backreference).
 */

/** One piece of a pattern's top level (outside every group), in order. */
export type TopLevelAtom =
  /** A single character, written as itself or as an escape. */
  | { readonly kind: 'character'; readonly value: number }
  /** `\d` or `\w`: one ASCII digit, or one ASCII letter, digit or `_` (without `u`, also under `i`). */
  | { readonly kind: 'set'; readonly set: AsciiSet }
  /** `*`, `+`, `?` or `{n,m}`: the atom before it repeats, at least `min` times (0: it may be absent). */
  | { readonly kind: 'quantifier'; readonly min: number }
  /** `|`: the top level is a choice. */
  | { readonly kind: 'alternation' }
  /** Anything else: a group, a class, `.`, an anchor, a class escape, a backreference. */
  | { readonly kind: 'other' };

/** A class escape whose every member is ASCII. */
export type AsciiSet = 'digit' | 'word';

/** What scanning a pattern found. */
export interface PatternScan {
  /** Every single character the pattern spells (UTF-16 code units), inside classes too. */
  readonly characters: readonly number[];
  /** The pattern has a lookahead or lookbehind somewhere. */
  readonly lookaround: boolean;
  /** The pattern's top level, for finding text that every match must contain. */
  readonly topLevel: readonly TopLevelAtom[];
}

interface Groups {
  /** How many capturing groups, named ones included. */
  readonly count: number;
  /** The pattern has a named group (then `\k` starts a named backreference). */
  readonly named: boolean;
}

/** The end of a class starting after its `[`: the index after its `]`. */
function skipClass(p: string, i: number): number {
  while (i < p.length) {
    const c = p[i];
    if (c === ']') return i + 1;
    i += c === '\\' ? 2 : 1;
  }
  return i;
}

function countGroups(p: string): Groups {
  let count = 0;
  let named = false;
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '\\') {
      i += 2;
    } else if (c === '[') {
      i = skipClass(p, i + 1);
    } else if (c === '(') {
      if (p[i + 1] !== '?') {
        count++;
      } else if (p[i + 2] === '<' && p[i + 3] !== '=' && p[i + 3] !== '!') {
        count++;
        named = true;
      }
      i++;
    } else {
      i++;
    }
  }
  return { count, named };
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isOctal = (c: number) => c >= 48 && c <= 55;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isHex = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

function hexValue(p: string, from: number, digits: number): number | undefined {
  for (let k = from; k < from + digits; k++) {
    if (!isHex(p.charCodeAt(k))) return undefined;
  }
  return parseInt(p.slice(from, from + digits), 16);
}

/** What one escape (starting at its backslash) reads as. */
interface Escape {
  /** The character it spells; absent for a class escape, an assertion or a backreference. */
  readonly value?: number;
  /** For `\d` and `\w`: the ASCII set it stands for. */
  readonly set?: AsciiSet;
  /** The index after the escape. */
  readonly end: number;
}

/** A legacy octal escape starting at its first digit: up to three digits, at most \377. */
function octalEscape(p: string, j: number): Escape {
  const first = p.charCodeAt(j) - 48;
  let value = first;
  let k = j + 1;
  if (isOctal(p.charCodeAt(k))) {
    value = value * 8 + (p.charCodeAt(k) - 48);
    k++;
    if (first <= 3 && isOctal(p.charCodeAt(k))) {
      value = value * 8 + (p.charCodeAt(k) - 48);
      k++;
    }
  }
  return { value, end: k };
}

const SIMPLE: Readonly<Record<string, number>> = { f: 12, n: 10, r: 13, t: 9, v: 11 };

function readEscape(p: string, i: number, inClass: boolean, groups: Groups): Escape {
  const next = p[i + 1];
  const code = p.charCodeAt(i + 1);
  if (next === undefined) return { end: i + 1 };
  if (next === 'd') return { set: 'digit', end: i + 2 };
  if (next === 'w') return { set: 'word', end: i + 2 };
  if ('DWsS'.includes(next)) return { end: i + 2 };
  if (next === 'b' || next === 'B') {
    // In a class `\b` is a backspace and `\B` a plain B; outside, word-boundary assertions.
    return inClass ? { value: next === 'b' ? 8 : 66, end: i + 2 } : { end: i + 2 };
  }
  if (next in SIMPLE) return { value: SIMPLE[next], end: i + 2 };
  if (next === 'c') {
    const letter = p.charCodeAt(i + 2);
    if (isLetter(letter) || (inClass && (isDigit(letter) || letter === 95))) {
      return { value: letter % 32, end: i + 3 };
    }
    // `\c` not followed by a control letter: the backslash is itself, and `c` comes next.
    return { value: 92, end: i + 1 };
  }
  if (next === 'x') {
    const v = hexValue(p, i + 2, 2);
    return v === undefined ? { value: code, end: i + 2 } : { value: v, end: i + 4 };
  }
  if (next === 'u') {
    const v = hexValue(p, i + 2, 4);
    return v === undefined ? { value: code, end: i + 2 } : { value: v, end: i + 6 };
  }
  if (isDigit(code)) {
    if (inClass || next === '0') {
      return isOctal(code) ? octalEscape(p, i + 1) : { value: code, end: i + 2 };
    }
    let k = i + 1;
    while (isDigit(p.charCodeAt(k))) k++;
    if (Number(p.slice(i + 1, k)) <= groups.count) return { end: k };
    // Not a group's number: an identity escape for 8 and 9, a legacy octal otherwise.
    return isOctal(code) ? octalEscape(p, i + 1) : { value: code, end: i + 2 };
  }
  if (next === 'k' && groups.named && !inClass) {
    const close = p.indexOf('>', i);
    return { end: close === -1 ? p.length : close + 1 };
  }
  return { value: code, end: i + 2 };
}

/** One atom of a class starting at `i`: a character (with its value) or a class escape. */
function readClassAtom(p: string, i: number, groups: Groups): Escape {
  return p[i] === '\\' ? readEscape(p, i, true, groups) : { value: p.charCodeAt(i), end: i + 1 };
}

/**
 * Reads a class's contents from `i` (after `[` or `[^`), adding the characters it spells;
 * returns the index after its `]`. A `-` between two characters makes a range (both ends
 * are characters it spells); elsewhere — first, last, or beside a class escape — a `-`
 * is itself.
 */
function readClass(p: string, i: number, groups: Groups, characters: number[]): number {
  const add = (atom: Escape) => {
    if (atom.value !== undefined) characters.push(atom.value);
  };
  while (i < p.length && p[i] !== ']') {
    const first = readClassAtom(p, i, groups);
    i = first.end;
    add(first);
    if (p[i] === '-' && i + 1 < p.length && p[i + 1] !== ']') {
      const second = readClassAtom(p, i + 1, groups);
      if (first.value === undefined || second.value === undefined) characters.push(45);
      add(second);
      i = second.end;
    }
  }
  return i + 1;
}

/** A `{n}`, `{n,}` or `{n,m}` quantifier at `i` (its least count and end), or undefined for a literal `{`. */
function braceQuantifier(p: string, i: number): { min: number; end: number } | undefined {
  const m = /^\{(\d+)(?:,\d*)?\}/.exec(p.slice(i, i + 48));
  return m ? { min: Number(m[1]), end: i + m[0].length } : undefined;
}

/**
 * Scans a pattern as the engine reads it without the `u` flag. Meant for patterns the
 * engine accepts; on a pattern it rejects, the answer is a best effort.
 */
export function scanPattern(p: string): PatternScan {
  const groups = countGroups(p);
  const characters: number[] = [];
  const topLevel: TopLevelAtom[] = [];
  let lookaround = false;
  let depth = 0;
  const top = (atom: TopLevelAtom) => {
    if (depth === 0) topLevel.push(atom);
  };
  const character = (value: number) => {
    characters.push(value);
    top({ kind: 'character', value });
  };

  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '\\') {
      const e = readEscape(p, i, false, groups);
      if (e.value !== undefined) character(e.value);
      else top(e.set === undefined ? { kind: 'other' } : { kind: 'set', set: e.set });
      i = e.end;
    } else if (c === '[') {
      top({ kind: 'other' });
      i = readClass(p, p[i + 1] === '^' ? i + 2 : i + 1, groups, characters);
    } else if (c === '(') {
      top({ kind: 'other' });
      depth++;
      if (p[i + 1] !== '?') {
        i++;
      } else if (p[i + 2] === '=' || p[i + 2] === '!') {
        lookaround = true;
        i += 3;
      } else if (p[i + 2] === '<' && (p[i + 3] === '=' || p[i + 3] === '!')) {
        lookaround = true;
        i += 4;
      } else if (p[i + 2] === '<') {
        const close = p.indexOf('>', i);
        i = close === -1 ? p.length : close + 1;
      } else {
        // `(?:` or a modifier group such as `(?i:` or `(?-i:`.
        const colon = p.indexOf(':', i);
        i = colon === -1 ? p.length : colon + 1;
      }
    } else if (c === ')') {
      depth = Math.max(0, depth - 1);
      i++;
    } else if (c === '|') {
      top({ kind: 'alternation' });
      i++;
    } else if (c === '*' || c === '+' || c === '?') {
      top({ kind: 'quantifier', min: c === '+' ? 1 : 0 });
      i += p[i + 1] === '?' ? 2 : 1;
    } else if (c === '{') {
      // Annex B: a brace that does not start a valid quantifier is a literal `{`.
      const q = braceQuantifier(p, i);
      if (q === undefined) {
        character(123);
        i++;
      } else {
        top({ kind: 'quantifier', min: q.min });
        i = p[q.end] === '?' ? q.end + 1 : q.end;
      }
    } else if (c === '^' || c === '$' || c === '.') {
      top({ kind: 'other' });
      i++;
    } else {
      character(p.charCodeAt(i));
      i++;
    }
  }
  return { characters, lookaround, topLevel };
}
