import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { fileText } from '@ws/text';
import { linePage } from '../src/index.ts';
import { callerNotes, generatedFile, runs } from './generated-files.ts';
import { referenceLinePage } from './longest-page-reference.ts';

const files = generatedFile({ maxLines: 12, manyLines: false, maxPieces: 10, longWeight: 1, longMin: 5, longMax: 2600 });

/** Budgets around a page's size (as a fraction of the whole page's length), and tiny ones. */
const budgetShare = fc.oneof(
  fc.double({ min: 0, max: 1.3, noNaN: true }),
  fc.integer({ min: 1, max: 120 }).map((n) => -n),
);

let cases = 0;

describe('the longest page, against a brute-force reference', () => {
  test('linePage picks the same page as trying every candidate', () => {
    fc.assert(
      fc.property(
        files,
        fc.array(budgetShare, { minLength: 3, maxLength: 3 }),
        fc.constantFrom(undefined, 1, 2, 3, 5),
        callerNotes,
        fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
        (bytes, shares, limit, notes, offsetPicks) => {
          const ft = fileText(bytes);
          if (ft.lines.length === 0) return;
          for (const pick of offsetPicks) {
            const offset = 1 + (pick % ft.lines.length);
            const whole = JSON.stringify(linePage(ft, { path: 'work/f.txt', offset, limit, notes })).length;
            for (const share of shares) {
              const resultMaxChars = share < 0 ? -share : Math.max(1, Math.round(share * whole));
              const options = { path: 'work/f.txt', offset, limit, resultMaxChars, notes };
              const ours = linePage(ft, options);
              const theirs = referenceLinePage(ft, options);
              cases++;
              expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
            }
          }
        },
      ),
      runs(13_500),
    );
  }, 180_000);

  test('the comparison covered at least 100,000 cases', () => {
    console.log(`longest page: ${cases} generated cases compared with the brute-force reference`);
    expect(cases).toBeGreaterThanOrEqual(100_000);
  });
});
