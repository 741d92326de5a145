/**
 * What a person or a model reads when the store fails: one sentence naming the store's
 * file, what failed and what to do. The one rule: a lock is never called corruption —
 * SQLite's BUSY and LOCKED say the store is busy, only CORRUPT and NOTADB say damaged.
 */

/** A store that could not be opened or used; its message is the sentence to show. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
}

/** The sentences about a store at `path`, in one place. */
export function storeWords(path: string) {
  return {
    notSqlite: () =>
      `${path} is not a ws store (not an SQLite database); move it away or point [store] path elsewhere. Nothing was changed.`,
    empty: () =>
      `${path} is an empty file, not a ws store; remove it (ws makes a new store there) or point [store] path elsewhere. Nothing was changed.`,
    newer: (version: number, known: number) =>
      `${path} was made by a newer ws (store schema ${version}; this ws knows up to ${known}); update ws to use it. Nothing was changed.`,
    damaged: (why: string) =>
      `The store ${path} is damaged (${why}); ws will not use it. Stop ws, move the file away and start again (a new store is made; the old file keeps its drafts), or restore it from a backup.`,
    full: () =>
      `The disk is full: the store ${path} could not be written, so this change was not stored. Free some space and try again.`,
    busy: () =>
      `The store ${path} is busy: another process kept it locked for over 10 s. Try again in a moment.`,
    failed: (doing: string, why: string) => `The store ${path} could not be ${doing} (${why}).`,
  };
}

/** SQLite's result code name (`SQLITE_FULL`, `SQLITE_BUSY_SNAPSHOT`), when `err` is a SQLite error. */
function sqliteCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/** The kinds of store failure that decide what to say. */
export type FaultKind = 'full' | 'damaged' | 'busy' | 'other';

/** Which kind of failure `err` is. */
export function faultKind(err: unknown): FaultKind {
  const code = sqliteCode(err) ?? '';
  if (code.startsWith('SQLITE_FULL')) return 'full';
  if (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB')) return 'damaged';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'busy';
  return 'other';
}

/** The one sentence for `err`, raised by the store at `path` while it was being `doing` ("read", "written", "opened"). */
export function storeFault(path: string, err: unknown, doing: string): StoreError {
  if (err instanceof StoreError) return err;
  const words = storeWords(path);
  const why = (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 200);
  switch (faultKind(err)) {
    case 'full':
      return new StoreError(words.full());
    case 'damaged':
      return new StoreError(words.damaged(why));
    case 'busy':
      return new StoreError(words.busy());
    case 'other':
      return new StoreError(words.failed(doing, why));
  }
}
