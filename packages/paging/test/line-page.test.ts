import { describe, expect, test } from 'bun:test';
import { fileText } from '@ws/text';
import { type LinePage, characterPage, linePage } from '../src/index.ts';
import { lineStopNote } from '../src/notes.ts';
import { candidates, referenceLinePage } from './longest-page-reference.ts';
import { ordinarySource } from './ordinary-source.ts';

const PATH = 'work/src/page.ts';
const BOM = '\ufeff';
const EMOJI = '\ud83d\ude00';

function length(page: object): number {
  return JSON.stringify(page).length;
}

/** The `[K, M]` each cut line's marker names, by line number. */
function markers(page: LinePage): Map<number, [number, number]> {
  const found = new Map<number, [number, number]>();
  page.content.split('\n').forEach((row, i) => {
    const m = /\[… read the rest with offsetChars=(\d+) and limitChars=(\d+)\]$/.exec(row);
    if (m) found.set(page.fromLine + i, [Number(m[1]), Number(m[2])]);
  });
  return found;
}

function row(page: LinePage, n: number): string {
  return page.content.split('\n')[n - page.fromLine];
}

describe('long lines (README "Line pages", rule 1)', () => {
  test('a line over 2,000 characters is cut at 2,000 and ends with a marker naming its rest', () => {
    const ft = fileText(`${'a'.repeat(2500)}\nb\n`);
    const page = linePage(ft, { path: PATH, resultMaxChars: 24_000 });
    expect(row(page, 1)).toBe(`1\t${'a'.repeat(2000)}[… read the rest with offsetChars=2000 and limitChars=500]`);
    expect(row(page, 2)).toBe('2\tb');
  });

  test('a line of exactly 2,000 characters is shown whole', () => {
    const ft = fileText(`${'a'.repeat(2000)}\n`);
    expect(linePage(ft, { path: PATH, resultMaxChars: 24_000 }).content).toBe(`1\t${'a'.repeat(2000)}`);
  });

  test('the 2,000-character cut never splits a surrogate pair: an emoji straddling 2,000 goes to the rest', () => {
    const line = `${'a'.repeat(1999)}${EMOJI}${'b'.repeat(100)}`;
    const ft = fileText(`${line}\n`);
    const page = linePage(ft, { path: PATH, resultMaxChars: 24_000 });
    expect(row(page, 1)).toBe(`1\t${'a'.repeat(1999)}[… read the rest with offsetChars=1999 and limitChars=102]`);
    expect(ft.text.slice(1999, 1999 + 102)).toBe(`${EMOJI}${'b'.repeat(100)}`);
  });

  test("the marker's K and M read exactly the rest, past a BOM and CRLFs", () => {
    const long = `${'x'.repeat(1990)}"quoted"\\${'y'.repeat(700)}`;
    const ft = fileText(`${BOM}one\r\ntwo\r\r\n${long}\r\nlast\r\n`);
    const page = linePage(ft, { path: PATH, resultMaxChars: 24_000 });
    const [K, M] = markers(page).get(3) as [number, number];
    // BOM (1) + "one\r\n" (5) + "two\r\r\n" (6), then 2,000 characters of the line.
    expect(K).toBe(1 + 5 + 6 + 2000);
    const rest = characterPage(ft, { path: PATH, offsetChars: K, limitChars: M });
    expect(rest.content).toBe(long.slice(2000));
    expect(rest.nextOffsetChars).toBe(ft.starts[2] + long.length);
  });

  test('a 5,000-character rest read at 1,000 through character pages, following only their notes, ends exactly at the line’s end', () => {
    const long = `${'p'.repeat(2000)}${`say "hi" \\ ${EMOJI} é\t`.repeat(400)}`.slice(0, 7000);
    const ft = fileText(`first\n${long}\nafter\n`);
    const page = linePage(ft, { path: PATH, offset: 2, limit: 1, resultMaxChars: 24_000 });
    const [K, M] = markers(page).get(2) as [number, number];
    expect(M).toBe(5000);
    let request: { offsetChars: number; limitChars: number } | null = { offsetChars: K, limitChars: M };
    let read = '';
    let pages = 0;
    let last = K;
    while (request) {
      const p = characterPage(ft, { path: PATH, ...request, resultMaxChars: 1000 });
      expect(length(p)).toBeLessThanOrEqual(1000);
      read += p.content;
      last = p.nextOffsetChars;
      pages++;
      const m = /offsetChars=(\d+) and limitChars=(\d+)/.exec(p.note ?? '');
      request = m ? { offsetChars: Number(m[1]), limitChars: Number(m[2]) } : null;
    }
    expect(read).toBe(long.slice(2000));
    expect(last).toBe(ft.starts[1] + long.length);
    expect(pages).toBeGreaterThan(5);
  });
});

