/**
 * The embedded store: `@ws/reconcile`'s StorePort on bun:sqlite, plus branches and
 * history for people. One file (WAL mode, `synchronous = FULL`), shared by every mount.
 * The one rule: writes gather in one transaction that `barrier()` commits — so a crash
 * keeps all of them or none, and a committed barrier survives power loss.
 */
import { Database, type Statement } from 'bun:sqlite';
import { closeSync, existsSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import type {
  BranchMark,
  Evidence,
  Hash,
  PendingEffect,
  StorePort,
  StoredPath,
  TreeEntry,
} from '@ws/reconcile';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.ts';

/** A store that cannot be opened; its message is the sentence to show. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
}

/** The branch a new store starts on. */
export const FIRST_BRANCH = 'main';

/** One branch, for `ws branch list`. */
export interface BranchInfo {
  readonly name: string;
  readonly selected: boolean;
  readonly createdAt: string;
  readonly createdFrom: string | null;
  /** Files this branch's tree holds, over every mount. */
  readonly files: number;
}

/** One version of a file in a branch's history. */
export interface Version {
  readonly seq: number;
  /** The text's hash, or null where the change removed the file. */
  readonly hash: Hash | null;
  readonly size: number | null;
  readonly at: string;
}

const SQLITE_MAGIC = 'SQLite format 3\0';

/** Refuses a file that exists but is not SQLite, without writing to it. */
function checkIsSqlite(path: string): void {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    if (n === 0) return; // an empty file: SQLite makes it a database
    if (n < 16 || head.toString('latin1') !== SQLITE_MAGIC) {
      throw new StoreError(
        `${path} is not a ws store (not an SQLite database); move it away or point [store] path elsewhere. Nothing was changed.`,
      );
    }
  } finally {
    closeSync(fd);
  }
}

/** Reads the applied schema version of an existing store, read-only; refuses corrupt or newer stores. */
function existingVersion(path: string): number {
  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true });
    const hasTable = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").get();
    if (!hasTable) return 0;
    const row = db.query('SELECT MAX(version) AS v FROM migrations').get() as { v: number | null };
    return row.v ?? 0;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new StoreError(`${path} could not be opened as a ws store (${why}); it may be corrupt. Nothing was changed.`);
  } finally {
    db?.close();
  }
}

/** `path` is the directory `?3` or beneath it (`''`: every path). */
const UNDER = "(?3 = '' OR path = ?3 OR (path >= ?3 || '/' AND path < ?3 || '0'))";

/** One path's four records as a row: the tree entry as a JSON array, the rest as JSON text. */
interface RecordsRow {
  readonly tree: string | null;
  readonly mark: string | null;
  readonly evidence: string | null;
  readonly pending: string | null;
}

function storedPath(path: string, row: RecordsRow): StoredPath {
  let tree: TreeEntry | null = null;
  if (row.tree !== null) {
    const [hash, size, mode] = JSON.parse(row.tree) as [string, number, number | null];
    tree = { hash, size, mode };
  }
  return {
    path,
    tree,
    mark: row.mark === null ? null : (JSON.parse(row.mark) as BranchMark),
    evidence: row.evidence === null ? null : (JSON.parse(row.evidence) as Evidence),
    pending: row.pending === null ? null : (JSON.parse(row.pending) as PendingEffect),
  };
}

/** The SQLite store. Construct with {@link openStore}. */
export class SqliteStore implements StorePort {
  readonly path: string;
  private readonly db: Database;
  private readonly q: Record<string, Statement>;
  /** Writes made through this connection, so a cached scan knows it is stale. */
  private writes = 0;
  private scanCache: { key: string; writes: number; dataVersion: number; paths: readonly StoredPath[] } | undefined;

