import { describe, expect, test } from 'bun:test';
import { fileText, jsonLength } from '@ws/text';
import { handleToolCall } from '../src/index.ts';
import { bytesOf, memoryWorkspace } from './memory-workspace.ts';

const dec = new TextDecoder('utf-8', { ignoreBOM: true });
const BOM = '\uFEFF';

function workspace(backend: 'store' | 'direct', files: Record<string, string | Uint8Array>, readOnly = false) {
  return memoryWorkspace([{ name: 'work', backend, files, readOnly }]);
}

/** The bytes the workspace holds for a path: the workspace copy on a store, disk on a direct mount. */
function held(ws: ReturnType<typeof workspace>, path: string): string | undefined {
  const m = ws.mounts[0];
  const bytes = m.backend === 'store' ? m.store.get(path) : m.disk.get(path);
  return bytes ? dec.decode(bytes) : undefined;
}

async function ok(ws: ReturnType<typeof workspace>, name: string, input: unknown, resultMaxChars?: number) {
  const r = await handleToolCall(ws, { name, input, ...(resultMaxChars === undefined ? {} : { resultMaxChars }) });
  if (!r.success) throw new Error(r.error);
  return r.data as Record<string, unknown>;
}

async function refused(ws: ReturnType<typeof workspace>, name: string, input: unknown): Promise<string> {
  const r = await handleToolCall(ws, { name, input });
  if (r.success) throw new Error(`expected a refusal, got ${JSON.stringify(r.data)}`);
  return r.error;
}

/** What read shows of lines from..to, without numbers, as a model copies it. */
async function copied(ws: ReturnType<typeof workspace>, path: string, from: number, to: number): Promise<string> {
  const page = await ok(ws, 'read', { path, offset: from, limit: to - from + 1 });
  return (page.content as string)
    .split('\n')
    .map((l) => l.slice(l.indexOf('\t') + 1))
    .join('\n');
}

