/**
 * Byte-exact edits: for random bytes, valid UTF-8 or not, an edit of a span that holds
 * no bad byte stores the original bytes with exactly the matched span replaced.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { fileText } from '@ws/text';
import { handleToolCall } from '../src/index.ts';
import { memoryWorkspace } from './memory-workspace.ts';
import { runs } from './seed.ts';

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { ignoreBOM: true });

const piece = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 6 }).map((s) => Array.from(enc.encode(s))) },
  { weight: 2, arbitrary: fc.constantFrom([0x0a], [0x0d, 0x0a], [0x0d], [0xef, 0xbb, 0xbf], [0xc3, 0xa9], [0xf0, 0x9f, 0x98, 0x80], [0xef, 0xbf, 0xbd]) },
  { weight: 1, arbitrary: fc.constantFrom([0x80], [0xff], [0xe9], [0xc0, 0xaf], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]) },
);
const fileBytes = fc.array(piece, { minLength: 1, maxLength: 24 }).map((p) => new Uint8Array(p.flat()));
const newText = fc.string({ maxLength: 8 }).filter((s) => !/[\r\n\uFFFD]/.test(s) && s.isWellFormed());

/** The byte offset where text index `k` begins, found by brute force: both halves decode to the text's halves. */
function byteAt(bytes: Uint8Array, text: string, k: number): number {
  for (let b = 0; b <= bytes.length; b++) {
    if (dec.decode(bytes.subarray(0, b)) === text.slice(0, k) && dec.decode(bytes.subarray(b)) === text.slice(k)) return b;
  }
  throw new Error(`no byte offset for text index ${k}`);
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

describe('byte-exact edits', () => {
  for (const backend of ['store', 'direct'] as const) {
    test(`on a ${backend} mount, the result is the original bytes with exactly the matched span replaced`, async () => {
      let edited = 0;
      await fc.assert(
        fc.asyncProperty(fileBytes, fc.nat(), fc.nat(), fc.nat(), newText, async (bytes, lineSeed, startSeed, lengthSeed, newString) => {
          const ft = fileText(bytes);
          if (ft.lines.length === 0) return;
          const line = lineSeed % ft.lines.length;
          const own = ft.lines[line];
          let start = startSeed % (own.length + 1);
          let end = Math.min(own.length, start + 1 + (lengthSeed % 6));
          if (start > 0 && isLow(own.charCodeAt(start))) start--;
          if (end < own.length && isLow(own.charCodeAt(end))) end++;
          const oldString = own.slice(start, end);
          const t0 = ft.starts[line] + start;
          const t1 = ft.starts[line] + end;
          // Only spans the edit can take: text without a CR (line ends stay out of it), without a bad byte, found once.
          if (oldString === '' || oldString === newString || oldString.includes('\r')) return;
          if (ft.invalidAt.some((i) => i >= t0 && i < t1)) return;
          const view = ft.lines.join('\n');
          if (view.indexOf(oldString) !== view.lastIndexOf(oldString)) return;
          const ws = memoryWorkspace([{ name: 'work', backend, files: { 'f.txt': bytes } }]);
          const r = await handleToolCall(ws, { name: 'edit', input: { path: 'work/f.txt', oldString, newString } });
          expect(r).toMatchObject({ success: true });
          const m = ws.mounts[0];
          const stored = backend === 'store' ? m.store.get('f.txt')! : m.disk.get('f.txt')!;
          const b0 = byteAt(bytes, ft.text, t0);
          const b1 = byteAt(bytes, ft.text, t1);
          expect(Array.from(stored)).toEqual([...bytes.subarray(0, b0), ...enc.encode(newString), ...bytes.subarray(b1)]);
          edited++;
        }),
        runs(400),
      );
      expect(edited).toBeGreaterThan(50);
    });
  }
});