  constructor(path: string, db: Database) {
    this.path = path;
    this.db = db;
    const prepare = (sql: string) => db.prepare(sql);
    this.q = {
      selected: prepare("SELECT value FROM meta WHERE key = 'selected_branch'"),
      setSelected: prepare("INSERT INTO meta (key, value) VALUES ('selected_branch', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"),
      // All four records of a path in one statement: a read's disk check runs this a few times.
      records: prepare(`SELECT
        (SELECT json_array(hash, size, mode) FROM tree WHERE branch = ?1 AND mount = ?2 AND path = ?3) AS tree,
        (SELECT record FROM marks WHERE branch = ?1 AND mount = ?2 AND path = ?3) AS mark,
        (SELECT record FROM evidence WHERE mount = ?2 AND path = ?3) AS evidence,
        (SELECT record FROM pending WHERE mount = ?2 AND path = ?3) AS pending`),
      // A directory's records, one range scan per table (merged by path in JS: cheaper
      // than a UNION and four joins). `?3` is the directory; '' means the whole mount.
      scanTree: prepare(`SELECT path, hash, size, mode FROM tree WHERE branch = ?1 AND mount = ?2 AND ${UNDER}`),
      scanMarks: prepare(`SELECT path, record FROM marks WHERE branch = ?1 AND mount = ?2 AND ${UNDER}`),
      scanEvidence: prepare(`SELECT path, record FROM evidence WHERE mount = ?2 AND ${UNDER}`),
      scanPending: prepare(`SELECT path, record FROM pending WHERE mount = ?2 AND ${UNDER}`),
      dataVersion: prepare('PRAGMA data_version'),
      pendingPaths: prepare('SELECT path FROM pending WHERE mount = ?'),
      getBlob: prepare('SELECT bytes FROM blobs WHERE hash = ?'),
      putBlob: prepare('INSERT OR IGNORE INTO blobs (hash, size, bytes) VALUES (?, ?, ?)'),
      history: prepare('INSERT INTO history (branch, mount, path, hash, size, mode, at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      setTree: prepare(
        'INSERT INTO tree (branch, mount, path, hash, size, mode, seq) VALUES (?, ?, ?, ?, ?, ?, ?) ' +
          'ON CONFLICT (branch, mount, path) DO UPDATE SET hash = excluded.hash, size = excluded.size, mode = excluded.mode, seq = excluded.seq',
      ),
      removeTree: prepare('DELETE FROM tree WHERE branch = ? AND mount = ? AND path = ?'),
      setEvidence: prepare(
        'INSERT INTO evidence (mount, path, record) VALUES (?, ?, ?) ON CONFLICT (mount, path) DO UPDATE SET record = excluded.record',
      ),
      removeEvidence: prepare('DELETE FROM evidence WHERE mount = ? AND path = ?'),
      setPending: prepare(
        'INSERT INTO pending (mount, path, record) VALUES (?, ?, ?) ON CONFLICT (mount, path) DO UPDATE SET record = excluded.record',
      ),
      removePending: prepare('DELETE FROM pending WHERE mount = ? AND path = ?'),
      setMark: prepare(
        'INSERT INTO marks (branch, mount, path, record) VALUES (?, ?, ?, ?) ON CONFLICT (branch, mount, path) DO UPDATE SET record = excluded.record',
      ),
      removeMark: prepare('DELETE FROM marks WHERE branch = ? AND mount = ? AND path = ?'),
      rootIdentity: prepare('SELECT identity FROM roots WHERE mount = ?'),
      setRootIdentity: prepare(
        'INSERT INTO roots (mount, identity) VALUES (?, ?) ON CONFLICT (mount) DO UPDATE SET identity = excluded.identity',
      ),
    };
  }

  /** Opens a write transaction at the first write after a barrier; counts writes for the scan cache. */
  private write(): void {
    this.writes++;
    this.begin();
  }

  private begin(): void {
    if (!this.db.inTransaction) this.db.run('BEGIN IMMEDIATE');
  }

  selectedBranch(): string {
    return (this.q.selected.get() as { value: string }).value;
  }

  read(branch: string, mount: string, path: string): StoredPath {
    return storedPath(path, this.q.records.get(branch, mount, path) as RecordsRow);
  }

