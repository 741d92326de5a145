/**
 * The session table on a clock the test moves: idle sessions close, busy ones do not,
 * at most `max` live (the longest idle closed first), and a session answers only the
 * token that made it.
 */
import { describe, expect, test } from 'bun:test';
import { tokenDigest } from '../src/auth.ts';
import { SessionTable } from '../src/sessions.ts';

const A = tokenDigest('a'.repeat(43));
const B = tokenDigest('b'.repeat(43));

/** A table on a fake clock, recording which sessions it closed. */
function table(idleMs: number, max: number) {
  let clock = 0;
  const closed: string[] = [];
  const t = new SessionTable<string>({ idleMs, max }, () => clock);
  return {
    t,
    closed,
    at(ms: number) {
      clock = ms;
    },
    add(id: string, owner = A) {
      t.add(id, owner, `transport ${id}`, async () => {
        closed.push(id);
      });
    },
  };
}

describe('the session table', () => {
  test('a session is found only with the token that made it', () => {
    const s = table(1000, 8);
    s.add('one', A);
    expect(s.t.find('one', A)?.transport).toBe('transport one');
    expect(s.t.find('one', B)).toBeUndefined();
    expect(s.t.find('two', A)).toBeUndefined();
    // Being asked for by another token does not close it.
    expect(s.closed).toEqual([]);
  });

  test('a session unused for longer than the idle time is closed by the sweep; one used meanwhile is not', () => {
    const s = table(1000, 8);
    s.add('old');
    s.add('used');
    s.at(900);
    s.t.touch(s.t.find('used', A)!);
    s.at(1001);
    s.t.sweep();
    expect(s.closed).toEqual(['old']);
    expect(s.t.find('old', A)).toBeUndefined();
    expect(s.t.find('used', A)).toBeDefined();
    s.at(1901);
    s.t.sweep();
    expect(s.closed).toEqual(['old', 'used']);
  });

  test('a session answering a call is not idle, however long the call takes; it idles from when the answer is sent', () => {
    const s = table(1000, 8);
    s.add('busy');
    const settled = s.t.begin(s.t.find('busy', A)!);
    s.at(50_000);
    s.t.sweep();
    expect(s.closed).toEqual([]);
    settled();
    settled(); // a second call changes nothing
    s.at(50_999);
    s.t.sweep();
    expect(s.closed).toEqual([]);
    s.at(51_001);
    s.t.sweep();
    expect(s.closed).toEqual(['busy']);
  });

  test('past the most sessions, the longest idle closes first, a busy one only when all are busy', () => {
    const s = table(1_000_000, 3);
    s.at(1);
    s.add('a');
    s.at(2);
    s.add('b');
    s.at(3);
    s.add('c');
    s.at(4);
    s.t.touch(s.t.find('a', A)!);
    s.at(5);
    s.add('d');
    expect(s.closed).toEqual(['b']);
    const settled = s.t.begin(s.t.find('c', A)!);
    s.at(6);
    s.add('e');
    // c is older than a but answering a call: a goes.
    expect(s.closed).toEqual(['b', 'a']);
    expect(s.t.size).toBe(3);
    s.t.begin(s.t.find('d', A)!);
    s.t.begin(s.t.find('e', A)!);
    s.at(7);
    s.add('f');
    // All busy: the longest idle goes all the same, so the table stays bounded.
    expect(s.closed).toEqual(['b', 'a', 'c']);
    expect(s.t.size).toBe(3);
    settled();
  });

  test('sessions of a token no longer accepted are closed', () => {
    const s = table(1000, 8);
    s.add('a1', A);
    s.add('b1', B);
    s.add('a2', A);
    s.t.keepOwners([B]);
    expect(s.closed.sort()).toEqual(['a1', 'a2']);
    expect(s.t.find('b1', B)).toBeDefined();
  });

  test('closeAll closes every session and leaves none', async () => {
    const s = table(1000, 8);
    for (const id of ['x', 'y', 'z']) s.add(id);
    await s.t.closeAll();
    expect(s.closed.sort()).toEqual(['x', 'y', 'z']);
    expect(s.t.size).toBe(0);
  });
});
