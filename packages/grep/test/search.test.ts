import { describe, expect, test } from 'bun:test';
import { type GrepFile, GrepError, search } from '../src/index.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const file = (path: string, text: string): GrepFile => ({ path, bytes: enc(text) });
const one = async (pattern: string, text: string, options = {}) => (await search(pattern, [file('work/a.txt', text)], options)).results[0];

describe('lines as read shows them', () => {
  test('`two$` finds line 2 of a CRLF file', async () => {
    const r = await one('two$', 'one\r\ntwo\r\n');
    expect(r.matches).toEqual([{ line: 2, text: 'two' }]);
  });

  test('a line whose own text ends in a CR is matched and shown as read shows it', async () => {
    expect((await one('^x', 'x\r\r\ny\r\n')).matches).toEqual([{ line: 1, text: 'x\r\r' }]);
    expect((await one('x\\r\\r$', 'x\r\r\ny\r\n')).matches).toEqual([{ line: 1, text: 'x\r\r' }]);
    expect(await one('x\\r$', 'x\r\r\ny\r\n')).toBeUndefined();
  });

  test('a BOM is not part of line 1 for `^`', async () => {
    expect((await one('^two', '\uFEFFtwo\n')).matches).toEqual([{ line: 1, text: 'two' }]);
    expect(await one('^\\uFEFF', '\uFEFFtwo\n')).toBeUndefined();
  });

  test('a match never spans lines, and `\\s` does not see a CRLF end', async () => {
    expect(await one('a\\sb', 'a\nb\n')).toBeUndefined();
    expect(await one('a\\s', 'a\r\nb\r\n')).toBeUndefined();
    expect(await one('a[^x]b', 'a\r\nb\r\n')).toBeUndefined();
  });

  test('`^` and `$` hold only at the line\u2019s edges, not beside a CR or U+2028 inside it', async () => {
    expect(await one('^b', 'a\rb\n')).toBeUndefined();
    expect(await one('a$', 'a\u2028b\n')).toBeUndefined();
    expect((await one('^a\\rb$', 'a\rb\n')).matches).toEqual([{ line: 1, text: 'a\rb' }]);
  });

  test('a lookaround sees only its line', async () => {
    expect((await one('a(?!\\r)', 'a\r\n')).matches).toEqual([{ line: 1, text: 'a' }]);
    expect(await one('(?<=a\\n)b', 'a\nb\n')).toBeUndefined();
    expect((await one('(?<![^])b', 'a\nb\n')).matches).toEqual([{ line: 2, text: 'b' }]);
  });

  test('line numbers count every line, however it ends', async () => {
    const r = await one('hit', 'a\r\nb\nc\rd\r\r\nhit\nhit again\r\n');
    expect(r.matches).toEqual([
      { line: 4, text: 'hit' },
      { line: 5, text: 'hit again' },
    ]);
  });

  test('a line with several matches counts once', async () => {
    const a = await search('o', [file('work/a.txt', 'foo boo\nx\no\n')]);
    expect(a.totalMatches).toBe(2);
    expect(a.results[0].matches.map((m) => m.line)).toEqual([1, 3]);
  });

  test('caseInsensitive adds the i flag; without it case counts', async () => {
    expect(await one('TWO', 'two\n')).toBeUndefined();
    expect((await one('TWO', 'two\n', { caseInsensitive: true })).matches).toEqual([{ line: 1, text: 'two' }]);
  });

  test('the empty pattern matches every line, and an empty file has none', async () => {
    const a = await search('', [file('work/a.txt', 'x\n\ny'), file('work/empty.txt', '')]);
    expect(a.results).toEqual([{ path: 'work/a.txt', matches: [{ line: 1, text: 'x' }, { line: 2, text: '' }, { line: 3, text: 'y' }] }]);
    expect(a.filesSearched).toBe(2);
  });
});

