/**
 * The files a store at `STORE` is made of, beside the database itself. The one rule: an
 * agent never reaches any of them, and no walk lists them — the disk layer's walk rules
 * and containment take this list, so a new file here is out of reach everywhere at once.
 */

/**
 * Suffixes of the store's files: the database, SQLite's WAL, index and journal, the lock,
 * the waiters' lock, and the HTTP server's token file.
 */
export const STORE_FILE_SUFFIXES = ['', '-wal', '-shm', '-journal', '.lock', '.lock-wait', '.token'] as const;

/** Every file of the store at `storePath`. */
export function storeFiles(storePath: string): string[] {
  return STORE_FILE_SUFFIXES.map((suffix) => `${storePath}${suffix}`);
}
