/**
 * Who may use `ws serve`: a client that shows one of the tokens in the token file as
 * `Authorization: Bearer <token>`. The one rule: a token is compared in constant time,
 * against every accepted token, and a server whose token file cannot be used refuses
 * every request rather than letting one through.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { appendToken, createTokenFile, readTokenFile, tokenFileStamp } from './disk/token-file.ts';

/** A token's shape: RFC 6750's token68, at least 32 characters (ws makes 43). */
const TOKEN = /^[A-Za-z0-9._~+/-]{32,}=*$/;

/** A new token: 32 random bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The SHA-256 of a token: what a session remembers of the token that made it. */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** True when two digests are the same, in time that does not depend on where they differ. */
export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The tokens of a token file, or why there are none to use. */
export type Tokens = { readonly ok: true; readonly tokens: readonly string[] } | { readonly ok: false; readonly message: string };

/** The token file's tokens; every line must be one. An absent file is not an error here. */
function tokensIn(path: string): Tokens | 'absent' {
  const read = readTokenFile(path);
  if (read.kind === 'absent') return 'absent';
  if (read.kind === 'unusable') return { ok: false, message: read.message };
  if (read.lines.length === 0) return { ok: false, message: `${path} holds no token; delete it and a new token is made.` };
  const bad = read.lines.findIndex((l) => !TOKEN.test(l));
  if (bad >= 0) {
    return {
      ok: false,
      message: `line ${bad + 1} of ${path} is not a usable token (at least 32 letters, digits, "-", "_", ".", "~", "+" or "/"); fix it, or delete the file and a new token is made.`,
    };
  }
  return { ok: true, tokens: read.lines };
}

/** The token file's tokens, making the file with one new token where it does not exist. */
export function ensureTokens(path: string): Tokens & { readonly made?: boolean } {
  const found = tokensIn(path);
  if (found !== 'absent') return found;
  const made = createTokenFile(path, newToken());
  if (!made.ok) return made;
  const now = tokensIn(path);
  if (now === 'absent') return { ok: false, message: `${path} vanished as it was made; run the command again.` };
  return now.ok ? { ...now, made: made.created } : now;
}

/** Adds a new token to the token file (made where missing) and answers it. */
export function addToken(path: string): { ok: true; token: string } | { ok: false; message: string } {
  const existing = ensureTokens(path);
  if (!existing.ok) return existing;
  const token = newToken();
  const added = appendToken(path, token);
  return added.ok ? { ok: true, token } : added;
}

/** The answer to a request's credentials. */
export type Admission =
  | { readonly ok: true; readonly owner: Buffer }
  | { readonly ok: false; readonly status: 401 | 503; readonly challenge?: string; readonly message: string };

/** The sentences a client gets; the host README quotes them. */
export const AUTH_WORDS = {
  missing: 'This server needs the header "Authorization: Bearer <token>"; run `ws token` where the server runs to print the token.',
  wrong: 'The token given is not one this server accepts; run `ws token` where the server runs to print the right one.',
  unusable: 'This server cannot check tokens now because its token file is missing or unusable; the server log says why.',
} as const;

/** The token in an `Authorization` header, or undefined. The scheme is case-insensitive. */
function bearer(header: string | null): string | undefined {
  const m = header?.match(/^\s*bearer\s+(\S+)\s*$/i);
  return m?.[1];
}

/**
 * The accepted tokens, kept in step with the token file: a request looks at the file's
 * stamp and rereads it when it changed, so a token added with `ws token --new` works at
 * once and a line removed stops its token (and its sessions) from the next request on.
 */
export class TokenGate {
  private stamp = '';
  private digests: readonly Buffer[] = [];
  private problem: string | undefined;

  /**
   * `onChange` hears the digests accepted after each reread; `log` hears why the file
   * can no longer be used, once per change.
   */
  constructor(
    readonly path: string,
    private readonly onChange: (accepted: readonly Buffer[]) => void,
    private readonly log: (line: string) => void,
  ) {}

  /** Reads the file now (making it where missing); the tokens, or why there are none. */
  open(): Tokens & { readonly made?: boolean } {
    const tokens = ensureTokens(this.path);
    this.stamp = tokenFileStamp(this.path);
    this.take(tokens);
    return tokens;
  }

  private take(tokens: Tokens): void {
    this.digests = tokens.ok ? tokens.tokens.map(tokenDigest) : [];
    this.problem = tokens.ok ? undefined : tokens.message;
    this.onChange(this.digests);
  }

  private refresh(): void {
    const stamp = tokenFileStamp(this.path);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    const found = tokensIn(this.path);
    const tokens: Tokens =
      found === 'absent'
        ? { ok: false, message: `the token file ${this.path} was removed; run \`ws token\` to make a new one.` }
        : found;
    this.take(tokens);
    if (!tokens.ok) this.log(`refusing every request: ${tokens.message}`);
  }

  /** Admits a request by its `Authorization` header. */
  admit(header: string | null): Admission {
    this.refresh();
    if (this.problem !== undefined) return { ok: false, status: 503, message: AUTH_WORDS.unusable };
    const token = bearer(header);
    if (token === undefined) return { ok: false, status: 401, challenge: 'Bearer', message: AUTH_WORDS.missing };
    const digest = tokenDigest(token);
    let match: Buffer | undefined;
    // Every accepted token is compared, so the time taken says nothing about which one is near.
    for (const d of this.digests) if (sameDigest(d, digest)) match = d;
    if (match === undefined) return { ok: false, status: 401, challenge: 'Bearer error="invalid_token"', message: AUTH_WORDS.wrong };
    return { ok: true, owner: match };
  }
}
