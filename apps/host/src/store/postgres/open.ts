/**
 * Opening a PostgreSQL store: one connection (in a Worker), the schema made or migrated
 * under an advisory lock by whichever host comes first, the first branch made. The one
 * rule: a store made by a newer ws is refused, changing nothing; a database that can't be
 * reached answers one sentence.
 */
import { StoreError } from '../faults.ts';
import { FIRST_BRANCH } from '../sqlite-store.ts';
import { SyncConnection } from './bridge.ts';
import { PgStoreError, pgFaultKind, pgWords } from './faults.ts';
import { PgLock, lockKey } from './pg-lock.ts';
import { PgStore } from './pg-store.ts';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION, TRIGRAM_INDEX } from './schema.ts';

/** The advisory lock key migrations run under (any ws host on any database). */
const MIGRATION_KEY = '7310258841702418551';
/** How long opening waits for another host's migration. */
const MIGRATION_WAIT_MS = 60_000;

/** How a shared store is opened. */
export interface PgOpenOptions {
  /** This host's id (`[store] host`). */
  readonly host: string;
  /** The host's store-backed mount roots: with the host id, the key of its lock. */
  readonly roots: readonly string[];
  readonly lockTimeoutMs?: number;
}

/** Opens (making or migrating where needed) the store at `url`: the store and this host's lock on it. */
export async function openPgStore(url: string, options: PgOpenOptions): Promise<{ store: PgStore; lock: PgLock }> {
  const conn = new SyncConnection(url);
  const words = pgWords(url);
  const run = (text: string, params: readonly unknown[] = [], session?: string) => {
    const reply = conn.query(text, params, session);
    if (reply.ok) return { rows: reply.rows, session: conn.session(reply) };
    const kind = pgFaultKind(reply.state, reply.lost);
    throw new PgStoreError(kind === 'unreachable' ? words.unreachable(reply.message) : words.failed('opened', reply.message), kind);
  };
  try {
    const { session } = await migrationLock(run, words);
    try {
      migrate(run, session, words);
    } finally {
      try {
        run('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_KEY], session);
      } catch {
        // the session is gone, and its lock with it
      }
    }
  } catch (err) {
    conn.close();
    throw err instanceof StoreError ? err : new StoreError(words.failed('opened', String(err)));
  }
  const store = new PgStore(url, options.host, conn);
  const lock = new PgLock(store, lockKey(options.host, options.roots), options.lockTimeoutMs === undefined ? {} : { timeoutMs: options.lockTimeoutMs });
  return { store, lock };
}

type Run = (text: string, params?: readonly unknown[], session?: string) => { rows: Record<string, unknown>[]; session: string };

async function migrationLock(run: Run, words: ReturnType<typeof pgWords>): Promise<{ session: string }> {
  const deadline = Date.now() + MIGRATION_WAIT_MS;
  for (;;) {
    const { rows, session } = run('SELECT pg_try_advisory_lock($1::bigint) AS got', [MIGRATION_KEY]);
    if (rows[0]?.got === true) return { session };
    if (Date.now() > deadline) throw new StoreError(words.failed('opened', `another host held the migration lock for over ${MIGRATION_WAIT_MS / 1000} s`));
    await Bun.sleep(20);
  }
}

/** Applies the migrations after the store's, each in one transaction, and makes the first branch. */
function migrate(run: Run, session: string, words: ReturnType<typeof pgWords>): void {
  const [{ have }] = run("SELECT to_regclass('ws.migrations') IS NOT NULL AS have", [], session).rows;
  let version = 0;
  if (have === true) version = Number(run('SELECT COALESCE(MAX(version), 0) AS v FROM ws.migrations', [], session).rows[0].v);
  if (version > PG_SCHEMA_VERSION) throw new PgStoreError(words.newer(version, PG_SCHEMA_VERSION), 'other');
  for (const m of PG_MIGRATIONS) {
    if (m.version <= version) continue;
    run('BEGIN', [], session);
    try {
      run('CREATE SCHEMA IF NOT EXISTS ws; CREATE TABLE IF NOT EXISTS ws.migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)', [], session);
      run(m.sql, [], session);
      run('INSERT INTO ws.migrations (version, applied_at) VALUES ($1, $2)', [m.version, Date.now()], session);
      run('COMMIT', [], session);
    } catch (err) {
      try {
        run('ROLLBACK', [], session);
      } catch {
        // the failure ended the transaction
      }
      throw err;
    }
  }
  if (version < 1) trigramIndex(run, session);
  run(
    'INSERT INTO ws.branches (name, created_at, created_from) SELECT $1, $2, NULL WHERE NOT EXISTS (SELECT 1 FROM ws.branches)',
    [FIRST_BRANCH, Date.now()],
    session,
  );
}

/** The trigram index, where the database has `pg_trgm`: without it searches read every blob's text. */
function trigramIndex(run: Run, session: string): void {
  run('BEGIN', [], session);
  try {
    run(TRIGRAM_INDEX, [], session);
    run('COMMIT', [], session);
  } catch {
    try {
      run('ROLLBACK', [], session);
    } catch {
      // the failure ended the transaction
    }
  }
}
