import { describe, expect, test } from 'bun:test';
import { jsonLength } from '@ws/text';
import { handleToolCall } from '../src/index.ts';
import { LARGE_MULTILINE_SKIP } from '../src/errors.ts';
import { bytesOf, memoryWorkspace } from './memory-workspace.ts';

const dec = new TextDecoder('utf-8', { ignoreBOM: true });

const files = {
  'win.bat': '@echo off\r\nset two\r\n',
  'own.txt': 'x\r\r\nplain\r\n',
  'unix.sh': 'echo two\n',
  'bom.txt': '\uFEFFtwo\n',
  'src/app.ts': 'const two = 2;\n',
  'img.bin': new Uint8Array([1, 0, 2]),
};

type Answer = { results: { path: string; version?: string; lineEndings?: string; matches: { line: number; text: string; before?: string[]; after?: string[] }[] }[]; totalMatches: number; filesSearched: number; skipped: { reason: string; count: number; paths: string[]; more?: number }[]; note?: string };

async function grep(ws: Parameters<typeof handleToolCall>[0], input: unknown, resultMaxChars?: number): Promise<Answer> {
  const r = await handleToolCall(ws, { name: 'grep', input, ...(resultMaxChars === undefined ? {} : { resultMaxChars }) });
  if (!r.success) throw new Error(r.error);
  return r.data as Answer;
}

