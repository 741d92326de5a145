/**
 * A Worker's own read of the store's blobs: the store's file opened read-only in the
 * Worker, a batch's packed blobs read there by hash in one statement (in rowid order,
 * so the file is read forward), so neither the reading nor the bytes' crossing to the
 * Worker costs the caller's thread anything. The one rule: a blob read here is the one
 * the store holds under that hash (blobs never change); a hash not found here (a blob
 * the caller's connection holds unwritten) is left to the caller, and any failure fails
 * the batch, which the caller then reads itself. The connection lives for one batch
 * only: one left open would keep the store's WAL files after the host closed its own
 * (the last connection to close removes them), and a Worker may be ended at any time.
 */
import { Database } from 'bun:sqlite';

/** The packed blobs of `hashes` in `file` (a hash it lacks is left out). */
export function readPackedBlobs(file: string, hashes: readonly string[]): Map<string, { readonly codec: string; readonly bytes: Uint8Array }> {
  const found = new Map<string, { codec: string; bytes: Uint8Array }>();
  if (hashes.length === 0) return found;
  const db = new Database(file, { readonly: true });
  try {
    // A reader in WAL mode waits only while a checkpoint resets the log: briefly.
    db.run('PRAGMA busy_timeout = 2000');
    // The inner lookup uses the hash index; the outer one reads the rows in rowid order.
    const read = db.prepare(`SELECT hash, codec, bytes FROM blob WHERE id IN (SELECT id FROM blob WHERE hash IN (${hashes.map(() => '?').join(',')}))`);
    try {
      for (const r of read.all(...hashes) as { hash: string; codec: string; bytes: Uint8Array }[]) found.set(r.hash, { codec: r.codec, bytes: r.bytes });
    } finally {
      read.finalize();
    }
  } finally {
    db.close();
  }
  return found;
}