for (const backend of ['store', 'direct'] as const) {
  describe(`edit on a ${backend} mount`, () => {
    test('two lines copied from a read of a CRLF file with a BOM edit back; the file keeps CRLF and its BOM', async () => {
      const ws = workspace(backend, { 'w.bat': `${BOM}@echo off\r\nset A=1\r\nset B=2\r\necho done\r\n` });
      const old = await copied(ws, 'work/w.bat', 2, 3);
      const data = await ok(ws, 'edit', { path: 'work/w.bat', oldString: old, newString: 'set A=10\nset B=20\nset C=30' });
      expect(held(ws, 'w.bat')).toBe(`${BOM}@echo off\r\nset A=10\r\nset B=20\r\nset C=30\r\necho done\r\n`);
      expect(data).toEqual({ edits: [{ edit: 1, path: 'work/w.bat', replaced: 1, lines: '2-4' }] });
    });

    test('a line whose own text ends in a CR, copied from a read, edits the line it came from', async () => {
      const ws = workspace(backend, { 'own.txt': 'keep\r\nx\r\r\nx\r\n' });
      const old = await copied(ws, 'work/own.txt', 2, 2);
      expect(old).toBe('x\r\r');
      await ok(ws, 'edit', { path: 'work/own.txt', oldString: old, newString: 'y' });
      expect(held(ws, 'own.txt')).toBe('keep\r\ny\r\nx\r\n');
    });

    test('a file with mixed ends and a lone CR is left with exactly the expected bytes', async () => {
      const ws = workspace(backend, { 'm.cfg': 'a=1\r\nb=2\nc=\r3\r\n' });
      await ok(ws, 'edit_many', {
        edits: [
          { path: 'work/m.cfg', oldString: 'b=2\nc=\r3', newString: 'b=2\nbb=22\nc=\r3' },
          { path: 'work/m.cfg', oldString: 'a=1', newString: 'a=one' },
        ],
      });
      expect(held(ws, 'm.cfg')).toBe('a=one\r\nb=2\nbb=22\nc=\r3\r\n');
    });

    test('not found names the nearest line; not unique names the lines', async () => {
      const ws = workspace(backend, { 'a.ts': 'const a = 1;\nconst b = 2;\nconst b = 2;\n' });
      expect(await refused(ws, 'edit', { path: 'work/a.ts', oldString: 'const a = 2;', newString: 'x' })).toBe(
        'oldString was not found in work/a.ts. The nearest line is 1: "const a = 1;"; check whitespace and spelling, or read the file again.',
      );
      expect(await refused(ws, 'edit', { path: 'work/a.ts', oldString: 'const b = 2;', newString: 'x' })).toBe(
        'oldString occurs 2 times in work/a.ts, at lines 2 and 3; include more of the surrounding text to pick one, or set replaceAll to change every one.',
      );
    });

    test('an edit of an empty file says the file is empty', async () => {
      const ws = workspace(backend, { 'empty.txt': '\uFEFF' });
      expect(await refused(ws, 'edit', { path: 'work/empty.txt', oldString: 'x', newString: 'y' })).toBe(
        'oldString was not found in work/empty.txt, which is empty; use write to give it content.',
      );
    });

    test('replaceAll changes every occurrence and the receipt names each line', async () => {
      const ws = workspace(backend, { 'a.ts': 'b\nx\nb\nb\n' });
      const data = await ok(ws, 'edit', { path: 'work/a.ts', oldString: 'b', newString: 'c', replaceAll: true });
      expect(held(ws, 'a.ts')).toBe('c\nx\nc\nc\n');
      expect(data).toEqual({ edits: [{ edit: 1, path: 'work/a.ts', replaced: 3, lines: '1, 3-4' }] });
    });

    test('edit_many stores all or none across files, reporting every problem', async () => {
      const ws = workspace(backend, { 'a.txt': 'one\n', 'b.txt': 'two\n' });
      const error = await refused(ws, 'edit_many', {
        edits: [
          { path: 'work/a.txt', oldString: 'one', newString: 'ONE' },
          { path: 'work/b.txt', oldString: 'twoo', newString: 'THREE' },
          { path: 'work/c.txt', oldString: 'x', newString: 'y' },
        ],
      });
      expect(error).toBe(
        [
          'Nothing was stored: 2 problems.',
          "- Edit 2's oldString was not found in work/b.txt. The nearest line is 1: \"two\"; check whitespace and spelling, or read the file again.",
          '- Edit 3: work/c.txt does not exist. Did you mean work/a.txt or work/b.txt? To create a file, use write.',
        ].join('\n'),
      );
      expect(held(ws, 'a.txt')).toBe('one\n');
    });

    test('overlapping edits clash, naming both; the first 20 problems are named and the rest counted', async () => {
      const ws = workspace(backend, { 'x.txt': 'x'.repeat(100) });
      const edits = Array.from({ length: 30 }, () => ({ path: 'work/x.txt', oldString: 'x', newString: 'y', replaceAll: true }));
      const error = await refused(ws, 'edit_many', { edits });
      const lines = error.split('\n');
      expect(lines[0]).toBe('Nothing was stored: 29 problems.');
      expect(lines[1]).toBe('- Edits 1 and 2 both change text at line 1 of work/x.txt; edits are located in the file as it was before the call, so make them one edit.');
      expect(lines.length).toBe(1 + 20 + 1);
      expect(lines[21]).toBe('- and 9 more.');
      expect(held(ws, 'x.txt')).toBe('x'.repeat(100));
    });

    test('a file that is not valid UTF-8 is edited byte for byte: only the matched bytes change', async () => {
      // Latin-1 "café\r\n" and a stray byte, with CRLF ends.
      const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0d, 0x0a, 0x6f, 0x6b, 0x20, 0x80, 0x21, 0x0d, 0x0a]);
      const ws = workspace(backend, { 'bad.txt': latin1 });
      const page = await ok(ws, 'read', { path: 'work/bad.txt' });
      expect(page.note).toContain('lines 1, 2 hold byte sequences that are not UTF-8');
      await ok(ws, 'edit', { path: 'work/bad.txt', oldString: 'caf', newString: 'CAF' });
      await ok(ws, 'edit', { path: 'work/bad.txt', oldString: 'ok ', newString: 'fine\nOK ' });
      const m = ws.mounts[0];
      const bytes = m.backend === 'store' ? m.store.get('bad.txt') : m.disk.get('bad.txt');
      expect(Array.from(bytes!)).toEqual([0x43, 0x41, 0x46, 0xe9, 0x0d, 0x0a, ...new TextEncoder().encode('fine\r\nOK '), 0x80, 0x21, 0x0d, 0x0a]);
    });

    test('replaceAll and edit_many in a file that is not valid UTF-8 keep every byte they did not match', async () => {
      const bytes = new Uint8Array([0x78, 0xff, 0x78, 0x0a, 0xc3, 0x28, 0x78, 0x0a, 0x79]);
      const ws = workspace(backend, { 'bad.txt': bytes });
      await ok(ws, 'edit', { path: 'work/bad.txt', oldString: 'x', newString: 'é', replaceAll: true });
      await ok(ws, 'edit_many', { edits: [{ path: 'work/bad.txt', oldString: '(', newString: '[' }, { path: 'work/bad.txt', oldString: 'y', newString: 'z\nw' }] });
      const m = ws.mounts[0];
      const stored = m.backend === 'store' ? m.store.get('bad.txt') : m.disk.get('bad.txt');
      expect(Array.from(stored!)).toEqual([0xc3, 0xa9, 0xff, 0xc3, 0xa9, 0x0a, 0xc3, 0x5b, 0xc3, 0xa9, 0x0a, 0x7a, 0x0a, 0x77]);
    });

    test('an edit over a bad byte, or writing U+FFFD into such a file, is refused naming the line', async () => {
      const ws = workspace(backend, { 'bad.txt': new Uint8Array([0x61, 0x0a, 0x62, 0xff, 0x0a]) });
      expect(await refused(ws, 'edit', { path: 'work/bad.txt', oldString: 'b\uFFFD', newString: 'b?' })).toBe(
        'oldString matches text on line 2 of work/bad.txt that holds bytes that are not UTF-8 (shown as U+FFFD); ws keeps such bytes as they are and cannot write them from text. Edit around them: end oldString before the U+FFFD or begin it after.',
      );
      expect(await refused(ws, 'edit', { path: 'work/bad.txt', oldString: 'a', newString: '\uFFFD' })).toContain('newString holds U+FFFD');
      await ok(ws, 'write', { path: 'work/bad.txt', content: 'fine\n' });
      expect(held(ws, 'bad.txt')).toBe('fine\n');
    });

    test('a read-only mount refuses edits, writes and deletions with a sentence', async () => {
      const ws = workspace(backend, { 'a.txt': 'one\n' }, true);
      expect(await refused(ws, 'edit', { path: 'work/a.txt', oldString: 'one', newString: 'two' })).toBe(
        'Mount work is read-only; edit cannot change it. Change files in a mount that is not read-only.',
      );
      expect(await refused(ws, 'write', { path: 'work/a.txt', content: '' })).toContain('read-only; write cannot');
      expect(await refused(ws, 'delete', { path: 'work/a.txt' })).toContain('read-only; delete cannot');
      expect(held(ws, 'a.txt')).toBe('one\n');
    });

    test('a receipt is held to the budget, 24,000 where none is stated', async () => {
      const text = Array.from({ length: 3000 }, (_, i) => `row ${i} end`).join('\n');
      const ws = workspace(backend, { 'rows.txt': text });
      const edits = Array.from({ length: 3000 }, (_, i) => ({ path: 'work/rows.txt', oldString: `row ${i} end`, newString: `ROW ${i}` }));
      const whole = await ok(ws, 'edit_many', { edits });
      expect(jsonLength(whole)).toBeLessThanOrEqual(24_000);
      expect(whole.note).toBe(`All 3000 edits were stored; this receipt lists the first ${(whole.edits as unknown[]).length}. Read the files to see the rest.`);
      expect(fileText(held(ws, 'rows.txt') ?? '').lines[2999]).toBe('ROW 2999');
    });

    test('a commit is made with the bytes the edit was planned on: where they changed and oldString is gone, nothing is stored', async () => {
      const ws = workspace(backend, { 'a.txt': 'one\n' });
      const mount = ws.mounts[0];
      const commit = mount.commit.bind(mount);
      mount.commit = async (changes) => {
        mount.disk.set('a.txt', bytesOf('a person wrote this\n'));
        if (mount.backend === 'store') mount.store.set('a.txt', bytesOf('a person wrote this\n'));
        return commit(changes);
      };
      expect(await refused(ws, 'edit', { path: 'work/a.txt', oldString: 'one', newString: 'two' })).toBe(
        'work/a.txt changed while the call was being stored (someone saved), so it was planned again on the new text: oldString was not found in work/a.txt. Read the file again and copy the text exactly.',
      );
      expect(held(ws, 'a.txt')).toBe('a person wrote this\n');
    });
  });
}

