/**
 * The shared store: `@ws/reconcile`'s StorePort on PostgreSQL, for hosts on several
 * machines working on the same mounts. Trees, marks, history, branches, blobs and review
 * notes are every host's; evidence, pending effects, root identities and the selected
 * branch are this host's (`host`). The port stays synchronous: each statement goes to the
 * connection's Worker and the main thread waits for its answer (`bridge.ts`).
 *
 * The one rule: nothing another host did is ever overwritten unseen. Statements run in
 * one SERIALIZABLE transaction from the first statement after a barrier (the first write,
 * outside an operation of the lock) to the next barrier, which commits it — so a settle's
 * reads and writes are one transaction, and two hosts changing one path at once cannot
 * both commit. Across the barriers of one operation, each tree entry written is compared
 * with the one the operation first read (a compare-and-set): where another host changed
 * it in between, the write fails as a conflict. A conflict or a lost connection rolls the
 * transaction back and fails every later statement of the operation, so nothing is
 * half-written; the lock (`pg-lock.ts`) runs the operation again where that is safe.
 *
 * A write whose answer nobody reads, in an open transaction, is sent with the next
 * statement of that transaction (or its COMMIT) in one message ({@link PgStore.later}):
 * the server runs them in order, and the first failure among them fails that statement.
 */
import type { BranchMark, Evidence, Hash, PendingEffect, StoredPath, TreeEntry, VersionCause, VersionSource } from '@ws/reconcile';
import { looksBinary } from '@ws/text';
import { packBlob, unpackBlob } from '../blob-codec.ts';
import { StoreError } from '../faults.ts';
import { FIRST_BRANCH } from '../sqlite-store.ts';
import { type BlobLookup, type BranchInfo, childrenOf, type IndexTerm, type ReviewNote, type Store, type TreeChildren, type TreeFile, type Version } from '../store.ts';
import type { Reply, Statement, SyncConnection } from './bridge.ts';
import { PgStoreError, pgFaultKind, pgWords, shownUrl } from './faults.ts';

/** How many blobs one statement of a batched read asks for. */
const BLOB_CHUNK = 256;
/**
 * After this many record writes (or half again as many as before the last time), the
 * tables' statistics are renewed
 * (`ANALYZE`): a plan made on a table's statistics from when it was empty joins a first
 * sync's 4,000 records row by row (a sync with nothing changed took 10 s instead of 0.4 s
 * until autovacuum came round).
 */
const ANALYZE_AFTER_WRITES = 1000;
/** The tables a pass reads by plan: those `ANALYZE` renews. */
const PLANNED_TABLES = 'ws.tree, ws.evidence, ws.history, ws.marks, ws.host_marks, ws.pending';
/** How many blobs one transaction of the background indexer adds. */
const INDEX_BATCH = 32;
/** Blobs at least this long are looked up before they are sent (most are already stored). */
const LOOK_FIRST = 1024;

const textDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
const HASH_IN_RECORD = /[0-9a-f]{64}/g;

/** `path` is the directory `$3` or beneath it (`''`: every path). */
const UNDER = "($3::text = '' OR path = $3::text OR (path >= $3::text || '/' AND path < $3::text || '0'))";

type Row = Record<string, unknown>;

/** History sources at which a host's disk agreed with the store: what another host's disk may agree on too (`agreedElsewhere`). */
const AGREED_SOURCES = "('disk', 'materialize')";

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function entryOf(r: Row): TreeEntry {
  return { hash: String(r.hash), size: num(r.size), mode: numOrNull(r.mode) };
}

function versionOf(r: Row): Version {
  return {
    seq: num(r.seq),
    branch: String(r.branch),
    path: String(r.path),
    hash: textOrNull(r.hash),
    size: numOrNull(r.size),
    at: new Date(num(r.at)).toISOString(),
    source: String(r.source) as VersionSource,
  };
}

/** The shared part of a mark: a workspace deletion, with an id each host settles it by. */
interface SharedMark {
  readonly tombstone: NonNullable<BranchMark['tombstone']>;
  readonly id: string;
}

/** This host's part of a mark: where S came from, its conflict, and the last shared tombstone it settled. */
interface OwnMark {
  readonly origin: BranchMark['origin'];
  readonly conflict: BranchMark['conflict'];
  readonly cleared: string | null;
}

const parseShared = (v: unknown): SharedMark | null => (v === null || v === undefined ? null : (JSON.parse(String(v)) as SharedMark));
const parseOwn = (v: unknown): OwnMark | null => (v === null || v === undefined ? null : (JSON.parse(String(v)) as OwnMark));

/**
 * A path's mark as this host sees it: the shared tombstone unless this host settled it;
 * its own origin and conflict. A host with no mark of its own for a path S holds never
 * took that text from its disk: to it, S came from the workspace (another host's agent,
 * or a person's save on another host's disk) — unless it holds evidence of agreement with
 * its disk, where S's origin no longer matters (the reconcile README, "The rule"), as on
 * SQLite: a first sync then writes no mark, and the next pass has none to correct.
 */
function markOf(shared: SharedMark | null, own: OwnMark | null, hasTree: boolean, hasEvidence: boolean): BranchMark | null {
  const tombstone = shared !== null && shared.id !== own?.cleared ? shared.tombstone : null;
  const origin = own !== null ? own.origin : hasTree && !hasEvidence ? 'workspace' : null;
  const conflict = own?.conflict ?? null;
  if (origin === null && tombstone === null && conflict === null) return null;
  return { origin, tombstone, conflict };
}

/** How each transaction begins: one snapshot for all of it (see the rule above). */
const BEGIN: Statement = { text: 'BEGIN ISOLATION LEVEL SERIALIZABLE', params: [] };

/**
 * The strings `LIKE` looks for: a term's runs of places that are one character each, of
 * at least three (the trigram index needs three to narrow; a place that may be several
 * characters ends a run).
 */
