import { describe, expect, test } from 'bun:test';
import { fileText, textNotes } from '@ws/text';
import { type CharacterPage, characterPage } from '../src/index.ts';
import { characterStopNote } from '../src/notes.ts';

const PATH = 'work/data.txt';
const EMOJI = '\ud83d\ude00';

function length(page: object): number {
  return JSON.stringify(page).length;
}

/** Follows a character page's notes from a request to its end; returns every page. */
function follow(ft: ReturnType<typeof fileText>, offsetChars: number, limitChars: number, resultMaxChars?: number): CharacterPage[] {
  const pages: CharacterPage[] = [];
  let request: { offsetChars: number; limitChars: number } | null = { offsetChars, limitChars };
  while (request) {
    const page = characterPage(ft, { path: PATH, ...request, resultMaxChars });
    pages.push(page);
    const m = /read the rest of what you asked for with offsetChars=(\d+) and limitChars=(\d+)/.exec(page.note ?? '');
    request = m ? { offsetChars: Number(m[1]), limitChars: Number(m[2]) } : null;
  }
  return pages;
}

describe('character pages (README, "Character pages")', () => {
  test('content is the text exactly as stored, BOM and CRs included', () => {
    const ft = fileText('\ufeffone\r\ntwo\r\r\nthree\rfour\n');
    const page = characterPage(ft, { path: PATH });
    expect(page.content).toBe(ft.text);
    expect([page.offsetChars, page.nextOffsetChars, page.totalChars]).toEqual([0, ft.text.length, ft.text.length]);
    expect('note' in page).toBe(false);
  });

  test('a range whose end would split a surrogate pair takes the pair whole', () => {
    const ft = fileText(`ab${EMOJI}cd`);
    const page = characterPage(ft, { path: PATH, offsetChars: 0, limitChars: 3 });
    expect(page.content).toBe(`ab${EMOJI}`);
    expect(page.nextOffsetChars).toBe(4);
  });

  test('with a budget it stops before its data would pass it, and its note names what is left of the request', () => {
    const ft = fileText('0123456789'.repeat(100));
    const page = characterPage(ft, { path: PATH, offsetChars: 10, limitChars: 900, resultMaxChars: 400 });
    expect(length(page)).toBeLessThanOrEqual(400);
    const left = 910 - page.nextOffsetChars;
    expect(page.note).toBe(characterStopNote({ offsetChars: page.nextOffsetChars, limitChars: left }));
    const oneMore = { ...page, nextOffsetChars: page.nextOffsetChars + 1, note: characterStopNote({ offsetChars: page.nextOffsetChars + 1, limitChars: left - 1 }), content: ft.text.slice(10, page.nextOffsetChars + 1) };
    expect(length(oneMore)).toBeGreaterThan(400);
  });

  test('a reader that follows the notes ends exactly where it asked to', () => {
    const ft = fileText(`${'say "hi" \\ é\t'.repeat(500)}${EMOJI.repeat(300)}tail`);
    const pages = follow(ft, 17, 5000, 700);
    expect(pages.map((p) => p.content).join('')).toBe(ft.text.slice(17, 17 + 5000));
    expect(pages[pages.length - 1].nextOffsetChars).toBe(5017);
    for (const p of pages) expect(length(p)).toBeLessThanOrEqual(700);
  });

  test('a budget of 50 still moves a character page on by whole surrogate pairs', () => {
    const ft = fileText(EMOJI.repeat(200));
    const pages = follow(ft, 0, 400, 50);
    expect(pages.map((p) => p.content).join('')).toBe(ft.text);
    // One pair a page, until what is left of the request is a shorter page than one pair with a note.
    expect(pages.length).toBeGreaterThan(100);
    for (const p of pages.slice(0, -1)) expect(p.content).toBe(EMOJI);
    const last = pages[pages.length - 1];
    expect(last.content.length % 2).toBe(0);
    expect(last.nextOffsetChars).toBe(400);
    for (const p of pages) expect(length(p)).toBeGreaterThan(50);
  });

  test('a request that runs past the end stops at the end, with no stop note', () => {
    const ft = fileText('short text');
    const page = characterPage(ft, { path: PATH, offsetChars: 6, limitChars: 100, resultMaxChars: 24_000 });
    expect(page.content).toBe('text');
    expect(page.nextOffsetChars).toBe(page.totalChars);
    expect('note' in page).toBe(false);
  });

  test('the invalid-UTF-8 note applies to character pages; the CRLF and BOM notes do not', () => {
    const bad = fileText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0xff, 0x62]));
    expect(characterPage(bad, { path: PATH }).note).toBe(textNotes(bad, 'characters').join(' '));
    expect(characterPage(bad, { path: PATH }).note).toContain('not valid UTF-8');
    expect(characterPage(fileText('\ufeffa\r\nb\r\n'), { path: PATH }).note).toBeUndefined();
  });

  test("the caller's notes come after the file's and before the stop note", () => {
    const bad = fileText(new Uint8Array([0xff, ...new TextEncoder().encode('x'.repeat(3000))]));
    const page = characterPage(bad, { path: PATH, resultMaxChars: 1000, notes: ['Disk could not be checked.'] });
    const [fileNote] = textNotes(bad, 'characters');
    expect(page.note).toBe(`${fileNote} Disk could not be checked. ${characterStopNote({ offsetChars: page.nextOffsetChars, limitChars: 2000 - page.nextOffsetChars })}`);
  });

  test('without resultMaxChars, a 100,000-character page is returned whole', () => {
    const ft = fileText(`${'0123456789'.repeat(10_000)}${'tail'.repeat(100)}`);
    const page = characterPage(ft, { path: PATH, limitChars: 100_000 });
    expect(page.content).toBe(ft.text.slice(0, 100_000));
    expect(page.nextOffsetChars).toBe(100_000);
    expect('note' in page).toBe(false);
  });

  test('the default limit is 2,000 characters', () => {
    const page = characterPage(fileText('x'.repeat(5000)), { path: PATH });
    expect(page.content.length).toBe(2000);
  });
});
