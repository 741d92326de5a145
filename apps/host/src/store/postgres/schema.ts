/**
 * The PostgreSQL store's schema (in its own schema `ws`, so a database may hold other
 * things) and its migrations. The one rule, as on SQLite: the schema only moves forward,
 * one numbered migration at a time, each in one transaction and recorded in
 * `ws.migrations`, applied under an advisory lock by whichever host comes first; a store
 * whose highest migration is newer than this code is refused.
 *
 * What is shared and what is one host's: blobs, branches, trees (S), workspace deletions
 * (tombstones), history and review notes are every host's; evidence (P), pending effects,
 * root identities, the selected branch, recorded conflicts and where S came from are
 * keyed by host, because each machine has its own disk (the host README, "A shared store on PostgreSQL").
 */

/** One schema step. */
export interface PgMigration {
  readonly version: number;
  readonly sql: string;
}

/** Every migration, in order. Append only. */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    // Paths sort bytewise (COLLATE "C"), as on SQLite: a directory's range scan relies on it.
    sql: `
      CREATE TABLE ws.branches (name text COLLATE "C" PRIMARY KEY, created_at bigint NOT NULL, created_from text);
      -- One host's settings: its selected branch.
      CREATE TABLE ws.host_meta (host text NOT NULL, key text NOT NULL, value text NOT NULL, PRIMARY KEY (host, key));
      -- Content-addressed text, compressed where that pays (codec 'raw' or 'zstd'). indexed:
      -- 0 not yet, 1 in blob_text, 2 kept out (binary-looking).
      CREATE TABLE ws.blob (
        id bigserial PRIMARY KEY,
        hash text NOT NULL UNIQUE,
        size bigint NOT NULL,
        codec text NOT NULL,
        indexed smallint NOT NULL DEFAULT 0,
        unreferenced_at bigint,
        bytes bytea NOT NULL
      );
      CREATE INDEX blob_unindexed ON ws.blob (id) WHERE indexed <> 1;
      CREATE TABLE ws.blob_text (id bigint PRIMARY KEY REFERENCES ws.blob (id) ON DELETE CASCADE, text text NOT NULL);
      -- S: each branch's tree per mount, shared by every host.
      CREATE TABLE ws.tree (
        branch text NOT NULL, mount text NOT NULL, path text COLLATE "C" NOT NULL,
        hash text NOT NULL, size bigint NOT NULL, mode integer, seq bigint NOT NULL,
        PRIMARY KEY (branch, mount, path)
      );
      -- Every change to a tree, and each materialize, with the host that made it.
      CREATE TABLE ws.history (
        seq bigserial PRIMARY KEY,
        branch text NOT NULL, mount text NOT NULL, path text COLLATE "C" NOT NULL,
        hash text, size bigint, mode integer, at bigint NOT NULL,
        source text NOT NULL, moved_from text, host text NOT NULL
      );
      CREATE INDEX history_by_path ON ws.history (mount, path, seq);
      -- A path's mark is split: a workspace deletion (tombstone) is every host's, with an id;
      -- where S came from and a recorded conflict are one host's (they are about its disk),
      -- with the id of the last tombstone this host settled (see pg-store.ts, markOf).
      CREATE TABLE ws.marks (
        branch text NOT NULL, mount text NOT NULL, path text COLLATE "C" NOT NULL, record text NOT NULL,
        PRIMARY KEY (branch, mount, path)
      );
      CREATE TABLE ws.host_marks (
        host text NOT NULL, branch text NOT NULL, mount text NOT NULL, path text COLLATE "C" NOT NULL, record text NOT NULL,
        PRIMARY KEY (host, branch, mount, path)
      );
      -- P and pending effects: one host's disk.
      CREATE TABLE ws.evidence (host text NOT NULL, mount text NOT NULL, path text COLLATE "C" NOT NULL, record text NOT NULL, PRIMARY KEY (host, mount, path));
      CREATE TABLE ws.pending (host text NOT NULL, mount text NOT NULL, path text COLLATE "C" NOT NULL, record text NOT NULL, PRIMARY KEY (host, mount, path));
      CREATE TABLE ws.roots (host text NOT NULL, mount text NOT NULL, identity text NOT NULL, PRIMARY KEY (host, mount));
      CREATE TABLE ws.review_notes (
        branch text NOT NULL, mount text NOT NULL, path text COLLATE "C" NOT NULL,
        rejected integer NOT NULL, accepted integer NOT NULL, merged integer NOT NULL, at bigint NOT NULL,
        PRIMARY KEY (branch, mount, path)
      );
    `,
  },
];

/** The schema version this code writes. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1].version;

/**
 * The trigram index of blob text, where the database offers `pg_trgm` (a trusted
 * extension since PostgreSQL 13, shipped with Debian's server). Without it a search
 * still finds every match, reading `blob_text` whole.
 */
export const TRIGRAM_INDEX = `
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE INDEX IF NOT EXISTS blob_text_trgm ON ws.blob_text USING gin (text gin_trgm_ops);
`;