describe('the budget (README "Line pages", rule 2)', () => {
  const ft = fileText(ordinarySource(3000));
  for (const budget of [24_000, 5_000, 1_000]) {
    test(`a page within ${budget.toLocaleString('en-US')} where one more line would pass it`, () => {
      const page = linePage(ft, { path: PATH, resultMaxChars: budget });
      expect(length(page)).toBeLessThanOrEqual(budget);
      expect(page.toLine).toBeLessThan(2000);
      const longer = candidates(ft, { path: PATH, resultMaxChars: budget }).whole(page.toLine + 1).page;
      expect(length(longer)).toBeGreaterThan(budget);
      expect(page.note).toBe(lineStopNote({ kind: 'budget', next: page.toLine + 1 }));
    });
  }

  test('a page that ends the file fits where the page a line shorter, with its stop note, would not', () => {
    const ft = fileText('function one() {\n  return 1;\n}\n');
    const budget = length(linePage(ft, { path: PATH }));
    const page = linePage(ft, { path: PATH, resultMaxChars: budget });
    expect(page.toLine).toBe(3);
    expect(page.note).toBeUndefined();
    expect(length(candidates(ft, { path: PATH, resultMaxChars: budget }).whole(2).page)).toBeGreaterThan(budget);
  });

  test('a page at the line limit fits where the page a line shorter, with its stop note, would not', () => {
    const ft = fileText('a\nb\nc\nd\ne\n');
    const options = { path: PATH, limit: 3 };
    const budget = length(linePage(ft, options));
    const page = linePage(ft, { ...options, resultMaxChars: budget });
    expect(page.toLine).toBe(3);
    expect(page.note).toBe(lineStopNote({ kind: 'limit', next: 4 }));
    expect(length(candidates(ft, { ...options, resultMaxChars: budget }).whole(2).page)).toBeGreaterThan(budget);
  });

  test('a page one line past a cut line fits where the page ending on the cut line, with its stop note, would not', () => {
    const ft = fileText(`start\n${'z'.repeat(2100)}\n}\n${'more '.repeat(100)}\n`);
    const from = candidates(ft, { path: PATH, resultMaxChars: 1 });
    const budget = from.whole(3).length;
    const page = linePage(ft, { path: PATH, resultMaxChars: budget });
    expect(page.toLine).toBe(3);
    expect(from.whole(2).length).toBeGreaterThan(budget);
    expect(from.whole(2).page.note).toContain('Line 2 is cut');
  });

  test('the note counts: a page measured without its note would be one line longer', () => {
    const ft = fileText(ordinarySource(200, '\r\n'));
    const notes = ['Disk changed and the stored copy did not: this read shows disk’s text.'];
    const page = linePage(ft, { path: PATH, resultMaxChars: 3000, notes });
    expect(length(page)).toBeLessThanOrEqual(3000);
    const longer = candidates(ft, { path: PATH, resultMaxChars: 3000, notes }).whole(page.toLine + 1).page;
    expect(length({ ...longer, note: undefined })).toBeLessThanOrEqual(3000);
    expect(length(longer)).toBeGreaterThan(3000);
  });
});

describe('the first line cut to fit (README "Line pages", rule 3)', () => {
  test('at every budget from 700 to 760 the cut is the most that fits, as trying every cut finds, across the cut where the rest loses a digit', () => {
    const ft = fileText(`${'x'.repeat(1500)}\nend\n`);
    const rests: number[] = [];
    for (let budget = 700; budget <= 760; budget++) {
      const page = linePage(ft, { path: PATH, resultMaxChars: budget });
      expect(page).toEqual(referenceLinePage(ft, { path: PATH, resultMaxChars: budget }));
      expect(length(page)).toBeLessThanOrEqual(budget);
      const [, M] = markers(page).get(1) as [number, number];
      rests.push(M);
      // One character more would not fit.
      expect(candidates(ft, { path: PATH, resultMaxChars: budget }).cut(1500 - M + 1).length).toBeGreaterThan(budget);
    }
    expect(rests.some((m) => m >= 1000)).toBe(true);
    expect(rests.some((m) => m < 1000)).toBe(true);
  });

  test('where the rest loses a digit, a longer cut can fit where a shorter one did not', () => {
    const ft = fileText(`${'x'.repeat(1500)}\nend\n`);
    const from = candidates(ft, { path: PATH, resultMaxChars: 1 });
    // Cut 500 leaves a rest of 1,000; cut 501 leaves 999, two digits fewer for one character more.
    expect(from.cut(501).length).toBe(from.cut(500).length - 1);
    const page = linePage(ft, { path: PATH, resultMaxChars: from.cut(501).length });
    expect(markers(page).get(1)).toEqual([501, 999]);
  });

  test('a cut never splits a surrogate pair', () => {
    const ft = fileText(`${EMOJI.repeat(400)}\n`);
    for (let budget = 300; budget < 420; budget++) {
      const page = linePage(ft, { path: PATH, resultMaxChars: budget });
      const [K] = markers(page).get(1) as [number, number];
      expect(K % 2).toBe(0);
      expect(page).toEqual(referenceLinePage(ft, { path: PATH, resultMaxChars: budget }));
    }
  });

  test('a one-line file whose whole page fits is shown whole where a cut one character shorter would not fit', () => {
    const line = 'const answer = "forty-two"; // the whole line fits, a cut with its marker does not';
    const ft = fileText(line);
    const budget = length(linePage(ft, { path: PATH }));
    const page = linePage(ft, { path: PATH, resultMaxChars: budget });
    expect(page.content).toBe(`1\t${line}`);
    expect(page.note).toBeUndefined();
    expect(candidates(ft, { path: PATH, resultMaxChars: budget }).cut(line.length - 1).length).toBeGreaterThan(budget);
  });
});