function likeTerms(terms: readonly IndexTerm[]): string[] {
  const strings: string[] = [];
  for (const term of terms) {
    if (typeof term === 'string') {
      strings.push(term);
      continue;
    }
    let run = '';
    for (const place of [...term, '']) {
      if (place.length === 1) run += place;
      else {
        if (run.length >= 3) strings.push(run);
        run = '';
      }
    }
  }
  if (strings.length === 0) throw new StoreError('no term gives the search index a string to look up');
  return strings;
}

/** `%term%` for ILIKE, with the pattern's own characters escaped. */
const containing = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The PostgreSQL store of one host. Construct with `openPgStore` (`open.ts`). */
export class PgStore implements Store {
  /** A barrier commits the transaction every write since the last one is in: all or nothing. */
  readonly atomicBarriers = true;
  readonly path: string;
  private readonly words: ReturnType<typeof pgWords>;
  /** The open transaction's session (see `SyncConnection.session`), or undefined. */
  private txSession: string | undefined;
  private txSerial = 0;
  /** Record writes in the open transaction (blobs aside), and whether any was to shared records. */
  private txWrites = 0;
  private txShared = false;
  /** How many bytes of text a slice of `indexSome` indexed per millisecond, as slices went (a guess at first). */
  private indexBytesPerMs = 4096;
  /** Writes of the open transaction not sent yet: they go ahead of its next statement or its COMMIT. */
  private later: Statement[] = [];
  /** Record writes committed since the statistics were last renewed (see {@link ANALYZE_AFTER_WRITES}). */
  private writtenSinceAnalyze = 0;
  /** Record writes committed before the statistics were last renewed: they are renewed again when half as many more are written. */
  private writtenBeforeAnalyze = 0;
  private scanCache: { key: string; serial: number; writes: number; paths: readonly StoredPath[] } | undefined;
  /** Answers read within the open transaction (one snapshot), good until its next write. */
  private memo = new Map<string, { readonly writes: number; readonly value: unknown }>();
  private memoSerial = -1;
  private hold: Hold | undefined;
  private open = true;

  constructor(
    readonly url: string,
    /** This host's id: its evidence, pending effects, root identities and selected branch. */
    readonly host: string,
    private readonly conn: SyncConnection,
  ) {
    this.path = shownUrl(url);
    this.words = pgWords(url);
  }

  /** Statements sent to the server so far (each one round trip): what a network between them costs. */
  get roundTrips(): number {
    return this.conn.sent;
  }

  // --- the lock's side -------------------------------------------------------------

  /** An operation of the lock starts, over the session that holds the lock: reads now join a transaction. */
  beginHold(session: string): void {
    this.hold = { session, seen: new Map(), tombstones: new Map(), failed: undefined, sharedCommitted: false };
  }

  /**
   * The operation ended: commits what is open. Throws the failure that ended the
   * operation's transaction, where the operation went on as if nothing happened.
   */
  endHold(): void {
    // On a failure the hold stays, so `abandonHold` knows what was committed.
    if (this.hold?.failed) throw this.hold.failed;
    this.barrier();
    this.hold = undefined;
  }

  /** The operation failed: rolls back what is open. Answers whether running it again is safe (no shared record was committed). */
  abandonHold(): boolean {
    const hold = this.hold;
    this.hold = undefined;
    if (this.open) this.rollback();
    return hold === undefined || !hold.sharedCommitted;
  }

  /** Runs one statement outside any transaction, for the lock (`session`: the one it must run on). */
  lockStatement(text: string, params: readonly unknown[], session?: string): { rows: Row[]; session: string } {
    const reply = this.conn.query(text, params, session);
    if (!reply.ok) throw this.fault(reply, 'locked');
    return { rows: reply.rows, session: this.conn.session(reply) };
  }

  // --- statements ------------------------------------------------------------------

  /**
   * One statement: it joins the open transaction, or opens one where it writes or an
   * operation holds the lock; else (a read outside any operation) it runs on its own.
   */
  private sql(text: string, params: readonly unknown[], doing: 'read' | 'written'): Row[] {
    if (!this.open) throw new StoreError(`The store at ${this.path} is closed.`);
    if (this.hold?.failed) throw this.hold.failed;
    if (this.txSession === undefined && (doing === 'written' || this.hold !== undefined)) {
      // The transaction's BEGIN goes with its first statement: one message to the Worker, not two.
      const reply = this.conn.query(text, params, this.hold?.session, [BEGIN]);
      // A statement that failed ended the transaction its BEGIN opened.
      if (reply.ok) this.txSession = this.conn.session(reply);
      else if (!reply.lost) this.conn.query('ROLLBACK', [], this.hold?.session);
      this.txSerial++;
      this.txWrites = 0;
      this.txShared = false;
      if (!reply.ok) throw this.fault(reply, doing);
      return reply.rows;
    }
    const ahead = this.sendLater();
    const reply = this.conn.query(text, params, this.txSession ?? this.hold?.session, ahead);
    if (!reply.ok) throw this.fault(reply, ahead === undefined ? doing : 'written');
    return reply.rows;
  }

  /** The writes waiting to go ahead of the next statement (see {@link later}), taken off the queue. */
  private sendLater(): Statement[] | undefined {
    if (this.later.length === 0) return undefined;
    const ahead = this.later;
    this.later = [];
    return ahead;
  }

  private write(text: string, params: readonly unknown[], shared: boolean): Row[] {
    const rows = this.sql(text, params, 'written');
    this.txWrites++;
    if (shared) this.txShared = true;
    return rows;
  }

