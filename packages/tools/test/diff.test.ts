import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { handleToolCall, hunksOf, linesChanged, matchLines } from '../src/index.ts';
import { diffOffsetPast, notOnThisMount } from '../src/errors.ts';
import { MAX_COST } from '../src/line-diff.ts';
import { type Hunk } from '../src/hunks.ts';
import { lcsLength } from './lcs-table.ts';
import { bytesOf, memoryWorkspace } from './memory-workspace.ts';
import { runs } from './seed.ts';

/** Applies hunks to `a` as `patch` would, checking every context and removed line against `a`. */
function apply(a: readonly string[], hunks: readonly Hunk[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const h of hunks) {
    while (at < h.aStart) out.push(a[at++]);
    for (const line of h.lines) {
      const [mark, text] = [line[0], line.slice(1)];
      if (mark === '+') out.push(text);
      else {
        expect(a[at]).toBe(text);
        at++;
        if (mark === ' ') out.push(text);
      }
    }
  }
  while (at < a.length) out.push(a[at++]);
  return out;
}

const lines = fc.array(fc.constantFrom('a', 'b', 'c', '', '}', 'x y'), { maxLength: 40 });

describe('line matching and hunks', () => {
  test('hunks turn the first text into the second, and the matching is a longest common subsequence', () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const hunks = hunksOf(a, b);
        expect(apply(a, hunks)).toEqual(b);
        const m = matchLines(a, b);
        expect(m.a.length).toBe(lcsLength(a, b));
        for (let k = 0; k < m.a.length; k++) {
          expect(a[m.a[k]]).toBe(b[m.b[k]]);
          if (k > 0) expect(m.a[k] > m.a[k - 1] && m.b[k] > m.b[k - 1]).toBe(true);
        }
        expect(linesChanged(a, b)).toBe(a.length + b.length - 2 * m.a.length);
        for (const h of hunks) expect(h.lines.length).toBeGreaterThan(0);
      }),
      runs(3000),
    );
  });

  test('each hunk has three lines of context, and changes closer than six lines share one', () => {
    const a = Array.from({ length: 40 }, (_, i) => `l${i}`);
    const b = a.map((l, i) => (i === 10 || i === 16 || i === 30 ? `${l}!` : l));
    const hunks = hunksOf(a, b);
    expect(hunks.map((h) => [h.aStart, h.aLength, h.bStart, h.bLength])).toEqual([[7, 13, 7, 13], [27, 7, 27, 7]]);
    expect(hunks[1].lines).toEqual([' l27', ' l28', ' l29', '-l30', '+l30!', ' l31', ' l32', ' l33']);
  });

  test('a 10,000-line file with 100 scattered changes gives 100 hunks that rebuild it', () => {
    const a = Array.from({ length: 10_000 }, (_, i) => `  const value${i % 113} = compute(${i % 7});`);
    const b = a.map((l, i) => (i % 100 === 50 ? `${l} // changed` : l));
    const hunks = hunksOf(a, b);
    expect(hunks).toHaveLength(100);
    expect(apply(a, hunks)).toEqual(b);
  });

  test('past the cost limit a region is shown replaced whole: still a valid diff', () => {
    // A shuffle of shared lines: the search would cost far more than MAX_COST edits.
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    const a = Array.from({ length: 4 * MAX_COST }, (_, i) => `line ${i}`);
    const b = [...a];
    for (let i = b.length - 1; i > 0; i--) {
      const j = next() % (i + 1);
      [b[i], b[j]] = [b[j], b[i]];
    }
    expect(apply(a, hunksOf(a, b))).toEqual(b);
  });
});

function store(files: Record<string, string | Uint8Array>) {
  return memoryWorkspace([{ name: 'work', backend: 'store', files }]);
}

async function data(ws: ReturnType<typeof store>, name: string, input: unknown, resultMaxChars?: number) {
  const r = await handleToolCall(ws, { name, input, ...(resultMaxChars === undefined ? {} : { resultMaxChars }) });
  if (!r.success) throw new Error(r.error);
  return r.data as { diff: string; note?: string };
}

