/**
 * The store seam: everything the host and its mounts ask of a store, so a second engine
 * is "implement `Store` and `Lock`" and nothing above this folder changes. The one rule
 * (inherited from `@ws/reconcile`'s `StorePort`): every method is synchronous, so a pass
 * settles its records without yielding — see the host README, "The store seam" and "A shared
 * store on PostgreSQL".
 */
import type { Hash, StorePort, TreeEntry, VersionSource } from '@ws/reconcile';

/** One branch, for `ws branch list`. */
export interface BranchInfo {
  readonly name: string;
  readonly selected: boolean;
  readonly createdAt: string;
  readonly createdFrom: string | null;
  /** Files this branch's tree holds, over every mount. */
  readonly files: number;
}

/** One version of a file in the store's history. */
export interface Version {
  /** Its place in the history, stable for the life of the store (the tools' version id). */
  readonly seq: number;
  /** The branch selected when it was recorded. */
  readonly branch: string;
  /** The path it was recorded at (another than the one asked for where a move brought it). */
  readonly path: string;
  /** The text's hash, or null where the change removed the file. */
  readonly hash: Hash | null;
  readonly size: number | null;
  /** ISO 8601, UTC. */
  readonly at: string;
  readonly source: VersionSource;
}

/** What a person did on the review page to the agent's draft of one path, not yet told to the agent. */
export interface ReviewNote {
  readonly path: string;
  /** Hunks taken out of the draft (a whole file or deletion counts as one). */
  readonly rejected: number;
  /** Hunks written to disk (a whole draft or deletion counts as one). */
  readonly accepted: number;
  /** Conflicts settled with a merge the person edited. */
  readonly merged: number;
}

/**
 * Text every line a search matches holds, for the search index (as `@ws/grep`'s
 * `indexTerms` gives it): a string of ASCII characters, or its places in order, each the
 * ASCII characters that may stand there.
 */
export type IndexTerm = string | readonly string[];

/**
 * What the search index says about blobs holding some terms. `may` may say yes of a blob
 * the index did not name (a store may keep its answer by a part of each hash), never no of
 * one it named: a blob it wrongly keeps in is searched, and found to hold no match.
 */
export interface BlobLookup {
  /** Indexed blobs whose text may hold every term (a superset of those that do); `size`: how many the index named. */
  readonly may: { has(hash: Hash): boolean; readonly size: number };
  /** Blobs the index does not cover (not yet indexed, or kept out): any of them may hold the terms. */
  readonly unindexed: ReadonlySet<Hash>;
  /**
   * Where the store keeps its blobs in a file of its own (`packedBlobFile`): each blob of
   * `may`'s row id there, so a Worker reads it by id rather than looking its hash up (it
   * checks the hash of the row it finds, and reads by hash where they differ: an id a
   * wrongly kept blob is given is another's).
   */
  readonly ids?: { get(hash: Hash): number | undefined };
}

/**
 * The search index's lookup read as it goes ({@link Store.blobIdsMayHold}): a search's
 * Workers start on the first blobs it names while it names the rest.
 */
export interface BlobIdLookup {
  /** As {@link BlobLookup.unindexed}. */
  readonly unindexed: ReadonlySet<Hash>;
  /** The row id (`packedBlobFile`'s) of the next indexed blob that may hold every term, ascending; undefined where none is left. Throws where the lookup fails. */
  next(): number | undefined;
  /** Lets the lookup go, read to its end or not. */
  close(): void;
}

/**
 * A hash's first 52 bits (13 hex digits), as a number: what a lookup keeps a named blob by.
 * Read digit by digit, with no string cut from the hash: a search asks it of every file.
 */
export function hashKey(hash: Hash): number {
  let key = 0;
  for (let i = 0; i < 13; i++) {
    const c = hash.charCodeAt(i);
    // `0`–`9`, then `a`–`f` (the host writes hashes in lower case).
    key = key * 16 + (c <= 57 ? c - 48 : c - 87);
  }
  return key;
}

/** A file a branch's tree holds, with its entry. */
export interface TreeFile {
  readonly path: string;
  readonly entry: TreeEntry;
}

/** One level of a branch's tree ({@link Store.treeChildren}). */
export interface TreeChildren {
  readonly files: readonly string[];
  readonly directories: readonly string[];
  /** How many files the tree holds at or beneath the directory, the level's among them. */
  readonly beneath: number;
}

