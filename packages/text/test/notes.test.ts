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

  test('invalid UTF-8 names the lines holding the bad bytes, and says edits keep them', () => {
    expect(textNotes(fileText(new Uint8Array([0x61, 0xff])))).toEqual([
      'This file is not valid UTF-8: line 1 holds byte sequences that are not UTF-8, each shown as U+FFFD. An edit keeps those bytes as they are, but cannot replace them (edit around them); write replaces the file whole.',
    ]);
    // Line 2 holds a real U+FFFD (EF BF BD), which is valid: only lines 1 and 3 are named.
    const [note] = textNotes(fileText(new Uint8Array([0xff, 0x0a, 0xef, 0xbf, 0xbd, 0x0a, 0x62, 0xc3, 0x0a])));
    expect(note).toStartWith('This file is not valid UTF-8: lines 1, 3 hold byte sequences');
  });

  test('a Latin-1 file with many bad lines names the first ten and counts the rest', () => {
    const latin1 = new Uint8Array(Array.from({ length: 25 }, () => [0xe9, 0x0a]).flat());
    const [note] = textNotes(fileText(latin1));
    expect(note).toContain('lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, and 15 more lines hold');
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
