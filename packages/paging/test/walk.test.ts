import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { type FileText, fileText } from '@ws/text';
import { type CharacterPage, type LinePage, characterPage, linePage } from '../src/index.ts';
import { characterStopNote } from '../src/notes.ts';
import { callerNotes, generatedFile, runs, seed } from './generated-files.ts';
import { referenceLinePage } from './longest-page-reference.ts';

const PATH = 'work/walked.txt';
const MARKER = /^([\s\S]*)\[… read the rest with offsetChars=(\d+) and limitChars=(\d+)\]$/;
const NEXT_LINE = /\boffset=(\d+)/g;
const CUT_REST = /offsetChars=(\d+) and limitChars=(\d+)/g;
const CHARACTER_REST = /read the rest of what you asked for with offsetChars=(\d+) and limitChars=(\d+)/g;

let linePages = 0;
let characterPages = 0;

/** Budgets from 60 to 24,000, with small ones (where floors and cuts happen) drawn often. */
const budget = fc.oneof(
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 600 }) },
  { weight: 2, arbitrary: fc.integer({ min: 60, max: 3000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 24_000 }) },
);

function length(page: LinePage | CharacterPage): number {
  return JSON.stringify(page).length;
}

function matches(re: RegExp, s: string | undefined): number[][] {
  return [...(s ?? '').matchAll(re)].map((m) => m.slice(1).map(Number));
}

function splitsPair(text: string, i: number): boolean {
  const before = text.charCodeAt(i - 1);
  const after = text.charCodeAt(i);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}

/**
 * Reads `text` from `offsetChars` for `limitChars` with character pages, following only
 * their notes, and checks every page on the way. Returns the text read.
 */
function followCharacterPages(ft: FileText, offsetChars: number, limitChars: number, resultMaxChars: number | undefined, notes: readonly string[] = []): string {
  const { text } = ft;
  let end = Math.min(text.length, offsetChars + limitChars);
  if (splitsPair(text, end)) end++;
  let read = '';
  let request: { offsetChars: number; limitChars: number } | null = { offsetChars, limitChars };
  while (request !== null) {
    const page = characterPage(ft, { path: PATH, ...request, resultMaxChars, notes });
    characterPages++;
    expect(page.offsetChars).toBe(request.offsetChars);
    expect(page.totalChars).toBe(text.length);
    expect(page.content).toBe(text.slice(page.offsetChars, page.nextOffsetChars));
    expect(page.nextOffsetChars).toBeGreaterThan(page.offsetChars);
    expect(splitsPair(text, page.nextOffsetChars)).toBe(false);
    if (resultMaxChars !== undefined && length(page) > resultMaxChars) {
      // The floor: one whole character, or the whole of what is left if that is no longer.
      const oneCharacter = page.content.length === 1 || (page.content.length === 2 && splitsPair(page.content, 1));
      expect(oneCharacter || page.nextOffsetChars === end).toBe(true);
    }
    read += page.content;
    const rests = matches(CHARACTER_REST, page.note);
    if (rests.length === 1 && resultMaxChars !== undefined && length(page) <= resultMaxChars) {
      // It stopped for the budget: the page one character longer, with its own note, would pass it.
      const stop = characterStopNote({ offsetChars: rests[0][0], limitChars: rests[0][1] });
      const carried = (page.note ?? '').slice(0, -stop.length).trimEnd();
      const more = page.nextOffsetChars + (splitsPair(text, page.nextOffsetChars + 1) ? 2 : 1);
      const note = [carried, more === end ? '' : characterStopNote({ offsetChars: more, limitChars: end - more })].filter((n) => n !== '').join(' ');
      const { path, totalChars, offsetChars } = page;
      const content = text.slice(offsetChars, more);
      const longer = note === '' ? { path, totalChars, offsetChars, nextOffsetChars: more, content } : { path, totalChars, offsetChars, nextOffsetChars: more, note, content };
      expect(length(longer)).toBeGreaterThan(resultMaxChars);
    }
    expect(rests.length).toBeLessThanOrEqual(1);
    if (rests.length === 1) {
      const [x, m] = rests[0];
      expect(x).toBe(page.nextOffsetChars);
      expect(x + m).toBe(end);
      request = { offsetChars: x, limitChars: m };
    } else {
      expect(page.nextOffsetChars).toBe(end);
      request = null;
    }
  }
  return read;
}

