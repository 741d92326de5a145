import { describe, expect, test } from 'bun:test';
import { fileText, hasBom } from '../src/index.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const bytes = (...b: number[]) => new Uint8Array(b);

describe('line ends', () => {
  test('a CRLF file\u2019s lines read without the CR', () => {
    const ft = fileText(enc('one\r\ntwo\r\n'));
    expect(ft.lines).toEqual(['one', 'two']);
    expect(ft.crlf).toBe(2);
    expect(ft.lf).toBe(0);
    expect(ft.lineEndings).toBe('CRLF');
  });

  test('mixed CRLF and LF ends are counted apart', () => {
    const ft = fileText(enc('a\r\nb\nc\r\nd\n'));
    expect(ft.lines).toEqual(['a', 'b', 'c', 'd']);
    expect([ft.crlf, ft.lf, ft.lineEndings]).toEqual([2, 2, 'mixed']);
  });

  test('an LF file reads as LF', () => {
    const ft = fileText(enc('a\nb\n'));
    expect([ft.crlf, ft.lf, ft.lineEndings]).toEqual([0, 2, 'LF']);
  });

  test('a lone CR is kept and does not split the line', () => {
    const ft = fileText(enc('a\rb\nc'));
    expect(ft.lines).toEqual(['a\rb', 'c']);
    expect(ft.lineEndings).toBe('LF');
  });

  test('a CR in the middle of a CRLF line is kept', () => {
    expect(fileText(enc('a\rb\r\n')).lines).toEqual(['a\rb']);
  });

  test('a line whose own text ends in a CR shows its line end\u2019s CR too', () => {
    const ft = fileText(enc('x\r\r\ny\r\n'));
    expect(ft.lines).toEqual(['x\r\r', 'y']);
    expect(ft.ownCr).toBe(1);
    expect(ft.crlf).toBe(2);
  });

  test('a line of only CRs before a CRLF end keeps them all', () => {
    const ft = fileText(enc('\r\r\r\n'));
    expect(ft.lines).toEqual(['\r\r\r']);
    expect(ft.ownCr).toBe(1);
  });

  test('an empty CRLF line is empty', () => {
    expect(fileText(enc('\r\n\r\n')).lines).toEqual(['', '']);
  });

  test('a line ended by a bare LF with a CR before its last character keeps the CR', () => {
    const ft = fileText(enc('ab\rc\n'));
    expect(ft.lines).toEqual(['ab\rc']);
    expect([ft.crlf, ft.lf]).toEqual([0, 1]);
  });

  test('a CR at the very end without LF stays in the last line', () => {
    const ft = fileText(enc('a\r'));
    expect(ft.lines).toEqual(['a\r']);
    expect(ft.lineEndings).toBe('none');
  });

  test('a text with no line end is one line', () => {
    const ft = fileText(enc('just one'));
    expect(ft.lines).toEqual(['just one']);
    expect(ft.lineEndings).toBe('none');
  });

  test('a final line end makes no empty last line', () => {
    expect(fileText(enc('a\nb\n')).lines).toEqual(['a', 'b']);
    expect(fileText(enc('a\nb\n\n')).lines).toEqual(['a', 'b', '']);
  });

  test('an empty text has zero lines', () => {
    const ft = fileText(new Uint8Array());
    expect(ft.lines).toEqual([]);
    expect(ft.starts).toEqual([]);
    expect(ft.lineEndings).toBe('none');
  });

  test('starts index the stored text, CRs included', () => {
    const ft = fileText(enc('one\r\ntwo\r\nx\r\r\nend'));
    expect(ft.starts).toEqual([0, 5, 10, 14]);
  });
});

describe('BOM', () => {
  test('a BOM is not part of line 1 but stays in text', () => {
    const ft = fileText(bytes(0xef, 0xbb, 0xbf, 0x61, 0x0a, 0x62));
    expect(ft.bom).toBe(true);
    expect(ft.text).toBe('\uFEFFa\nb');
    expect(ft.lines).toEqual(['a', 'b']);
    expect(ft.starts).toEqual([1, 3]);
  });

  test('a file of only a BOM is an empty file with a BOM', () => {
    const ft = fileText(bytes(0xef, 0xbb, 0xbf));
    expect(ft.bom).toBe(true);
    expect(ft.lines).toEqual([]);
    expect(ft.text).toBe('\uFEFF');
  });

  test('a U+FEFF after the start is an ordinary character', () => {
    const ft = fileText(enc('a\n\uFEFFb'));
    expect(ft.bom).toBe(false);
    expect(ft.lines).toEqual(['a', '\uFEFFb']);
  });

  test('hasBom looks only at the first three bytes', () => {
    expect(hasBom(bytes(0xef, 0xbb, 0xbf))).toBe(true);
    expect(hasBom(bytes(0xef, 0xbb))).toBe(false);
    expect(hasBom(bytes(0x61, 0xef, 0xbb, 0xbf))).toBe(false);
  });

  test('a string that begins with U+FEFF reads as having a BOM', () => {
    const ft = fileText('\uFEFFone\r\n');
    expect(ft.bom).toBe(true);
    expect(ft.lines).toEqual(['one']);
  });
});

describe('invalid UTF-8', () => {
  const decoded = (b: Uint8Array) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(b);
  const cases: [string, Uint8Array][] = [
    ['a lone continuation byte', bytes(0x61, 0x80, 0x62)],
    ['a truncated sequence', bytes(0x61, 0xe2, 0x82)],
    ['an overlong encoding of "/"', bytes(0xc0, 0xaf)],
    ['an overlong three-byte NUL', bytes(0xe0, 0x80, 0x80)],
    ['a surrogate encoded in UTF-8', bytes(0xed, 0xa0, 0x80)],
    ['a byte that never appears in UTF-8', bytes(0xff, 0x0a)],
    ['a code point past U+10FFFF', bytes(0xf4, 0x90, 0x80, 0x80)],
  ];
  for (const [name, b] of cases) {
    test(`${name} is invalid and decodes as TextDecoder does`, () => {
      const ft = fileText(b);
      expect(ft.validUtf8).toBe(false);
      expect(ft.text).toBe(decoded(b));
      expect(ft.text).toContain('\uFFFD');
    });
  }

  test('a real U+FFFD in the file is valid UTF-8', () => {
    const ft = fileText(enc('a\uFFFDb'));
    expect(ft.validUtf8).toBe(true);
  });

  test('a string with a lone surrogate is not well-formed, so not valid UTF-8', () => {
    expect(fileText('a\ud800b').validUtf8).toBe(false);
    expect(fileText('a\ud83d\ude00b').validUtf8).toBe(true);
  });
});
