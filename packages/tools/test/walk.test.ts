/**
 * Walks that follow only the notes, as an agent does: grep in each mode, ls and glob,
 * from offset 0 until a page says nothing more follows. Every result is shown exactly
 * once, in order; every page is within its budget; every page but the last is at least
 * 90% full, or the next result would not have fit. WS_SEED fixes the run.
 */
import { describe, expect, test } from 'bun:test';
import { fileText, jsonLength } from '@ws/text';
import fc from 'fast-check';
import { handleToolCall } from '../src/index.ts';
import { memoryWorkspace } from './memory-workspace.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });

const CONTINUE = /continue with offset=(\d+)\./;
/** How much a note's own digits may differ between a page and the page one result longer. */
const NOTE_DIGITS = 8;

type Data = Record<string, unknown> & { note?: string };

async function call(ws: Parameters<typeof handleToolCall>[0], name: string, input: object, budget: number): Promise<Data> {
  const r = await handleToolCall(ws, { name, input, resultMaxChars: budget });
  if (!r.success) throw new Error(r.error);
  return r.data as Data;
}

/**
 * Follows a listing's notes from offset 0. `items(page)` gives each page's results in
 * order, with what each would add to a page (its JSON and a comma, and its file's head
 * where it starts one). Returns every result shown, checking the pages on the way.
 */
async function walk<T>(fetch: (offset: number) => Promise<Data>, items: (page: Data) => { item: T; cost: number; narrowed?: boolean }[], budget: number): Promise<T[]> {
  const seen: T[] = [];
  let offset = 0;
  let previous: { length: number } | undefined;
  for (let pages = 0; ; pages++) {
    expect(pages).toBeLessThan(100_000);
    const page = await fetch(offset);
    const length = jsonLength(page);
    expect(length).toBeLessThanOrEqual(budget);
    const shown = items(page);
    if (previous !== undefined && shown.length > 0 && !shown[0].narrowed) {
      // The page before this one stopped: full to 90%, or this page's first result would not have fit.
      // (A first result narrowed to fit — the floor — did not fit the page before in its full form.)
      const fits = previous.length + shown[0].cost <= budget - NOTE_DIGITS;
      expect(previous.length >= 0.9 * budget || !fits).toBe(true);
    }
    seen.push(...shown.map((s) => s.item));
    const next = CONTINUE.exec(page.note ?? '');
    if (next === null) {
      if (offset > 0) expect(page.note).toContain('nothing more follows');
      return seen;
    }
    expect(Number(next[1])).toBe(offset + shown.length);
    expect(shown.length).toBeGreaterThan(0);
    offset = Number(next[1]);
    previous = { length };
  }
}