  /**
   * A write whose answer nobody reads: in an open transaction it waits to go with the
   * transaction's next statement (see {@link later}); else it runs now, opening one.
   * `record`: it writes a record (counted, so answers read before it are read again); a
   * blob's row is no record.
   */
  private writeLater(text: string, params: readonly unknown[], shared: boolean, record = true): void {
    if (this.txSession === undefined) {
      if (record) this.write(text, params, shared);
      else this.sql(text, params, 'written');
      return;
    }
    if (!this.open) throw new StoreError(`The store at ${this.path} is closed.`);
    if (this.hold?.failed) throw this.hold.failed;
    this.later.push({ text, params });
    if (record) this.txWrites++;
    if (shared) this.txShared = true;
  }

  /** The failure of a statement as its sentence; the open transaction is rolled back, and an operation's later statements fail too. */
  private fault(reply: Reply & { ok: false }, doing: string): PgStoreError {
    const kind = pgFaultKind(reply.state, reply.lost);
    this.rollback(reply.lost);
    const message =
      kind === 'unreachable'
        ? this.words.unreachable(reply.message)
        : kind === 'conflict'
          ? this.words.conflict(1)
          : kind === 'full'
            ? this.words.full()
            : this.words.failed(doing, reply.message);
    const err = new PgStoreError(message, kind);
    if (this.hold !== undefined && (kind === 'conflict' || kind === 'unreachable')) this.hold.failed = err;
    return err;
  }

  private rollback(lost = false): void {
    const session = this.txSession;
    this.txSession = undefined;
    // Never sent, so never run: the transaction they belonged to is gone.
    this.later = [];
    this.scanCache = undefined;
    if (session !== undefined && !lost) this.conn.query('ROLLBACK', [], session);
  }

  /** Runs `fn` in a transaction of its own (after committing what is open). */
  private transaction<T>(fn: () => T): T {
    this.barrier();
    try {
      const out = fn();
      this.barrier();
      return out;
    } catch (err) {
      this.rollback();
      throw err;
    }
  }

  /**
   * `load()`, or what it answered before in this transaction with no write since: within
   * one snapshot the answer can't change but by this connection's own writes. A pass asks
   * for the selected branch and a path's records several times; each is a round trip.
   */
  private cached<T>(key: string, load: () => T): T {
    if (this.txSession !== undefined && this.memoSerial === this.txSerial) {
      const hit = this.memo.get(key);
      if (hit !== undefined && hit.writes === this.txWrites) return hit.value as T;
    }
    const value = load();
    if (this.txSession !== undefined) {
      if (this.memoSerial !== this.txSerial) {
        this.memo.clear();
        this.memoSerial = this.txSerial;
      }
      this.memo.set(key, { writes: this.txWrites, value });
    }
    return value;
  }

  /** A tree entry an operation read, remembered for the compare-and-set of a later write. */
  private saw(branch: string, mount: string, path: string, hash: Hash | null): void {
    const seen = this.hold?.seen;
    const key = `${branch}\u0000${mount}\u0000${path}`;
    if (seen !== undefined && !seen.has(key)) seen.set(key, hash);
  }

  /** Fails as a conflict where another host changed the entry since this operation read it. */
  private compareAndSet(branch: string, mount: string, path: string, now: Hash | null, next: Hash | null): void {
    const seen = this.hold?.seen;
    if (seen === undefined) return;
    const key = `${branch}\u0000${mount}\u0000${path}`;
    if (seen.has(key) && seen.get(key) !== now) {
      this.rollback();
      const err = new PgStoreError(this.words.conflict(1), 'conflict');
      if (this.hold) this.hold.failed = err;
      throw err;
    }
    seen.set(key, next);
  }

  // --- StorePort ----------------------------------------------------------------------

  forgetScans(): void {
    this.scanCache = undefined;
  }

  selectedBranch(): string {
    return this.cached('selected', () => {
      const rows = this.sql("SELECT value FROM ws.host_meta WHERE host = $1 AND key = 'selected_branch'", [this.host], 'read');
      return rows.length === 0 ? FIRST_BRANCH : String(rows[0].value);
    });
  }

  read(branch: string, mount: string, path: string): StoredPath {
    return this.cached(`read\u0000${branch}\u0000${mount}\u0000${path}`, () => this.readNow(branch, mount, path));
  }

  private readNow(branch: string, mount: string, path: string): StoredPath {
    const [r] = this.sql(
      `SELECT t.hash, t.size, t.mode,
        (SELECT record FROM ws.marks WHERE branch = $1 AND mount = $2 AND path = $3) AS shared_mark,
        (SELECT record FROM ws.host_marks WHERE host = $4 AND branch = $1 AND mount = $2 AND path = $3) AS own_mark,
        (SELECT record FROM ws.evidence WHERE host = $4 AND mount = $2 AND path = $3) AS evidence,
        (SELECT record FROM ws.pending WHERE host = $4 AND mount = $2 AND path = $3) AS pending,
        (SELECT string_agg(DISTINCT hash, ',') FROM ws.history WHERE branch = $1 AND mount = $2 AND path = $3 AND source IN ${AGREED_SOURCES} AND hash IS NOT NULL) AS agreed
       FROM (SELECT 1) AS one LEFT JOIN ws.tree t ON t.branch = $1 AND t.mount = $2 AND t.path = $3`,
      [branch, mount, path, this.host],
      'read',
    );
    const tree = r.hash === null || r.hash === undefined ? null : entryOf(r);
    this.saw(branch, mount, path, tree?.hash ?? null);
    const shared = parseShared(r.shared_mark);
    this.sawTombstone(branch, mount, path, shared);
    return {
      path,
      tree,
      mark: markOf(shared, parseOwn(r.own_mark), tree !== null, r.evidence !== null),
      evidence: r.evidence === null ? null : (JSON.parse(String(r.evidence)) as Evidence),
      pending: r.pending === null ? null : (JSON.parse(String(r.pending)) as PendingEffect),
      ...(r.evidence === null && typeof r.agreed === 'string' ? { agreedElsewhere: r.agreed.split(',') } : {}),
    };
  }

