import { describe, expect, test } from 'bun:test';
import { type GrepFile, search } from '../src/index.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const file = (path: string, text: string, version?: 'conflicting-disk'): GrepFile => ({ path, bytes: enc(text), ...(version ? { version } : {}) });

/** The files a CR note names, as written, or undefined when there is no CR note. */
const crNamed = (note: string | undefined) => /CRLF line ends: (.*?)\. Lines are matched/.exec(note ?? '')?.[1];
/** The files a BOM note names, as written, or undefined when there is no BOM note. */
const bomNamed = (note: string | undefined) => /a UTF-8 BOM at its start: (.*?)\. A BOM is not part/.exec(note ?? '')?.[1];

/** LF, mixed, CRLF and BOM files, with a binary and an over-size file that have both CRLF ends and a BOM. */
const tree = (): GrepFile[] => [
  file('work/lf.txt', 'one\ntwo\n'),
  file('work/mixed.cfg', 'one\r\ntwo\n'),
  { path: 'work/blob.bin', bytes: new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0x00, 0x0d, 0x0a]) },
  file('work/win.bat', 'one\r\ntwo\r\n'),
  file('work/bom.txt', '\uFEFFone\ntwo\n'),
  file('work/huge.log', `\uFEFF${'x\r\n'.repeat(40)}`),
];
const limit = { maxFileSize: 100 };

describe('a pattern that names a CR', () => {
  test('`\\r$` gives no lines and names exactly the CRLF files, in result order, with their line ends', async () => {
    const a = await search('\\r$', tree(), limit);
    expect(a.totalMatches).toBe(0);
    expect(a.results).toEqual([]);
    expect(crNamed(a.note)).toBe('work/mixed.cfg (mixed), work/win.bat (CRLF)');
    expect(bomNamed(a.note)).toBeUndefined();
    expect(a.note).toStartWith('This pattern names a CR, and 2 files searched have CRLF line ends: ');
  });

  test('the note says how lines are matched and where a character read shows every CR', async () => {
    const a = await search('\\x0d', tree(), limit);
    expect(a.note).toContain('Lines are matched as read shows them, without a CRLF end\u2019s CR unless the line\u2019s own text ends in a CR');
    expect(a.note).toContain('a character read (offsetChars) shows every CR in the workspace\u2019s copy.');
    expect(a.note).not.toContain('direct mount');
  });

  test('on a host with a direct mount, it adds disk\u2019s file', async () => {
    const a = await search('\\r', tree(), { ...limit, onDirectMountHost: true });
    expect(a.note).toContain('shows every CR in the workspace\u2019s copy, or in disk\u2019s file on a direct mount.');
  });

  test('skipped files are named in no note, whatever they hold', async () => {
    const a = await search('\\r|\\uFEFF', tree(), limit);
    expect(a.skipped.map((s) => s.path)).toEqual(['work/blob.bin', 'work/huge.log']);
    expect(a.note).not.toContain('blob.bin');
    expect(a.note).not.toContain('huge.log');
  });

  test('a CR inside a line is found, with no note, over files without CRLF ends', async () => {
    const a = await search('a\\rb', [file('work/lf.txt', 'a\rb\nc\n'), file('work/plain.txt', 'x\n')]);
    expect(a.results).toEqual([{ path: 'work/lf.txt', matches: [{ line: 1, text: 'a\rb' }] }]);
    expect(a.note).toBeUndefined();
  });

  test('a pattern that names no CR gets no note over CRLF files', async () => {
    const a = await search('two$', tree(), limit);
    expect(a.totalMatches).toBe(4);
    expect(a.note).toBeUndefined();
  });

  test('a CRLF file is named even when it holds no text the pattern needs', async () => {
    const a = await search('needle\\r', tree(), limit);
    expect(crNamed(a.note)).toBe('work/mixed.cfg (mixed), work/win.bat (CRLF)');
  });

  test('23 CRLF files are named as the first 20, then how many more', async () => {
    const files = Array.from({ length: 23 }, (_, k) => file(`work/f${String(k + 1).padStart(2, '0')}.txt`, 'a\r\n'));
    const a = await search('\\r', files);
    const first20 = Array.from({ length: 20 }, (_, k) => `work/f${String(k + 1).padStart(2, '0')}.txt (CRLF)`).join(', ');
    expect(crNamed(a.note)).toBe(`${first20} and 3 more; narrow with path or glob`);
    expect(a.note).toStartWith('This pattern names a CR, and 23 files searched have CRLF line ends: ');
  });

  test('one CRLF file is counted in the singular', async () => {
    const a = await search('\\r', [file('work/win.bat', 'a\r\n')]);
    expect(a.note).toStartWith('This pattern names a CR, and 1 file searched has CRLF line ends: work/win.bat (CRLF).');
  });
});

describe('a pattern that names U+FEFF', () => {
  test('`^\\uFEFF` names exactly the BOM file, and no CRLF file', async () => {
    const a = await search('^\\uFEFF', tree(), limit);
    expect(a.totalMatches).toBe(0);
    expect(bomNamed(a.note)).toBe('work/bom.txt');
    expect(crNamed(a.note)).toBeUndefined();
    expect(a.note).toStartWith('This pattern names U+FEFF, and 1 file searched has a UTF-8 BOM at its start: work/bom.txt. ');
    expect(a.note).toContain('A BOM is not part of the first line as read shows it');
  });

  test('a pattern naming both gets both notes, CR first, each naming only its files', async () => {
    const a = await search('[\\uFEFF\\r]', tree(), limit);
    expect(crNamed(a.note)).toBe('work/mixed.cfg (mixed), work/win.bat (CRLF)');
    expect(bomNamed(a.note)).toBe('work/bom.txt');
    expect(a.note!.indexOf('names a CR')).toBeLessThan(a.note!.indexOf('names U+FEFF'));
  });

  test('a U+FEFF inside a line is found, with no note, over files without a BOM', async () => {
    const a = await search('a\\uFEFFb', [file('work/zw.txt', 'a\uFEFFb\n')]);
    expect(a.totalMatches).toBe(1);
    expect(a.note).toBeUndefined();
  });
});

describe('a conflict\u2019s disk version', () => {
  test('is named as such only where the workspace copy lacks CRLF ends', async () => {
    const a = await search('\\r$', [
      file('work/a.txt', 'one\ntwo\n'),
      file('work/a.txt', 'one\r\ntwo\r\n', 'conflicting-disk'),
      file('work/b.txt', 'one\r\ntwo\r\n'),
      file('work/b.txt', 'one\r\ntwo\n', 'conflicting-disk'),
      file('work/c.txt', 'one\ntwo\n'),
      file('work/c.txt', 'one\ntwo\n', 'conflicting-disk'),
    ]);
    expect(crNamed(a.note)).toBe('work/a.txt (CRLF in its conflicting-disk version), work/b.txt (CRLF)');
    expect(a.filesSearched).toBe(6);
  });

  test('a mixed disk version says so', async () => {
    const a = await search('\\r', [file('work/a.txt', 'x\n'), file('work/a.txt', 'x\r\ny\n', 'conflicting-disk')]);
    expect(crNamed(a.note)).toBe('work/a.txt (mixed in its conflicting-disk version)');
  });

  test('a BOM only in the disk version is named as such', async () => {
    const a = await search('\\uFEFF', [file('work/a.txt', 'x\n'), file('work/a.txt', '\uFEFFx\n', 'conflicting-disk'), file('work/b.txt', '\uFEFFx\n')]);
    expect(bomNamed(a.note)).toBe('work/a.txt (BOM in its conflicting-disk version), work/b.txt');
  });
});
