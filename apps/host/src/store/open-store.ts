/**
 * Opening the store: made where missing, migrated where older, refused where it is not a
 * ws store, is damaged, or was made by a newer ws. The one rule: creation and migration
 * run under the store lock (two processes starting on a store that doesn't exist yet both
 * succeed), and a store that is refused is left byte for byte as it was — an idle store
 * (no `-wal` beside it) is checked over an immutable read-only connection, which makes
 * no `-wal` or `-shm`.
 */
import type { Database } from 'bun:sqlite';
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { doneWriting, tempName } from '../disk/boundary.ts';
import { syncDirectoryAt } from '../disk/held.ts';
import { StoreError, storeFault, storeWords } from './faults.ts';
import { type Lock, StoreLock } from './lock.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.ts';
import type { HostConfig } from '../config.ts';
import { FIRST_BRANCH, SqliteStore } from './sqlite-store.ts';
import type { Store } from './store.ts';

/**
 * `bun:sqlite`, loaded when a store is first opened: 1–2 ms of the start of a one-shot
 * command whose mounts are all direct, which opens none.
 */
function sqlite(): typeof import('bun:sqlite') {
  return require('bun:sqlite') as typeof import('bun:sqlite');
}

/** How long a connection waits on SQLite's own lock before it answers "busy". */
export const BUSY_TIMEOUT_MS = 10_000;

/** The page cache, in KiB. */
const CACHE_KIB = 16 * 1024;
/**
 * A one-shot command's page cache, in KiB (SQLite's default). Its grep's Workers read
 * the blobs on connections of their own; this one serves a pass's scan of the records,
 * read once, whose pages the 16 MiB cache kept to the end: a store-backed `ws call grep`
 * of the benchmark's tree peaked 15–20 MiB lower with 2 MiB, and took no longer.
 */
const ONE_SHOT_CACHE_KIB = 2048;
/** The page size of a new store, in bytes. */
const PAGE_BYTES = 8 * 1024;

const SQLITE_MAGIC = 'SQLite format 3\0';

/** How a store is opened. */
export interface OpenOptions {
  /** The store lock to open under (the host's); without one, a lock of its own is taken and let go. */
  readonly lock?: Lock;
  /** Caps the store's size in pages (`PRAGMA max_page_count`): past it a write fails as on a full disk. */
  readonly maxPageCount?: number;
  /** The store serves one command and closes ({@link ONE_SHOT_CACHE_KIB}). */
  readonly oneShot?: boolean;
}

/**
 * The configured store and its lock: the SQLite file at `[store] path` under `flock`, or
 * the PostgreSQL database at `[store] url` under this host's advisory lock. Without a
 * store-backed mount no store is opened (the lock still orders the host's operations).
 */
export async function openConfiguredStore(
  config: HostConfig,
  options: { readonly open: boolean; readonly maxPageCount?: number; readonly oneShot?: boolean },
): Promise<{ store: Store | undefined; lock: Lock }> {
  if (config.storeUrl !== undefined && options.open) {
    const roots = config.mounts.filter((m) => m.backend === 'store').map((m) => m.root);
    // Loaded only for a PostgreSQL store: every other command is spared parsing its client.
    const { openPgStore } = await import('./postgres/open.ts');
    return openPgStore(config.storeUrl, { host: config.storeHost, roots });
  }
  const lock = new StoreLock(config.storePath);
  try {
    const store = options.open ? await openStore(config.storePath, { lock, oneShot: options.oneShot === true, ...(options.maxPageCount === undefined ? {} : { maxPageCount: options.maxPageCount }) }) : undefined;
    return { store, lock };
  } catch (err) {
    lock.close();
    throw err;
  }
}

/**
 * Opens (or creates) the store at `path`, under the store lock. Refuses with a
 * `StoreError` sentence, changing nothing, a file that is empty or not SQLite, a damaged
 * database, or a store made by a newer ws.
 */
export async function openStore(path: string, options: OpenOptions = {}): Promise<SqliteStore> {
  const own = options.lock === undefined ? new StoreLock(path) : undefined;
  const lock: Lock = options.lock ?? (own as StoreLock);
  try {
    return await lock.run(async () => openLocked(path, options));
  } finally {
    own?.close();
  }
}

function openLocked(path: string, options: OpenOptions): SqliteStore {
  if (!existsSync(path)) createStore(path, options);
  // No `-wal`: nobody has the store open, so what the file holds is the whole store.
  if (!existsSync(`${path}-wal`)) checkIdle(path);
  let db: Database | undefined;
  try {
    db = new (sqlite().Database)(path, { create: false, readwrite: true });
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.run('PRAGMA journal_mode = WAL');
    // FULL in WAL mode fsyncs the log at every commit: a committed barrier survives power loss.
    db.run('PRAGMA synchronous = FULL');
    // 16 MiB of page cache (SQLite's default is 2): a search reads thousands of blob pages.
    db.run(`PRAGMA cache_size = -${options.oneShot ? ONE_SHOT_CACHE_KIB : CACHE_KIB}`);
    // Sorts and temporary indexes (a collection's DISTINCT, a branch switch's UNION) in memory, not in a temp file.
    db.run('PRAGMA temp_store = MEMORY');
    if (options.maxPageCount !== undefined) db.run(`PRAGMA max_page_count = ${Math.floor(options.maxPageCount)}`);
    const version = appliedVersion(db);
    if (version > SCHEMA_VERSION) throw new StoreError(storeWords(path).newer(version, SCHEMA_VERSION));
    migrate(db, version);
    return new SqliteStore(path, db);
  } catch (err) {
    db?.close();
    throw storeFault(path, err, 'opened');
  }
}

