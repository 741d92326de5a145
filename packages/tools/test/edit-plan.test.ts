import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { fileText } from '@ws/text';
import { type EditSpec, planEdits } from '../src/index.ts';
import { runs } from './seed.ts';

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { ignoreBOM: true });
const BOM = '\uFEFF';

function plan(text: string | Uint8Array, edits: EditSpec[]) {
  return planEdits(fileText(typeof text === 'string' ? enc.encode(text) : text), edits);
}

function planned(text: string, edits: EditSpec[]): string {
  const p = plan(text, edits);
  if (!p.ok) throw new Error(`expected a plan, got ${JSON.stringify(p.problems)}`);
  return p.text;
}

/** What a read shows for lines from..to (1-based), copied without their numbers. */
function copyOfRead(text: string, from: number, to: number): string {
  return fileText(enc.encode(text)).lines.slice(from - 1, to).join('\n');
}

describe('locating on the lines read shows', () => {
  test('two lines copied from a read of a CRLF file with a BOM edit back, keeping CRLF and the BOM', () => {
    const file = `${BOM}alpha\r\nbeta\r\ngamma\r\ndelta\r\n`;
    const old = copyOfRead(file, 2, 3);
    expect(old).toBe('beta\ngamma');
    expect(planned(file, [{ oldString: old, newString: 'BETA\nGAMMA\nnew' }])).toBe(`${BOM}alpha\r\nBETA\r\nGAMMA\r\nnew\r\ndelta\r\n`);
  });

  test('a line copied from a grep match of a CRLF file edits that line alone', () => {
    const file = 'one\r\ntwo\r\nthree\r\n';
    const grepLine = fileText(enc.encode(file)).lines[1];
    expect(planned(file, [{ oldString: grepLine, newString: 'TWO' }])).toBe('one\r\nTWO\r\nthree\r\n');
  });

  test('an oldString written with CRLF ends matches a CRLF file', () => {
    expect(planned('a\r\nb\r\nc\r\n', [{ oldString: 'a\r\nb', newString: 'x\r\ny' }])).toBe('x\r\ny\r\nc\r\n');
  });

  test('a line whose own text ends in a CR, copied from a read, edits the line it came from', () => {
    const file = 'x\r\r\nx\r\ny\r\n';
    const copied = copyOfRead(file, 1, 1);
    expect(copied).toBe('x\r\r');
    expect(planned(file, [{ oldString: copied, newString: 'z\r\r' }])).toBe('z\r\r\nx\r\ny\r\n');
    expect(planned(file, [{ oldString: copied, newString: 'z' }])).toBe('z\r\nx\r\ny\r\n');
  });

  test('an own-CR line copied together with the next line edits both and keeps the ends', () => {
    const file = 'a\r\nx\r\r\ny\r\n';
    const copied = copyOfRead(file, 2, 3);
    expect(copied).toBe('x\r\r\ny');
    expect(planned(file, [{ oldString: copied, newString: 'p\r\r\nq' }])).toBe('a\r\np\r\r\nq\r\n');
  });

  test('a plain line whose text begins an own-CR line is not unique: the copy could be either', () => {
    const p = plan('x\r\r\nx\r\n', [{ oldString: 'x', newString: 'y' }]);
    expect(p).toEqual({ ok: false, problems: [{ kind: 'not-unique', edit: 0, count: 2, lines: [1, 2] }] });
  });

  test('a file with mixed ends keeps each line its own end, new lines taking the end where the edit begins', () => {
    const file = 'a\r\nb\nc\r\nd\n';
    expect(planned(file, [{ oldString: 'b\nc', newString: 'B\nM\nC' }])).toBe('a\r\nB\nM\nC\r\nd\n');
    expect(planned(file, [{ oldString: 'a', newString: 'A1\nA2' }])).toBe('A1\r\nA2\r\nb\nc\r\nd\n');
  });

  test('a lone CR stays where it is and can be matched', () => {
    const file = 'a\rb\nc\n';
    expect(planned(file, [{ oldString: 'b\nc', newString: 'B\nC' }])).toBe('a\rB\nC\n');
    expect(planned(file, [{ oldString: 'a\rb', newString: 'ab' }])).toBe('ab\nc\n');
  });

  test('a BOM stays even when line 1 is replaced whole', () => {
    expect(planned(`${BOM}first\nsecond`, [{ oldString: 'first', newString: 'one' }])).toBe(`${BOM}one\nsecond`);
  });

  test('an edit at the very end of a file without a final line end', () => {
    expect(planned('a\r\nb', [{ oldString: 'b', newString: 'c\nd' }])).toBe('a\r\nc\r\nd');
  });

  test('a final line end can be matched and replaced', () => {
    expect(planned('a\r\nb\r\n', [{ oldString: 'b\n', newString: 'c' }])).toBe('a\r\nc');
  });

  test('replaceAll replaces every occurrence, left to right, without overlaps', () => {
    expect(planned('aaaa\r\naa', [{ oldString: 'aa', newString: 'b', replaceAll: true }])).toBe('bb\r\nb');
  });

  test('edits are located on the text before the call, not on what an earlier edit wrote', () => {
    expect(planned('a b', [
      { oldString: 'a', newString: 'b' },
      { oldString: 'b', newString: 'c' },
    ])).toBe('b c');
  });
});