describe('the diff tool', () => {
  test('a CRLF-only difference and a BOM difference are notes, not every line changed', async () => {
    const ws = store({ 'a.txt': 'one\r\ntwo\r\n', 'b.txt': '\uFEFFx\n' });
    await handleToolCall(ws, { name: 'write', input: { path: 'work/a.txt', content: 'one\ntwo\n' } });
    await handleToolCall(ws, { name: 'write', input: { path: 'work/b.txt', content: 'x\n' } });
    expect(await data(ws, 'diff', {})).toEqual({
      diff: '',
      note: 'work/a.txt: disk’s copy has CRLF line ends and the workspace’s copy LF line ends; lines are compared without their line ends. work/b.txt: disk’s copy starts with a UTF-8 BOM and the workspace’s copy does not.',
    });
  });

  test('a conflict with no agreed version compares the workspace with disk, and says why', async () => {
    const ws = store({});
    await handleToolCall(ws, { name: 'write', input: { path: 'work/n.txt', content: 'mine\n' } });
    ws.mounts[0].disk.set('n.txt', bytesOf('theirs\n'));
    ws.mounts[0].written.delete('n.txt');
    const d = await data(ws, 'diff', { path: 'work/n.txt' });
    expect(d.diff).toBe('--- work/n.txt (disk)\n+++ work/n.txt (workspace)\n@@ -1,1 +1,1 @@\n-theirs\n+mine');
    expect(d.note).toContain('no version disk and the workspace agreed on');
  });

  test('a binary side is named, not compared', async () => {
    const ws = store({ 'a.txt': 'text\n' });
    await handleToolCall(ws, { name: 'write', input: { path: 'work/a.txt', content: 'new\n' } });
    ws.mounts[0].disk.set('a.txt', new Uint8Array([0, 1, 2]));
    const d = await data(ws, 'diff', { path: 'work/a.txt' });
    expect(d.note).toContain('work/a.txt: disk’s copy is a binary file (3 bytes); it is not compared as lines.');
  });

  test('offset past the last hunk, or a path and a mount together, are refused', async () => {
    const ws = store({ 'a.txt': 'a\n' });
    await handleToolCall(ws, { name: 'write', input: { path: 'work/a.txt', content: 'b\n' } });
    expect(await handleToolCall(ws, { name: 'diff', input: { offset: 3 } })).toEqual({ success: false, error: diffOffsetPast(3, 1) });
    expect(await handleToolCall(ws, { name: 'diff', input: { path: 'work/a.txt', mount: 'work' } })).toMatchObject({ success: false });
  });

  test('a store-backed mount without the draft methods gets one sentence', async () => {
    const ws = store({ 'a.txt': 'a\n' });
    const bare = Object.create(ws.mounts[0], { drafts: { value: undefined }, readVersion: { value: undefined } });
    expect(await handleToolCall({ mounts: [bare], hasDirectMount: false }, { name: 'diff', input: {} })).toEqual({ success: false, error: notOnThisMount('work', 'diff') });
  });

  test('a 10,000-line draft with 100 changes pages its hunks within the budget, continuing by offset', async () => {
    const text = Array.from({ length: 10_000 }, (_, i) => `row ${i}`).join('\n') + '\n';
    const ws = store({ 'big.txt': text });
    const changed = text.split('\n').map((l, i) => (i % 100 === 7 ? `${l}!` : l)).join('\n');
    await handleToolCall(ws, { name: 'write', input: { path: 'work/big.txt', content: changed } });
    const whole = await data(ws, 'diff', { path: 'work/big.txt' });
    const headers = (d: string) => d.split('\n').filter((l) => l.startsWith('@@'));
    expect(headers(whole.diff)).toHaveLength(100);
    const seen: string[] = [];
    let offset: number | undefined = 1;
    let pages = 0;
    while (offset !== undefined) {
      const page: { diff: string; note?: string } = await data(ws, 'diff', { path: 'work/big.txt', offset }, 2_000);
      expect(JSON.stringify(page).length).toBeLessThanOrEqual(2_000);
      expect(page.diff.startsWith('--- work/big.txt (disk)\n+++ work/big.txt (workspace)\n@@')).toBe(true);
      seen.push(...headers(page.diff));
      const next = /continue with offset=(\d+)/.exec(page.note ?? '');
      offset = next ? Number(next[1]) : undefined;
      pages++;
    }
    expect(seen).toEqual(headers(whole.diff));
    expect(pages).toBeGreaterThan(5);
  });

  test('a hunk longer than the budget is cut and says where to read on', async () => {
    const ws = store({ 'a.txt': 'x\n' });
    await handleToolCall(ws, { name: 'write', input: { path: 'work/a.txt', content: Array.from({ length: 200 }, (_, i) => `new ${i}`).join('\n') } });
    const page = await data(ws, 'diff', {}, 500);
    expect(JSON.stringify(page).length).toBeLessThanOrEqual(500);
    expect(page.note).toMatch(/Hunk 1 is cut to fit: \d+ of its 201 lines shown; read work\/a.txt from offset=\d+ for the rest\.$/);
  });

  test('a 60,000-character changed line under a 1,000-character budget is cut to fit', async () => {
    const long = 'é😀"\\'.repeat(15_000);
    const ws = store({ 'long.txt': `a\n${long}\nb\n` });
    await handleToolCall(ws, { name: 'edit', input: { path: 'work/long.txt', oldString: 'a\n', newString: 'A\n' } });
    const page = await data(ws, 'diff', {}, 1_000);
    expect(JSON.stringify(page).length).toBeLessThanOrEqual(1_000);
    expect(page.diff).toContain('-a\n+A\n');
    expect(page.note).toContain('Hunk 1 is cut to fit');
    expect(page.diff.isWellFormed()).toBe(true);
  });

  test('a deletion and a creation show against nothing', async () => {
    const ws = store({ 'gone.txt': 'bye\n' });
    await handleToolCall(ws, { name: 'delete', input: { path: 'work/gone.txt' } });
    await handleToolCall(ws, { name: 'write', input: { path: 'work/made.txt', content: 'hi\n' } });
    expect((await data(ws, 'diff', {})).diff).toBe(
      '--- work/gone.txt (disk)\n+++ work/gone.txt (workspace: none)\n@@ -1,1 +0,0 @@\n-bye\n--- work/made.txt (disk: none)\n+++ work/made.txt (workspace)\n@@ -0,0 +1,1 @@\n+hi',
    );
  });
});
