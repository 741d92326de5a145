import { describe, expect, test } from 'bun:test';
import { jsonLength, numberedLine, safeCut } from '../src/index.ts';

describe('numberedLine', () => {
  test('a line shows as its number, a tab, then its text', () => {
    expect(numberedLine(12, 'x = 1')).toBe('12\tx = 1');
  });
});

describe('safeCut', () => {
  const emoji = '\ud83d\ude00';
  test('a cut that would split a surrogate pair steps back one', () => {
    expect(safeCut(`ab${emoji}c`, 3)).toBe(2);
  });
  test('a cut after a whole pair stays', () => {
    expect(safeCut(`ab${emoji}c`, 4)).toBe(4);
  });
  test('a cut past the end is the whole length', () => {
    expect(safeCut('abc', 10)).toBe(3);
  });
  test('a cut at zero or below is zero', () => {
    expect(safeCut('abc', 0)).toBe(0);
    expect(safeCut('abc', -2)).toBe(0);
  });
  test('a lone high surrogate before an ordinary character may be cut after', () => {
    expect(safeCut('a\ud83dbc', 2)).toBe(2);
  });
});

describe('jsonLength', () => {
  const cases: [string, unknown][] = [
    ['a plain string', 'hello'],
    ['quotes and backslashes', 'say "hi" C:\\x'],
    ['short escapes', '\b\f\n\r\t'],
    ['other control characters', '\u0000\u0001\u001f\u007f'],
    ['U+2028 and U+2029 (not escaped)', '\u2028\u2029'],
    ['a lone high surrogate', 'a\ud800b'],
    ['a lone low surrogate', '\udc00'],
    ['a surrogate pair', '\ud83d\ude00'],
    ['a long string with an escape at the end', `${'a'.repeat(1000)}"`],
    ['a long plain string', 'b'.repeat(1000)],
    ['numbers', [0, -0, 1.5, 1e21, -3e-7, Number.NaN, Number.POSITIVE_INFINITY]],
    ['booleans and null', [true, false, null]],
    ['an object with omitted members', { a: 1, b: undefined, c: () => 1, d: 'x', e: Symbol('s') }],
    ['an array with omitted items', [undefined, () => 1, 'x', [1, [2, []]], {}]],
    ['a sparse array', [1, , 3]],
    ['an object of escaped keys', { 'a"b': 1, '\n': [1], '\ud800': '' }],
    ['integer-like keys come first', { b: 1, 2: 'x', a: [], 1: {} }],
    ['a Date (toJSON)', { when: new Date(0) }],
    ['a nested object with a null prototype', Object.assign(Object.create(null), { a: 'x' })],
    ['a page', { path: 'work/a.ts', totalLines: 3, fromLine: 1, toLine: 3, note: 'n', content: '1\ta' }],
  ];
  for (const [name, value] of cases) {
    test(`measures ${name} as JSON.stringify does`, () => {
      expect(jsonLength(value)).toBe(JSON.stringify(value).length);
    });
  }

  test('a value with no JSON measures 0', () => {
    expect(jsonLength(undefined)).toBe(0);
    expect(jsonLength(() => 1)).toBe(0);
  });

  test('a cycle throws as JSON.stringify does', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(() => jsonLength(a)).toThrow(TypeError);
  });
});