  scan(branch: string, mount: string, dir: string): Iterable<StoredPath> {
    // A pass scans a directory twice (to gather, then to decide); the second is served
    // from this cache unless anything was written since, here or by another connection.
    const version = (this.q.dataVersion.get() as { data_version: number }).data_version;
    const key = `${branch}\u0000${mount}\u0000${dir}`;
    const cached = this.scanCache;
    if (cached && cached.key === key && cached.writes === this.writes && cached.dataVersion === version) return cached.paths;
    const rows = new Map<string, { tree: TreeEntry | null; mark: string | null; evidence: string | null; pending: string | null }>();
    const at = (path: string) => {
      let row = rows.get(path);
      if (row === undefined) {
        row = { tree: null, mark: null, evidence: null, pending: null };
        rows.set(path, row);
      }
      return row;
    };
    for (const r of this.q.scanTree.all(branch, mount, dir) as { path: string; hash: string; size: number; mode: number | null }[]) {
      at(r.path).tree = { hash: r.hash, size: r.size, mode: r.mode };
    }
    for (const r of this.q.scanMarks.all(branch, mount, dir) as { path: string; record: string }[]) at(r.path).mark = r.record;
    for (const r of this.q.scanEvidence.all(branch, mount, dir) as { path: string; record: string }[]) at(r.path).evidence = r.record;
    for (const r of this.q.scanPending.all(branch, mount, dir) as { path: string; record: string }[]) at(r.path).pending = r.record;
    const paths: StoredPath[] = [];
    for (const [path, row] of rows) {
      paths.push({
        path,
        tree: row.tree,
        mark: row.mark === null ? null : (JSON.parse(row.mark) as BranchMark),
        evidence: row.evidence === null ? null : (JSON.parse(row.evidence) as Evidence),
        pending: row.pending === null ? null : (JSON.parse(row.pending) as PendingEffect),
      });
    }
    this.scanCache = { key, writes: this.writes, dataVersion: version, paths };
    return paths;
  }

  *pendingPaths(mount: string): Iterable<string> {
    for (const row of this.q.pendingPaths.all(mount) as { path: string }[]) yield row.path;
  }

  getBlob(hash: Hash): Uint8Array | null {
    const row = this.q.getBlob.get(hash) as { bytes: Uint8Array } | null;
    return row === null ? null : row.bytes;
  }

  putBlob(hash: Hash, bytes: Uint8Array): void {
    // Blobs join the open transaction (one commit per barrier, not one fsync per blob);
    // the store lock keeps other processes from waiting on it while a pass reads disk.
    // A blob changes no record, so a cached scan stays good.
    this.begin();
    this.q.putBlob.run(hash, bytes.length, bytes);
  }

  setTree(branch: string, mount: string, path: string, entry: TreeEntry | null): void {
    this.write();
    const at = Date.now();
    const { lastInsertRowid } = this.q.history.run(branch, mount, path, entry?.hash ?? null, entry?.size ?? null, entry?.mode ?? null, at);
    if (entry === null) this.q.removeTree.run(branch, mount, path);
    else this.q.setTree.run(branch, mount, path, entry.hash, entry.size, entry.mode, Number(lastInsertRowid));
  }

  setEvidence(mount: string, path: string, evidence: Evidence | null): void {
    this.write();
    if (evidence === null) this.q.removeEvidence.run(mount, path);
    else this.q.setEvidence.run(mount, path, JSON.stringify(evidence));
  }

  setPending(mount: string, path: string, pending: PendingEffect | null): void {
    this.write();
    if (pending === null) this.q.removePending.run(mount, path);
    else this.q.setPending.run(mount, path, JSON.stringify(pending));
  }

  setMark(branch: string, mount: string, path: string, mark: BranchMark | null): void {
    this.write();
    if (mark === null) this.q.removeMark.run(branch, mount, path);
    else this.q.setMark.run(branch, mount, path, JSON.stringify(mark));
  }

  rootIdentity(mount: string): string | null {
    return (this.q.rootIdentity.get(mount) as { identity: string } | null)?.identity ?? null;
  }

  setRootIdentity(mount: string, identity: string): void {
    this.write();
    this.q.setRootIdentity.run(mount, identity);
  }

  barrier(): void {
    if (this.db.inTransaction) this.db.run('COMMIT');
  }

  /** Every branch, the selected one marked. */
  branches(): BranchInfo[] {
    const selected = this.selectedBranch();
    const rows = this.db
      .query(
        'SELECT b.name, b.created_at, b.created_from, (SELECT COUNT(*) FROM tree t WHERE t.branch = b.name) AS files FROM branches b ORDER BY b.created_at, b.name',
      )
      .all() as { name: string; created_at: number; created_from: string | null; files: number }[];
    return rows.map((r) => ({
      name: r.name,
      selected: r.name === selected,
      createdAt: new Date(r.created_at).toISOString(),
      createdFrom: r.created_from,
      files: r.files,
    }));
  }