  scan(branch: string, mount: string, dir: string): Iterable<StoredPath> {
    // A pass scans a directory twice; within one transaction (one snapshot) and with no
    // write since, the second is served from this cache.
    const key = `${branch}\u0000${mount}\u0000${dir}`;
    const cached = this.scanCache;
    if (this.txSession !== undefined && cached && cached.key === key && cached.serial === this.txSerial && cached.writes === this.txWrites) return cached.paths;
    const rows = this.sql(
      `SELECT 't' AS k, path, hash, size, mode, NULL AS record FROM ws.tree WHERE branch = $1 AND mount = $2 AND ${UNDER}
       UNION ALL SELECT 'm', path, NULL, NULL, NULL, record FROM ws.marks WHERE branch = $1 AND mount = $2 AND ${UNDER}
       UNION ALL SELECT 'h', path, NULL, NULL, NULL, record FROM ws.host_marks WHERE host = $4 AND branch = $1 AND mount = $2 AND ${UNDER}
       UNION ALL SELECT 'e', path, NULL, NULL, NULL, record FROM ws.evidence WHERE host = $4 AND mount = $2 AND ${UNDER}
       UNION ALL SELECT 'p', path, NULL, NULL, NULL, record FROM ws.pending WHERE host = $4 AND mount = $2 AND ${UNDER}
       UNION ALL SELECT DISTINCT 'a', h.path, h.hash, NULL::bigint, NULL::integer, NULL FROM ws.history h
         WHERE h.branch = $1 AND h.mount = $2 AND h.source IN ${AGREED_SOURCES} AND h.hash IS NOT NULL AND ${UNDER.replace(/\bpath\b/g, 'h.path')}
           AND NOT EXISTS (SELECT 1 FROM ws.evidence e WHERE e.host = $4 AND e.mount = $2 AND e.path = h.path)`,
      [branch, mount, dir, this.host],
      'read',
    );
    const byPath = new Map<
      string,
      { tree: TreeEntry | null; shared: SharedMark | null; own: OwnMark | null; evidence: Evidence | null; pending: PendingEffect | null; agreed?: string[] }
    >();
    for (const r of rows) {
      const path = String(r.path);
      let at = byPath.get(path);
      if (at === undefined) {
        at = { tree: null, shared: null, own: null, evidence: null, pending: null };
        byPath.set(path, at);
      }
      if (r.k === 'a') {
        at.agreed ??= [];
        at.agreed.push(String(r.hash));
      } else if (r.k === 't') at.tree = entryOf(r);
      else if (r.k === 'm') at.shared = parseShared(r.record);
      else if (r.k === 'h') at.own = parseOwn(r.record);
      else if (r.k === 'e') at.evidence = JSON.parse(String(r.record)) as Evidence;
      else at.pending = JSON.parse(String(r.record)) as PendingEffect;
    }
    const paths: StoredPath[] = [];
    for (const [path, at] of byPath) {
      this.saw(branch, mount, path, at.tree?.hash ?? null);
      this.sawTombstone(branch, mount, path, at.shared);
      const mark = markOf(at.shared, at.own, at.tree !== null, at.evidence !== null);
      // A path with only a settled tombstone or an empty mark of this host's is no record of it.
      if (at.tree === null && mark === null && at.evidence === null && at.pending === null) continue;
      paths.push({ path, tree: at.tree, mark, evidence: at.evidence, pending: at.pending, ...(at.agreed && at.evidence === null ? { agreedElsewhere: at.agreed } : {}) });
    }
    if (this.txSession !== undefined) this.scanCache = { key, serial: this.txSerial, writes: this.txWrites, paths };
    return paths;
  }

  pendingPaths(mount: string): Iterable<string> {
    return this.sql('SELECT path FROM ws.pending WHERE host = $1 AND mount = $2', [this.host, mount], 'read').map((r) => String(r.path));
  }

  getBlob(hash: Hash): Uint8Array | null {
    const rows = this.sql('SELECT codec, bytes FROM ws.blob WHERE hash = $1', [hash], 'read');
    return rows.length === 0 ? null : unpackBlob(String(rows[0].codec), rows[0].bytes as Uint8Array);
  }

  getBlobs(hashes: readonly Hash[]): Map<Hash, Uint8Array> {
    const found = new Map<Hash, Uint8Array>();
    if (hashes.length === 0) return found;
    // A few hundred at a time: one answer is one message from the Worker, held whole.
    for (let at = 0; at < hashes.length; at += BLOB_CHUNK) {
      const chunk = hashes.slice(at, at + BLOB_CHUNK);
      for (const r of this.sql('SELECT hash, codec, bytes FROM ws.blob WHERE hash = ANY($1::text[])', [chunk], 'read')) {
        found.set(String(r.hash), unpackBlob(String(r.codec), r.bytes as Uint8Array));
      }
    }
    return found;
  }

  putBlob(hash: Hash, bytes: Uint8Array): void {
    // A blob changes no record: it joins the open transaction but counts as no write.
    if (bytes.length >= LOOK_FIRST) {
      const known = this.sql('SELECT unreferenced_at FROM ws.blob WHERE hash = $1', [hash], 'written');
      if (known.length > 0) {
        if (known[0].unreferenced_at !== null) this.sql('UPDATE ws.blob SET unreferenced_at = NULL WHERE hash = $1', [hash], 'written');
        return;
      }
    }
    const packed = packBlob(bytes);
    this.writeLater(
      'INSERT INTO ws.blob (hash, size, codec, bytes) VALUES ($1, $2, $3, $4) ' +
        'ON CONFLICT (hash) DO UPDATE SET unreferenced_at = NULL WHERE ws.blob.unreferenced_at IS NOT NULL',
      // The insert waits for the next statement, and raw bytes are the caller's to overwrite once this returns: a copy.
      [hash, bytes.length, packed.codec, packed.codec === 'raw' ? packed.bytes.slice() : packed.bytes],
      false,
      false,
    );
  }