describe('lineEndings', () => {
  const cases = [
    ['LF', 'a\nb\n', undefined],
    ['CRLF', 'a\r\nb\r\n', 'CRLF'],
    ['mixed', 'a\r\nb\n', 'mixed'],
    ['lone CRs only', 'a\rb\r', undefined],
    ['no line end', 'a', undefined],
    ['an own CR in a CRLF file', 'a\r\r\nb\r\n', 'CRLF'],
    ['a CR before the last character of an LF line', 'a\rb\n', undefined],
  ] as const;
  for (const [name, text, expected] of cases) {
    test(`${name}: ${expected ?? 'absent'}`, async () => {
      expect((await one('a', text)).lineEndings).toBe(expected);
    });
  }
});

describe('context', () => {
  const text = ['l1', 'l2', 'hit3', 'l4', 'l5', 'l6', 'hit7', 'hit8', 'l9', 'l10'].join('\n');

  test('contextBefore and contextAfter add neighbouring lines', async () => {
    const r = await one('hit3', text, { contextBefore: 2, contextAfter: 1 });
    expect(r.matches).toEqual([{ line: 3, text: 'hit3', before: ['l1', 'l2'], after: ['l4'] }]);
  });

  test('every line is shown once: neighbours already shown are not repeated', async () => {
    const r = await one('hit', text, { contextBefore: 3, contextAfter: 2 });
    expect(r.matches).toEqual([
      { line: 3, text: 'hit3', before: ['l1', 'l2'], after: ['l4', 'l5'] },
      { line: 7, text: 'hit7', before: ['l6'] },
      { line: 8, text: 'hit8', after: ['l9', 'l10'] },
    ]);
  });

  test('context lines read as read shows them (no CRLF end\u2019s CR, no BOM)', async () => {
    const r = await one('b', '\uFEFFa\r\nb\r\nc\r\n', { contextBefore: 1, contextAfter: 1 });
    expect(r.matches).toEqual([{ line: 2, text: 'b', before: ['a'], after: ['c'] }]);
  });
});

describe('files', () => {
  test('a NUL byte in the first 8 KB skips the file as binary; one after it does not', async () => {
    const late = new Uint8Array(9000).fill(0x61);
    late[8500] = 0;
    const a = await search('a', [
      { path: 'work/early.bin', bytes: new Uint8Array([0x61, 0, 0x61]) },
      { path: 'work/late.bin', bytes: late },
    ]);
    expect(a.skipped).toEqual([{ path: 'work/early.bin', reason: { kind: 'binary' } }]);
    expect(a.results.map((r) => r.path)).toEqual(['work/late.bin']);
    expect(a.filesSearched).toBe(1);
  });

  test('a file over maxFileSize is skipped with why; one at the limit is searched', async () => {
    const a = await search('a', [file('work/big.txt', 'aaaa\n'), file('work/ok.txt', 'aaa\n')], { maxFileSize: 4 });
    expect(a.skipped).toEqual([{ path: 'work/big.txt', reason: { kind: 'over-size', size: 5, limit: 4 } }]);
    expect(a.results.map((r) => r.path)).toEqual(['work/ok.txt']);
  });

  test('a file the caller did not read is listed as skipped as given', async () => {
    const a = await search('a', [{ path: 'work/huge.log', skipped: 'over the mount\u2019s size limit' }, file('work/b.txt', 'a')]);
    expect(a.skipped).toEqual([{ path: 'work/huge.log', reason: { kind: 'not-read', why: 'over the mount\u2019s size limit' } }]);
    expect(a.filesSearched).toBe(1);
  });

  test('paths pass through as given, and a conflict\u2019s disk version keeps its label', async () => {
    const a = await search('x', [
      { path: 'work/a.txt', bytes: enc('x\n') },
      { path: 'work/a.txt', bytes: enc('y\r\nx\r\n'), version: 'conflicting-disk' },
    ]);
    expect(a.results).toEqual([
      { path: 'work/a.txt', matches: [{ line: 1, text: 'x' }] },
      { path: 'work/a.txt', version: 'conflicting-disk', lineEndings: 'CRLF', matches: [{ line: 2, text: 'x' }] },
    ]);
    expect(a.filesSearched).toBe(2);
  });

  test('files come from a sync or an async iterable, in order', async () => {
    const list = [file('work/1.txt', 'x'), file('work/2.txt', 'x')];
    async function* each() {
      for (const f of list) yield f;
    }
    const fromSync = await search('x', new Set(list));
    const fromAsync = await search('x', each());
    expect(fromSync).toEqual(fromAsync);
    expect(fromAsync.results.map((r) => r.path)).toEqual(['work/1.txt', 'work/2.txt']);
  });

  test('a file without the text every match needs is passed over unread, with the same answer', async () => {
    const a = await search('needle\\d', [file('work/a.txt', 'hay\nneedle1\n'), file('work/b.txt', 'hay\nneedl\n')]);
    expect(a.results.map((r) => r.path)).toEqual(['work/a.txt']);
    expect(a.filesSearched).toBe(2);
  });
});