for (const backend of ['store', 'direct'] as const) {
  describe(`grep on ${backend} mounts`, () => {
    const ws = () => memoryWorkspace([{ name: 'work', backend, files }, { name: 'docs', backend, files: { 'two.md': 'two\n' } }]);

    test('searches every mount, naming files mount-prefixed; `two$` finds a CRLF file’s line', async () => {
      const a = await grep(ws(), { pattern: 'two$' });
      expect(a.results.map((r) => [r.path, r.lineEndings, r.matches.map((m) => m.line)])).toEqual([
        ['work/bom.txt', undefined, [1]],
        ['work/unix.sh', undefined, [1]],
        ['work/win.bat', 'CRLF', [2]],
        ['docs/two.md', undefined, [1]],
      ]);
      expect(a.skipped).toEqual([{ reason: 'binary (a NUL byte in its first 8 KB)', count: 1, paths: ['work/img.bin'] }]);
      expect(a.totalMatches).toBe(4);
    });

    test('a path narrows to one mount, a directory or a file; a glob filters by name or by mount-prefixed path', async () => {
      const paths = async (input: object) => (await grep(ws(), { pattern: 'two', ...input })).results.map((r) => r.path);
      expect(await paths({ path: 'docs' })).toEqual(['docs/two.md']);
      expect(await paths({ path: 'work/src' })).toEqual(['work/src/app.ts']);
      expect(await paths({ path: 'work/unix.sh' })).toEqual(['work/unix.sh']);
      expect(await paths({ glob: '*.ts' })).toEqual(['work/src/app.ts']);
      expect(await paths({ glob: 'work/*.{sh,bat}' })).toEqual(['work/unix.sh', 'work/win.bat']);
      expect(await paths({ glob: '**/*.md' })).toEqual(['docs/two.md']);
      expect(await paths({ path: 'work', glob: 'src/*.ts' })).toEqual(['work/src/app.ts']);
    });

    test('context lines, and case-insensitive matching', async () => {
      const a = await grep(ws(), { pattern: 'SET', path: 'work/win.bat', caseInsensitive: true, contextBefore: 1 });
      expect(a.results[0].matches).toEqual([{ line: 2, text: 'set two', before: ['@echo off'] }]);
    });

    test('a pattern naming a CR gets the note naming the CRLF files; over LF files, none', async () => {
      const a = await grep(ws(), { pattern: '\\r' });
      expect(a.note).toContain('This pattern names a CR, and 2 files searched have CRLF line ends: work/own.txt (CRLF), work/win.bat (CRLF).');
      expect(a.note?.includes('on a direct mount')).toBe(backend === 'direct');
      expect(a.results.map((r) => r.path)).toEqual(['work/own.txt']);
      expect((await grep(ws(), { pattern: '\\r', path: 'work/unix.sh' })).note).toBeUndefined();
    });

    test('a pattern naming U+FEFF gets the BOM note', async () => {
      const a = await grep(ws(), { pattern: '\\uFEFF' });
      expect(a.note).toContain('work/bom.txt');
      expect(a.results).toEqual([]);
    });

    test('a bad pattern is a sentence', async () => {
      const r = await handleToolCall(ws(), { name: 'grep', input: { pattern: '(' } });
      expect(r.success).toBe(false);
      if (!r.success) expect(r.error).toStartWith('The pattern `(` is not a valid JavaScript regular expression');
    });

    test('a line copied from a grep match edits back: CRLF kept, and an own-CR line edits the line it came from', async () => {
      const w = ws();
      const set = (await grep(w, { pattern: 'set', path: 'work/win.bat' })).results[0].matches[0].text;
      const own = (await grep(w, { pattern: '^x', path: 'work/own.txt' })).results[0].matches[0].text;
      expect(own).toBe('x\r\r');
      for (const [path, oldString, newString] of [['work/win.bat', set, 'set two=22'], ['work/own.txt', own, 'y']]) {
        const r = await handleToolCall(w, { name: 'edit', input: { path, oldString, newString } });
        expect(r.success).toBe(true);
      }
      const m = w.mounts[0];
      const held = (p: string) => dec.decode((backend === 'store' ? m.store.get(p) : m.disk.get(p)) ?? new Uint8Array());
      expect(held('win.bat')).toBe('@echo off\r\nset two=22\r\n');
      expect(held('own.txt')).toBe('y\r\nplain\r\n');
    });

    test('the answer is held to the budget: the first matching lines that fit, and where to continue', async () => {
      const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${String(i).padStart(2, '0')}.txt`, 'hit one\nhit two\nmiss\n']));
      const w = memoryWorkspace([{ name: 'work', backend, files: many }]);
      const whole = await grep(w, { pattern: 'hit' });
      expect(whole.totalMatches).toBe(80);
      const a = await grep(w, { pattern: 'hit' }, 1000);
      expect(jsonLength(a)).toBeLessThanOrEqual(1000);
      const shown = a.results.flatMap((r) => r.matches).length;
      expect(shown).toBeGreaterThan(0);
      expect(a.results[0]).toEqual(whole.results[0]);
      expect(a.note).toBe(`Showing matching lines 1-${shown} of 80; continue with offset=${shown}.`);
      const b = await grep(w, { pattern: 'hit', offset: shown }, 1000);
      expect(b.results.flatMap((r) => r.matches)[0]).toEqual(whole.results.flatMap((r) => r.matches)[shown]);
    });

    test('with a budget, a very long matching line is a window around its first match, naming what is cut each side', async () => {
      const w = memoryWorkspace([{ name: 'work', backend, files: { 'long.txt': `${'a'.repeat(5000)}needle${'b'.repeat(5000)}\n` } }]);
      const a = await grep(w, { pattern: 'needle' }, 24_000);
      const start = '[… read the start with offsetChars=0 and limitChars=4800 …]';
      const rest = '[… read the rest with offsetChars=6800 and limitChars=3206]';
      expect(a.results[0].matches[0].text).toBe(`${start}${'a'.repeat(200)}needle${'b'.repeat(1794)}${rest}`);
      expect((await grep(w, { pattern: 'needle' })).results[0].matches[0].text).toHaveLength(10006);
    });
  });
}

test('a conflict’s disk version is searched too, and named as such', async () => {
  const ws = memoryWorkspace([{ name: 'work', backend: 'store', files: { 'a.txt': 'base\n' } }]);
  await handleToolCall(ws, { name: 'write', input: { path: 'work/a.txt', content: 'draft\n' } });
  ws.mounts[0].disk.set('a.txt', bytesOf('disk\r\n'));
  await handleToolCall(ws, { name: 'read', input: { path: 'work/a.txt' } });
  const a = await grep(ws, { pattern: '\\r|draft' });
  expect(a.results.map((r) => [r.path, r.version])).toEqual([['work/a.txt', undefined]]);
  expect(a.filesSearched).toBe(2);
  expect(a.note).toContain('work/a.txt (CRLF in its conflicting-disk version)');
  const d = await grep(ws, { pattern: 'disk' });
  expect(d.results).toEqual([{ path: 'work/a.txt', version: 'conflicting-disk', lineEndings: 'CRLF', matches: [{ line: 1, text: 'disk' }] }]);
});

test('a file over its mount’s size limit is searched straight from disk; with multiline it is skipped with why', async () => {
  const ws = memoryWorkspace([{ name: 'work', backend: 'direct', maxFileSize: 10, files: { 'big.txt': 'two '.repeat(10), 'small.txt': 'two' } }]);
  const a = await grep(ws, { pattern: 'two' });
  expect(a.results.map((r) => r.path)).toEqual(['work/big.txt', 'work/small.txt']);
  expect(a.skipped).toEqual([]);
  const m = await grep(ws, { pattern: 'two', multiline: true });
  expect(m.results.map((r) => r.path)).toEqual(['work/small.txt']);
  expect(m.skipped).toEqual([{ reason: LARGE_MULTILINE_SKIP, count: 1, paths: ['work/big.txt'] }]);
});

test('a CR note names 20 files, then counts the rest; a BOM note names its files; skipped files are named in no note', async () => {
  const files = Object.fromEntries(Array.from({ length: 23 }, (_, i) => [`crlf/f${String(i).padStart(2, '0')}.txt`, 'a\r\nb\r\n']));
  const ws = memoryWorkspace([{ name: 'work', backend: 'direct', files: { ...files, 'mixed.txt': 'a\r\nb\n', 'bom.txt': '\uFEFFx\n', 'bin.dat': new Uint8Array([13, 10, 0]) } }]);
  const a = await grep(ws, { pattern: '\\r|\\uFEFF' });
  expect(a.note).toContain('This pattern names a CR, and 24 files searched have CRLF line ends: work/crlf/f00.txt (CRLF), ');
  expect(a.note).toContain('work/crlf/f19.txt (CRLF) and 4 more; narrow with path or glob.');
  expect(a.note).toContain('This pattern names U+FEFF, and 1 file searched has a UTF-8 BOM at its start: work/bom.txt.');
  expect(a.note).not.toContain('bin.dat');
  expect(a.note).toContain('or in disk\u2019s file on a direct mount');
});