describe('stop notes (README "Line pages", rule 4)', () => {
  const ft = fileText(ordinarySource(50));

  test('a page that stops before the end names the next line as offset=N', () => {
    const page = linePage(ft, { path: PATH, resultMaxChars: 1000 });
    expect(page.note).toContain(`offset=${page.toLine + 1}`);
  });

  test('a page whose last line is cut names that line’s rest first, then the next line', () => {
    const long = fileText(`a\n${'q'.repeat(3000)}\nc\n`);
    const page = linePage(long, { path: PATH, limit: 2, resultMaxChars: 24_000 });
    expect(page.note).toBe('Line 2 is cut: read its rest with offsetChars=2002 and limitChars=1000, then continue with offset=3.');
    expect(markers(page).get(2)).toEqual([2002, 1000]);
  });

  test('a cut last line is named on the page that ends the file', () => {
    const long = fileText(`a\n${'q'.repeat(3000)}`);
    const page = linePage(long, { path: PATH, resultMaxChars: 24_000 });
    expect(page.toLine).toBe(page.totalLines);
    expect(page.note).toBe("Line 2, the file's last, is cut: read its rest with offsetChars=2002 and limitChars=1000.");
    expect(page.note).not.toMatch(/\boffset=/);
  });

  test('a page that ends the file on a whole line carries no stop note, and no note at all where there is nothing to say', () => {
    const page = linePage(ft, { path: PATH, offset: 45, resultMaxChars: 24_000 });
    expect(page.toLine).toBe(50);
    expect('note' in page).toBe(false);
  });

  test("the note joins the file's notes, the caller's notes and the stop note, in that order", () => {
    const crlf = fileText(`${BOM}${ordinarySource(50, '\r\n')}`);
    const page = linePage(crlf, { path: PATH, resultMaxChars: 2000, notes: ['Disk changed; this read shows disk’s text.'] });
    expect(page.note).toBe(
      'This file has CRLF line ends; lines are shown without their CR. ' +
        'The file starts with a UTF-8 BOM, which is not shown as part of line 1. ' +
        'Disk changed; this read shows disk’s text. ' +
        lineStopNote({ kind: 'budget', next: page.toLine + 1 }),
    );
  });
});

describe('the floor (README "Line pages", rule 5)', () => {
  test('a budget too small for anything still moves on: the shortest page there is goes out', () => {
    const ft = fileText(ordinarySource(30));
    const page = linePage(ft, { path: PATH, resultMaxChars: 10 });
    expect([page.fromLine, page.toLine]).toEqual([1, 1]);
    expect(page.content).toBe(`1\t${ft.lines[0]}`);
    expect(page.note).toBe(lineStopNote({ kind: 'budget', next: 2 }));
    expect(page).toEqual(referenceLinePage(ft, { path: PATH, resultMaxChars: 10 }));
  });

  test('where the page that ends the file is the shortest there is, the floor is that page', () => {
    const ft = fileText('alpha\nbeta\ngamma\n');
    const page = linePage(ft, { path: PATH, resultMaxChars: 10 });
    expect(page.content).toBe('1\talpha\n2\tbeta\n3\tgamma');
    expect(page.note).toBeUndefined();
    expect(page).toEqual(referenceLinePage(ft, { path: PATH, resultMaxChars: 10 }));
  });

  test('a long first line at a tiny budget shows its first character and names the rest', () => {
    const ft = fileText(`${EMOJI}${'w'.repeat(5000)}\n`);
    const page = linePage(ft, { path: PATH, resultMaxChars: 20 });
    expect(page.content.startsWith(`1\t${EMOJI}[… read the rest with offsetChars=2 and limitChars=5000]`)).toBe(true);
    expect(page).toEqual(referenceLinePage(ft, { path: PATH, resultMaxChars: 20 }));
  });
});

describe('without resultMaxChars (an in-process caller)', () => {
  test('2,500 lines of a 3,000-line CRLF file with a 3,000-character line, all whole', () => {
    const ft = fileText(ordinarySource(3000, '\r\n', { 1234: 3000 }));
    const page = linePage(ft, { path: PATH, limit: 2500 });
    const rows = page.content.split('\n');
    expect(rows.length).toBe(2500);
    expect(page.toLine).toBe(2500);
    rows.forEach((r, i) => expect(r).toBe(`${i + 1}\t${ft.lines[i]}`));
    expect(ft.lines[1233].length).toBe(3000);
    expect(page.content).not.toContain('[… read the rest');
    expect(page.note).toBe(`This file has CRLF line ends; lines are shown without their CR. ${lineStopNote({ kind: 'limit', next: 2501 })}`);
  });

  test('the default limit is 2,000 lines', () => {
    const page = linePage(fileText(ordinarySource(3000)), { path: PATH });
    expect([page.fromLine, page.toLine]).toEqual([1, 2000]);
  });
});