/**
 * One level of a tree from its paths directly beneath `dir` and beneath its children:
 * each a file (no `/` after the prefix) or a child directory (its name up to the next
 * `/`), once each, in code-unit order. Both stores' answers go through here.
 */
export function childrenOf(dir: string, paths: Iterable<string>, beneath: number): TreeChildren {
  const prefix = dir === '' ? '' : `${dir}/`;
  const files = new Set<string>();
  const directories = new Set<string>();
  for (const path of paths) {
    if (!path.startsWith(prefix) || path.length === prefix.length) continue;
    const slash = path.indexOf('/', prefix.length);
    if (slash < 0) files.add(path);
    else directories.add(path.slice(0, slash));
  }
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return { files: [...files].sort(order), directories: [...directories].sort(order), beneath };
}

/**
 * A store, as the host uses it: `@ws/reconcile`'s port plus branches, history and the
 * listing of a branch's files. Failures throw a `StoreError` whose message is the one
 * sentence to show.
 */
export interface Store extends StorePort {
  /** Where the store is, as a person would name it (sentences carry it). */
  readonly path: string;
  /**
   * Lets go of a directory's scan kept for a pass's second look at it: a one-shot
   * command's pass is its last, and a grep then searches with the scan (every stored
   * path's records) let go.
   */
  forgetScans(): void;
  /** Every branch, the selected one marked. */
  branches(): BranchInfo[];
  /** True when a branch of this name exists. */
  hasBranch(name: string): boolean;
  /** Creates `name` from the selected branch (its trees and marks), in one transaction; the selection stays. */
  createBranch(name: string): void;
  /**
   * Selects another branch, durably, recording in the same transaction a `branch-switch`
   * version of every path whose workspace copy the switch changes.
   */
  selectBranch(name: string): void;
  /**
   * A file's versions, newest first, over every branch: each change to the workspace's
   * copy and each materialize of it, following the path back across a move within the
   * mount (the versions of the path it was moved from, before the move).
   */
  history(mount: string, path: string): Version[];
  /** One version of a path's history (as `history` lists it) by its seq, or null where the path has none of that seq. */
  version(mount: string, path: string, seq: number): Version | null;
  /** Every file of a mount on a branch at or beneath `dir` (`''`: all), in path order. */
  treeFiles(branch: string, mount: string, dir: string): TreeFile[];
  /** True when the branch's tree holds a file strictly beneath `dir`: the workspace has it as a directory. */
  holdsBeneath(branch: string, mount: string, dir: string): boolean;
  /**
   * What is directly in `dir` (`''`: the root) in a branch's tree: its files, and the
   * directories holding files beneath it, each by its full path, in path order, with how
   * many files lie at or beneath it (counted on the tree's key, not read): a listing of
   * one level of a large tree asks only that level's names.
   */
  treeChildren(branch: string, mount: string, dir: string): TreeChildren;
  /**
   * Up to `limit` paths of a mount's records on a branch whose last name is `name`
   * (for suggesting a mistyped path without walking disk).
   */
  pathsNamed(branch: string, mount: string, name: string, limit: number): string[];
  /** Adds to the review note of a path (made where there is none). */
  addReviewNote(branch: string, mount: string, note: ReviewNote): void;
  /** The review notes of a mount at `path` (undefined: every path), in path order, removed as they are answered. */
  takeReviewNotes(branch: string, mount: string, path?: string): ReviewNote[];
  /** Blobs' bytes by hash, many at once (a hash the store lacks is left out). */
  getBlobs(hashes: readonly Hash[]): Map<Hash, Uint8Array>;
  /**
   * Blobs as the store keeps them (`codec`: `'raw'` or `'zstd'`, see `blob-codec.ts`), many
   * at once, for a search that unpacks them in its Workers. Optional: a store without it
   * is read with `getBlobs`.
   */
  getPackedBlobs?(hashes: readonly Hash[]): Map<Hash, { readonly codec: string; readonly bytes: Uint8Array }>;
  /**
   * The file a search's Workers may open read-only to read packed blobs by hash
   * themselves (`readPackedBlobs` in `blob-file.ts`), off the caller's thread; undefined
   * where there is none (a store in memory, or on a server). Optional. A blob a Worker
   * does not find there (one this connection holds unwritten) is read with
   * `getPackedBlobs`.
   */
  packedBlobFile?(): string | undefined;
  /**
   * The search index: which blobs may hold every one of `terms` (each at least three
   * places, each place an ASCII character or the characters it may be: `IndexTerm`), as
   * written or, with `caseInsensitive`, in any case. A blob neither in `may` nor in
   * `unindexed` holds them not. Throws where no term gives the index anything to look up.
   */
  blobsMayHold(terms: readonly IndexTerm[], caseInsensitive?: boolean): BlobLookup;
  /**
   * {@link blobsMayHold} read a blob at a time, from a connection of the lookup's own (one
   * view of the store however long it is read, whatever this connection writes
   * meanwhile), by row id. Optional; undefined where the store has no file another
   * connection could open, or this connection has a transaction open (its writes are not
   * yet the other's to see).
   */
  blobIdsMayHold?(terms: readonly IndexTerm[], caseInsensitive?: boolean): BlobIdLookup | undefined;
  /** Each blob's row id (`packedBlobFile`'s), by hash. Optional, with {@link blobIdsMayHold}. */
  blobIds?(): Map<Hash, number>;
  /**
   * Adds blobs the search index lacks, in small transactions, for about `budgetMs` (none
   * while a write transaction is open); answers how many are left.
   */
  indexSome(budgetMs: number): number;
  /**
   * Collects blobs nothing refers to (no tree, history row, mark, evidence or pending
   * effect), in one transaction: a blob found unreferenced is marked, and removed (with
   * its index row) at a later collection at least `graceMs` on, if still unreferenced.
   * Does nothing while a write transaction is open.
   */
  collectBlobs(graceMs: number, now?: number): { readonly marked: number; readonly removed: number };
  /**
   * The other hosts whose agents drafted each of `paths` on `branch` since the path was
   * last materialized or taken in from a disk (a shared store's overlap view; a store of
   * one host answers none). Paths no other host drafted are left out.
   */
  draftedElsewhere(branch: string, mount: string, paths: readonly string[]): Map<string, readonly string[]>;
  /** Commits anything open and lets go of the store. */
  close(): void;
  /** Records of quiet syncs (see {@link QuietRecords}); optional: a store without them syncs by a pass every time. */
  readonly quiet?: QuietRecords;
}

