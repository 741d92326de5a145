/**
 * The embedded store: `@ws/reconcile`'s StorePort on bun:sqlite, plus branches and
 * history for people (the host's {@link Store}). One file (WAL mode, `synchronous = FULL`),
 * shared by every mount. The one rule: writes gather in one transaction that `barrier()`
 * commits — so a crash keeps all of them or none, and a committed barrier survives power
 * loss. Every failure leaves as a `StoreError` with one sentence; a damaged store is let
 * go of at once, so its files are left as they were.
 */
import type { Database, Statement } from 'bun:sqlite';
import type { BranchMark, Evidence, Hash, PendingEffect, StoredPath, TreeEntry, VersionCause, VersionSource } from '@ws/reconcile';
import { looksBinary } from '@ws/text';
import { packBlob, packBlobSoon, unpackBlob } from './blob-codec.ts';
import { repackBlob } from './repack.ts';
import { StoreError, faultKind, storeFault } from './faults.ts';
import { type BlobIdLookup, type BlobLookup, type BranchInfo, childrenOf, hashKey, type IndexTerm, type QuietRecord, type QuietRecords, type ReviewNote, type Store, type TreeChildren, type TreeFile, type Version } from './store.ts';

export { StoreError } from './faults.ts';
export type { BranchInfo, Version } from './store.ts';

/** The branch a new store starts on. */
export const FIRST_BRANCH = 'main';

/** How many blobs one statement of a batched read asks for. */
const BLOB_CHUNK = 256;
/** How many blobs one transaction of the background indexer adds. */
const INDEX_BATCH = 32;
/** How many rows of records wait in memory before they are written (each table's rows, many to a statement). */
const ROWS_HELD = 512;
/** How many packed blobs (and how many of their bytes) wait before they are inserted. */
const BLOBS_HELD = 64;
const BLOB_BYTES_HELD = 4 * 1024 * 1024;
/**
 * Where a write transaction has written more than this (packed blobs, and the text of its
 * records' rows: a first sync, not a tool's write), its page cache is cut to
 * {@link WRITE_CACHE_KIB} until it ends: the pages it writes are not read again in it,
 * and the 16 MiB of them a first sync held raised its peak RSS by 12–15 MiB, at the same
 * time with 2 MiB. Early, not once the cache is full: the memory of pages let go then
 * stayed the process's.
 */
const CACHE_CUT_AFTER = 4 * 1024 * 1024;
const WRITE_CACHE_KIB = 2048;
/** How many rows one multi-row INSERT writes (a power of two). */
const ROWS_PER_STATEMENT = 128;

/**
 * What a write transaction learned about the tables as they stood when it began, so a
 * first sync asks SQLite nothing per file: that no blob was stored (then a blob is stored
 * only where this transaction put it), and which mounts' trees on which branches held no
 * entry (then an entry is there only where this transaction wrote it). What it wrote is
 * kept as numbers (a 32-bit or 48-bit digest): a digest it holds means "maybe", and
 * SQLite is asked; one it lacks means "surely not". Forgotten at commit and rollback.
 */
interface TxnKnowledge {
  /** True where the blob table held no row when first asked in this transaction. */
  noBlobs: boolean | undefined;
  /** Digests of the blobs this transaction put (held or inserted). */
  readonly blobsPut: Set<number>;
  /** By branch and mount: true where its tree held no entry when first asked in this transaction. */
  readonly emptyTrees: Map<string, boolean>;
  /** Digests of the tree keys this transaction wrote to SQLite (rows and removals). */
  readonly treeWritten: Set<number>;
}

/** A blob hash's digest for {@link TxnKnowledge}: its first 48 bits (a hash in hex; anything else, its CRC-32). */
function blobDigest(hash: string): number {
  const n = Number.parseInt(hash.slice(0, 12), 16);
  return Number.isNaN(n) ? Bun.hash.crc32(hash) : n;
}

/** A row of a records table as bound to its INSERT (a keyed table's key columns first). */
type HeldRow = readonly (string | number | null)[];

/** The keyed records tables whose writes are held: each table's columns, the first `key` of them its primary key. */
const HELD_TABLES = {
  tree: { columns: ['branch', 'mount', 'path', 'hash', 'size', 'mode', 'seq'], key: 3 },
  evidence: { columns: ['mount', 'path', 'record'], key: 2 },
  marks: { columns: ['branch', 'mount', 'path', 'record'], key: 3 },
  pending: { columns: ['mount', 'path', 'record'], key: 2 },
} as const;
type HeldTable = keyof typeof HELD_TABLES;
const HELD_TABLE_NAMES = Object.keys(HELD_TABLES) as HeldTable[];
const HISTORY_COLUMNS = ['seq', 'branch', 'mount', 'path', 'hash', 'size', 'mode', 'at', 'source', 'moved_from'] as const;

/** The multi-row statement writing `rows` rows of `table` (held tables upsert; history only adds). */
function manyRowsSql(table: HeldTable | 'history', rows: number): string {
  const columns: readonly string[] = table === 'history' ? HISTORY_COLUMNS : HELD_TABLES[table].columns;
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const values = Array.from({ length: rows }, () => tuple).join(', ');
  const insert = `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values}`;
  if (table === 'history') return insert;
  const { key } = HELD_TABLES[table];
  const set = columns.slice(key).map((c) => `${c} = excluded.${c}`).join(', ');
  return `${insert} ON CONFLICT (${columns.slice(0, key).join(', ')}) DO UPDATE SET ${set}`;
}

const textDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Most ways of writing one trigram a query asks for: a word character's place beside two
 * characters is 63. Past it a trigram is left out of the query (the index then narrows
 * less, never wrongly).
 */
const MOST_WAYS = 64;

/**
 * An FTS5 query for blobs whose text holds every term: each term's trigrams, ANDed
 * (each a quoted string, `"` doubled). A text holding a term holds each of its trigrams,
 * so every blob holding the terms is found; others may be too (a search confirms each).
 * The index keeps case: with `caseInsensitive`, each trigram is asked for in every case
 * its ASCII letters may take (an OR of up to eight; only ASCII letters fold in a
 * case-insensitive search, and the terms are ASCII). A term's place that may be several
 * characters (`IndexTerm`) makes its trigrams an OR of every way of writing them, each
 * trigram with at most {@link MOST_WAYS} of them; throws where no term has one.
 */
export function matchQuery(terms: readonly IndexTerm[], caseInsensitive = false): string {
  const grams = new Map<string, string[]>();
  // Every trigram: the index keeps no positions (`detail = none`), so each one more narrows.
  for (const term of terms) {
    const places = typeof term === 'string' ? [...term] : term;
    for (let i = 0; i + 3 <= places.length; i++) {
      const window = places.slice(i, i + 3);
      if (window.every((place) => place.length === 1)) {
        const gram = window.join('');
        const key = caseInsensitive ? gram.toLowerCase() : gram;
        if (!grams.has(key)) grams.set(key, caseInsensitive ? casings(gram) : [gram]);
        continue;
      }
      let ways = [''];
      for (const place of window) {
        const chars = [...new Set(caseInsensitive ? [...place].flatMap(casings) : [...place])];
        ways = ways.length * chars.length > MOST_WAYS ? [] : ways.flatMap((w) => chars.map((c) => w + c));
      }
      const key = `\u0000${ways.join('\u0000')}`;
      if (ways.length > 0 && !grams.has(key)) grams.set(key, ways);
    }
  }
  if (grams.size === 0) throw new Error('no term gives the search index a trigram to look up');
  const quoted = (g: string) => `"${g.replace(/"/g, '""')}"`;
  return [...grams.values()].map((forms) => (forms.length === 1 ? quoted(forms[0]) : `(${forms.map(quoted).join(' OR ')})`)).join(' AND ');
}

