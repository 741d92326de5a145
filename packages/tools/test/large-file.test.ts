import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { characterPage, characterPageOfSpan, linePage, linePageOfSpan } from '@ws/paging';
import { fileText } from '@ws/text';
import { characterSpan, lineSpan, type RangeReader } from '../src/large-file.ts';
import { handleToolCall } from '../src/index.ts';
import type { ReadOutcome } from '../src/workspace.ts';
import { memoryWorkspace } from './memory-workspace.ts';
import { runs } from './seed.ts';

const encoder = new TextEncoder();

/** A reader over `bytes` that hands out at most `pieces[i % n]` bytes per call, so stretches end anywhere (inside a CRLF, a pair, a UTF-8 sequence). */
function reader(bytes: Uint8Array, pieces: readonly number[]): RangeReader {
  let call = 0;
  return async (start, length) => bytes.slice(start, start + Math.min(length, pieces[call++ % pieces.length]));
}

const unit = fc.constantFrom('a', 'b', ' ', '\t', 'é', '\u{1F600}', '\r', '\uFFFD', 'z');
const line = fc.oneof(
  { weight: 6, arbitrary: fc.array(unit, { maxLength: 12 }).map((u) => u.join('')) },
  // Long lines, their pairs aligned either way against the 2,000-character cut.
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('', 'a', '\u{1F600}', 'ab'), fc.integer({ min: 990, max: 2300 }), unit).map(([lead, n, u]) => lead + u.repeat(n)),
  },
);
const end = fc.constantFrom('\n', '\r\n', '\r\r\n');
const file = fc
  .tuple(fc.boolean(), fc.array(fc.tuple(line, end), { maxLength: 30 }), fc.option(line, { nil: undefined }))
  .map(([bom, lines, last]) => (bom ? '\uFEFF' : '') + lines.map(([l, e]) => l + e).join('') + (last ?? ''));
const pieces = fc.array(fc.integer({ min: 1, max: 4096 }), { minLength: 1, maxLength: 5 });
const budget = fc.oneof(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 400, max: 24_000 }));

describe('a large file streamed in stretches pages exactly as the same bytes read whole', () => {
  test('line pages: the same page from every offset, at every budget, whatever the stretches', async () => {
    await fc.assert(
      fc.asyncProperty(file, pieces, budget, fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 3000 }), async (text, sizes, resultMaxChars, offset, limit) => {
        const bytes = encoder.encode(text);
        const ft = fileText(bytes);
        if (offset > Math.max(1, ft.lines.length)) offset = Math.max(1, ft.lines.length);
        const options = { path: 'work/big.log', offset, limit, resultMaxChars, notes: ['too large'] };
        const span = await lineSpan(bytes.length, reader(bytes, sizes), { offset, limit, budget: resultMaxChars, overhead: 21 });
        if (span === null) throw new Error('the reader never changes');
        expect(linePageOfSpan(span, options)).toEqual(linePage(ft, options));
      }),
      runs(300),
    );
  });

  test('character pages: the same page from every index, at every budget, whatever the stretches', async () => {
    await fc.assert(
      fc.asyncProperty(file, pieces, budget, fc.nat(), fc.integer({ min: 1, max: 70_000 }), async (text, sizes, resultMaxChars, at, limitChars) => {
        const bytes = encoder.encode(text);
        const ft = fileText(bytes);
        // A start inside a pair is refused alike; keep most starts on whole characters.
        const offsetChars = ft.text.length === 0 ? 0 : at % ft.text.length;
        const options = { path: 'work/big.log', offsetChars, limitChars, resultMaxChars, notes: ['too large'] };
        const span = await characterSpan(bytes.length, reader(bytes, sizes), offsetChars, limitChars, resultMaxChars);
        if (span === null) throw new Error('the reader never changes');
        let whole: unknown;
        let streamed: unknown;
        try {
          whole = characterPage(ft, options);
        } catch (err) {
          whole = (err as Error).message;
        }
        try {
          streamed = characterPageOfSpan(span, options);
        } catch (err) {
          streamed = (err as Error).message;
        }
        expect(streamed).toEqual(whole);
      }),
      runs(300),
    );
  });

  test('a span holds no more than the page can show: 200,000 short lines at a budget of 2,000 hold under a thousand', async () => {
    const bytes = encoder.encode('short line\n'.repeat(200_000));
    const span = await lineSpan(bytes.length, reader(bytes, [1 << 20]), { offset: 100_000, limit: 2000, budget: 2000 });
    expect(span?.totalLines).toBe(200_000);
    expect(span?.lines.length).toBeLessThan(1000);
    expect(span?.lines[0]).toBe('short line');
    expect(span?.starts[0]).toBe(99_999 * 11);
  });

  test('a file that is not UTF-8 carries the invalid-UTF-8 note, found while streaming', async () => {
    const bytes = new Uint8Array([...encoder.encode('ok\n'.repeat(1000)), 0xff, 0x0a, ...encoder.encode('ok\n')]);
    const span = await lineSpan(bytes.length, reader(bytes, [7]), { offset: 1, limit: 10, budget: 10_000 });
    expect(span?.textNotes.join(' ')).toContain('This file is not valid UTF-8');
    expect(span?.totalLines).toBe(1002);
  });

  test('whether a file is valid UTF-8 is found exactly, whatever the stretches split', async () => {
    const piece = fc.oneof(
      fc.constantFrom('a', 'é', '\u{1F600}', '\uFFFD', '\n', '\u20AC').map((t) => encoder.encode(t)),
      fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 3 }).map((b) => new Uint8Array(b)),
      fc.constantFrom(new Uint8Array([0xe2, 0x82]), new Uint8Array([0xf0, 0x9f, 0x98]), new Uint8Array([0xc3])),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 40 }), pieces, async (parts, sizes) => {
        const bytes = new Uint8Array(parts.flatMap((p) => [...p]));
        const span = await lineSpan(bytes.length, reader(bytes, sizes.map((n) => 1 + (n % 7))), { offset: 1, limit: 1, budget: 1000 });
        const flagged = (span?.textNotes ?? []).some((n) => n.startsWith('This file is not valid UTF-8'));
        expect(flagged).toBe(!fileText(bytes).validUtf8);
        expect(span?.totalLines).toBe(fileText(bytes).lines.length);
      }),
      runs(2000),
    );
  });

  test('a file that changes between two stretches is reported (null), never paged from two versions', async () => {
    const bytes = encoder.encode('x\n'.repeat(10_000));
    let calls = 0;
    const changing: RangeReader = async (start, length) => (++calls === 2 ? null : bytes.slice(start, start + Math.min(length, 4096)));
    expect(await lineSpan(bytes.length, changing, { offset: 1, limit: 10, budget: 1000 })).toBeNull();
    calls = 0;
    expect(await characterSpan(bytes.length, changing, 0, 10, 1000)).toBeNull();
    // A file that shrank answers fewer bytes than its size promised: changed too.
    expect(await lineSpan(bytes.length + 10, reader(bytes, [1 << 20]), { offset: 1, limit: 10, budget: 1000 })).toBeNull();
  });
});

