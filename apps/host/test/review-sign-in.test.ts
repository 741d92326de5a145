/**
 * The review page's sign-in, without a server: a code works once and only until it
 * expires, a session cookie is admitted until it idles out or its token is revoked, and
 * the cookie is HttpOnly and SameSite=Strict.
 */
import { describe, expect, test } from 'bun:test';
import { tokenDigest } from '../src/auth.ts';
import { CODE_TTL_MS, COOKIE, SESSION_IDLE_MS, SignIn, cookieValue, sessionCookie } from '../src/review/sign-in.ts';

const owner = tokenDigest('a'.repeat(43));
const cookie = (id: string) => `other=1; ${COOKIE}=${id}`;

function clocked() {
  let now = 1_000_000;
  const signIn = new SignIn(() => now);
  return { signIn, pass: (ms: number) => (now += ms) };
}

describe('sign-in codes', () => {
  test('a code works once', () => {
    const { signIn } = clocked();
    const code = signIn.newCode(owner);
    const id = signIn.exchange(code);
    expect(id).toBeString();
    expect(signIn.exchange(code)).toBeUndefined();
    expect(signIn.admits(cookie(id!))).toBe(true);
  });

  test('a code expires', () => {
    const { signIn, pass } = clocked();
    const code = signIn.newCode(owner);
    pass(CODE_TTL_MS + 1);
    expect(signIn.exchange(code)).toBeUndefined();
  });

  test('unknown, empty and odd codes are refused', () => {
    const { signIn } = clocked();
    signIn.newCode(owner);
    for (const bad of ['', 'nope', 42, null, undefined, 'x'.repeat(500)]) expect(signIn.exchange(bad)).toBeUndefined();
  });
});

describe('sessions', () => {
  test('an unknown cookie is refused; a used one lives on, an idle one ends', () => {
    const { signIn, pass } = clocked();
    const id = signIn.exchange(signIn.newCode(owner))!;
    expect(signIn.admits(cookie('made-up'))).toBe(false);
    expect(signIn.admits(null)).toBe(false);
    pass(SESSION_IDLE_MS - 1);
    expect(signIn.admits(cookie(id))).toBe(true);
    pass(SESSION_IDLE_MS - 1);
    expect(signIn.admits(cookie(id))).toBe(true);
    pass(SESSION_IDLE_MS + 1);
    expect(signIn.admits(cookie(id))).toBe(false);
  });

  test("a revoked token's sessions and codes end; sign-out ends one", () => {
    const { signIn } = clocked();
    const other = tokenDigest('b'.repeat(43));
    const mine = signIn.exchange(signIn.newCode(owner))!;
    const theirs = signIn.exchange(signIn.newCode(other))!;
    const pending = signIn.newCode(other);
    signIn.keepOwners([owner]);
    expect(signIn.admits(cookie(mine))).toBe(true);
    expect(signIn.admits(cookie(theirs))).toBe(false);
    expect(signIn.exchange(pending)).toBeUndefined();
    signIn.signOut(cookie(mine));
    expect(signIn.admits(cookie(mine))).toBe(false);
  });

  test('the cookie is HttpOnly, SameSite=Strict and only for /review', () => {
    expect(sessionCookie('abc')).toBe(`${COOKIE}=abc; Path=/review; HttpOnly; SameSite=Strict`);
    expect(sessionCookie(undefined)).toContain('Max-Age=0');
    expect(cookieValue('a=1; ws_review=xyz ; b=2', COOKIE)).toBe('xyz');
    expect(cookieValue('a=1', COOKIE)).toBeUndefined();
  });
});
