import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { handleToolCall } from '../src/index.ts';
import { memoryWorkspace } from './memory-workspace.ts';
import { runs } from './seed.ts';

type Page = { data: Record<string, unknown> & { note?: string } };

async function grep(ws: Parameters<typeof handleToolCall>[0], input: Record<string, unknown>, resultMaxChars?: number): Promise<Page['data']> {
  const r = await handleToolCall(ws, { name: 'grep', input, ...(resultMaxChars === undefined ? {} : { resultMaxChars }) });
  if (!r.success) throw new Error(r.error);
  return r.data as Page['data'];
}

/** Every page from offset 0, following only the notes. */
async function walk(ws: Parameters<typeof handleToolCall>[0], input: Record<string, unknown>, budget: number): Promise<Page['data'][]> {
  const pages: Page['data'][] = [];
  let offset = 0;
  for (;;) {
    const page = await grep(ws, { ...input, offset }, budget);
    pages.push(page);
    const next = page.note?.match(/continue with offset=(\d+)/);
    if (!next) return pages;
    offset = Number(next[1]);
    if (pages.length > 10_000) throw new Error('the walk does not end');
  }
}

/** The same files twice: once under the size limit (searched whole), once over it (searched in stretches of `stretch` bytes). */
function pair(files: Record<string, string>, stretch: number) {
  const whole = memoryWorkspace([{ name: 'work', backend: 'direct', files }]);
  const large = memoryWorkspace([{ name: 'work', backend: 'direct', maxFileSize: 100, files }]);
  return { whole, large: { ...large, grep: { stretch: { bytes: stretch, longestLine: 1 << 20 } } } };
}

describe('grep pages of a file over the size limit are the pages of the same file searched whole', () => {
  test('content (with context across the cuts), files and count, at budgets from 1,000 to 24,000, following the notes', async () => {
    const line = fc.constantFrom('INFO ok', 'ERROR disk full', 'WARN ERROR?', '', 'debug', 'é ERROR 😀');
    const text = fc
      .tuple(fc.array(line, { minLength: 1, maxLength: 400, size: 'max' }), fc.constantFrom('\n', '\r\n'))
      .map(([ls, end]) => ls.join(end) + end);
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 1000, max: 24_000 }), fc.constantFrom('content', 'files', 'count'), fc.nat(2), fc.integer({ min: 80, max: 600 }), async (log, budget, output, context, stretch) => {
        // Lines of at most 17 bytes: a stretch read 80 at a time holds at least 3, so 2 lines of context always reach.
        const { whole, large } = pair({ 'app.log': log, 'b.txt': 'ERROR in b\n' }, stretch);
        const input = { pattern: 'ERROR', output, contextBefore: context, contextAfter: context };
        expect(await walk(large, input, budget)).toEqual(await walk(whole, input, budget));
      }),
      runs(60),
    );
  });

  test('long lines (longer than a stretch) show the same windows around their match', async () => {
    const line = fc.oneof(
      fc.constantFrom('short ERROR', 'plain'),
      fc.tuple(fc.integer({ min: 0, max: 6000 }), fc.integer({ min: 0, max: 6000 })).map(([a, b]) => `${'a'.repeat(a)}ERROR${'b'.repeat(b)}`),
    );
    const text = fc.array(line, { minLength: 1, maxLength: 30 }).map((ls) => ls.join('\n') + '\n');
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 1000, max: 24_000 }), fc.integer({ min: 64, max: 4096 }), async (log, budget, stretch) => {
        const { whole, large } = pair({ 'app.log': log }, stretch);
        expect(await walk(large, { pattern: 'ERROR' }, budget)).toEqual(await walk(whole, { pattern: 'ERROR' }, budget));
      }),
      runs(40),
    );
  });

  test('offset continuation walks a large file’s matches exactly once, across many stretches', async () => {
    const log = Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? `hit ${i + 1}` : `miss ${i + 1}`)).join('\n') + '\n';
    const { large } = pair({ 'app.log': log }, 256);
    const pages = await walk(large, { pattern: 'hit' }, 2000);
    const lines = pages.flatMap((p) => (p.results as { matches: { line: number; text: string }[] }[]).flatMap((r) => r.matches.map((m) => m.line)));
    expect(lines).toEqual(Array.from({ length: 1000 }, (_, i) => 3 * i + 1));
    expect(pages.length).toBeGreaterThan(5);
    expect(pages.every((p) => p.totalMatches === 1000)).toBe(true);
  });

  test('multiline over a large file is skipped with one sentence, the rest searched', async () => {
    const { large } = pair({ 'app.log': 'a\nb\n'.repeat(100), 'b.txt': 'a\nb\n' }, 256);
    const a = await grep(large, { pattern: 'a\\nb', multiline: true });
    expect(a.totalMatches).toBe(2);
    expect(a.skipped).toEqual([{ reason: expect.stringContaining('search it without multiline'), count: 1, paths: ['work/app.log'] }]);
  });
});