describe('problems', () => {
  test('not found names the nearest line and its number', () => {
    const p = plan('function one() {\n  return 1;\n}\n', [{ oldString: '  return 2;', newString: 'x' }]);
    expect(p).toEqual({ ok: false, problems: [{ kind: 'not-found', edit: 0, nearest: { line: 2, text: '  return 1;' } }] });
  });

  test('not found names no line where none is much like it', () => {
    const p = plan('It serves until Ctrl-C. Then, in another terminal:\nnpm test\n', [{ oldString: 'zzzz-not-there', newString: 'x' }]);
    expect(p).toEqual({ ok: false, problems: [{ kind: 'not-found', edit: 0 }] });
  });

  test('not found in a multi-line oldString names its first line that is nowhere in the file', () => {
    const p = plan('alpha\nbeta\ngamma\n', [{ oldString: 'alpha\nbetta\ngamma', newString: 'x' }]);
    expect(p.ok).toBe(false);
    if (p.ok) return;
    expect(p.problems[0]).toMatchObject({ kind: 'not-found', missing: { line: 2, text: 'betta' }, nearest: { line: 2, text: 'beta' } });
  });

  test('an oldString copied with read’s line numbers is recognised', () => {
    const p = plan('alpha\nbeta\n', [{ oldString: '1\talpha\n2\tbeta', newString: 'x' }]);
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.problems[0]).toMatchObject({ kind: 'not-found', numbered: true });
  });

  test('not unique gives the count and the line numbers', () => {
    const p = plan('x\ny\nx\nx\n', [{ oldString: 'x', newString: 'z' }]);
    expect(p).toEqual({ ok: false, problems: [{ kind: 'not-unique', edit: 0, count: 3, lines: [1, 3, 4] }] });
  });

  test('overlapping occurrences of one oldString are not unique', () => {
    const p = plan('aaa', [{ oldString: 'aa', newString: 'b' }]);
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.problems[0]).toMatchObject({ kind: 'not-unique', count: 2 });
  });

  test('edits whose spans overlap clash, naming both', () => {
    const p = plan('one two three\n', [
      { oldString: 'one two', newString: 'x' },
      { oldString: 'three', newString: 'y' },
      { oldString: 'two three', newString: 'z' },
    ]);
    expect(p).toEqual({ ok: false, problems: [{ kind: 'clash', edit: 2, other: 0, line: 1 }] });
  });

  test('touching spans do not clash', () => {
    expect(planned('abcd', [{ oldString: 'ab', newString: '1' }, { oldString: 'cd', newString: '2' }])).toBe('12');
  });

  test('every problem is reported, in edit order', () => {
    const p = plan('a\nb\nb\n', [
      { oldString: 'zzz', newString: '1' },
      { oldString: 'b', newString: '2' },
      { oldString: 'a', newString: 'a' },
    ]);
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.problems.map((q) => [q.kind, 'edit' in q ? q.edit : -1])).toEqual([['not-found', 0], ['not-unique', 1], ['unchanged', 2]]);
  });

  test('100 edits replacing every x report 99 clashes, each naming the first edit', () => {
    const p = plan('x'.repeat(2000), Array.from({ length: 100 }, () => ({ oldString: 'x', newString: 'y', replaceAll: true })));
    expect(p.ok).toBe(false);
    if (!p.ok) {
      expect(p.problems.length).toBe(99);
      expect(p.problems.every((q, i) => q.kind === 'clash' && q.edit === i + 1 && q.other === 0)).toBe(true);
    }
  });

  test('a string with a lone surrogate (no bytes to keep) is refused', () => {
    const p = planEdits(fileText('a\ud800\n'), [{ oldString: 'a', newString: 'b' }]);
    expect(p).toEqual({ ok: false, problems: [{ kind: 'invalid-utf8', edits: [0] }] });
  });

  test('in a file that is not valid UTF-8, a span over a bad byte and a U+FFFD in newString are problems', () => {
    const bytes = new Uint8Array([0x61, 0x0a, 0x62, 0xff, 0x63, 0x0a]);
    expect(plan(bytes, [{ oldString: 'b\uFFFDc', newString: 'x' }])).toEqual({ ok: false, problems: [{ kind: 'spans-invalid', edit: 0, line: 2 }] });
    expect(plan(bytes, [{ oldString: 'a', newString: '\uFFFD' }])).toEqual({ ok: false, problems: [{ kind: 'replacement-in-new', edit: 0 }] });
    const fine = plan(bytes, [{ oldString: 'c', newString: 'C' }]);
    expect(fine.ok && fine.splices).toEqual([{ start: 4, end: 5, text: 'C' }]);
  });

  test('an empty oldString is a problem, not a match everywhere', () => {
    const p = plan('abc', [{ oldString: '', newString: 'x' }]);
    expect(p).toEqual({ ok: false, problems: [{ kind: 'empty', edit: 0 }] });
  });
});