  setTree(branch: string, mount: string, path: string, entry: TreeEntry | null, cause: VersionCause): void {
    const was = this.sql('SELECT hash, seq FROM ws.tree WHERE branch = $1 AND mount = $2 AND path = $3', [branch, mount, path], 'written')[0];
    const wasHash = was === undefined ? null : String(was.hash);
    this.compareAndSet(branch, mount, path, wasHash, entry?.hash ?? null);
    // A version where the text or its presence changes, or a move; a mode alone is not one.
    let seq = was === undefined ? 0 : num(was.seq);
    if (wasHash !== (entry?.hash ?? null) || cause.movedFrom !== undefined) seq = this.insertVersion(branch, mount, path, entry, cause);
    if (entry === null) {
      this.writeLater('DELETE FROM ws.tree WHERE branch = $1 AND mount = $2 AND path = $3', [branch, mount, path], true);
      // S lost its file: for every other host a deletion to carry out (this host's mark says whether it has).
      if (wasHash !== null) this.putTombstone(branch, mount, path, { base: { kind: 'text', hash: wasHash } }, undefined);
    } else {
      // S holds a file again: no host has a deletion of it to carry out.
      if (was === undefined) {
        this.writeLater('DELETE FROM ws.marks WHERE branch = $1 AND mount = $2 AND path = $3', [branch, mount, path], true);
        this.hold?.tombstones.set(`${branch}\u0000${mount}\u0000${path}`, null);
      }
      this.writeLater(
        'INSERT INTO ws.tree (branch, mount, path, hash, size, mode, seq) VALUES ($1, $2, $3, $4, $5, $6, $7) ' +
          'ON CONFLICT (branch, mount, path) DO UPDATE SET hash = excluded.hash, size = excluded.size, mode = excluded.mode, seq = excluded.seq',
        [branch, mount, path, entry.hash, entry.size, entry.mode, seq],
        true,
      );
    }
  }

  addVersion(branch: string, mount: string, path: string, entry: TreeEntry | null, cause: VersionCause): void {
    const [newest] = this.sql('SELECT branch, hash, source FROM ws.history WHERE mount = $1 AND path = $2 ORDER BY seq DESC LIMIT 1', [mount, path], 'written');
    if (newest !== undefined && newest.branch === branch && newest.source === cause.source && textOrNull(newest.hash) === (entry?.hash ?? null)) return;
    this.insertVersion(branch, mount, path, entry, cause);
  }

  private insertVersion(branch: string, mount: string, path: string, entry: TreeEntry | null, cause: VersionCause): number {
    const [row] = this.write(
      'INSERT INTO ws.history (branch, mount, path, hash, size, mode, at, source, moved_from, host) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING seq',
      [branch, mount, path, entry?.hash ?? null, entry?.size ?? null, entry?.mode ?? null, Date.now(), cause.source, cause.movedFrom ?? null, this.host],
      false,
    );
    return num(row.seq);
  }

  setEvidence(mount: string, path: string, evidence: Evidence | null): void {
    if (evidence === null) this.writeLater('DELETE FROM ws.evidence WHERE host = $1 AND mount = $2 AND path = $3', [this.host, mount, path], false);
    else {
      this.writeLater(
        'INSERT INTO ws.evidence (host, mount, path, record) VALUES ($1, $2, $3, $4) ON CONFLICT (host, mount, path) DO UPDATE SET record = excluded.record',
        [this.host, mount, path, JSON.stringify(evidence)],
        false,
      );
    }
  }

  setPending(mount: string, path: string, pending: PendingEffect | null): void {
    if (pending === null) this.writeLater('DELETE FROM ws.pending WHERE host = $1 AND mount = $2 AND path = $3', [this.host, mount, path], false);
    else {
      this.writeLater(
        'INSERT INTO ws.pending (host, mount, path, record) VALUES ($1, $2, $3, $4) ON CONFLICT (host, mount, path) DO UPDATE SET record = excluded.record',
        [this.host, mount, path, JSON.stringify(pending)],
        false,
      );
    }
  }

  setMark(branch: string, mount: string, path: string, mark: BranchMark | null): void {
    // The shared tombstone as this operation read it (one another host made since stays unsettled here).
    const key = `${branch}\u0000${mount}\u0000${path}`;
    const known = this.hold?.tombstones;
    let shared: SharedMark | null;
    if (known?.has(key)) shared = known.get(key) ?? null;
    else {
      const [row] = this.sql('SELECT record FROM ws.marks WHERE branch = $1 AND mount = $2 AND path = $3', [branch, mount, path], 'written');
      shared = parseShared(row?.record);
    }
    let cleared: string | null = null;
    if (mark?.tombstone) {
      // A workspace deletion: every host's (the same one again keeps its id, so no host that settled it sees it anew).
      const same = shared !== null && JSON.stringify(shared.tombstone) === JSON.stringify(mark.tombstone);
      if (!same) this.putTombstone(branch, mount, path, mark.tombstone, shared?.id);
    } else if (shared !== null) {
      // This host has nothing left to do for the tombstone it read (one it did not read stays for it).
      cleared = shared.id;
    }
    const own: OwnMark = { origin: mark?.origin ?? null, conflict: mark?.conflict ?? null, cleared };
    this.writeLater(
      'INSERT INTO ws.host_marks (host, branch, mount, path, record) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (host, branch, mount, path) DO UPDATE SET record = excluded.record',
      [this.host, branch, mount, path, JSON.stringify(own)],
      false,
    );
  }

  /** Records the shared tombstone of a path (keeping `id` where given), seen by this host as it writes it. */
  private putTombstone(branch: string, mount: string, path: string, tombstone: NonNullable<BranchMark['tombstone']>, id: string | undefined): void {
    const mark: SharedMark = { tombstone, id: id ?? `${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 10)}` };
    this.writeLater(
      'INSERT INTO ws.marks (branch, mount, path, record) VALUES ($1, $2, $3, $4) ON CONFLICT (branch, mount, path) DO UPDATE SET record = excluded.record',
      [branch, mount, path, JSON.stringify(mark)],
      true,
    );
    this.hold?.tombstones.set(`${branch}\u0000${mount}\u0000${path}`, mark);
  }

