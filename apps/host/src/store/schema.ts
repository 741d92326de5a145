/**
 * The store's schema and its migrations. The one rule: the schema only moves forward,
 * one numbered migration at a time, each applied in one transaction and recorded in
 * `migrations`; a store whose highest migration is newer than this code is refused.
 */

import type { Database } from 'bun:sqlite';
import { packBlob } from './blob-codec.ts';

/** One schema step: its number and the SQL that takes the previous schema to it (and a step in code, where SQL alone can't). */
export interface Migration {
  readonly version: number;
  readonly sql: string;
  /** Runs after `sql`, in the same transaction. */
  readonly apply?: (db: Database) => void;
}

/** Every migration, in order. Append only. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      -- Content-addressed text: stored once however many branches or versions hold it.
      CREATE TABLE blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, bytes BLOB NOT NULL) WITHOUT ROWID;
      CREATE TABLE branches (
        name TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        created_from TEXT
      ) WITHOUT ROWID;
      -- S: each branch's tree per mount.
      CREATE TABLE tree (
        branch TEXT NOT NULL,
        mount TEXT NOT NULL,
        path TEXT NOT NULL,
        hash TEXT NOT NULL,
        size INTEGER NOT NULL,
        mode INTEGER,
        seq INTEGER NOT NULL,
        PRIMARY KEY (branch, mount, path)
      ) WITHOUT ROWID;
      -- Every change to a tree: a file's earlier versions can be listed and read back.
      CREATE TABLE history (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        branch TEXT NOT NULL,
        mount TEXT NOT NULL,
        path TEXT NOT NULL,
        hash TEXT,
        size INTEGER,
        mode INTEGER,
        at INTEGER NOT NULL
      );
      CREATE INDEX history_by_path ON history (branch, mount, path, seq);
      -- P: the last state disk and store agreed on, per mount and path (not per branch).
      CREATE TABLE evidence (mount TEXT NOT NULL, path TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (mount, path)) WITHOUT ROWID;
      -- Per-branch path intent: origin, tombstone, recorded conflict.
      CREATE TABLE marks (
        branch TEXT NOT NULL,
        mount TEXT NOT NULL,
        path TEXT NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (branch, mount, path)
      ) WITHOUT ROWID;
      -- Announced effects not yet completed (the reconcile README, "Crash safety").
      CREATE TABLE pending (mount TEXT NOT NULL, path TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (mount, path)) WITHOUT ROWID;
      -- The identity of each mount's root directory last agreed under.
      CREATE TABLE roots (mount TEXT PRIMARY KEY, identity TEXT NOT NULL) WITHOUT ROWID;
    `,
  },
  {
    // History with sources: where each version came from (the tools' `history`), the path
    // a move brought it from, and an index by mount and path (history spans branches: the
    // workspace's copy of a path, version by version, whichever branch was selected).
    // Rows are only ever added. Versions from before this schema don't know their source:
    // they read as the tools' default for a change of unknown intent (`write`, or `delete`
    // for a removal).
    version: 2,
    sql: `
      ALTER TABLE history ADD COLUMN source TEXT;
      ALTER TABLE history ADD COLUMN moved_from TEXT;
      UPDATE history SET source = CASE WHEN hash IS NULL THEN 'delete' ELSE 'write' END;
      DROP INDEX history_by_path;
      CREATE INDEX history_by_path ON history (mount, path, seq);
    `,
  },
  {
    version: 3,
    sql: `
      -- What a person did to the agent's drafts on the review page, told to the agent on its
      -- next call on the path (or in status), then cleared.
      CREATE TABLE review_notes (
        branch TEXT NOT NULL,
        mount TEXT NOT NULL,
        path TEXT NOT NULL,
        rejected INTEGER NOT NULL,
        accepted INTEGER NOT NULL,
        merged INTEGER NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (branch, mount, path)
      ) WITHOUT ROWID;
    `,
  },
  {
    // A compact store with a search index (the host README, "The store on disk"). Blobs
    // move to a plain rowid table (a WITHOUT ROWID table of large values reads slowly),
    // each compressed where that pays (`codec`: 'raw' or 'zstd', per row). `blob_text` is
    // an FTS5 trigram index of each blob's text, keyed by the blob's rowid; `indexed` says
    // where a blob stands with it — 0 not yet, 1 in it, 2 kept out (binary-looking text):
    // set in the same transaction that adds the row, so the two never disagree. `unreferenced_at`: when a collection first found nothing referring
    // to the blob (it is removed a grace period later, if still unreferenced).
    version: 4,
    sql: `
      CREATE TABLE blob (
        id INTEGER PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        size INTEGER NOT NULL,
        codec TEXT NOT NULL,
        indexed INTEGER NOT NULL DEFAULT 0,
        unreferenced_at INTEGER,
        -- Last: a row's other columns are read without walking its overflow pages.
        bytes BLOB NOT NULL
      );
      CREATE INDEX blob_unindexed ON blob (id) WHERE indexed <> 1;
      CREATE VIRTUAL TABLE blob_text USING fts5(text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram');
    `,
    apply(db) {
      const put = db.prepare('INSERT INTO blob (hash, size, codec, bytes) VALUES (?, ?, ?, ?)');
      for (const row of db.query('SELECT hash, bytes FROM blobs ORDER BY hash').iterate() as IterableIterator<{ hash: string; bytes: Uint8Array }>) {
        const packed = packBlob(row.bytes);
        put.run(row.hash, row.bytes.length, packed.codec, packed.bytes);
      }
      put.finalize();
      db.run('DROP TABLE blobs');
    },
  },
  {
    // The search index names blobs by rowid; a grep turns them into hashes. Through the
    // table, each of a broad regex's 8,700 candidates read the row's own page (20–33 ms a
    // grep on the bench store); this index holds both columns, 3 MB for 38,000 blobs,
    // and the lookup reads only it (9–11 ms with the index's own query): the host
    // README, "Where a warm regex grep's time goes".
    version: 5,
    sql: `
      CREATE INDEX blob_id_hash ON blob (id, hash);
    `,
  },
  {
    // The search index keeps case (`case_sensitive 1`): a search in one case asks for the
    // trigrams as written, a case-insensitive one for each trigram in any case. On the
    // bench store a broad regex's candidates fell from 8,724 blobs (177.8 MB to unpack) to
    // 7,416 (167.7 MB), an identifier's from 156 to 72, for an index 6% larger. The index is
    // built again: every indexed blob is marked not indexed, and the background indexer
    // takes it in once more (until then grep reads it, with the same answers).
    version: 6,
    sql: `
      DROP TABLE blob_text;
      CREATE VIRTUAL TABLE blob_text USING fts5(text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram case_sensitive 1');
      UPDATE blob SET indexed = 0 WHERE indexed = 1;
    `,
  },
  {
    // A sync with nothing changed answers from a record of the last one (the host README,
    // "A quiet sync"). `changes` counts the write transactions that touched anything a
    // pass reads (records, marks, pending effects, roots, branches, the selection): every
    // such transaction adds 1 as it begins. A `quiet` row holds, per mount and branch, the
    // count when its report was made, the key of what else it depends on (the mount's
    // config and rules), the report (a sync's; '' where a search's pass kept it), what a
    // search adds to the workspace's files (`plan`: JSON, '' where it cannot say), and the
    // stats of every directory and file that pass saw (zstd-packed); it is worth something
    // only while the count is still its own.
    version: 7,
    sql: `
      CREATE TABLE changes (one INTEGER PRIMARY KEY CHECK (one = 1), n INTEGER NOT NULL);
      INSERT INTO changes (one, n) VALUES (1, 0);
      CREATE TABLE quiet (
        mount TEXT NOT NULL,
        branch TEXT NOT NULL,
        changes INTEGER NOT NULL,
        key TEXT NOT NULL,
        report TEXT NOT NULL,
        plan TEXT NOT NULL,
        stats BLOB NOT NULL,
        PRIMARY KEY (mount, branch)
      );
    `,
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