/** Every way `gram` may be written with its ASCII letters in either case. */
function casings(gram: string): string[] {
  let forms = [''];
  for (const c of gram) {
    const lower = c.toLowerCase();
    const both = /^[a-z]$/.test(lower) ? [lower, c.toUpperCase()] : [c];
    forms = forms.flatMap((f) => both.map((b) => f + b));
  }
  return forms;
}


/**
 * The blobs a lookup names, each by its hash's first 52 bits with its row id, in two
 * arrays of numbers sorted by key, found by halving: no string, and no table entry, a
 * blob (a common word names most of a tree: `return`, 21,969 of the bench store's blobs,
 * whose hashes a set and a map held, the map's table alone 3.25 MB). Two hashes sharing
 * those bits only keep a blob in that the index did not name, under the other's id (see
 * `BlobLookup`).
 */
function namedBlobs(rows: Iterable<{ readonly id: number; readonly hash: Hash }>): BlobLookup['may'] & NonNullable<BlobLookup['ids']> {
  const keyed: number[] = [];
  const rowIds: number[] = [];
  for (const row of rows) {
    keyed.push(hashKey(row.hash));
    rowIds.push(row.id);
  }
  const order = Uint32Array.from(keyed.keys()).sort((a, b) => keyed[a] - keyed[b]);
  const keys = Float64Array.from(order, (k) => keyed[k]);
  const ids = Float64Array.from(order, (k) => rowIds[k]);
  const at = (hash: Hash): number => {
    const key = hashKey(hash);
    let lo = 0;
    let hi = keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < key) lo = mid + 1;
      else if (keys[mid] > key) hi = mid - 1;
      else return mid;
    }
    return -1;
  };
  return {
    has: (hash) => at(hash) >= 0,
    get: (hash) => {
      const i = at(hash);
      return i < 0 ? undefined : ids[i];
    },
    size: keys.length,
  };
}

/** The blobs the search index names for a query, by hash: each read from the covering index (`blob_id_hash`), not the row, whose page it would read. */
export const CANDIDATES_SQL = 'SELECT b.id, b.hash FROM blob_text t JOIN blob b INDEXED BY blob_id_hash ON b.id = t.rowid WHERE blob_text MATCH ?';

/** The row ids of the blobs the search index names for a query, ascending (the index's own order). */
const NAMED_IDS_SQL = 'SELECT rowid FROM blob_text WHERE blob_text MATCH ?';

/** How much of the store's file the lookups' connection maps, as grep's Workers' do (`blob-file.ts`). */
const LOOKUP_MMAP_BYTES = 256 << 20;