/** Walks a file with line pages from line 1, following only their notes, checking the invariants of the README's "Walks". */
function walkLines(ft: FileText, resultMaxChars: number, limit: number | undefined, notes: readonly string[]): void {
  const { text, lines, starts } = ft;
  const shown = new Array<number>(lines.length).fill(0);
  let offset = 1;
  for (;;) {
    const page = linePage(ft, { path: PATH, offset, limit, resultMaxChars, notes });
    linePages++;
    if (lines.length === 0) {
      expect(page.content).toBe('');
      expect(page.note).toContain('The file is empty.');
      return;
    }
    expect(page.fromLine).toBe(offset);
    expect(page.totalLines).toBe(lines.length);
    expect(page.toLine).toBeGreaterThanOrEqual(page.fromLine);
    if (limit !== undefined) expect(page.toLine - page.fromLine + 1).toBeLessThanOrEqual(limit);
    if (length(page) > resultMaxChars) {
      // Only the floor passes the budget: then no page from this offset fits at all. The
      // brute-force reference says which page that is (for long first lines, where its
      // search is slow, on every tenth page).
      if (lines[offset - 1].length <= 400 || linePages % 10 === 0) {
        expect(page).toEqual(referenceLinePage(ft, { path: PATH, offset, limit, resultMaxChars, notes }));
      }
    }

    const rows = page.content.split('\n');
    expect(rows.length).toBe(page.toLine - page.fromLine + 1);
    let lastRest: number[] | null = null;
    rows.forEach((row, i) => {
      const n = page.fromLine + i;
      const line = lines[n - 1];
      expect(row.startsWith(`${n}\t`)).toBe(true);
      const body = row.slice(`${n}\t`.length);
      shown[n - 1]++;
      lastRest = null;
      if (body === line && line.length <= 2000) return;
      const m = MARKER.exec(body);
      expect(m).not.toBeNull();
      const [, prefix, k, mm] = m as RegExpExecArray;
      const [K, M] = [Number(k), Number(mm)];
      expect(line.startsWith(prefix)).toBe(true);
      expect(prefix.length).toBeLessThan(line.length);
      expect(prefix.length).toBeGreaterThan(0);
      expect(prefix.length).toBeLessThanOrEqual(2000);
      // A line is cut shorter than at 2,000 only to fit, and only as a page's one line.
      if (rows.length > 1) expect(prefix.length).toBeGreaterThanOrEqual(1999);
      expect(splitsPair(line, prefix.length)).toBe(false);
      expect(K).toBe(starts[n - 1] + prefix.length);
      expect(M).toBe(line.length - prefix.length);
      expect(text.slice(K, K + M)).toBe(line.slice(prefix.length));
      lastRest = [K, M];
    });

    // Marker and note agree: the note names the last line's rest, and only that.
    const noteRests = matches(CUT_REST, page.note);
    if (lastRest === null) expect(noteRests).toEqual([]);
    else {
      expect(noteRests).toEqual([lastRest]);
      const [K, M] = lastRest as number[];
      // Follow the rest with character pages at the same budget where that is a short walk.
      if (M <= 30 * Math.max(1, resultMaxChars - 250)) {
        expect(followCharacterPages(ft, K, M, resultMaxChars, notes)).toBe(text.slice(K, K + M));
      }
    }

    const next = matches(NEXT_LINE, page.note);
    if (page.toLine === page.totalLines) {
      expect(next).toEqual([]);
      break;
    }
    expect(next).toEqual([[page.toLine + 1]]);
    offset = next[0][0];
  }
  expect(shown.every((s) => s === 1)).toBe(true);
}

/** Walks the whole text with character pages of `limitChars`, following notes; returns what it read. */
function walkCharacters(ft: FileText, resultMaxChars: number, limitChars: number, notes: readonly string[]): string {
  if (ft.text.length === 0) {
    const page = characterPage(ft, { path: PATH, limitChars, resultMaxChars, notes });
    characterPages++;
    expect(page.content).toBe('');
    expect(page.note).toContain('The file is empty.');
    return '';
  }
  let read = '';
  while (read.length < ft.text.length) read += followCharacterPages(ft, read.length, limitChars, resultMaxChars, notes);
  return read;
}

const lineFiles = generatedFile({ maxLines: 60, manyLines: true, maxPieces: 12, longWeight: 2, longMin: 100, longMax: 60_000 });
const smallFiles = generatedFile({ maxLines: 30, manyLines: false, maxPieces: 8, longWeight: 3, longMin: 100, longMax: 3_000 });

describe('walks that follow only the notes (README, "Walks")', () => {
  test('line pages at the default limit show every line exactly once, within budget but for the floor', () => {
    fc.assert(
      fc.property(lineFiles, budget, callerNotes, (bytes, resultMaxChars, notes) => {
        walkLines(fileText(bytes), resultMaxChars, undefined, notes);
      }),
      runs(1800),
    );
  }, 180_000);

  test('line pages of at most 3 lines show every line exactly once, within budget but for the floor', () => {
    fc.assert(
      fc.property(lineFiles, budget, callerNotes, (bytes, resultMaxChars, notes) => {
        walkLines(fileText(bytes), resultMaxChars, 3, notes);
      }),
      runs(1800),
    );
  }, 180_000);

  test('character pages rebuild the text exactly and never split a surrogate pair', () => {
    fc.assert(
      fc.property(smallFiles, budget, fc.oneof(fc.constant(2000), fc.integer({ min: 1, max: 5000 })), callerNotes, (bytes, resultMaxChars, limitChars, notes) => {
        const ft = fileText(bytes);
        expect(walkCharacters(ft, resultMaxChars, limitChars, notes)).toBe(ft.text);
      }),
      runs(2000),
    );
  }, 180_000);

  test('the walks saw at least 100,000 generated pages', () => {
    // How many pages the runs above make depends on the files drawn, so more files are
    // walked (drawn from the same seed) until 100,000 pages were seen: the count is a
    // floor this test guarantees, not one it hopes for.
    let round = 0;
    while (linePages + characterPages < 100_000 && round < 200) {
      const drawn = fc.sample(fc.tuple(lineFiles, budget, callerNotes), { numRuns: 20, seed: (seed ?? 0) + ++round });
      for (const [bytes, resultMaxChars, notes] of drawn) walkLines(fileText(bytes), resultMaxChars, undefined, notes);
    }
    console.log(`walks: ${linePages} line pages and ${characterPages} character pages`);
    expect(linePages + characterPages).toBeGreaterThanOrEqual(100_000);
  }, 180_000);
});
