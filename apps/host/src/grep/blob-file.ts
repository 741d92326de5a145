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
 * and spent up to four times as long reading (the host README, "Where a warm regex grep's time goes"). It is let go
 * when the search ends ({@link releasePackedBlobs}, sent by the search) or after
 * {@link IDLE_MS} without a batch: one left open would keep the store's WAL files after
 * the host closed its own (the last connection to close removes them).
 */
import { Database, type Statement } from 'bun:sqlite';

/** How long a kept connection waits for the next batch before it is let go anyway (a search that never said it ended). */
export const IDLE_MS = 2_000;
/** How much of the store's file a kept connection of a long-running host maps (more is read as usual). */
const MMAP_BYTES = 256 << 20;

/** Whether kept connections map the store's file: in a long-running host's Workers only ({@link mapStoreFile}). */
let mapping = false;

/**
 * Has this thread's connections map the store's file. The pages a search touched count
 * in the process's resident size while mapped: a one-shot `ws call grep` of a broad regex
 * on the bench tree peaked 75 MiB higher mapped, for a tenth of its time, so only a
 * long-running host, whose Workers read the same pages call after call, maps it.
 */
export function mapStoreFile(on: boolean): void {
  mapping = on;
}

interface Kept {
  readonly file: string;
  readonly db: Database;
  /** The read statement for each batch size met. */
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

/** The packed blobs of `hashes` in `file` (a hash it lacks is left out). */
export function readPackedBlobs(file: string, hashes: readonly string[]): Map<string, { readonly codec: string; readonly bytes: Uint8Array }> {
  const found = new Map<string, { codec: string; bytes: Uint8Array }>();
  if (hashes.length === 0) return found;
  const k = connection(file);
  if (k.idle !== undefined) clearTimeout(k.idle);
  try {
    let read = k.reads.get(hashes.length);
    if (read === undefined) {
      // The inner lookup uses the hash index; the outer one reads the rows in rowid order.
      read = k.db.prepare(`SELECT hash, codec, bytes FROM blob WHERE id IN (SELECT id FROM blob WHERE hash IN (${hashes.map(() => '?').join(',')}))`);
      k.reads.set(hashes.length, read);
    }
    for (const r of read.all(...hashes) as { hash: string; codec: string; bytes: Uint8Array }[]) found.set(r.hash, { codec: r.codec, bytes: r.bytes });
  } catch (err) {
    // A connection that failed once is not trusted with the next batch.
    releasePackedBlobs();
    throw err;
  }
  k.idle = setTimeout(releasePackedBlobs, IDLE_MS);
  // The wait alone keeps nothing alive.
  (k.idle as { unref?: () => void }).unref?.();
  return found;
}