  /** Remembers the shared tombstone (or none) an operation read, so settling it settles that one and no later one. */
  private sawTombstone(branch: string, mount: string, path: string, shared: SharedMark | null): void {
    const key = `${branch}\u0000${mount}\u0000${path}`;
    const seen = this.hold?.tombstones;
    if (seen !== undefined && !seen.has(key)) seen.set(key, shared);
  }

  rootIdentity(mount: string): string | null {
    return this.cached(`root\u0000${mount}`, () => {
      const rows = this.sql('SELECT identity FROM ws.roots WHERE host = $1 AND mount = $2', [this.host, mount], 'read');
      return rows.length === 0 ? null : String(rows[0].identity);
    });
  }

  setRootIdentity(mount: string, identity: string): void {
    this.write(
      'INSERT INTO ws.roots (host, mount, identity) VALUES ($1, $2, $3) ON CONFLICT (host, mount) DO UPDATE SET identity = excluded.identity',
      [this.host, mount, identity],
      false,
    );
  }

  barrier(): void {
    const session = this.txSession;
    if (session === undefined) return;
    if (this.hold?.failed) throw this.hold.failed;
    const shared = this.txShared;
    const reply = this.conn.query('COMMIT', [], session, this.sendLater());
    this.txSession = undefined;
    this.scanCache = undefined;
    if (!reply.ok) throw this.fault(reply, 'written');
    if (shared && this.hold) this.hold.sharedCommitted = true;
    this.writtenSinceAnalyze += this.txWrites;
    if (this.writtenSinceAnalyze >= Math.max(ANALYZE_AFTER_WRITES, this.writtenBeforeAnalyze / 2)) {
      this.writtenBeforeAnalyze += this.writtenSinceAnalyze;
      this.writtenSinceAnalyze = 0;
      // Outside any transaction; a role that doesn't own the tables is only warned, and a
      // failure here is no failure of the call (the statistics are a matter of speed).
      this.conn.query(`ANALYZE ${PLANNED_TABLES}`, [], this.hold?.session);
    }
  }

  // --- the host's side --------------------------------------------------------------

  branches(): BranchInfo[] {
    const selected = this.selectedBranch();
    const rows = this.sql(
      `SELECT b.name, b.created_at, b.created_from, (SELECT COUNT(*) FROM ws.tree t WHERE t.branch = b.name) AS files
       FROM ws.branches b ORDER BY b.created_at, b.created_from IS NOT NULL, b.name`,
      [],
      'read',
    );
    return rows.map((r) => ({
      name: String(r.name),
      selected: r.name === selected,
      createdAt: new Date(num(r.created_at)).toISOString(),
      createdFrom: textOrNull(r.created_from),
      files: num(r.files),
    }));
  }

  hasBranch(name: string): boolean {
    return this.sql('SELECT 1 FROM ws.branches WHERE name = $1', [name], 'read').length > 0;
  }

  createBranch(name: string): void {
    const from = this.selectedBranch();
    this.transaction(() => {
      this.write('INSERT INTO ws.branches (name, created_at, created_from) VALUES ($1, $2, $3)', [name, Date.now(), from], true);
      this.write('INSERT INTO ws.tree (branch, mount, path, hash, size, mode, seq) SELECT $1, mount, path, hash, size, mode, seq FROM ws.tree WHERE branch = $2', [name, from], true);
      this.write('INSERT INTO ws.marks (branch, mount, path, record) SELECT $1, mount, path, record FROM ws.marks WHERE branch = $2', [name, from], true);
      this.write(
        'INSERT INTO ws.host_marks (host, branch, mount, path, record) SELECT host, $1, mount, path, record FROM ws.host_marks WHERE branch = $2',
        [name, from],
        true,
      );
    });
  }

  selectBranch(name: string): void {
    const from = this.selectedBranch();
    this.transaction(() => {
      if (from !== name) {
        // The paths whose workspace copy the switch changes: each a `branch-switch` version on the new branch.
        this.write(
          `INSERT INTO ws.history (branch, mount, path, hash, size, mode, at, source, host)
           SELECT * FROM (
             SELECT $1::text, n.mount, n.path, n.hash, n.size, n.mode, $3::bigint, 'branch-switch', $4::text FROM ws.tree n
               WHERE n.branch = $1 AND NOT EXISTS (SELECT 1 FROM ws.tree o WHERE o.branch = $2 AND o.mount = n.mount AND o.path = n.path AND o.hash = n.hash)
             UNION ALL
             SELECT $1::text, o.mount, o.path, NULL, NULL, NULL, $3::bigint, 'branch-switch', $4::text FROM ws.tree o
               WHERE o.branch = $2 AND NOT EXISTS (SELECT 1 FROM ws.tree n WHERE n.branch = $1 AND n.mount = o.mount AND n.path = o.path)
           ) AS changed ORDER BY 2, 3`,
          [name, from, Date.now(), this.host],
          false,
        );
      }
      this.write(
        "INSERT INTO ws.host_meta (host, key, value) VALUES ($1, 'selected_branch', $2) ON CONFLICT (host, key) DO UPDATE SET value = excluded.value",
        [this.host, name],
        false,
      );
    });
  }

