import { describe, expect, test } from 'bun:test';
import { fileText } from '@ws/text';
import { PagingError, characterPage, linePage } from '../src/index.ts';

const PATH = 'work/a.txt';
const ft = fileText('one\ntwo\nthree\n');

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(PagingError);
    return (e as Error).message;
  }
  throw new Error('expected a PagingError');
}

describe('inputs and errors (README, "Refusals")', () => {
  test('offset/limit and offsetChars/limitChars together: "not both"', () => {
    const both = { path: PATH, offset: 1, offsetChars: 0 };
    const message = 'Give offset and limit to read lines, or offsetChars and limitChars to read characters, not both.';
    expect(refusal(() => linePage(ft, both))).toBe(message);
    expect(refusal(() => characterPage(ft, both))).toBe(message);
    expect(refusal(() => linePage(ft, { path: PATH, limit: 5, limitChars: 10 } as never))).toBe(message);
  });

  const bad: [string, unknown][] = [
    ['zero', 0],
    ['negative', -3],
    ['fractional', 1.5],
    ['NaN', Number.NaN],
    ['infinite', Number.POSITIVE_INFINITY],
    ['a string', '2'],
    ['null', null],
    ['a boolean', true],
  ];
  for (const field of ['offset', 'limit', 'resultMaxChars'] as const) {
    for (const [what, value] of bad) {
      test(`a line page refuses ${what} as ${field}, naming the field`, () => {
        const message = refusal(() => linePage(ft, { path: PATH, [field]: value } as never));
        expect(message.startsWith(`${field} must be a whole number, 1 or more (`)).toBe(true);
      });
    }
  }
  for (const field of ['offsetChars', 'limitChars', 'resultMaxChars'] as const) {
    for (const [what, value] of bad) {
      if (field === 'offsetChars' && value === 0) continue;
      test(`a character page refuses ${what} as ${field}, naming the field`, () => {
        const message = refusal(() => characterPage(ft, { path: PATH, [field]: value } as never));
        expect(message.startsWith(`${field} must be a whole number, ${field === 'offsetChars' ? 0 : 1} or more (`)).toBe(true);
      });
    }
  }

  test('a refusal says what it got', () => {
    expect(refusal(() => linePage(ft, { path: PATH, limit: 2.5 }))).toBe('limit must be a whole number, 1 or more (the most lines to read); got 2.5.');
    expect(refusal(() => linePage(ft, { path: PATH, offset: '3' } as never))).toContain('got the string "3"');
  });

  test('offsetChars 0 is the start', () => {
    expect(characterPage(ft, { path: PATH, offsetChars: 0, limitChars: 3 }).content).toBe('one');
  });

  test('a path that is not a string is refused', () => {
    expect(refusal(() => linePage(ft, { path: 7 } as never))).toBe("path must be the file's path, as a string; got 7.");
  });

  test('offsetChars inside a surrogate pair: an error naming the pair’s start', () => {
    const emoji = fileText('ab\ud83d\ude00c');
    expect(refusal(() => characterPage(emoji, { path: PATH, offsetChars: 3 }))).toBe(
      'offsetChars=3 is inside a surrogate pair (one character, such as an emoji, stored as two UTF-16 units) that starts at 2; read from offsetChars=2 instead.',
    );
  });

  test('an empty file: no lines, empty content, a note saying it is empty', () => {
    const empty = fileText(new Uint8Array());
    expect(linePage(empty, { path: PATH })).toEqual({ path: PATH, totalLines: 0, fromLine: 0, toLine: 0, note: 'The file is empty.', content: '' });
    expect(linePage(empty, { path: PATH, resultMaxChars: 10 }).note).toBe('The file is empty.');
    expect(characterPage(empty, { path: PATH })).toEqual({ path: PATH, totalChars: 0, offsetChars: 0, nextOffsetChars: 0, note: 'The file is empty.', content: '' });
  });

  test('a file of only a BOM is empty and says it has a BOM', () => {
    const bom = fileText(new Uint8Array([0xef, 0xbb, 0xbf]));
    expect(linePage(bom, { path: PATH }).note).toBe('The file starts with a UTF-8 BOM, which is not shown as part of line 1. The file is empty.');
  });

  test('offset past the last line: an error giving the line count', () => {
    expect(refusal(() => linePage(ft, { path: PATH, offset: 4 }))).toBe('offset=4 is past the end of the file, which has 3 lines; give an offset from 1 to 3.');
    expect(refusal(() => linePage(fileText('x'), { path: PATH, offset: 2 }))).toBe('offset=2 is past the end of the file, which has 1 line; give an offset from 1 to 1.');
    expect(refusal(() => linePage(fileText(''), { path: PATH, offset: 2 }))).toBe('offset=2 is past the end of the file, which is empty; read it with offset=1.');
  });

  test('offsetChars at or past the end: an error giving the character count', () => {
    expect(refusal(() => characterPage(ft, { path: PATH, offsetChars: 14 }))).toBe(
      'offsetChars=14 is past the end of the file, which has 14 characters; give an offsetChars from 0 to 13.',
    );
  });
});