  /** True when a branch of this name exists. */
  hasBranch(name: string): boolean {
    return this.db.query('SELECT 1 FROM branches WHERE name = ?').get(name) !== null;
  }

  /** Creates `name` from the selected branch: a copy of its trees and marks, in one transaction. */
  createBranch(name: string): void {
    const from = this.selectedBranch();
    this.barrier();
    this.writes++;
    this.db.transaction(() => {
      this.db.run('INSERT INTO branches (name, created_at, created_from) VALUES (?, ?, ?)', [name, Date.now(), from]);
      this.db.run('INSERT INTO tree (branch, mount, path, hash, size, mode, seq) SELECT ?, mount, path, hash, size, mode, seq FROM tree WHERE branch = ?', [name, from]);
      this.db.run('INSERT INTO marks (branch, mount, path, record) SELECT ?, mount, path, record FROM marks WHERE branch = ?', [name, from]);
    })();
  }

  /** Selects another branch (durably). */
  selectBranch(name: string): void {
    this.barrier();
    this.writes++;
    this.q.setSelected.run(name);
  }

  /** A file's versions on a branch, oldest first. */
  history(branch: string, mount: string, path: string): Version[] {
    const rows = this.db
      .query('SELECT seq, hash, size, at FROM history WHERE branch = ? AND mount = ? AND path = ? ORDER BY seq')
      .all(branch, mount, path) as { seq: number; hash: string | null; size: number | null; at: number }[];
    return rows.map((r) => ({ seq: r.seq, hash: r.hash, size: r.size, at: new Date(r.at).toISOString() }));
  }

  /** Every file of a mount on a branch, in path order, with its tree entry. */
  treeFiles(branch: string, mount: string, dir: string): { path: string; entry: TreeEntry }[] {
    const rows = this.db
      .query(
        "SELECT path, hash, size, mode FROM tree WHERE branch = ?1 AND mount = ?2 AND (?3 = '' OR path = ?3 OR (path >= ?3 || '/' AND path < ?3 || '0')) ORDER BY path",
      )
      .all(branch, mount, dir) as { path: string; hash: string; size: number; mode: number | null }[];
    return rows.map((r) => ({ path: r.path, entry: { hash: r.hash, size: r.size, mode: r.mode } }));
  }

  /** Commits anything open and closes the database. */
  close(): void {
    this.barrier();
    this.db.close();
  }
}

/**
 * Opens (or creates) the store at `path`. Refuses, changing nothing, a file that is not
 * SQLite, a corrupt database, or a store made by a newer ws.
 */
export function openStore(path: string): SqliteStore {
  let version = 0;
  if (existsSync(path)) {
    checkIsSqlite(path);
    version = existingVersion(path);
    if (version > SCHEMA_VERSION) {
      throw new StoreError(
        `${path} was made by a newer ws (store schema ${version}; this ws knows up to ${SCHEMA_VERSION}); update ws to use it. Nothing was changed.`,
      );
    }
  } else {
    mkdirSync(dirname(path), { recursive: true });
  }
  const db = new Database(path, { create: true });
  try {
    db.run('PRAGMA journal_mode = WAL');
    // FULL in WAL mode fsyncs the log at every commit: a committed barrier survives power loss.
    db.run('PRAGMA synchronous = FULL');
    db.run('PRAGMA busy_timeout = 10000');
    db.run('CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    for (const m of MIGRATIONS) {
      if (m.version <= version) continue;
      db.transaction(() => {
        db.run(m.sql);
        db.run('INSERT INTO migrations (version, applied_at) VALUES (?, ?)', [m.version, Date.now()]);
      })();
    }
    db.transaction(() => {
      if (db.query('SELECT 1 FROM branches LIMIT 1').get() === null) {
        db.run('INSERT INTO branches (name, created_at, created_from) VALUES (?, ?, NULL)', [FIRST_BRANCH, Date.now()]);
      }
      db.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('selected_branch', ?)", [FIRST_BRANCH]);
    })();
  } catch (err) {
    db.close();
    if (err instanceof StoreError) throw err;
    const why = err instanceof Error ? err.message : String(err);
    throw new StoreError(`${path} could not be prepared as a ws store (${why}).`);
  }
  return new SqliteStore(path, db);
}