  history(mount: string, path: string): Version[] {
    const found = new Map<number, Version>();
    // As on SQLite: a move's row names the path it came from, whose versions before the move come first.
    const follow = (at: string, before: number) => {
      const rows = this.sql(
        'SELECT seq, branch, path, hash, size, at, source, moved_from FROM ws.history WHERE mount = $1 AND path = $2 AND seq < $3 ORDER BY seq',
        [mount, at, before],
        'read',
      );
      rows.forEach((r, i) => {
        if (r.moved_from !== null) follow(String(r.moved_from), num(r.seq));
        const moveDeletion = at !== path && i === rows.length - 1 && r.hash === null && r.source === 'move';
        if (!moveDeletion) found.set(num(r.seq), versionOf(r));
      });
    };
    follow(path, Number.MAX_SAFE_INTEGER);
    return [...found.values()].sort((a, b) => b.seq - a.seq);
  }

  version(mount: string, path: string, seq: number): Version | null {
    const [row] = this.sql('SELECT seq, branch, mount, path, hash, size, at, source, moved_from FROM ws.history WHERE seq = $1', [seq], 'read');
    if (row === undefined || row.mount !== mount) return null;
    if (row.path === path) return versionOf(row);
    return this.history(mount, path).find((v) => v.seq === seq) ?? null;
  }

  treeFiles(branch: string, mount: string, dir: string): TreeFile[] {
    const rows = this.sql(`SELECT path, hash, size, mode FROM ws.tree WHERE branch = $1 AND mount = $2 AND ${UNDER} ORDER BY path`, [branch, mount, dir], 'read');
    return rows.map((r) => ({ path: String(r.path), entry: entryOf(r) }));
  }

  holdsBeneath(branch: string, mount: string, dir: string): boolean {
    if (dir === '') return true;
    const rows = this.sql(
      "SELECT 1 FROM ws.tree WHERE branch = $1 AND mount = $2 AND path >= $3::text || '/' AND path < $3::text || '0' LIMIT 1",
      [branch, mount, dir],
      'read',
    );
    return rows.length > 0;
  }

  treeChildren(branch: string, mount: string, dir: string): TreeChildren {
    // One query: each path of the level, or its child directory's name (the path cut just
    // after the next '/'), once, with how many files each stands for. substr and strpos
    // count characters, as the prefix's length here does.
    const start = Array.from(dir === '' ? '' : `${dir}/`).length + 1;
    const rows = this.sql(
      `SELECT CASE WHEN strpos(substr(path, $4), '/') = 0 THEN path ELSE left(path, $4 + strpos(substr(path, $4), '/') - 1) END AS child, count(*) AS n
       FROM ws.tree WHERE branch = $1 AND mount = $2 AND ($3::text = '' OR (path >= $3::text || '/' AND path < $3::text || '0')) GROUP BY child`,
      [branch, mount, dir, start],
      'read',
    );
    return childrenOf(
      dir,
      rows.map((r) => String(r.child)),
      rows.reduce((n, r) => n + Number(r.n), 0),
    );
  }

  pathsNamed(branch: string, mount: string, name: string, limit: number): string[] {
    const rows = this.sql(
      "SELECT path FROM ws.tree WHERE branch = $1 AND mount = $2 AND (path ILIKE $3::text ESCAPE '\\' OR path ILIKE '%/' || $3::text ESCAPE '\\') ORDER BY path LIMIT $4",
      [branch, mount, name.replace(/[\\%_]/g, (c) => `\\${c}`), limit],
      'read',
    );
    return rows.map((r) => String(r.path));
  }

  addReviewNote(branch: string, mount: string, note: ReviewNote): void {
    this.write(
      'INSERT INTO ws.review_notes (branch, mount, path, rejected, accepted, merged, at) VALUES ($1, $2, $3, $4, $5, $6, $7) ' +
        'ON CONFLICT (branch, mount, path) DO UPDATE SET rejected = ws.review_notes.rejected + excluded.rejected, ' +
        'accepted = ws.review_notes.accepted + excluded.accepted, merged = ws.review_notes.merged + excluded.merged, at = excluded.at',
      [branch, mount, note.path, note.rejected, note.accepted, note.merged, Date.now()],
      true,
    );
  }

  takeReviewNotes(branch: string, mount: string, path?: string): ReviewNote[] {
    const where = path === undefined ? 'branch = $1 AND mount = $2' : 'branch = $1 AND mount = $2 AND path = $3';
    const args = path === undefined ? [branch, mount] : [branch, mount, path];
    const rows = this.sql(`SELECT path, rejected, accepted, merged FROM ws.review_notes WHERE ${where} ORDER BY path`, args, 'read');
    if (rows.length === 0) return [];
    this.write(`DELETE FROM ws.review_notes WHERE ${where}`, args, true);
    return rows.map((r) => ({ path: String(r.path), rejected: num(r.rejected), accepted: num(r.accepted), merged: num(r.merged) }));
  }

  blobsMayHold(terms: readonly IndexTerm[], caseInsensitive = false): BlobLookup {
    const may = new Set<Hash>();
    const params = likeTerms(terms).map(containing);
    // The trigram index serves both: `LIKE` keeps case, `ILIKE` does not.
    const like = caseInsensitive ? 'ILIKE' : 'LIKE';
    const match = params.map((_, i) => `t.text ${like} $${i + 1}`).join(' AND ');
    for (const r of this.sql(`SELECT b.hash FROM ws.blob_text t JOIN ws.blob b ON b.id = t.id WHERE ${match || 'true'}`, params, 'read')) may.add(String(r.hash));
    const unindexed = new Set(this.sql('SELECT hash FROM ws.blob WHERE indexed <> 1', [], 'read').map((r) => String(r.hash)));
    return { may, unindexed };
  }