// Generated trees: files with many matches, long lines with the match deep inside, CRLF
// ends, binary files and files with no match.
const word = fc.constantFrom('hit', 'miss', 'x', ' ', 'é', '"q"', '\\', '\t', 'return', 'hitch');
const line = fc.oneof(
  { weight: 12, arbitrary: fc.array(word, { maxLength: 12 }).map((ws) => ws.join('')) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1000, max: 9000 }), fc.integer({ min: 0, max: 4000 })).map(([n, at]) => `${'a'.repeat(at)}hit${'b'.repeat(n)}`) },
);
const textFile = fc
  .tuple(fc.array(line, { maxLength: 120 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
  .map(([ls, end, last]) => ls.join(end) + (last ? end : ''));
const file = fc.oneof(
  { weight: 10, arbitrary: textFile },
  { weight: 1, arbitrary: fc.constant(new Uint8Array([104, 105, 116, 0, 1])) },
  { weight: 2, arbitrary: fc.constant('nothing here\n') },
);
const tree = fc
  .array(file, { minLength: 1, maxLength: 30 })
  .map((fs) => Object.fromEntries(fs.map((f, i) => [`d${i % 3}/f${String(i).padStart(2, '0')}.txt`, f])));
const budget = fc.oneof(fc.integer({ min: 1000, max: 3000 }), fc.integer({ min: 1000, max: 24_000 }));

/** Every matching line, as `path:line`, from the files themselves. */
function expectedLines(files: Record<string, string | Uint8Array>): string[] {
  const out: string[] = [];
  for (const path of Object.keys(files).sort()) {
    const f = files[path];
    if (typeof f !== 'string') continue;
    fileText(f).lines.forEach((l, k) => {
      if (/hit/.test(l)) out.push(`work/${path}:${k + 1}`);
    });
  }
  return out;
}

type Results = { path: string; matches: { line: number; text: string; before?: string[]; after?: string[] }[] }[];

describe('grep walks that follow only the notes', () => {
  test('content: every matching line exactly once, in order, pages within budget and full', async () => {
    await fc.assert(
      fc.asyncProperty(tree, budget, fc.constantFrom(0, 0, 1, 3), async (files, max, context) => {
        const ws = memoryWorkspace([{ name: 'work', backend: 'direct', files }]);
        const input = { pattern: 'hit', contextBefore: context, contextAfter: context };
        const seen = await walk(
          (offset) => call(ws, 'grep', { ...input, offset }, max),
          (page) => {
            const out: { item: string; cost: number; narrowed?: boolean }[] = [];
            const floor = /The context of line \d+ was left out/.test(page.note ?? '');
            for (const f of page.results as Results) {
              f.matches.forEach((m, i) => {
                const head = i === 0 ? jsonLength({ ...f, matches: [] }) + 1 : 0;
                const window = m.text.replace(/\[… read the (start|rest) with offsetChars=\d+ and limitChars=\d+( …)?\]/g, '');
                const narrowed = floor || (window.length < 2000 && window.length !== m.text.length);
                out.push({ item: `${f.path}:${m.line}`, cost: jsonLength(m) + 1 + head, narrowed });
                expect(m.text.length).toBeLessThanOrEqual(2200);
              });
            }
            return out;
          },
          max,
        );
        expect(seen).toEqual(expectedLines(files));
      }),
      params(120),
    );
  }, 300_000);

  test('files and count: every file with a match exactly once, with its count', async () => {
    await fc.assert(
      fc.asyncProperty(tree, fc.integer({ min: 1000, max: 2000 }), fc.constantFrom('files', 'count'), async (files, max, output) => {
        // Many files, so the pages are more than one.
        const many = Object.fromEntries(Array.from({ length: 8 }, (_, k) => Object.entries(files).map(([p, f]) => [`c${k}/${p}`, f])).flat());
        const ws = memoryWorkspace([{ name: 'work', backend: 'store', files: many }]);
        const seen = await walk(
          (offset) => call(ws, 'grep', { pattern: 'hit', output, offset }, max),
          (page) =>
            output === 'files'
              ? (page.files as { path: string; matches: number }[]).map((f) => ({ item: `${f.path}=${f.matches}`, cost: jsonLength(f) + 1 }))
              : Object.entries(page.counts as Record<string, number>).map(([p, n]) => ({ item: `${p}=${n}`, cost: jsonLength(p) + jsonLength(n) + 2 })),
          max,
        );
        const counts = new Map<string, number>();
        for (const l of expectedLines(many)) {
          const p = l.slice(0, l.lastIndexOf(':'));
          counts.set(p, (counts.get(p) ?? 0) + 1);
        }
        expect(seen).toEqual([...counts].map(([p, n]) => `${p}=${n}`));
      }),
      params(40),
    );
  }, 300_000);
});

describe('ls and glob walks over a 20,000-entry directory', () => {
  const files = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`big/entry-${String(i).padStart(5, '0')}.txt`, 'x']));
  const ws = memoryWorkspace([{ name: 'work', backend: 'direct', files }]);
  const all = Object.keys(files).sort().map((p) => `work/${p}`);

  for (const max of [2500, 24_000]) {
    test(`ls at ${max}: every entry exactly once, pages full`, async () => {
      const seen = await walk(
        (offset) => call(ws, 'ls', { path: 'work/big', offset }, max),
        (page) => (page.entries as { path: string }[]).map((e) => ({ item: e.path, cost: jsonLength(e) + 1 })),
        max,
      );
      expect(seen).toEqual(all);
    }, 120_000);

    test(`glob at ${max}: every file exactly once, pages full`, async () => {
      const seen = await walk(
        (offset) => call(ws, 'glob', { pattern: 'work/big/*.txt', offset }, max),
        (page) => (page.files as string[]).map((f) => ({ item: f, cost: jsonLength(f) + 1 })),
        max,
      );
      expect(seen).toEqual(all);
    }, 120_000);
  }
});