/** A file as records: each line's own text and its end, the model the planner is checked against. */
interface Line {
  own: string;
  eol: '\n' | '\r\n' | '';
}

function render(bom: boolean, lines: readonly Line[]): string {
  return (bom ? BOM : '') + lines.map((l) => l.own + l.eol).join('');
}

/** How read shows a line: a CRLF end's CR only where the own text ends in a CR. */
function display(l: Line): string {
  return l.eol === '\r\n' && l.own.endsWith('\r') ? `${l.own}\r` : l.own;
}

const ownText = fc
  .array(fc.constantFrom('a', 'b', ' ', '\t', '\r', 'é', '\ud83d\ude00', '"', 'x'), { maxLength: 6 })
  .map((cs) => cs.join(''));

const fileLines = fc
  .tuple(fc.array(fc.tuple(ownText, fc.constantFrom<'\n' | '\r\n'>('\n', '\r\n')), { minLength: 1, maxLength: 12 }), fc.boolean())
  .map(([raw, endless]) => {
    const lines: Line[] = raw.map(([own, eol]) => ({ own: eol === '\n' ? own.replace(/\r+$/, '') : own, eol }));
    if (endless) lines[lines.length - 1] = { own: lines[lines.length - 1].own, eol: '' };
    return lines;
  });

