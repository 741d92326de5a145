/**
 * A Worker's own read of the store's blobs: the store's file opened read-only in the
 * Worker, a batch's packed blobs read there by hash in one statement (in rowid order,
 * so the file is read forward), so neither the reading nor the bytes' crossing to the
 * Worker costs the caller's thread anything. The one rule: a blob read here is the one
 * the store holds under that hash (blobs never change); a hash not found here (a blob
 * the caller's connection holds unwritten) is left to the caller, and any failure fails
 * the batch, which the caller then reads itself.
 *
 * The connection is kept from one batch to the next of a search, and in a long-running
 * host the file is mapped into memory (`mmap_size`): a connection a batch started each
 * from a cold page cache and read every page, the hash index's too, with a system call,
 * and spent up to four times as long reading (the host README, "Where a warm regex grep's time goes"). A one-shot
 * command's is let go when the search ends ({@link releasePackedBlobs}, sent by the
 * search); a long-running host's is kept from one search to the next (a new connection a
 * search made a warm regex grep 15% slower), until {@link SERVER_IDLE_MS} pass without a
 * batch or the host closes its Workers, which wait for it to be let go: one left open
 * would keep the store's WAL files after the host closed its own (the last connection to
 * close removes them). Any connection is let go after {@link IDLE_MS} without a batch
 * where nobody said otherwise.
 */
import { Database, type Statement } from 'bun:sqlite';

/** How long a kept connection waits for the next batch before it is let go anyway (a search that never said it ended). */
export const IDLE_MS = 2_000;
/** How long a long-running host's kept connection waits for the next search's batch ({@link mapStoreFile}). */
export const SERVER_IDLE_MS = 60_000;
/** How much of the store's file a kept connection of a long-running host maps (more is read as usual). */
const MMAP_BYTES = 256 << 20;

/** Whether kept connections map the store's file and wait {@link SERVER_IDLE_MS}: in a long-running host's Workers only ({@link mapStoreFile}). */
let mapping = false;

/**
 * Has this thread's connections map the store's file, and wait {@link SERVER_IDLE_MS} for
 * the next batch. The pages a search touched count in the process's resident size while
 * mapped: a one-shot `ws call grep` of a broad regex on the bench tree peaked 75 MiB higher
 * mapped, for a tenth of its time, so only a long-running host, whose Workers read the
 * same pages call after call, maps it.
 */
export function mapStoreFile(on: boolean): void {
  mapping = on;
}

interface Kept {
  readonly file: string;
  readonly db: Database;
  /** The read statement for each batch size met: by hash (the key), by row id (its negative). */
  readonly reads: Map<number, Statement>;
  idle?: ReturnType<typeof setTimeout>;
}

let kept: Kept | undefined;

/** Lets the kept connection go, if there is one (the search ended, or the Worker idles). */
export function releasePackedBlobs(): void {
  const k = kept;
  if (k === undefined) return;
  kept = undefined;
  if (k.idle !== undefined) clearTimeout(k.idle);
  for (const s of k.reads.values()) s.finalize();
  k.db.close();
}

/** How many bytes of the store's file the kept connection maps (0: none), or null where none is kept (for tests). */
export function keptConnection(): number | null {
  if (kept === undefined) return null;
  return (kept.db.query('PRAGMA mmap_size').get() as { mmap_size: number }).mmap_size;
}

function connection(file: string): Kept {
  if (kept !== undefined && kept.file === file) return kept;
  releasePackedBlobs();
  const db = new Database(file, { readonly: true });
  try {
    // A reader in WAL mode waits only while a checkpoint resets the log: briefly.
    db.run('PRAGMA busy_timeout = 2000');
    if (mapping) db.run(`PRAGMA mmap_size = ${MMAP_BYTES}`);
  } catch (err) {
    db.close();
    throw err;
  }
  kept = { file, db, reads: new Map() };
  return kept;
}

/** The statement reading `n` blobs, by hash or by row id, made once for each size met. */
function readStatement(k: Kept, n: number, byId: boolean): Statement {
  const key = byId ? -n : n;
  let read = k.reads.get(key);
  if (read === undefined) {
    const marks = Array.from({ length: n }, () => '?').join(',');
    // By hash, the inner lookup uses the hash index; either way the rows are read in rowid order.
    read = k.db.prepare(byId ? `SELECT hash, codec, bytes FROM blob WHERE id IN (${marks})` : `SELECT hash, codec, bytes FROM blob WHERE id IN (SELECT id FROM blob WHERE hash IN (${marks}))`);
    k.reads.set(key, read);
  }
  return read;
}

/**
 * The packed blobs of `hashes` in `file` (a hash it lacks is left out). `ids`: the row id
 * of each hash where the caller knows it: those are read by id — a row lookup, not one in
 * the hash index (a warm server's regex grep read its 8,724 candidates in 15–17 ms so,
 * 27–32 ms by hash) — and a row found under an id holding another hash counts for nothing
 * (its hash is read by hash with the rest).
 */
export function readPackedBlobs(file: string, hashes: readonly string[], ids?: readonly (number | null)[]): Map<string, { readonly codec: string; readonly bytes: Uint8Array }> {
  const found = new Map<string, { codec: string; bytes: Uint8Array }>();
  if (hashes.length === 0) return found;
  const k = connection(file);
  if (k.idle !== undefined) clearTimeout(k.idle);
  try {
    const wanted = new Set(hashes);
    const byId = ids === undefined ? [] : (ids.filter((id) => id !== null) as number[]);
    if (byId.length > 0) {
      for (const r of readStatement(k, byId.length, true).all(...byId) as { hash: string; codec: string; bytes: Uint8Array }[]) {
        if (wanted.has(r.hash)) found.set(r.hash, { codec: r.codec, bytes: r.bytes });
      }
    }
    const byHash = found.size === 0 ? hashes : hashes.filter((h) => !found.has(h));
    if (byHash.length > 0) {
      for (const r of readStatement(k, byHash.length, false).all(...byHash) as { hash: string; codec: string; bytes: Uint8Array }[]) found.set(r.hash, { codec: r.codec, bytes: r.bytes });
    }
  } catch (err) {
    // A connection that failed once is not trusted with the next batch.
    releasePackedBlobs();
    throw err;
  }
  k.idle = setTimeout(releasePackedBlobs, mapping ? SERVER_IDLE_MS : IDLE_MS);
  // The wait alone keeps nothing alive.
  (k.idle as { unref?: () => void }).unref?.();
  return found;
}