describe('bad patterns and options', () => {
  /** Files that fail the test if search reads any: errors come first. */
  const untouchable: Iterable<GrepFile> = {
    [Symbol.iterator]() {
      throw new Error('search read files before checking its pattern and options');
    },
  };
  const badPatterns = ['(', 'a)', '[a', '*', 'a**', '\\', '(?<n>a)\\k<m>', '[z-a]', 'a{2,1}', '(?<=a'];
  for (const pattern of badPatterns) {
    test(`\`${pattern}\` is a GrepError naming the pattern, not a SyntaxError`, async () => {
      const error = await search(pattern, untouchable).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GrepError);
      expect(error).not.toBeInstanceOf(SyntaxError);
      expect((error as GrepError).message).toContain(`The pattern \`${pattern}\` is not a valid JavaScript regular expression (`);
      expect((error as GrepError).message).toContain('Fix the pattern and search again');
    });
  }

  test('a pattern valid only under flags search does not use is still judged without them', async () => {
    // `\p{L}` is a property escape only with `u`; without it, the letters p{L} as written.
    expect((await one('\\p{L}', 'p{L}\n')).matches).toEqual([{ line: 1, text: 'p{L}' }]);
  });

  const badOptions = [
    [{ contextBefore: -1 }, 'contextBefore', '-1'],
    [{ contextAfter: 1.5 }, 'contextAfter', '1.5'],
    [{ contextAfter: '2' }, 'contextAfter', '"2"'],
    [{ maxFileSize: Number.NaN }, 'maxFileSize', 'NaN'],
    [{ caseInsensitive: 'yes' }, 'caseInsensitive', '"yes"'],
    [{ fixedStrings: 1 }, 'fixedStrings', '1'],
    [{ multiline: 'no' }, 'multiline', '"no"'],
    [{ timeoutMs: -5 }, 'timeoutMs', '-5'],
  ] as const;
  for (const [options, field, shown] of badOptions) {
    test(`${field} = ${shown} is a GrepError naming the field`, async () => {
      const error = await search('a', untouchable, options as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GrepError);
      expect((error as GrepError).message).toStartWith(`The option ${field} must be `);
      expect((error as GrepError).message).toContain(`got ${shown}.`);
    });
  }

  test('a pattern that is not a string is a GrepError', async () => {
    const error = await search(42 as never, untouchable).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrepError);
    expect((error as GrepError).message).toBe('The pattern must be a string (a JavaScript regular expression); got 42.');
  });
});

describe('an error repeats at most 200 characters of its input', () => {
  test('a 2 MB pattern the engine rejects gives a short sentence, cut with an ellipsis', async () => {
    const pattern = `(${'a'.repeat(2_000_000)}`;
    const error = await search(pattern, []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrepError);
    const message = (error as Error).message;
    expect(message.length).toBeLessThan(800);
    expect(message).toStartWith(`The pattern \`(${'a'.repeat(199)}…\``);
  });
});
