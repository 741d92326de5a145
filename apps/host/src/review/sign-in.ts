/**
 * Signing a browser in to the review page without the token in any URL or log: `ws serve`
 * prints a link with a one-time code in its fragment (`/review#code=…`, never sent in a
 * request line); the page's script exchanges it (POST) for a session cookie (HttpOnly,
 * SameSite=Strict). The one rule: a code works once, within `CODE_TTL_MS`, and only
 * digests of codes and sessions are kept; a session belongs to the token that was current
 * when its code was made and ends when that token is no longer accepted.
 */
import { randomBytes } from 'node:crypto';
import { sameDigest, tokenDigest } from '../auth.ts';

/** How long a sign-in code works: long enough to open the link printed at start. */
export const CODE_TTL_MS = 12 * 60 * 60 * 1000;

/** How long a signed-in browser stays signed in without using the page. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;

/** The cookie's name. */
export const COOKIE = 'ws_review';

/** The most codes kept at once (each `POST /review/link` makes one). */
const MAX_CODES = 64;

/** The most signed-in browsers at once; the longest idle is signed out first. */
const MAX_SESSIONS = 64;

interface Held {
  readonly digest: Buffer;
  /** The token digest this code or session belongs to (empty with `--no-auth`). */
  readonly owner: Buffer;
  until: number;
}

/** Sign-in codes and signed-in browsers, in memory: a restarted server signs everyone out. */
export class SignIn {
  private codes: Held[] = [];
  private sessions: Held[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** A new one-time code for `owner`. */
  newCode(owner: Buffer): string {
    const code = randomBytes(24).toString('base64url');
    this.drop();
    if (this.codes.length >= MAX_CODES) this.codes.shift();
    this.codes.push({ digest: tokenDigest(code), owner, until: this.now() + CODE_TTL_MS });
    return code;
  }

  /** Spends a code: a new session id for the cookie, or undefined where the code is unknown, spent or expired. */
  exchange(code: unknown): string | undefined {
    this.drop();
    if (typeof code !== 'string' || code.length === 0 || code.length > 200) return undefined;
    const digest = tokenDigest(code);
    const i = this.codes.findIndex((c) => sameDigest(c.digest, digest));
    if (i < 0) return undefined;
    const [spent] = this.codes.splice(i, 1);
    const id = randomBytes(32).toString('base64url');
    if (this.sessions.length >= MAX_SESSIONS) {
      this.sessions.sort((a, b) => a.until - b.until);
      this.sessions.shift();
    }
    this.sessions.push({ digest: tokenDigest(id), owner: spent.owner, until: this.now() + SESSION_IDLE_MS });
    return id;
  }

  /** True when the request's cookie names a live session (and keeps it alive). */
  admits(cookieHeader: string | null): boolean {
    const id = cookieValue(cookieHeader, COOKIE);
    if (id === undefined) return false;
    this.drop();
    const digest = tokenDigest(id);
    const held = this.sessions.find((s) => sameDigest(s.digest, digest));
    if (held === undefined) return false;
    held.until = this.now() + SESSION_IDLE_MS;
    return true;
  }

  /** Ends the session the cookie names. */
  signOut(cookieHeader: string | null): void {
    const id = cookieValue(cookieHeader, COOKIE);
    if (id === undefined) return;
    const digest = tokenDigest(id);
    this.sessions = this.sessions.filter((s) => !sameDigest(s.digest, digest));
  }

  /** Keeps only codes and sessions whose token is still accepted (the token file changed). */
  keepOwners(accepted: readonly Buffer[]): void {
    const ok = (h: Held) => h.owner.length === 0 || accepted.some((a) => sameDigest(a, h.owner));
    this.codes = this.codes.filter(ok);
    this.sessions = this.sessions.filter(ok);
  }

  private drop(): void {
    const t = this.now();
    this.codes = this.codes.filter((c) => c.until > t);
    this.sessions = this.sessions.filter((s) => s.until > t);
  }
}

/** The value of cookie `name` in a `Cookie` header. */
export function cookieValue(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The `Set-Cookie` value for a session id (or for signing out, with none). */
export function sessionCookie(id: string | undefined): string {
  const base = `${COOKIE}=${id ?? ''}; Path=/review; HttpOnly; SameSite=Strict`;
  return id === undefined ? `${base}; Max-Age=0` : base;
}