/**
 * Makes a new store at `path`: built under a temporary name beside it (ws's `.ws-tmp-`
 * prefix, which walks pass over and sweep), migrated with a rollback journal (so every
 * commit is in the file itself), then renamed into place. A process killed while making
 * it leaves a temporary file, never an empty or half-made store at `path`, which every
 * later open would refuse.
 */
function createStore(path: string, options: OpenOptions): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const name = tempName(basename(path));
  const tmp = join(dir, name);
  let db: Database | undefined;
  try {
    db = new (sqlite().Database)(tmp, { create: true, readwrite: true });
    // A new store's pages are 8 KiB (SQLite's default is 4): a blob of source text, packed,
    // mostly fits one page instead of a chain of overflow pages, and a first sync writes
    // (and checkpoints) half as many pages. Set before the first table; a store made
    // with other pages keeps them.
    db.run(`PRAGMA page_size = ${PAGE_BYTES}`);
    db.run('PRAGMA journal_mode = DELETE');
    db.run('PRAGMA synchronous = FULL');
    if (options.maxPageCount !== undefined) db.run(`PRAGMA max_page_count = ${Math.floor(options.maxPageCount)}`);
    migrate(db, 0);
    // WAL from here on, switched while nothing is pending (so opening it never converts it).
    db.run('PRAGMA journal_mode = WAL');
    db.close();
    db = undefined;
    renameSync(tmp, path);
    syncDirectoryAt(dir);
  } catch (err) {
    db?.close();
    for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${tmp}${suffix}`, { force: true });
    throw storeFault(path, err, 'opened');
  } finally {
    doneWriting(name);
  }
}

/** The highest migration applied (0: a new, empty database). */
function appliedVersion(db: Database): number {
  const hasTable = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").get();
  if (!hasTable) return 0;
  const row = db.query('SELECT MAX(version) AS v FROM migrations').get() as { v: number | null };
  return row.v ?? 0;
}

/** Applies the migrations after `version`, each in one IMMEDIATE transaction, and makes sure the first branch exists. */
function migrate(db: Database, version: number): void {
  for (const m of MIGRATIONS) {
    if (m.version <= version) continue;
    db.transaction(() => {
      db.run('CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
      db.run(m.sql);
      m.apply?.(db);
      db.run('INSERT INTO migrations (version, applied_at) VALUES (?, ?)', [m.version, Date.now()]);
    }).immediate();
  }
  const ready =
    db.query('SELECT 1 FROM branches LIMIT 1').get() !== null &&
    db.query("SELECT 1 FROM meta WHERE key = 'selected_branch'").get() !== null;
  if (ready) return; // an existing store at this version: opening it writes nothing
  db.transaction(() => {
    if (db.query('SELECT 1 FROM branches LIMIT 1').get() === null) {
      db.run('INSERT INTO branches (name, created_at, created_from) VALUES (?, ?, NULL)', [FIRST_BRANCH, Date.now()]);
    }
    db.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('selected_branch', ?)", [FIRST_BRANCH]);
  }).immediate();
}

/** `path` as an SQLite URI filename (`?`, `#` and `%` escaped). */
function uriOf(path: string): string {
  return `file:${path.replace(/[%?#]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)}`;
}

/**
 * Checks a store nobody has open, touching nothing: not empty, SQLite's header, and over
 * an immutable connection its schema, every table's first page and its version.
 */
function checkIdle(path: string): void {
  const words = storeWords(path);
  if (statSync(path).size === 0) throw new StoreError(words.empty());
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    if (n < 16 || head.toString('latin1') !== SQLITE_MAGIC) throw new StoreError(words.notSqlite());
  } finally {
    closeSync(fd);
  }
  let db: Database | undefined;
  try {
    // immutable: no locking, no `-wal` or `-shm` (nobody else has it open: see the caller).
    const { Database: Connection, constants } = sqlite();
    db = new Connection(`${uriOf(path)}?immutable=1`, constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI);
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
    for (const t of tables) db.query(`SELECT 1 FROM "${t.name.replace(/"/g, '""')}" LIMIT 1`).get();
    const version = appliedVersion(db);
    if (version > SCHEMA_VERSION) throw new StoreError(words.newer(version, SCHEMA_VERSION));
  } catch (err) {
    throw storeFault(path, err, 'opened');
  } finally {
    db?.close();
  }
}
