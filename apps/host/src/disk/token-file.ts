/**
 * The token file of `ws serve`: the bearer tokens an HTTP client must show, one per
 * line, in a file only its owner can read. The one rule: the file is never readable by
 * anyone else — made with mode 0600 and whole (written aside, then linked into place, so
 * a reader never sees half a token), and refused when it is a link, another user's, or
 * open to others.
 */
import { closeSync, constants, fstatSync, fsyncSync, linkSync, mkdirSync, openSync, readSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { TEMP_PREFIX } from './boundary.ts';

/** The token file lies beside the store, named after it, so each store has its own. */
export const TOKEN_SUFFIX = '.token';

/** Where the tokens of the store at `storePath` are kept. */
export function tokenPath(storePath: string): string {
  return `${storePath}${TOKEN_SUFFIX}`;
}

/** What the token file holds. */
export type TokenFileRead =
  | { readonly kind: 'lines'; readonly lines: readonly string[] }
  | { readonly kind: 'absent' }
  | { readonly kind: 'unusable'; readonly message: string };

/** A token file is a few lines; anything larger is not one. */
const MAX_BYTES = 64 * 1024;

function why(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0];
}

/** Reads the token file's lines (blank lines left out), refusing a file others could read. */
export function readTokenFile(path: string): TokenFileRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT') return { kind: 'absent' };
    if (code === 'ELOOP') return { kind: 'unusable', message: `${path} is a symbolic link; the token file must be a plain file. Delete it and a new token is made.` };
    return { kind: 'unusable', message: `${path} cannot be read (${why(err)}).` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { kind: 'unusable', message: `${path} is not a plain file; delete it and a new token is made.` };
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
      return { kind: 'unusable', message: `${path} belongs to another user; delete it and a new token is made.` };
    }
    if ((st.mode & 0o077) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
      return { kind: 'unusable', message: `${path} can be read by other users (mode ${mode}); run chmod 600 ${path}, or delete it and a new token is made.` };
    }
    if (st.size > MAX_BYTES) return { kind: 'unusable', message: `${path} is ${st.size} bytes, too large for a token file; delete it and a new token is made.` };
    const bytes = Buffer.alloc(st.size);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, got);
      if (n === 0) break;
      got += n;
    }
    const lines = bytes
      .subarray(0, got)
      .toString('utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
    return { kind: 'lines', lines };
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes the token file holding `token` where none exists (its directory too). Answers
 * `created: false` when another process made it first; the caller then reads theirs.
 */
export function createTokenFile(path: string, token: string): { ok: true; created: boolean } | { ok: false; message: string } {
  const dir = dirname(path);
  const tmp = join(dir, `${TEMP_PREFIX}${basename(path)}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  try {
    mkdirSync(dir, { recursive: true });
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      writeSync(fd, `${token}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      // link, unlike rename, never replaces a file another process made meanwhile.
      linkSync(tmp, path);
      return { ok: true, created: true };
    } catch (err) {
      if ((err as { code?: string }).code === 'EEXIST') return { ok: true, created: false };
      throw err;
    }
  } catch (err) {
    return { ok: false, message: `ws could not make the token file ${path} (${why(err)}).` };
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // Never made, or already gone.
    }
  }
}

/** Adds `token` as a line at the end of the existing token file (one write, appended). */
export function appendToken(path: string, token: string): { ok: true } | { ok: false; message: string } {
  try {
    const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
    try {
      const st = fstatSync(fd);
      // A person may have saved the file without a final newline; the new token gets its own line.
      let last = '\n';
      if (st.size > 0) {
        const one = Buffer.alloc(1);
        const rd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
        try {
          readSync(rd, one, 0, 1, st.size - 1);
        } finally {
          closeSync(rd);
        }
        last = one.toString('utf8');
      }
      writeSync(fd, `${last === '\n' ? '' : '\n'}${token}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return { ok: true };
  } catch (err) {
    return { ok: false, message: `ws could not add a token to ${path} (${why(err)}).` };
  }
}

/** A value that changes whenever the token file is replaced, edited or removed. */
export function tokenFileStamp(path: string): string {
  try {
    const st = statSync(path, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return 'absent';
  }
}
