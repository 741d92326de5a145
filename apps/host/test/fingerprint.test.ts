/**
 * A fingerprint's text is stored as evidence, so it never changes shape: inode, size,
 * mtime and ctime (seconds and nanoseconds), the times written once where they are one.
 */
import { describe, expect, test } from 'bun:test';
import { fileMeta } from '../src/disk/fingerprint.ts';
import type { StatInfo } from '../src/disk/libc.ts';

const stat = (over: Partial<StatInfo>): StatInfo => ({
  type: 'file',
  dev: 1,
  ino: 2196295,
  mode: 0o644,
  size: 5916,
  mtimeSec: 1796218760,
  mtimeNsec: 367288683,
  ctimeSec: 1796218760,
  ctimeNsec: 367288683,
  ...over,
});
// Long after every time below: no fingerprint here is racy.
const time = { granularityMs: 20, coarseMs: null, now: () => 2_000_000_000_000 };

describe('fingerprints', () => {
  const cases: [string, Partial<StatInfo>, string][] = [
    ['one time for both', {}, '2196295:5916:1796218760.367288683:1796218760.367288683'],
    ['a later ctime', { ctimeNsec: 367288684 }, '2196295:5916:1796218760.367288683:1796218760.367288684'],
    ['a ctime a second on', { ctimeSec: 1796218761 }, '2196295:5916:1796218760.367288683:1796218761.367288683'],
    ['the same nanoseconds in another second', { mtimeSec: 1796218759 }, '2196295:5916:1796218759.367288683:1796218760.367288683'],
    ['nanoseconds not padded', { mtimeNsec: 5, ctimeNsec: 5 }, '2196295:5916:1796218760.5:1796218760.5'],
    ['zero nanoseconds', { mtimeNsec: 0, ctimeNsec: 7 }, '2196295:5916:1796218760.0:1796218760.7'],
  ];
  for (const [name, over, fingerprint] of cases) {
    test(`${name}: ${fingerprint}`, () => {
      const meta = fileMeta(time, stat(over));
      expect(meta.fingerprint).toBe(fingerprint);
      expect(meta.size).toBe(5916);
      expect(meta.mode).toBe(0o644);
    });
  }

  test('a coarse file system writes each time as its truncated milliseconds', () => {
    expect(fileMeta({ ...time, coarseMs: 2000 }, stat({})).fingerprint).toBe('2196295:5916:1796218760000:1796218760000');
  });

  test('a stat within the tick of its change gets a suffix no later stat equals', () => {
    const now = () => 1796218760 * 1000 + 380;
    const a = fileMeta({ ...time, now }, stat({})).fingerprint;
    const b = fileMeta({ ...time, now }, stat({})).fingerprint;
    expect(a.startsWith('2196295:5916:1796218760.367288683:1796218760.367288683~')).toBe(true);
    expect(a).not.toBe(b);
  });
});