describe('edits across mounts', () => {
  test('a refusal in a later mount takes the earlier mount’s changes back', async () => {
    const ws = memoryWorkspace([
      { name: 'a', backend: 'direct', files: { 'f.txt': 'one\n' } },
      { name: 'b', backend: 'store', files: { 'g.txt': 'two\n' } },
    ]);
    const b = ws.mounts[1];
    b.commit = async () => ({ ok: false, message: 'the store is locked.' });
    const r = await handleToolCall(ws, {
      name: 'edit_many',
      input: { edits: [{ path: 'a/f.txt', oldString: 'one', newString: 'ONE' }, { path: 'b/g.txt', oldString: 'two', newString: 'TWO' }] },
    });
    expect(r).toEqual({ success: false, error: 'Nothing was stored: the store is locked. The changes already stored in a were taken back.' });
    expect(dec.decode(ws.mounts[0].disk.get('f.txt'))).toBe('one\n');
  });

  test('a store-backed edit settles its path against disk first and says so in the receipt', async () => {
    const ws = memoryWorkspace([{ name: 'work', backend: 'store', files: { 'a.txt': 'one\n' } }]);
    ws.mounts[0].disk.set('a.txt', bytesOf('one\nextra\n'));
    const data = await ok(ws as never, 'edit', { path: 'work/a.txt', oldString: 'extra', newString: 'EXTRA' });
    expect(dec.decode(ws.mounts[0].store.get('a.txt') ?? new Uint8Array())).toBe('one\nEXTRA\n');
    expect(data.diskCheck).toEqual({ 'work/a.txt': ['The edit read the file first. Disk changed this file and the workspace had not: the change was taken in, so this read shows disk’s text.'] });
  });

  test('autoMaterialize pushes at once and the receipt carries the mount’s report', async () => {
    const ws = memoryWorkspace([{ name: 'work', backend: 'store', autoMaterialize: true, files: { 'a.txt': 'one\n' } }]);
    const data = await ok(ws as never, 'edit', { path: 'work/a.txt', oldString: 'one', newString: 'two' });
    expect(dec.decode(ws.mounts[0].disk.get('a.txt'))).toBe('two\n');
    expect(data.reports).toEqual({ work: { materialized: { written: ['work/a.txt'], unchanged: 0, deleted: [], skipped: [] } } });
  });
});