  indexSome(budgetMs: number, now: () => number = () => performance.now()): number {
    if (this.txSession !== undefined) return this.unindexedCount();
    const started = now();
    const until = started + budgetMs;
    // The server's work (the trigram index's insert) is most of a slice: the slice takes as
    // many bytes as the slices before managed in its budget, at least one blob.
    const take = Math.max(1, this.indexBytesPerMs * budgetMs);
    let indexed = 0;
    try {
      this.transaction(() => {
        const rows = this.sql('SELECT id, size, codec, bytes FROM ws.blob WHERE indexed = 0 ORDER BY id LIMIT $1', [INDEX_BATCH], 'written');
        const ids: string[] = [];
        const marks: number[] = [];
        const textIds: string[] = [];
        const texts: string[] = [];
        for (const [k, r] of rows.entries()) {
          if (k > 0 && (now() >= until || indexed + num(r.size) > take)) break;
          indexed += num(r.size);
          const bytes = unpackBlob(String(r.codec), r.bytes as Uint8Array);
          // Binary-looking text is kept out: a search always reads it (and reports it as binary).
          const indexable = !looksBinary(bytes) && !bytes.includes(0);
          ids.push(String(r.id));
          marks.push(indexable ? 1 : 2);
          if (indexable) {
            textIds.push(String(r.id));
            texts.push(textDecoder.decode(bytes));
          }
        }
        if (textIds.length > 0) {
          this.write('INSERT INTO ws.blob_text (id, text) SELECT * FROM unnest($1::bigint[], $2::text[]) ON CONFLICT (id) DO NOTHING', [textIds, texts], false);
        }
        if (ids.length > 0) {
          this.write('UPDATE ws.blob b SET indexed = v.x FROM unnest($1::bigint[], $2::smallint[]) AS v(id, x) WHERE b.id = v.id AND b.indexed = 0', [ids, marks], false);
        }
      });
    } catch (err) {
      // Another host indexing the same blobs at once: they are indexed either way.
      if (!(err instanceof PgStoreError && err.kind === 'conflict')) throw err;
      if (this.hold) this.hold.failed = undefined;
    }
    const took = now() - started;
    if (indexed > 0 && took > 0) this.indexBytesPerMs = (this.indexBytesPerMs + indexed / took) / 2;
    return this.unindexedCount();
  }

  private unindexedCount(): number {
    return num(this.sql('SELECT COUNT(*) AS n FROM ws.blob WHERE indexed = 0', [], 'read')[0].n);
  }

  collectBlobs(graceMs: number, now: number = Date.now()): { readonly marked: number; readonly removed: number } {
    if (this.txSession !== undefined) return { marked: 0, removed: 0 };
    try {
      return this.transaction(() => {
        // Every blob a record of any host refers to: trees, history, and any hash in a mark, evidence or pending effect.
        const refs = new Set<string>();
        for (const r of this.sql('SELECT DISTINCT hash FROM ws.tree UNION SELECT DISTINCT hash FROM ws.history WHERE hash IS NOT NULL', [], 'written')) refs.add(String(r.hash));
        for (const r of this.sql('SELECT record FROM ws.marks UNION ALL SELECT record FROM ws.host_marks UNION ALL SELECT record FROM ws.evidence UNION ALL SELECT record FROM ws.pending', [], 'written')) {
          for (const m of String(r.record).matchAll(HASH_IN_RECORD)) refs.add(m[0]);
        }
        const keep: string[] = [];
        const mark: string[] = [];
        const remove: string[] = [];
        for (const b of this.sql('SELECT id, hash, unreferenced_at FROM ws.blob', [], 'written')) {
          const at = numOrNull(b.unreferenced_at);
          if (refs.has(String(b.hash))) {
            if (at !== null) keep.push(String(b.id));
          } else if (at === null) mark.push(String(b.id));
          else if (now - at >= graceMs) remove.push(String(b.id));
        }
        if (keep.length > 0) this.write('UPDATE ws.blob SET unreferenced_at = NULL WHERE id = ANY($1::bigint[])', [keep], false);
        if (mark.length > 0) this.write('UPDATE ws.blob SET unreferenced_at = $1 WHERE id = ANY($2::bigint[])', [now, mark], false);
        if (remove.length > 0) this.write('DELETE FROM ws.blob WHERE id = ANY($1::bigint[])', [remove], false);
        return { marked: mark.length, removed: remove.length };
      });
    } catch (err) {
      if (!(err instanceof PgStoreError && err.kind === 'conflict')) throw err;
      if (this.hold) this.hold.failed = undefined;
      return { marked: 0, removed: 0 };
    }
  }

  draftedElsewhere(branch: string, mount: string, paths: readonly string[]): Map<string, readonly string[]> {
    const found = new Map<string, string[]>();
    if (paths.length === 0) return found;
    const rows = this.sql(
      `SELECT DISTINCT h.path, h.host FROM ws.history h
       WHERE h.branch = $1 AND h.mount = $2 AND h.path = ANY($3::text[]) AND h.host <> $4
         AND h.source NOT IN ('disk', 'materialize', 'branch-switch')
         AND h.seq > COALESCE((SELECT MAX(g.seq) FROM ws.history g
           WHERE g.branch = h.branch AND g.mount = h.mount AND g.path = h.path AND g.source IN ('disk', 'materialize')), 0)
       ORDER BY 1, 2`,
      [branch, mount, [...paths], this.host],
      'read',
    );
    for (const r of rows) {
      const path = String(r.path);
      found.set(path, [...(found.get(path) ?? []), String(r.host)]);
    }
    return found;
  }

  close(): void {
    if (!this.open) return;
    try {
      this.barrier();
    } finally {
      this.open = false;
      this.conn.close();
    }
  }
}

/** One operation's hold of the lock, as the store sees it. */
interface Hold {
  /** The session holding the lock: every statement of the operation runs on it. */
  readonly session: string;
  /** The tree entry each path had when the operation first read it (or last wrote it). */
  readonly seen: Map<string, Hash | null>;
  /** The shared tombstone (or none) each path had when the operation first read it (or wrote it). */
  readonly tombstones: Map<string, SharedMark | null>;
  /** The conflict or lost connection that ended the operation's transaction. */
  failed: PgStoreError | undefined;
  /** A barrier of the operation committed shared records (trees, marks): running it again is no longer safe. */
  sharedCommitted: boolean;
}
