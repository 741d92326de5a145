/**
 * Writing a file so that disk holds either the old bytes or the new, never half: a
 * temporary file beside the target, written and fsynced, renamed over it, then the
 * directory fsynced so the rename itself survives power loss.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Temporary files carry this prefix; walks pass over them. */
export const TEMP_PREFIX = '.ws-tmp-';

/** Fsyncs a directory so a rename or unlink in it is durable. */
export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename is then as durable as they allow.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes `bytes` to `abs` atomically, creating parent directories. Keeps the mode of a
 * file it replaces (or uses `mode` when given). Throws the system error on failure,
 * leaving the target as it was.
 */
export function atomicWrite(abs: string, bytes: Uint8Array, mode?: number): void {
  const dir = dirname(abs);
  mkdirSync(dir, { recursive: true });
  let keepMode = mode;
  if (keepMode === undefined) {
    try {
      keepMode = statSync(abs).mode & 0o7777;
    } catch {
      keepMode = 0o644;
    }
  }
  const tmp = join(dir, `${TEMP_PREFIX}${basename(abs)}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  const fd = openSync(tmp, 'wx', keepMode);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, abs);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  syncDirectory(dir);
}

/** Removes `abs` and fsyncs its directory so the removal is durable. */
export function durableUnlink(abs: string): void {
  unlinkSync(abs);
  syncDirectory(dirname(abs));
}
