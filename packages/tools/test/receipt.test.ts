import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { fileText, jsonLength } from '@ws/text';
import { type EditSpec, changedLines, planEdits, receipt } from '../src/index.ts';
import { MAX_RANGES, rangeText } from '../src/receipt.ts';
import { runs } from './seed.ts';

function planOk(text: string, edits: EditSpec[]) {
  const p = planEdits(fileText(text), edits);
  if (!p.ok) throw new Error(JSON.stringify(p.problems));
  return p;
}

/** The oracle: lines of the new text that hold an edit's marker, merged into ranges. */
function markedRanges(text: string, marker: string): number[] {
  const flat: number[] = [];
  fileText(text).lines.forEach((line, i) => {
    if (!line.includes(marker)) return;
    const n = i + 1;
    if (flat.length && flat[flat.length - 1] >= n - 1) flat[flat.length - 1] = n;
    else flat.push(n, n);
  });
  return flat;
}

describe('which lines each edit changed', () => {
  test('a one-line replacement names its line', () => {
    const p = planOk('a\nb\nc\n', [{ oldString: 'b', newString: 'B' }]);
    expect(changedLines(p.edits, p.replacements)).toEqual([[2, 2]]);
  });

  test('lines added before an edit move its lines down', () => {
    const p = planOk('a\nb\nc\n', [
      { oldString: 'a', newString: 'a1\na2\na3' },
      { oldString: 'c', newString: 'C' },
    ]);
    expect(changedLines(p.edits, p.replacements)).toEqual([[1, 3], [5, 5]]);
  });

  test('a deletion names the line where text was removed', () => {
    const p = planOk('a\nb\nc\n', [{ oldString: 'b\n', newString: '' }]);
    expect(changedLines(p.edits, p.replacements)).toEqual([[2, 2]]);
  });

  test('neighbouring replacements merge into one range', () => {
    const p = planOk('x\nx\nx\ny\nx\n', [{ oldString: 'x', newString: 'z', replaceAll: true }]);
    expect(rangeText(changedLines(p.edits, p.replacements)[0])).toBe('1-3, 5');
  });

  test('an edit with many ranges names the first ones and counts the rest', () => {
    const text = Array.from({ length: 2 * (MAX_RANGES + 5) }, (_, i) => (i % 2 ? 'x' : 'y')).join('\n');
    const p = planOk(text, [{ oldString: 'x', newString: 'z', replaceAll: true }]);
    expect(rangeText(changedLines(p.edits, p.replacements)[0])).toEndWith(' and 5 more');
  });

  test('the lines named are the lines that hold each edit’s new text', () => {
    const line = fc.tuple(fc.array(fc.constantFrom('a', 'bb', 'T0', 'T1', 'T2', 'T3'), { maxLength: 5 }), fc.constantFrom('\n', '\r\n'));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 20 }), fc.array(fc.tuple(fc.nat(3), fc.boolean()), { minLength: 4, maxLength: 4 }), (lines, shapes) => {
        const text = lines.map(([words, eol]) => words.join(' ') + eol).join('');
        const edits = [0, 1, 2, 3]
          .filter((k) => text.includes(`T${k}`))
          .map((k) => {
            const [extra, trailing] = shapes[k];
            const body = Array.from({ length: extra + 1 }, () => `#${k}#`).join('\n');
            return { k, spec: { oldString: `T${k}`, newString: trailing ? `${body}\n` : body, replaceAll: true } };
          });
        const p = planOk(text, edits.map((e) => e.spec));
        const got = changedLines(p.edits, p.replacements);
        edits.forEach((e, i) => expect(got[i]).toEqual(markedRanges(p.text, `#${e.k}#`)));
      }),
      runs(1500),
    );
  });
});

describe('the receipt', () => {
  test('lists every edit with its path, count and lines when it fits', () => {
    const p = planOk('a\nb\n', [{ oldString: 'b', newString: 'B' }, { oldString: 'a', newString: 'A' }]);
    expect(receipt([{ path: 'work/x', numbers: [1, 2], edits: p.edits, replacements: p.replacements }])).toEqual({
      edits: [
        { edit: 1, path: 'work/x', replaced: 1, lines: '2' },
        { edit: 2, path: 'work/x', replaced: 1, lines: '1' },
      ],
    });
  });

  test('is held to its budget, showing the first edits and saying every edit was stored', () => {
    const text = Array.from({ length: 300 }, (_, i) => `row-${i}-end`).join('\n');
    const edits = Array.from({ length: 300 }, (_, i) => ({ oldString: `row-${i}-end`, newString: `ROW ${i}` }));
    const p = planOk(text, edits);
    const file = { path: 'work/rows.txt', numbers: edits.map((_, i) => i + 1), edits: p.edits, replacements: p.replacements };
    for (const budget of [200, 1000, 5000]) {
      const data = receipt([file], budget) as { edits: { edit: number }[]; note: string };
      expect(jsonLength(data)).toBeLessThanOrEqual(budget);
      expect(data.edits.map((e) => e.edit)).toEqual(data.edits.map((_, i) => i + 1));
      expect(data.note).toContain('All 300 edits were stored');
      expect(data.note).toContain(`first ${data.edits.length}`);
    }
    expect(jsonLength(receipt([file]))).toBeLessThanOrEqual(24_000);
  });
});