/** A read-only connection to the store's file for index lookups read across a search's awaits ({@link SqliteStore.blobIdsMayHold}). */
function lookupConnection(file: string): Database {
  // `bun:sqlite` is loaded with the store (`open-store.ts`): here it is, already.
  const { Database: Connection } = require('bun:sqlite') as typeof import('bun:sqlite');
  const db = new Connection(file, { readonly: true });
  try {
    db.run('PRAGMA busy_timeout = 2000');
    db.run(`PRAGMA mmap_size = ${LOOKUP_MMAP_BYTES}`);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** A hash as the host writes it (SHA-256, hex), wherever a record's JSON holds one. */
const HASH_IN_RECORD = /[0-9a-f]{64}/g;

/**
 * Every blob hash anything refers to: a tree on any branch, a history row, and any hash
 * a mark (a conflict's disk side, a tombstone's base), evidence or a pending effect holds
 * — read from their JSON wherever it appears, so a record never loses its blob to a
 * collection, whatever its shape.
 */
function referencedHashes(db: Database): Set<string> {
  const refs = new Set<string>();
  for (const r of db.query('SELECT DISTINCT hash FROM tree').all() as { hash: string }[]) refs.add(r.hash);
  for (const r of db.query('SELECT DISTINCT hash FROM history WHERE hash IS NOT NULL').all() as { hash: string }[]) refs.add(r.hash);
  for (const table of ['marks', 'evidence', 'pending']) {
    for (const r of db.query(`SELECT record FROM ${table}`).all() as { record: string }[]) {
      for (const m of r.record.matchAll(HASH_IN_RECORD)) refs.add(m[0]);
    }
  }
  return refs;
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

/** How many rows a scan reads of a table at a time. */
const SCAN_PAGE = 2048;

/**
 * Two paths in SQLite's order for text (its bytes in UTF-8, compared as `memcmp` does):
 * JavaScript's `<` compares UTF-16 units, which put a character past U+FFFF before
 * U+E000–U+FFFF. A path read back from SQLite has no lone surrogate (Bun binds one as
 * U+FFFD), so on what a scan reads this is exactly SQLite's order.
 */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  // A surrogate is half of a character past U+FFFF, whose UTF-8 bytes sort after every
  // other character's; two surrogates, or two other units, sort as their units do.
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  const xs = x >= 0xd800 && x <= 0xdfff;
  const ys = y >= 0xd800 && y <= 0xdfff;
  return xs === ys ? x - y : xs ? 1 : -1;
}

/**
 * A range scan's rows in path order, read a page at a time (`first` binds branch, mount,
 * directory and the page's size; `after` the last path read besides), so a whole mount's
 * rows are never all held at once.
 */
class PagedRows<R extends [string, ...unknown[]]> {
  private rows: R[] = [];
  private at = 0;
  private last: string | undefined;
  private more = true;

  constructor(
    private readonly first: Statement,
    private readonly after: Statement,
    private readonly branch: string,
    private readonly mount: string,
    private readonly dir: string,
  ) {}

  /** The row in hand (undefined: none is left). */
  peek(): R | undefined {
    if (this.at === this.rows.length) {
      if (!this.more) return undefined;
      const rows = (this.last === undefined ? this.first.values(this.branch, this.mount, this.dir, SCAN_PAGE) : this.after.values(this.branch, this.mount, this.dir, SCAN_PAGE, this.last)) as R[];
      this.more = rows.length === SCAN_PAGE;
      this.rows = rows;
      this.at = 0;
      if (rows.length === 0) return undefined;
      this.last = rows[rows.length - 1][0];
    }
    return this.rows[this.at];
  }

  take(): void {
    this.at++;
  }
}

/** A history row as SQLite gives it. */
interface HistoryRow {
  readonly seq: number;
  readonly branch: string;
  readonly path: string;
  readonly hash: string | null;
  readonly size: number | null;
  readonly at: number;
  readonly source: string | null;
  readonly moved_from: string | null;
}

function versionOf(r: HistoryRow): Version {
  // Every row since schema 2 has a source; the migration gave older rows one.
  const source = (r.source ?? (r.hash === null ? 'delete' : 'write')) as VersionSource;
  return { seq: r.seq, branch: r.branch, path: r.path, hash: r.hash, size: r.size, at: new Date(r.at).toISOString(), source };
}

/** The SQLite store. Construct with `openStore` (`open-store.ts`), which opens and migrates it under the store lock. */
export class SqliteStore implements Store {
  readonly path: string;
  /** A barrier commits one transaction: a crash keeps all of its writes or none. */
  readonly atomicBarriers = true;
  private readonly db: Database;
  private readonly q: Record<string, Statement>;
  /** Writes made through this connection, so a cached scan knows it is stale. */
  private writes = 0;
  private scanCache: { key: string; writes: number; dataVersion: number; changes: number | undefined; paths: readonly StoredPath[] } | undefined;
  /** The store's count of changes (`changes.n`) as the last scan read it; undefined where it read inside a write transaction. */
  private scannedChanges: number | undefined;
  /** Set once the store was found damaged: every later call says so. */
  private broken: StoreError | undefined;
  private open = true;
  /** The index lookups' own connection ({@link blobIdsMayHold}), opened with the first. */
  private lookups: Database | undefined;
  /**
   * Record writes not yet sent to SQLite, each table's by key (the last write of a key
   * wins), and history rows in order: written many to a statement when enough are held,
   * and before anything reads a record or commits (see {@link flush}). They belong to the
   * open transaction: a failure drops them with it, a crash loses them with it.
   */
  private held: Record<HeldTable, { readonly rows: Map<string, HeldRow>; readonly removed: Map<string, readonly string[]> }> = {
    tree: { rows: new Map(), removed: new Map() },
    evidence: { rows: new Map(), removed: new Map() },
    marks: { rows: new Map(), removed: new Map() },
    pending: { rows: new Map(), removed: new Map() },
  };
  private heldHistory: HeldRow[] = [];
  /** The newest held history row of each mount and path (`addVersion` asks). */
  private heldNewest = new Map<string, { readonly branch: string; readonly hash: string | null; readonly source: string }>();
  private heldCount = 0;
  /**
   * How many blobs the index lacks, as last counted (a count reads every such row), kept
   * while nothing could have changed it: forgotten at every blob added here, every
   * collection and every failure, and worth nothing once another connection committed
   * (`data_version`); an index slice takes off what it marked.
   */
  private unindexedLeft: { n: number; dataVersion: number } | undefined;
  /** The seq the next held history row takes (known while rows are held; the write lock keeps it ours). */
  private nextSeq: number | undefined;
  /**
   * Packed blobs not yet inserted, by hash: inserted together (a few dozen inserts in a row
   * run in a fraction of the time of each alone, between reads), before any other call.
   */
  private heldBlobs = new Map<Hash, { readonly size: number; readonly codec: string; readonly at: number; readonly length: number }>();
  private heldBlobBytes = 0;
  /**
   * The held blobs' bytes, copied in one after another: one buffer for the life of the
   * store, so the buffers that compression hands back die young (held themselves, they
   * outlived the young generation and raised a first sync's peak RSS by tens of MiB).
   */
  private blobArena: Uint8Array | undefined;
  /** What the open write transaction knows without asking SQLite (see {@link TxnKnowledge}); undefined outside one. */
  private txn: TxnKnowledge | undefined;
  /** About how many bytes the open write transaction wrote (see {@link CACHE_CUT_AFTER}). */
  private txnBytes = 0;
  /** The page cache's size before the open write transaction cut it (`PRAGMA cache_size`), to give back when it ends. */
  private cacheBefore: number | undefined;
  /** Multi-row statements by table and row count, each with the array its values are bound from (reused: a first sync binds millions). */
  private readonly manyRows = new Map<string, { readonly statement: Statement; readonly values: (string | number | null)[] }>();

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
      // Tree and evidence come in path order (their primary keys' order: no sort), a page
      // of `?4` rows at a time, the next after the path `?5`.
      scanTree: prepare(`SELECT path, hash, size, mode FROM tree WHERE branch = ?1 AND mount = ?2 AND ${UNDER} ORDER BY path LIMIT ?4`),
      scanTreeAfter: prepare(`SELECT path, hash, size, mode FROM tree WHERE branch = ?1 AND mount = ?2 AND ${UNDER} AND path > ?5 ORDER BY path LIMIT ?4`),
      scanMarks: prepare(`SELECT path, record FROM marks WHERE branch = ?1 AND mount = ?2 AND ${UNDER}`),
      scanEvidence: prepare(`SELECT path, record FROM evidence WHERE mount = ?2 AND ${UNDER} ORDER BY path LIMIT ?4`),
      scanEvidenceAfter: prepare(`SELECT path, record FROM evidence WHERE mount = ?2 AND ${UNDER} AND path > ?5 ORDER BY path LIMIT ?4`),
      scanPending: prepare(`SELECT path, record FROM pending WHERE mount = ?2 AND ${UNDER}`),
      dataVersion: prepare('PRAGMA data_version'),
      // Each write transaction that may change what a pass reads counts itself as it begins (see `quiet`).
      countChange: prepare('UPDATE changes SET n = n + 1'),
      changes: prepare('SELECT n FROM changes'),
      anyEvidence: prepare('SELECT 1 FROM evidence WHERE mount = ? LIMIT 1'),
      workspaceFiles: prepare("SELECT path, 'workspace' AS source, hash, size FROM tree WHERE branch = ? AND mount = ? ORDER BY path"),
      quietGet: prepare('SELECT q.key, q.report, q.plan, q.stats FROM quiet q, changes c WHERE q.mount = ? AND q.branch = ? AND q.changes = c.n'),
      // Kept only where the count is still the one the record was made at: one statement, so no write comes between the check and the keeping.
      quietPut: prepare(
        `INSERT INTO quiet (mount, branch, changes, key, report, plan, stats) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 FROM changes WHERE n = ?3
         ON CONFLICT (mount, branch) DO UPDATE SET changes = excluded.changes, key = excluded.key, report = excluded.report, plan = excluded.plan, stats = excluded.stats`,
      ),
      pendingPaths: prepare('SELECT path FROM pending WHERE mount = ?'),
      getBlob: prepare('SELECT codec, bytes FROM blob WHERE hash = ?'),
      hasBlob: prepare('SELECT id, unreferenced_at FROM blob WHERE hash = ?'),
      keepBlob: prepare('UPDATE blob SET unreferenced_at = NULL WHERE id = ?'),
      // One statement for "store it, or keep the one stored": no look-up before it.
      putBlobKept: prepare(
        'INSERT INTO blob (hash, size, codec, bytes) VALUES (?, ?, ?, ?) ' +
          'ON CONFLICT (hash) DO UPDATE SET unreferenced_at = NULL WHERE unreferenced_at IS NOT NULL',
      ),
      unindexed: prepare('SELECT id, codec, bytes FROM blob WHERE indexed <> 1 AND indexed = 0 ORDER BY id LIMIT ?'),
      unindexedHashes: prepare('SELECT hash FROM blob WHERE indexed <> 1'),
      indexText: prepare('INSERT INTO blob_text (rowid, text) VALUES (?, ?)'),
      setIndexed: prepare('UPDATE blob SET indexed = ? WHERE id = ?'),
      setBytes: prepare('UPDATE blob SET bytes = ? WHERE id = ?'),
      treeHash: prepare('SELECT hash, seq FROM tree WHERE branch = ? AND mount = ? AND path = ?'),
      newestVersion: prepare('SELECT branch, hash, source FROM history WHERE mount = ? AND path = ? ORDER BY seq DESC LIMIT 1'),
      versionBySeq: prepare('SELECT seq, branch, mount, path, hash, size, at, source, moved_from FROM history WHERE seq = ?'),
      versions: prepare('SELECT seq, branch, path, hash, size, at, source, moved_from FROM history WHERE mount = ? AND path = ? AND seq < ? ORDER BY seq'),
      removeTree: prepare('DELETE FROM tree WHERE branch = ? AND mount = ? AND path = ?'),
      removeEvidence: prepare('DELETE FROM evidence WHERE mount = ? AND path = ?'),
      removePending: prepare('DELETE FROM pending WHERE mount = ? AND path = ?'),
      removeMark: prepare('DELETE FROM marks WHERE branch = ? AND mount = ? AND path = ?'),
      rootIdentity: prepare('SELECT identity FROM roots WHERE mount = ?'),
      setRootIdentity: prepare(
        'INSERT INTO roots (mount, identity) VALUES (?, ?) ON CONFLICT (mount) DO UPDATE SET identity = excluded.identity',
      ),
    };
  }

  /**
   * Runs one store call; a SQLite failure becomes the one sentence for it. A failed write
   * rolls back what the open transaction held (the durability contract allows losing
   * writes since the last barrier); a damaged store is closed at once and stays refused.
   */
  private guard<T>(doing: 'read' | 'written', fn: () => T, keep?: 'records' | 'all'): T {
    if (this.broken !== undefined) throw this.broken;
    // Whatever else touches their tables sees the held rows and blobs written first. `keep`:
    // 'records' for a call touching no records table (the held rows may wait), 'all' for
    // one touching neither those tables nor the blobs (a record write, a blob put, the
    // selected branch, a root).
    if (keep !== 'all' && this.heldBlobs.size > 0) this.guardNow('written', () => this.flushBlobs());
    if (keep === undefined && this.heldCount > 0) this.guardNow('written', () => this.flush());
    return this.guardNow(doing, fn);
  }

  private guardNow<T>(doing: 'read' | 'written', fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      const fault = storeFault(this.path, err, doing);
      if (faultKind(err) === 'damaged') {
        this.broken = fault;
        this.shut();
      } else if (this.open && this.db.inTransaction) {
        try {
          this.db.run('ROLLBACK');
        } catch {
          // the failure already ended the transaction
        }
      }
      this.dropAllHeld(); // they were the rolled-back transaction's
      this.unindexedLeft = undefined; // the rollback may have undone blobs or index marks
      this.scanCache = undefined; // it may hold writes the failure undid
      throw fault;
    }
  }

  /** Opens a write transaction at the first write after a barrier; counts writes for the scan cache. */
  private write(): void {
    this.writes++;
    this.begin();
  }

  private begin(): void {
    if (this.db.inTransaction) return;
    this.restoreCache(); // the transaction that cut it is over, however it ended
    this.db.run('BEGIN IMMEDIATE');
    this.q.countChange.run();
    this.txn = { noBlobs: undefined, blobsPut: new Set(), emptyTrees: new Map(), treeWritten: new Set() };
  }

  /** The open write transaction's knowledge, or undefined where none is open (or it ended unseen). */
  private knowledge(): TxnKnowledge | undefined {
    if (this.txn !== undefined && !this.db.inTransaction) this.txn = undefined;
    return this.txn;
  }

  /** True where the blob `hash` surely is not stored (without asking SQLite where the transaction knows); false: maybe. */
  private surelyNoBlob(hash: Hash): boolean {
    const txn = this.knowledge();
    if (txn === undefined) return false;
    txn.noBlobs ??= this.db.query('SELECT 1 FROM blob LIMIT 1').get() === null;
    return txn.noBlobs && !txn.blobsPut.has(blobDigest(hash));
  }

  /** Notes a blob this transaction puts (see {@link TxnKnowledge}). */
  private notePut(hash: Hash): void {
    this.knowledge()?.blobsPut.add(blobDigest(hash));
  }

  /** Holds one keyed row for the next flush; flushes when enough are held. */
  private hold(table: HeldTable, key: readonly string[], row: HeldRow | null): void {
    const k = key.join('\u0000');
    const { rows, removed } = this.held[table];
    if (!rows.delete(k) && !removed.delete(k)) this.heldCount++;
    if (row === null) removed.set(k, key);
    else rows.set(k, row);
    if (this.heldCount >= ROWS_HELD) this.flush();
  }

  /** Writes every held row, many to a statement, into the open transaction. */
  private flush(): void {
    if (this.heldCount === 0) return;
    this.begin();
    this.writeMany('history', this.heldHistory);
    // In the order written (a pass writes its paths in order, so each B-tree is written page by page).
    for (const table of HELD_TABLE_NAMES) {
      const { rows, removed } = this.held[table];
      for (const key of removed.values()) this.removeStatement(table).run(...key);
      this.writeMany(table, [...rows.values()]);
      if (table === 'tree') this.noteTreeWritten([...removed.keys(), ...rows.keys()]);
    }
    this.dropHeld();
  }

  /**
   * Rows into `table`, {@link ROWS_PER_STATEMENT} to a statement, the rest in statements of
   * a power of two rows (so a table has at most eight statements, each prepared once).
   */
  private writeMany(table: HeldTable | 'history', rows: readonly HeldRow[]): void {
    for (let at = 0; at < rows.length; ) {
      let n = ROWS_PER_STATEMENT;
      while (n > rows.length - at) n >>= 1;
      const many = this.manyRowsStatement(`${table}:${n}`, () => manyRowsSql(table, n));
      const { values } = many;
      let v = 0;
      let bytes = 0;
      for (let r = at; r < at + n; r++) {
        for (const value of rows[r]) {
          values[v++] = value;
          bytes += typeof value === 'string' ? value.length : 8;
        }
      }
      many.statement.run(...values);
      this.wrote(bytes);
      at += n;
    }
  }

  /** The multi-row statement named `name`, prepared from `sql()` at its first use. */
  private manyRowsStatement(name: string, sql: () => string): { readonly statement: Statement; readonly values: (string | number | null)[] } {
    let many = this.manyRows.get(name);
    if (many === undefined) {
      many = { statement: this.db.prepare(sql()), values: [] };
      this.manyRows.set(name, many);
    }
    return many;
  }

  private removeStatement(table: HeldTable): Statement {
    if (table === 'tree') return this.q.removeTree;
    if (table === 'evidence') return this.q.removeEvidence;
    if (table === 'marks') return this.q.removeMark;
    return this.q.removePending;
  }

  /** Forgets every held record and blob (the transaction they belonged to is gone). */
  private dropAllHeld(): void {
    this.txn = undefined; // what the transaction knew went with it
    this.restoreCache();
    this.heldBlobs = new Map(); // a new map, not a cleared one (see dropHeld)
    this.heldBlobBytes = 0;
    this.dropHeld();
  }

  /** Forgets the held records (written, or gone with their transaction). */
  private dropHeld(): void {
    // New maps, not cleared ones: a Map that was cleared let the rows it had held outlive
    // the young generation in JavaScriptCore (a first sync's heap grew by about 1 KB a path
    // while its records were written; with new maps it does not).
    for (const table of HELD_TABLE_NAMES) this.held[table] = { rows: new Map(), removed: new Map() };
    this.heldNewest = new Map();
    this.heldHistory = [];
    this.heldCount = 0;
    // Allocated again from the table at the next held version: anything may add history in between.
    this.nextSeq = undefined;
  }

  forgetScans(): void {
    this.scanCache = undefined;
  }

  readonly quiet: QuietRecords = {
    scanned: () => this.scannedChanges,
    changes: () => this.guard('read', () => (this.q.changes.get() as { n: number }).n),
    synced: (mount) => this.guard('read', () => this.q.anyEvidence.get(mount) !== null),
    workspaceFiles: (mount, branch) =>
      this.guard('read', () => this.q.workspaceFiles.all(branch, mount) as { path: string; source: 'workspace'; hash: string; size: number }[]),
    get: (mount, branch) =>
      this.guard('read', () => {
        const row = this.q.quietGet.get(mount, branch) as { key: string; report: string; plan: string; stats: Uint8Array } | null;
        return row === null ? null : { key: row.key, report: row.report, plan: row.plan, stats: row.stats };
      }),
    put: (mount: string, branch: string, changes: number, record: QuietRecord) =>
      this.guard('written', () => {
        // Inside a write transaction the count is this connection's own, not yet anyone's: nothing is kept.
        if (this.db.inTransaction) return false;
        return this.q.quietPut.run(mount, branch, changes, record.key, record.report, record.plan, record.stats).changes > 0;
      }),
  };

  selectedBranch(): string {
    return this.guard('read', () => (this.q.selected.get() as { value: string }).value, 'all');
  }

  read(branch: string, mount: string, path: string): StoredPath {
    return this.guard('read', () => storedPath(path, this.q.records.get(branch, mount, path) as RecordsRow));
  }

  scan(branch: string, mount: string, dir: string): Iterable<StoredPath> {
    return this.guard('read', () => this.scanNow(branch, mount, dir));
  }

  private scanNow(branch: string, mount: string, dir: string): readonly StoredPath[] {
    // A pass scans a directory twice (to gather, then to decide); the second is served
    // from this cache unless anything was written since, here or by another connection.
    const version = (this.q.dataVersion.get() as { data_version: number }).data_version;
    const key = `${branch}\u0000${mount}\u0000${dir}`;
    const cached = this.scanCache;
    if (cached && cached.key === key && cached.writes === this.writes && cached.dataVersion === version) {
      this.scannedChanges = cached.changes;
      return cached.paths;
    }
    let changes: number | undefined;
    // One snapshot of the four tables (the pages of two of them among them): read in one
    // transaction where none is open.
    const read = (): StoredPath[] => {
      // Marks and pending effects are few: looked up by path, and what is left is added after.
      const marks = new Map(this.q.scanMarks.values(branch, mount, dir) as [string, string][]);
      const pending = new Map(this.q.scanPending.values(branch, mount, dir) as [string, string][]);
      const paths: StoredPath[] = [];
      const add = (path: string, entry: TreeEntry | null, record: string | null) => {
        const mark = marks.size === 0 ? undefined : marks.get(path);
        const effect = pending.size === 0 ? undefined : pending.get(path);
        if (mark !== undefined) marks.delete(path);
        if (effect !== undefined) pending.delete(path);
        const evidence = record === null ? null : (JSON.parse(record) as Evidence);
        // The same hash once: a synced file's evidence names its tree entry's text.
        if (entry !== null && evidence !== null && 'hash' in evidence && evidence.hash === entry.hash) (evidence as { hash: string }).hash = entry.hash;
        paths.push({
          path,
          tree: entry,
          mark: mark === undefined ? null : (JSON.parse(mark) as BranchMark),
          evidence,
          pending: effect === undefined ? null : (JSON.parse(effect) as PendingEffect),
        });
      };
      // Tree and evidence merged side by side in SQLite's order ({@link byteOrder}), a page
      // of rows at a time from each: a whole mount's rows, held at once, were some 16 MiB
      // beside the records made of them.
      const tree = new PagedRows<[string, string, number, number | null]>(this.q.scanTree, this.q.scanTreeAfter, branch, mount, dir);
      const evidence = new PagedRows<[string, string]>(this.q.scanEvidence, this.q.scanEvidenceAfter, branch, mount, dir);
      for (;;) {
        const t = tree.peek();
        const e = evidence.peek();
        if (t === undefined && e === undefined) break;
        // Below zero: the tree's row comes first; above: the evidence's; zero: one path's both.
        const order = t === undefined ? 1 : e === undefined ? -1 : byteOrder(t[0], e[0]);
        const first = (order <= 0 ? t : e) as [string, ...unknown[]];
        add(first[0], order <= 0 && t !== undefined ? { hash: t[1], size: t[2], mode: t[3] } : null, order >= 0 && e !== undefined ? e[1] : null);
        if (order <= 0) tree.take();
        if (order >= 0) evidence.take();
      }
      for (const path of [...new Set([...marks.keys(), ...pending.keys()])]) add(path, null, null);
      return paths;
    };
    let paths: StoredPath[];
    if (this.db.inTransaction) {
      // Read inside a write transaction, which may have written already: no count vouches for it.
      paths = read();
    } else {
      paths = this.db.transaction(() => {
        changes = (this.q.changes.get() as { n: number }).n;
        return read();
      })();
    }
    this.scannedChanges = changes;
    this.scanCache = { key, writes: this.writes, dataVersion: version, changes, paths };
    return paths;
  }

  pendingPaths(mount: string): Iterable<string> {
    return this.guard('read', () => (this.q.pendingPaths.all(mount) as { path: string }[]).map((row) => row.path));
  }

  getBlob(hash: Hash): Uint8Array | null {
    return this.guard(
      'read',
      () => {
        const row = this.q.getBlob.get(hash) as { codec: string; bytes: Uint8Array } | null;
        return row === null ? null : unpackBlob(row.codec, row.bytes);
      },
      'records',
    );
  }

  getBlobs(hashes: readonly Hash[]): Map<Hash, Uint8Array> {
    const found = new Map<Hash, Uint8Array>();
    for (const [hash, r] of this.getPackedBlobs(hashes)) found.set(hash, unpackBlob(r.codec, r.bytes));
    return found;
  }

  getPackedBlobs(hashes: readonly Hash[]): Map<Hash, { readonly codec: string; readonly bytes: Uint8Array }> {
    return this.guard('read', () => {
      const found = new Map<Hash, { codec: string; bytes: Uint8Array }>();
      // One statement per chunk: a search reads its blobs a few hundred at a time, not one by one.
      for (let at = 0; at < hashes.length; at += BLOB_CHUNK) {
        const chunk = hashes.slice(at, at + BLOB_CHUNK);
        const rows = this.db
          .query(`SELECT hash, codec, bytes FROM blob WHERE hash IN (${chunk.map(() => '?').join(',')})`)
          .all(...chunk) as { hash: string; codec: string; bytes: Uint8Array }[];
        for (const r of rows) found.set(r.hash, { codec: r.codec, bytes: r.bytes });
      }
      return found;
    }, 'records');
  }

  packedBlobFile(): string | undefined {
    // A store in memory (or a temporary one) has no file another connection could open.
    return this.path === '' || this.path === ':memory:' || this.path.startsWith('file:') ? undefined : this.path;
  }

  putBlob(hash: Hash, bytes: Uint8Array): void {
    this.putPacked(hash, bytes.length, () => packBlob(bytes));
  }

  /** {@link putBlob} with its compression on Bun's thread pool: a first sync reads and hashes the next files meanwhile. */
  async putBlobSoon(hash: Hash, bytes: Uint8Array): Promise<void> {
    if (this.putPacked(hash, bytes.length, null)) return;
    const packed = await packBlobSoon(bytes);
    this.guard(
      'written',
      () => {
        this.begin();
        if (this.heldBlobs.has(hash)) return;
        const length = packed.bytes.length;
        if (this.heldBlobs.size >= BLOBS_HELD || this.heldBlobBytes + length > BLOB_BYTES_HELD) this.flushBlobs();
        this.notePut(hash);
        if (length > BLOB_BYTES_HELD) {
          // Larger than the arena: inserted now (the held ones went first).
          this.insertBlob(hash, bytes.length, packed.codec, packed.bytes);
          return;
        }
        this.blobArena ??= new Uint8Array(BLOB_BYTES_HELD);
        // A copy: the bytes (raw ones are the caller's) may be reused once this returns.
        this.blobArena.set(packed.bytes, this.heldBlobBytes);
        this.heldBlobs.set(hash, { size: bytes.length, codec: packed.codec, at: this.heldBlobBytes, length });
        this.heldBlobBytes += length;
      },
      'all',
    );
  }

  /** Inserts the held blobs, one after another. */
  /** Inserts a blob's row, or keeps the one stored; the count of blobs left to index is counted again. */
  private insertBlob(hash: Hash, size: number, codec: string, bytes: Uint8Array): void {
    this.q.putBlobKept.run(hash, size, codec, bytes);
    this.unindexedLeft = undefined;
    this.wrote(bytes.length);
  }

  /** Counts `bytes` written in the open transaction, and cuts its page cache once that is many (see {@link CACHE_CUT_AFTER}). */
  private wrote(bytes: number): void {
    this.txnBytes += bytes;
    if (this.txnBytes > CACHE_CUT_AFTER && this.cacheBefore === undefined) {
      this.cacheBefore = (this.db.query('PRAGMA cache_size').get() as { cache_size: number }).cache_size;
      this.db.run(`PRAGMA cache_size = -${WRITE_CACHE_KIB}`);
    }
  }

  /** Gives the page cache back its size where a write transaction cut it (see {@link CACHE_CUT_AFTER}). */
  private restoreCache(): void {
    this.txnBytes = 0;
    const was = this.cacheBefore;
    if (was === undefined || !this.open) return;
    try {
      this.db.run(`PRAGMA cache_size = ${was}`);
      this.cacheBefore = undefined;
    } catch {
      // Given back at the next transaction's start instead: a failure being told is not replaced by this one.
    }
  }

  private flushBlobs(): void {
    if (this.heldBlobs.size === 0) return;
    this.begin();
    // Another put may have stored one meanwhile: the insert keeps that row (and keeps it from collection).
    const arena = this.blobArena as Uint8Array;
    for (const [hash, b] of this.heldBlobs) this.insertBlob(hash, b.size, b.codec, arena.subarray(b.at, b.at + b.length));
    this.heldBlobs = new Map(); // a new map, not a cleared one (see dropHeld)
    this.heldBlobBytes = 0;
  }

  /**
   * Stores a blob unless the store has it (a known one is kept from collection): true
   * where it is stored now. `pack` null: only look, and store nothing new.
   */
  private putPacked(hash: Hash, size: number, pack: (() => { codec: string; bytes: Uint8Array }) | null): boolean {
    // Blobs join the open transaction (one commit per barrier, not one fsync per blob);
    // the store lock keeps other processes from waiting on it while a pass reads disk.
    // A blob changes no record, so a cached scan stays good.
    return this.guard('written', () => {
      if (this.heldBlobs.has(hash)) return true;
      const known = this.surelyNoBlob(hash) ? null : (this.q.hasBlob.get(hash) as { id: number; unreferenced_at: number | null } | null);
      if (known !== null) {
        // Referred to again: a collection's grace starts over when it next finds it unreferenced.
        if (known.unreferenced_at !== null) {
          this.begin();
          this.q.keepBlob.run(known.id);
        }
        return true;
      }
      if (pack === null) return false;
      const packed = pack();
      this.begin();
      // Kept where it is there after all (a "surely not" is never wrong, and costs nothing if it were).
      this.insertBlob(hash, size, packed.codec, packed.bytes);
      this.notePut(hash);
      return true;
    }, 'all');
  }

  indexSome(budgetMs: number, now: () => number = () => performance.now()): number {
    return this.guard('written', () => {
      if (this.db.inTransaction) return this.unindexedCount();
      const until = now() + budgetMs;
      // One transaction per call: each blob's row is added, the blob packed again and marked together.
      const rows = this.q.unindexed.all(INDEX_BATCH) as { id: number; codec: string; bytes: Uint8Array }[];
      if (rows.length === 0) return 0;
      // The index (and a blob packed again) is derived from blobs that never change: its commits
      // need no fsync of their own (a power loss may undo the last ones, whole — the blobs
      // then keep their first packing, as good — and they are indexed again).
      // The next record's commit, at FULL, makes them durable with it.
      this.db.run('PRAGMA synchronous = NORMAL');
      try {
        this.indexRows(rows, until, now);
      } finally {
        this.db.run('PRAGMA synchronous = FULL');
      }
      return this.unindexedCount();
    });
  }

  /** Indexes rows in one transaction, a blob at a time until `until` (at least one, so it always moves on). */
  private indexRows(rows: readonly { id: number; codec: string; bytes: Uint8Array }[], until: number, now: () => number): void {
    const left = this.unindexedLeft;
    let marked = 0;
    this.db.transaction(() => {
      for (const [k, r] of rows.entries()) {
        if (k > 0 && now() >= until) break;
        const bytes = unpackBlob(r.codec, r.bytes);
        // Binary-looking text is kept out: a search always reads it (and reports it as binary).
        const indexable = !looksBinary(bytes) && !bytes.includes(0);
        if (indexable) {
          this.q.indexText.run(r.id, textDecoder.decode(bytes));
          // Text grep reads is packed again to unpack sooner (`repack.ts`); the same bytes, in the same transaction.
          const again = r.codec === 'zstd' ? repackBlob(bytes) : undefined;
          if (again !== undefined) this.q.setBytes.run(again, r.id);
        }
        this.q.setIndexed.run(indexable ? 1 : 2, r.id);
        marked++;
      }
    }).immediate();
    // Committed: the count as it was, less what this slice marked (a row it read was unindexed).
    if (left !== undefined && this.unindexedLeft === left) this.unindexedLeft = { n: Math.max(0, left.n - marked), dataVersion: left.dataVersion };
  }

  collectBlobs(graceMs: number, now: number = Date.now()): { readonly marked: number; readonly removed: number } {
    return this.guard('written', () => {
      if (this.db.inTransaction) return { marked: 0, removed: 0 };
      let marked = 0;
      let removed = 0;
      this.unindexedLeft = undefined;
      this.db.transaction(() => {
        const refs = referencedHashes(this.db);
        const rows = this.db.query('SELECT id, hash, indexed, unreferenced_at FROM blob').all() as {
          id: number;
          hash: string;
          indexed: number;
          unreferenced_at: number | null;
        }[];
        for (const b of rows) {
          if (refs.has(b.hash)) {
            if (b.unreferenced_at !== null) this.q.keepBlob.run(b.id);
          } else if (b.unreferenced_at === null) {
            this.db.run('UPDATE blob SET unreferenced_at = ? WHERE id = ?', [now, b.id]);
            marked++;
          } else if (now - b.unreferenced_at >= graceMs) {
            if (b.indexed === 1) this.db.run('DELETE FROM blob_text WHERE rowid = ?', [b.id]);
            this.db.run('DELETE FROM blob WHERE id = ?', [b.id]);
            removed++;
          }
        }
      }).immediate();
      return { marked, removed };
    });
  }

  private unindexedCount(): number {
    const dataVersion = (this.q.dataVersion.get() as { data_version: number }).data_version;
    const known = this.unindexedLeft;
    if (known !== undefined && known.dataVersion === dataVersion) return known.n;
    // `indexed <> 1` lets SQLite use the partial index `blob_unindexed` for the rows to look at.
    const n = (this.db.query('SELECT COUNT(*) AS n FROM blob WHERE indexed <> 1 AND indexed = 0').get() as { n: number }).n;
    this.unindexedLeft = { n, dataVersion };
    return n;
  }

  blobsMayHold(terms: readonly IndexTerm[], caseInsensitive = false): BlobLookup {
    const query = matchQuery(terms, caseInsensitive);
    return this.guard('read', () => {
      const rows = this.db.query(CANDIDATES_SQL).iterate(query) as IterableIterator<{ id: number; hash: string }>;
      const named = namedBlobs(rows);
      const unindexed = new Set((this.q.unindexedHashes.all() as { hash: string }[]).map((r) => r.hash));
      return { may: named, unindexed, ids: named };
    });
  }

  blobIdsMayHold(terms: readonly IndexTerm[], caseInsensitive = false): BlobIdLookup | undefined {
    const file = this.packedBlobFile();
    if (file === undefined || this.db.inTransaction) return undefined;
    const query = matchQuery(terms, caseInsensitive);
    return this.guard('read', () => {
      // What the index does not cover is read here first (this connection sees every blob
      // it holds), the named blobs on the other after: a blob indexed between the two is
      // in both, and read; none is in neither.
      const unindexed = new Set((this.q.unindexedHashes.all() as { hash: string }[]).map((r) => r.hash));
      this.lookups ??= lookupConnection(file);
      const statement = this.lookups.prepare(NAMED_IDS_SQL);
      const rows = statement.iterate(query) as IterableIterator<{ rowid: number }>;
      let open = true;
      const close = () => {
        if (!open) return;
        open = false;
        statement.finalize();
      };
      return {
        unindexed,
        next: () => {
          if (!open) return undefined;
          try {
            const row = rows.next();
            if (!row.done) return row.value.rowid;
          } catch (err) {
            close();
            throw new StoreError(`the search index could not be read: ${err instanceof Error ? err.message : String(err)}`);
          }
          close();
          return undefined;
        },
        close,
      };
    });
  }

  blobIds(): Map<Hash, number> {
    return this.guard('read', () => new Map((this.db.query('SELECT hash, id FROM blob').values() as [string, number][])));
  }

  // The record writes a pass makes for each path are held (see `held`) and written many
  // rows to a statement: a first sync makes tens of thousands.

  setTree(branch: string, mount: string, path: string, entry: TreeEntry | null, cause: VersionCause): void {
    this.guard(
      'written',
      () => {
        this.write();
        const was = this.treeNow(branch, mount, path);
        // A version where the text or its presence changes, or a move; a mode alone is not one.
        let seq = was?.seq ?? 0;
        if ((was?.hash ?? null) !== (entry?.hash ?? null) || cause.movedFrom !== undefined) seq = this.holdVersion(branch, mount, path, entry, cause);
        this.hold('tree', [branch, mount, path], entry === null ? null : [branch, mount, path, entry.hash, entry.size, entry.mode, seq]);
      },
      'all',
    );
  }

  /** A tree entry's hash and seq, held or stored. */
  private treeNow(branch: string, mount: string, path: string): { hash: string; seq: number } | null {
    const key = `${branch}\u0000${mount}\u0000${path}`;
    const held = this.held.tree.rows.get(key);
    if (held !== undefined) return { hash: held[3] as string, seq: held[6] as number };
    if (this.held.tree.removed.has(key)) return null;
    if (this.surelyNoTree(branch, mount, key)) return null;
    return this.q.treeHash.get(branch, mount, path) as { hash: string; seq: number } | null;
  }

  /** True where the tree key `key` of `branch` and `mount` surely has no stored entry (see {@link TxnKnowledge}); false: maybe. */
  private surelyNoTree(branch: string, mount: string, key: string): boolean {
    const txn = this.knowledge();
    if (txn === undefined) return false;
    const scope = `${branch}\u0000${mount}`;
    let empty = txn.emptyTrees.get(scope);
    if (empty === undefined) {
      empty = this.db.query('SELECT 1 FROM tree WHERE branch = ? AND mount = ? LIMIT 1').get(branch, mount) === null;
      txn.emptyTrees.set(scope, empty);
    }
    return empty && !txn.treeWritten.has(Bun.hash.crc32(key));
  }

  /** Notes tree keys written to SQLite in this transaction (see {@link TxnKnowledge}). */
  private noteTreeWritten(keys: readonly string[]): void {
    const txn = this.knowledge();
    if (txn === undefined) return;
    for (const key of keys) txn.treeWritten.add(Bun.hash.crc32(key));
  }

  addVersion(branch: string, mount: string, path: string, entry: TreeEntry | null, cause: VersionCause): void {
    this.guard(
      'written',
      () => {
        this.write();
        const newest =
          this.heldNewest.get(`${mount}\u0000${path}`) ??
          (this.q.newestVersion.get(mount, path) as { branch: string; hash: string | null; source: string } | null);
        if (newest !== null && newest.branch === branch && newest.source === cause.source && newest.hash === (entry?.hash ?? null)) return;
        this.holdVersion(branch, mount, path, entry, cause);
      },
      'all',
    );
  }

  /** One history row, held for the open transaction; its seq (the one SQLite would give it). */
  private holdVersion(branch: string, mount: string, path: string, entry: TreeEntry | null, cause: VersionCause): number {
    // AUTOINCREMENT's next: past the highest seq ever given, removed or not.
    this.nextSeq ??=
      (
        this.db
          .query("SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'history'), 0), coalesce((SELECT max(seq) FROM history), 0)) AS s")
          .get() as { s: number }
      ).s + 1;
    const seq = this.nextSeq++;
    const hash = entry?.hash ?? null;
    this.heldHistory.push([seq, branch, mount, path, hash, entry?.size ?? null, entry?.mode ?? null, Date.now(), cause.source, cause.movedFrom ?? null]);
    this.heldNewest.set(`${mount}\u0000${path}`, { branch, hash, source: cause.source });
    this.heldCount++;
    return seq;
  }

  setEvidence(mount: string, path: string, evidence: Evidence | null): void {
    this.guard(
      'written',
      () => {
        this.write();
        this.hold('evidence', [mount, path], evidence === null ? null : [mount, path, JSON.stringify(evidence)]);
      },
      'all',
    );
  }

  setPending(mount: string, path: string, pending: PendingEffect | null): void {
    this.guard(
      'written',
      () => {
        this.write();
        this.hold('pending', [mount, path], pending === null ? null : [mount, path, JSON.stringify(pending)]);
      },
      'all',
    );
  }

  setMark(branch: string, mount: string, path: string, mark: BranchMark | null): void {
    this.guard(
      'written',
      () => {
        this.write();
        this.hold('marks', [branch, mount, path], mark === null ? null : [branch, mount, path, JSON.stringify(mark)]);
      },
      'all',
    );
  }

  rootIdentity(mount: string): string | null {
    return this.guard('read', () => (this.q.rootIdentity.get(mount) as { identity: string } | null)?.identity ?? null, 'all');
  }

  setRootIdentity(mount: string, identity: string): void {
    this.guard(
      'written',
      () => {
        this.write();
        this.q.setRootIdentity.run(mount, identity);
      },
      'all',
    );
  }

  barrier(): void {
    // `guard` writes the held rows first: the commit takes them with everything else.
    this.guard('written', () => {
      if (this.db.inTransaction) this.db.run('COMMIT');
      this.txn = undefined;
      this.restoreCache();
      // The arena is made again at the next blob held: a first sync's 4 MiB are not kept
      // while its records are written, nor for the life of a server.
      this.blobArena = undefined;
    });
  }

  branches(): BranchInfo[] {
    return this.guard('read', () => {
      const selected = this.selectedBranch();
      const rows = this.db
        .query(
          'SELECT b.name, b.created_at, b.created_from, (SELECT COUNT(*) FROM tree t WHERE t.branch = b.name) AS files FROM branches b ORDER BY b.created_at, b.created_from IS NOT NULL, b.name',
        )
        .all() as { name: string; created_at: number; created_from: string | null; files: number }[];
      return rows.map((r) => ({
        name: r.name,
        selected: r.name === selected,
        createdAt: new Date(r.created_at).toISOString(),
        createdFrom: r.created_from,
        files: r.files,
      }));
    });
  }

  hasBranch(name: string): boolean {
    return this.guard('read', () => this.db.query('SELECT 1 FROM branches WHERE name = ?').get(name) !== null);
  }

  createBranch(name: string): void {
    const from = this.selectedBranch();
    this.barrier();
    this.guard('written', () => {
      this.writes++;
      this.db.transaction(() => {
        this.q.countChange.run();
        this.db.run('INSERT INTO branches (name, created_at, created_from) VALUES (?, ?, ?)', [name, Date.now(), from]);
        this.db.run('INSERT INTO tree (branch, mount, path, hash, size, mode, seq) SELECT ?, mount, path, hash, size, mode, seq FROM tree WHERE branch = ?', [name, from]);
        this.db.run('INSERT INTO marks (branch, mount, path, record) SELECT ?, mount, path, record FROM marks WHERE branch = ?', [name, from]);
      }).immediate();
    });
  }

  selectBranch(name: string): void {
    const from = this.selectedBranch();
    this.barrier();
    this.guard('written', () => {
      this.writes++;
      this.db.transaction(() => {
        this.q.countChange.run();
        if (from !== name) {
          // The paths whose workspace copy the switch changes: each a `branch-switch` version on the new branch.
          const at = Date.now();
          this.db.run(
            `INSERT INTO history (branch, mount, path, hash, size, mode, at, source)
             SELECT ?1, n.mount, n.path, n.hash, n.size, n.mode, ?3, 'branch-switch' FROM tree n
               WHERE n.branch = ?1 AND NOT EXISTS (SELECT 1 FROM tree o WHERE o.branch = ?2 AND o.mount = n.mount AND o.path = n.path AND o.hash = n.hash)
             UNION ALL
             SELECT ?1, o.mount, o.path, NULL, NULL, NULL, ?3, 'branch-switch' FROM tree o
               WHERE o.branch = ?2 AND NOT EXISTS (SELECT 1 FROM tree n WHERE n.branch = ?1 AND n.mount = o.mount AND n.path = o.path)
             ORDER BY 2, 3`,
            [name, from, at],
          );
        }
        this.q.setSelected.run(name);
      }).immediate();
    });
  }

  history(mount: string, path: string): Version[] {
    return this.guard('read', () => {
      const found = new Map<number, Version>();
      // A move's row names the path it came from: that path's versions before the move come
      // first (not the move's own deletion of it). `before` strictly falls, so this ends.
      const follow = (at: string, before: number) => {
        const rows = this.q.versions.all(mount, at, before) as HistoryRow[];
        rows.forEach((r, i) => {
          if (r.moved_from !== null) follow(r.moved_from, r.seq);
          const moveDeletion = at !== path && i === rows.length - 1 && r.hash === null && r.source === 'move';
          if (!moveDeletion) found.set(r.seq, versionOf(r));
        });
      };
      follow(path, Number.MAX_SAFE_INTEGER);
      return [...found.values()].sort((a, b) => b.seq - a.seq);
    });
  }

  version(mount: string, path: string, seq: number): Version | null {
    return this.guard('read', () => {
      const row = this.q.versionBySeq.get(seq) as (HistoryRow & { mount: string }) | null;
      if (row === null || row.mount !== mount) return null;
      // The path's own row is one look-up; a row of a path it was moved from needs the walk.
      if (row.path === path) return versionOf(row);
      return this.history(mount, path).find((v) => v.seq === seq) ?? null;
    });
  }

  treeFiles(branch: string, mount: string, dir: string): TreeFile[] {
    return this.guard('read', () => {
      const rows = this.db
        .query(`SELECT path, hash, size, mode FROM tree WHERE branch = ?1 AND mount = ?2 AND ${UNDER} ORDER BY path`)
        .all(branch, mount, dir) as { path: string; hash: string; size: number; mode: number | null }[];
      return rows.map((r) => ({ path: r.path, entry: { hash: r.hash, size: r.size, mode: r.mode } }));
    });
  }

  holdsBeneath(branch: string, mount: string, dir: string): boolean {
    if (dir === '') return true;
    return this.guard('read', () => {
      const row = this.db
        .query("SELECT 1 FROM tree WHERE branch = ?1 AND mount = ?2 AND path >= ?3 || '/' AND path < ?3 || '0' LIMIT 1")
        .get(branch, mount, dir);
      return row !== null;
    });
  }

  treeChildren(branch: string, mount: string, dir: string): TreeChildren {
    return this.guard('read', () => {
      // Along the tree's key a batch of paths at a time, skipping past each child directory
      // met (a path never holds NUL, which follows a path in the key's order, and '0'
      // follows '/'): the level's files and one path a child directory are read, however
      // many files lie beneath those directories.
      const next = this.db.query('SELECT path FROM tree WHERE branch = ?1 AND mount = ?2 AND path >= ?3 AND (?4 IS NULL OR path < ?4) ORDER BY path LIMIT 256');
      const prefix = dir === '' ? '' : `${dir}/`;
      const end = dir === '' ? null : `${dir}0`;
      const met: string[] = [];
      let from: string | null = prefix;
      while (from !== null) {
        const rows = next.all(branch, mount, from, end) as { path: string }[];
        from = rows.length === 256 ? `${rows[rows.length - 1].path}\u0000` : null;
        for (const { path } of rows) {
          met.push(path);
          const slash = path.indexOf('/', prefix.length);
          if (slash < 0) continue;
          // A child directory: what follows it in this batch lies beneath it, or after it.
          from = `${path.slice(0, slash)}0`;
          break;
        }
      }
      const beneath = this.db.query('SELECT count(*) AS n FROM tree WHERE branch = ?1 AND mount = ?2 AND path >= ?3 AND (?4 IS NULL OR path < ?4)').get(branch, mount, prefix, end) as { n: number };
      return childrenOf(dir, met, beneath.n);
    });
  }

  pathsNamed(branch: string, mount: string, name: string, limit: number): string[] {
    return this.guard('read', () => {
      const rows = this.db
        .query("SELECT path FROM tree WHERE branch = ?1 AND mount = ?2 AND (path LIKE ?3 ESCAPE '\\' OR path LIKE '%/' || ?3 ESCAPE '\\') ORDER BY path LIMIT ?4")
        .all(branch, mount, name.replace(/[\\%_]/g, (c) => `\\${c}`), limit) as { path: string }[];
      return rows.map((r) => r.path);
    });
  }

  addReviewNote(branch: string, mount: string, note: ReviewNote): void {
    this.guard('written', () => {
      this.write();
      this.db.run(
        'INSERT INTO review_notes (branch, mount, path, rejected, accepted, merged, at) VALUES (?, ?, ?, ?, ?, ?, ?) ' +
          'ON CONFLICT (branch, mount, path) DO UPDATE SET rejected = rejected + excluded.rejected, ' +
          'accepted = accepted + excluded.accepted, merged = merged + excluded.merged, at = excluded.at',
        [branch, mount, note.path, note.rejected, note.accepted, note.merged, Date.now()],
      );
    });
  }

  takeReviewNotes(branch: string, mount: string, path?: string): ReviewNote[] {
    const where = path === undefined ? 'branch = ?1 AND mount = ?2' : 'branch = ?1 AND mount = ?2 AND path = ?3';
    const args = path === undefined ? [branch, mount] : [branch, mount, path];
    const rows = this.guard('read', () =>
      this.db.query(`SELECT path, rejected, accepted, merged FROM review_notes WHERE ${where} ORDER BY path`).all(...args),
    ) as ReviewNote[];
    if (rows.length === 0) return [];
    this.guard('written', () => {
      this.write();
      this.db.run(`DELETE FROM review_notes WHERE ${where}`, args);
    });
    return rows.map((r) => ({ path: r.path, rejected: r.rejected, accepted: r.accepted, merged: r.merged }));
  }

  draftedElsewhere(): Map<string, readonly string[]> {
    // One SQLite file is one host's store: no other host drafts in it.
    return new Map();
  }

  close(): void {
    if (!this.open) return;
    try {
      this.barrier();
    } finally {
      this.shut();
    }
  }

  /** Finalizes every statement and closes the connection, so SQLite can remove `-wal` and `-shm`. */
  private shut(): void {
    if (!this.open) return;
    this.open = false;
    this.dropAllHeld();
    this.lookups?.close();
    this.lookups = undefined;
    for (const statement of Object.values(this.q)) statement.finalize();
    for (const { statement } of this.manyRows.values()) statement.finalize();
    this.db.close();
  }
}