/** A kept record of a whole-mount sync that changed nothing (the host README, "A quiet sync"). */
export interface QuietRecord {
  /** What else the report depends on (the mount's config and rules), as the sync that kept it wrote it. */
  readonly key: string;
  /** A sync's report, as JSON; '' where the pass was a search's. */
  readonly report: string;
  /**
   * The files a whole-mount search looks at beside the workspace's tree (a disk-only
   * file, a conflict's disk side), as JSON; '' where the pass could not say.
   */
  readonly plan: string;
  /** The stats that sync saw (`disk/quiet.ts`), packed. */
  readonly stats: Uint8Array;
}

/**
 * Where a sync keeps its quiet records. The one rule: a record is answered only while
 * nothing a pass reads has been written since the pass it was made from read the store —
 * each write transaction that could change a pass's answer counts, and a record holds the
 * count it was made at.
 */
export interface QuietRecords {
  /** The count as the last scan read it (not a cached one); undefined where that scan was read inside a write transaction, or none was. */
  scanned(): number | undefined;
  /** The count now. */
  changes(): number;
  /** True where the store holds evidence of any file of `mount` (it has been synced). */
  synced(mount: string): boolean;
  /**
   * Every file of `mount`'s tree on `branch`, in path order, as a search plans it (an
   * object a file, read straight from the rows: a whole-mount search's plan of 40,000
   * files made three objects a file more, and held them at once).
   */
  workspaceFiles(mount: string, branch: string): { readonly path: string; readonly source: 'workspace'; readonly hash: string; readonly size: number }[];
  /** The record of `mount` on `branch`, where its count is still the store's; else null. */
  get(mount: string, branch: string): QuietRecord | null;
  /** Keeps a record made at count `changes`, only where the count still is that (nothing written since); true where it was kept. */
  put(mount: string, branch: string, changes: number, record: QuietRecord): boolean;
}