describe('read, edit and move of a mount\'s large file', () => {
  /** A workspace whose `work/big.log` is large: `changeAt` makes that call of `range` answer null (the file changed). */
  function workspace(text: string, changeAt = 0) {
    const ws = memoryWorkspace([{ name: 'work', backend: 'direct', maxFileSize: 4, files: { 's.txt': 'ok' } }]);
    const bytes = encoder.encode(text);
    const mount = ws.mounts[0];
    const read = mount.read.bind(mount);
    let calls = 0;
    mount.read = async (path: string): Promise<ReadOutcome> =>
      path === 'big.log'
        ? { kind: 'large', size: bytes.length, notes: [], range: async (start, length) => (++calls === changeAt ? null : bytes.slice(start, start + length)) }
        : read(path);
    return ws;
  }

  test('a page carries the large-file note after the text notes, and continues across the file', async () => {
    const r = await handleToolCall(workspace('a\r\nb\r\nc\r\n'), { name: 'read', input: { path: 'work/big.log', limit: 2 } });
    expect(r).toEqual({
      success: true,
      data: {
        path: 'work/big.log',
        totalLines: 3,
        fromLine: 1,
        toLine: 2,
        note:
          "This file has CRLF line ends; lines are shown without their CR. This file is 9 bytes, over the mount's limit of 4: it is paged straight from disk, read-only, and is too large to store or edit. Stopped at the line limit; continue with offset=3.",
        content: '1\ta\n2\tb',
      },
    });
  });

  test('a file that changed while its page streamed is refused with the sentence', async () => {
    const r = await handleToolCall(workspace('x\n'.repeat(10), 1), { name: 'read', input: { path: 'work/big.log' } });
    expect(r).toEqual({ success: false, error: 'work/big.log changed on disk while it was read; read it again.' });
  });

  test('edit and move refuse it, naming why', async () => {
    const ws = workspace('x\n'.repeat(10));
    expect(await handleToolCall(ws, { name: 'edit', input: { path: 'work/big.log', oldString: 'x', newString: 'y', replaceAll: true } })).toEqual({
      success: false,
      error: "work/big.log is 20 bytes, over the mount's limit of 4: read pages it straight from disk, but it is too large to store or edit.",
    });
    const moved = await handleToolCall(ws, { name: 'move', input: { from: 'work/big.log', to: 'work/b.log' } });
    expect(moved.success).toBe(false);
    expect(!moved.success && moved.error).toContain("work/big.log (is 20 bytes, over the mount's limit: too large to store or edit)");
  });
});