describe('properties', () => {
  test('copying lines as read shows them and replacing them rewrites exactly those lines’ own text', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fileLines,
        fc.nat(),
        fc.nat(),
        fc.array(ownText.map((s) => s.replace(/\r+$/, '')), { minLength: 1, maxLength: 4 }),
        (bom, lines, x, y, news) => {
          const i = x % lines.length;
          const j = i + (y % (lines.length - i));
          const file = render(bom, lines);
          const old = lines.slice(i, j + 1).map(display).join('\n');
          const p = plan(file, [{ oldString: old, newString: news.join('\n') }]);
          const ft = fileText(enc.encode(file));
          if (old === '' || old === news.join('\n')) return expect(p.ok).toBe(false);
          if (!p.ok) {
            // Only ambiguity may refuse a copied range: it occurs somewhere else too.
            expect(p.problems[0].kind).toBe('not-unique');
            const v = ft.lines.join('\n') + (file.endsWith('\n') ? '\n' : '');
            expect(v.indexOf(old, v.indexOf(old) + 1)).toBeGreaterThan(-1);
            return;
          }
          const kinds = lines.map((l) => l.eol).filter((e) => e !== '');
          const mixed = kinds.includes('\n') && kinds.includes('\r\n');
          const eol: '\n' | '\r\n' = !kinds.includes('\r\n') ? '\n' : !mixed ? '\r\n' : lines[i].eol === '' ? (kinds.filter((e) => e === '\r\n').length > kinds.filter((e) => e === '\n').length ? '\r\n' : '\n') : lines[i].eol;
          const replaced: Line[] = news.map((own, k) => ({ own, eol: k === news.length - 1 ? lines[j].eol : eol }));
          const expected = render(bom, [...lines.slice(0, i), ...replaced, ...lines.slice(j + 1)]);
          expect(p.text).toBe(expected);
        },
      ),
      runs(4000),
    );
  });

  test('a long file plans like a short one: spans are ordered the same either way', () => {
    const pad = '.'.repeat(20_000);
    fc.assert(
      fc.property(fc.array(fc.constantFrom('ab', 'b', 'a', '\n', '\r\n', 'c'), { maxLength: 40 }), fc.array(fc.constantFrom('a', 'b', 'ab', 'c', 'bc'), { minLength: 1, maxLength: 4 }), (parts, olds) => {
        const text = parts.join('');
        const edits = olds.map((o, i) => ({ oldString: o, newString: `<${i}>`, replaceAll: i % 2 === 0 }));
        const short = plan(`${text}\n`, edits);
        const long = plan(`${text}\n${pad}`, edits);
        if (!short.ok || !long.ok) return expect(long).toEqual(short as never);
        expect(long.text).toBe(`${short.text}${pad}`);
        expect([...long.replacements.edit]).toEqual([...short.replacements.edit]);
      }),
      runs(1500),
    );
  });

  test('a plan is all or none: any problem and no text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.array(fc.record({ oldString: fc.string({ maxLength: 3 }), newString: fc.string({ maxLength: 3 }), replaceAll: fc.boolean() }), { maxLength: 5 }), (text, edits) => {
        const p = plan(text, edits);
        if (p.ok) expect(p.edits.length).toBe(edits.length);
        else expect(p.problems.length).toBeGreaterThan(0);
      }),
      runs(2000),
    );
  });

  test('replaceAll edits that do not clash equal replacing each everywhere, new lines in the file’s ends', () => {
    fc.assert(
      fc.property(fc.constantFrom('\n', '\r\n'), fc.array(fc.constantFrom('ab', 'cd', 'ef', ' ', 'NL'), { maxLength: 30 }), (sep, parts) => {
        const text = parts.join('').replaceAll('NL', sep);
        const edits = [
          { oldString: 'ab', newString: 'X', replaceAll: true },
          { oldString: 'cd', newString: 'Y\nZ', replaceAll: true },
        ].filter((e) => text.includes(e.oldString));
        const p = plan(text, edits);
        expect(p.ok).toBe(true);
        if (!p.ok) return;
        const eol = text.includes('\n') ? sep : '\n';
        expect(p.text).toBe(text.replaceAll('ab', 'X').replaceAll('cd', `Y${eol}Z`));
        expect(p.replacements.count).toBe(edits.reduce((n, e) => n + text.split(e.oldString).length - 1, 0));
      }),
      runs(2000),
    );
  });
});

test('the decoded result round-trips through bytes', () => {
  expect(dec.decode(enc.encode(planned(`${BOM}a\r\n`, [{ oldString: 'a', newString: 'b' }])))).toBe(`${BOM}b\r\n`);
});
