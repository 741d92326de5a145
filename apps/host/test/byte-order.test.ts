/**
 * The scan's merge follows SQLite's order for text (`byteOrder`): for any two strings a
 * path can be (well formed: SQLite holds UTF-8), the order of their UTF-8 bytes.
 */
import { expect, test } from 'bun:test';
import fc from 'fast-check';
import { byteOrder } from '../src/store/sqlite-store.ts';

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

test('two strings compare as their UTF-8 bytes do', () => {
  // Code points from every plane, those around the surrogates and U+E000–U+FFFF most.
  const unit = fc.oneof(fc.constantFrom('a', '/', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '\u{1f600}', '\u{10ffff}'), fc.string({ unit: 'binary', maxLength: 1 }));
  const text = fc.array(unit, { maxLength: 6 }).map((xs) => xs.join(''));
  fc.assert(
    fc.property(text, text, text, (prefix, a, b) => {
      expect(sign(byteOrder(prefix + a, prefix + b))).toBe(sign(Buffer.compare(utf8(prefix + a), utf8(prefix + b))));
    }),
    { numRuns: 5000 },
  );
});

test('a character past U+FFFF sorts after U+E000–U+FFFF, as in UTF-8 and unlike UTF-16 units', () => {
  expect(byteOrder('\u{1f600}', '\uff5e')).toBeGreaterThan(0);
  expect('\u{1f600}' < '\uff5e').toBe(true);
  expect(byteOrder('a', 'ab')).toBeLessThan(0);
  expect(byteOrder('x', 'x')).toBe(0);
});
