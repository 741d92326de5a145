import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { type FileText, fileText } from '@ws/text';
import { linePage } from '../src/index.ts';
import { callerNotes, generatedFile, runs } from './generated-files.ts';
import { type ReferenceOptions, candidates, referenceLinePage } from './longest-page-reference.ts';

const files = generatedFile({ maxLines: 12, manyLines: false, maxPieces: 10, longWeight: 1, longMin: 5, longMax: 2600 });

/**
 * How to pick a budget for a case: a share of the unbudgeted page's length, a tiny
 * one, or exactly one candidate page's length (whole lines or a first-line cut), give
 * or take one, where an off-by-one would show.
 */
type BudgetPick =
  | { readonly kind: 'share'; readonly share: number }
  | { readonly kind: 'tiny'; readonly budget: number }
  | { readonly kind: 'whole' | 'cut'; readonly pick: number; readonly delta: number };

const budgetPick: fc.Arbitrary<BudgetPick> = fc.oneof(
  fc.double({ min: 0, max: 1.3, noNaN: true }).map((share) => ({ kind: 'share', share }) as const),
  fc.integer({ min: 1, max: 120 }).map((budget) => ({ kind: 'tiny', budget }) as const),
  fc.record({ kind: fc.constantFrom('whole', 'cut'), pick: fc.nat(), delta: fc.integer({ min: -1, max: 1 }) }),
);

function budgetFor(pick: BudgetPick, ft: FileText, options: Omit<ReferenceOptions, 'resultMaxChars'>, whole: number): number {
  if (pick.kind === 'share') return Math.max(1, Math.round(pick.share * whole));
  if (pick.kind === 'tiny') return pick.budget;
  const from = candidates(ft, { ...options, resultMaxChars: 0 });
  const offset = options.offset ?? 1;
  const cuts = pick.kind === 'cut' ? from.cuts() : [];
  const length =
    cuts.length > 0 ? from.cut(cuts[pick.pick % cuts.length]).length : from.whole(offset + (pick.pick % (from.last - offset + 1))).length;
  return Math.max(1, length + pick.delta);
}

let cases = 0;

describe('the longest page, against a brute-force reference', () => {
  test('linePage picks the same page as trying every candidate', () => {
    fc.assert(
      fc.property(
        files,
        fc.array(budgetPick, { minLength: 3, maxLength: 3 }),
        fc.constantFrom(undefined, 1, 2, 3, 5),
        callerNotes,
        fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
        (bytes, picks, limit, notes, offsetPicks) => {
          const ft = fileText(bytes);
          if (ft.lines.length === 0) return;
          for (const pick of offsetPicks) {
            const offset = 1 + (pick % ft.lines.length);
            const whole = JSON.stringify(linePage(ft, { path: 'work/f.txt', offset, limit, notes })).length;
            for (const pick of picks) {
              const resultMaxChars = budgetFor(pick, ft, { path: 'work/f.txt', offset, limit, notes }, whole);
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

  test('linePage picks the same page on texts read from strings, lone surrogates and all', () => {
    const unit = fc.constantFrom('a', 'word ', '\ud800', '\udc00', '\ud83d\ude00', '\n', '\r\n', '"', '\t', 'é');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 80 }), fc.integer({ min: 1, max: 400 }), fc.nat(), (s, resultMaxChars, pick) => {
        const ft = fileText(s);
        if (ft.lines.length === 0) return;
        const options = { path: 'work/f.txt', offset: 1 + (pick % ft.lines.length), resultMaxChars };
        cases++;
        expect(JSON.stringify(linePage(ft, options))).toBe(JSON.stringify(referenceLinePage(ft, options)));
      }),
      runs(5_000),
    );
  }, 60_000);

  test('the comparison covered at least 100,000 cases', () => {
    console.log(`longest page: ${cases} generated cases compared with the brute-force reference`);
    expect(cases).toBeGreaterThanOrEqual(100_000);
  });
});
