import { describe, expect, test } from 'bun:test';
import { fileText, textNotes } from '../src/index.ts';

const enc = (s: string) => new TextEncoder().encode(s);

describe('textNotes', () => {
  test('an LF file without a BOM carries no notes', () => {
    expect(textNotes(fileText(enc('a\nb\n')))).toEqual([]);
  });

  test('a CRLF file says lines are shown without their CR', () => {
    const notes = textNotes(fileText(enc('a\r\nb\r\n')));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('CRLF line ends');
    expect(notes[0]).toContain('without their CR');
  });

  test('mixed ends give how many are CRLF and how many LF', () => {
    const [note] = textNotes(fileText(enc('a\r\nb\nc\r\nd\r\n')));
    expect(note).toContain('mixed line ends: 3 CRLF and 1 LF');
  });

  test('one own-CR line is named in the singular', () => {
    const notes = textNotes(fileText(enc('x\r\r\n')));
    expect(notes[1]).toBe('1 line\u2019s own text ends in a CR and is shown with its line end\u2019s CR.');
  });

  test('several own-CR lines are counted in the plural', () => {
    const notes = textNotes(fileText(enc('x\r\r\ny\r\r\nz\r\n')));
    expect(notes[1]).toStartWith('2 lines\u2019 own text');
  });

  test('a BOM file says the BOM is not part of line 1', () => {
    const notes = textNotes(fileText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])));
    expect(notes).toEqual(['The file starts with a UTF-8 BOM, which is not shown as part of line 1.']);
  });

  test('invalid UTF-8 says edit refuses and write replaces', () => {
    const [note] = textNotes(fileText(new Uint8Array([0x61, 0xff])));
    expect(note).toContain('U+FFFD');
    expect(note).toContain('edit refuses');
    expect(note).toContain('write replaces it whole');
  });

  test('notes come in the order line ends, own CRs, BOM, invalid UTF-8', () => {
    const b = new Uint8Array([0xef, 0xbb, 0xbf, ...enc('x\r\r\n'), 0xff]);
    const notes = textNotes(fileText(b));
    expect(notes.map((n) => n.slice(0, 12))).toEqual([
      'This file ha',
      '1 line\u2019s own',
      'The file sta',
      'This file is',
    ]);
  });

  test('a character page carries only the invalid-UTF-8 note', () => {
    const b = new Uint8Array([0xef, 0xbb, 0xbf, ...enc('x\r\n'), 0xff]);
    const notes = textNotes(fileText(b), 'characters');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('not valid UTF-8');
  });
});
