/**
 * The ports: everything `@ws/reconcile` needs from a store and a disk, and nothing more.
 * `apps/host` implements them with bun:sqlite and Bun's file APIs; the tests implement
 * them in memory with fakes that can crash between any two calls.
 *
 * The one rule a reader must not break: **the store port is synchronous and the disk
 * port is asynchronous.** A pass decides and records every path without yielding, so two
 * passes in one process never interleave their store writes; every await is a disk call.
 *
 * Paths are mount-relative, `/`-separated, never starting with `/`; `''` is the mount
 * root. Every record here is plain JSON (strings, numbers, booleans, null, arrays and
 * objects), so a store may keep it as JSON text.
 */

/** A content hash, as the injected {@link Hasher} writes it (the host: SHA-256, hex). */
export type Hash = string;

/**
 * Hashes a blob's bytes. Deterministic, and different bytes get different hashes (for
 * every practical purpose): equal hashes are how the rule tells D, S and P apart. The
 * host passes SHA-256 (`Bun.CryptoHasher`); the package never imports a crypto module.
 */
export type Hasher = (bytes: Uint8Array) => Hash;

/** Why a disk file is not kept as text: it looks binary, or it is over the mount's size limit. */
export type NotStoredWhy = 'binary' | 'too-large';

/**
 * A disk file's metadata, as a stat gives it. `fingerprint` is the disk's promise about
 * the bytes: **if two observations of a path have the same fingerprint, the bytes are the
 * same**. The host builds it from inode, size, mtime and ctime (nanoseconds where the
 * platform has them); a pass then skips hashing a file whose fingerprint the evidence
 * already vouches for. Anything that may change the bytes must change the fingerprint.
 */
export interface FileMeta {
  /** Bytes. */
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** Permission bits (e.g. `0o644`), or null where the platform has none. */
  readonly mode: number | null;
  readonly fingerprint: string;
}

/** What a stat of one path found. */
export type Observation =
  | { readonly kind: 'absent' }
  | { readonly kind: 'file'; readonly meta: FileMeta }
  /**
   * The path could not be checked, and why, as a short clause a sentence can carry
   * (`permission denied`, `a directory is where the file was`, `the file vanished while
   * it was read`). Never used for "no such file": that is `absent`.
   */
  | { readonly kind: 'unobservable'; readonly reason: string };

/** What reading one path found: an observation, and the bytes when the file fits. */
export type Reading =
  | { readonly kind: 'absent' }
  | {
      readonly kind: 'file';
      /** Metadata of the very bytes returned (the host stats the open file before and after reading, and retries when they differ). */
      readonly meta: FileMeta;
      /** The bytes, or null when `meta.size` is over the `maxBytes` asked for (nothing is read then). */
      readonly bytes: Uint8Array | null;
    }
  | { readonly kind: 'unobservable'; readonly reason: string };

/** Where the mount root is. */
export type RootLocation =
  /**
   * The root directory exists and can be read. `identity` names *which* directory it is
   * (the host: device and inode of the root), so a root that was moved away and replaced
   * by another directory is not read as "every file deleted".
   */
  | { readonly kind: 'available'; readonly identity: string }
  /** The root is missing, not a directory, or unreadable: why, as a clause. */
  | { readonly kind: 'unavailable'; readonly reason: string };

/** A walk of a directory: what it found, what it passed over, and what it could not read. */
export interface Walk {
  /** Every regular file beneath the directory that the walk looked at, with its metadata. */
  readonly files: readonly { readonly path: string; readonly meta: FileMeta }[];
  /** Every directory beneath it that the walk entered (for listings). */
  readonly directories: readonly string[];
  /**
   * What the walk did not look at, by reason (`ignored`, `editor swap or backup file`).
   * A passed-over directory is one entry (`directory: true`), not descended into. A pass
   * observes held paths in these places one by one, and counts the rest by reason.
   */
  readonly passedOver: readonly { readonly path: string; readonly reason: string; readonly directory: boolean }[];
  /** Directories (or files) it could not read, and why: held paths beneath them are `unverified`. */
  readonly unreadable: readonly { readonly path: string; readonly reason: string }[];
  /**
   * Set when the walk stopped early (its cap): why, as a clause (`the scan stopped at its
   * cap of 200,000 files`). Held paths the walk did not reach are then `unverified`, never
   * taken as deleted.
   */
  readonly incomplete: string | null;
}

/**
 * What an effect expects disk to hold at the point of effect — what the decision saw.
 * `absent`: no file there. `file`: a file with this fingerprint. `any`: no check (only a
 * forced push over a disk copy that could not be observed).
 */
export type Expectation =
  | { readonly kind: 'absent' }
  | { readonly kind: 'file'; readonly fingerprint: string }
  | { readonly kind: 'any' };

/** Why an effect was not done: disk no longer matched, or another problem. Nothing changed on disk. */
export type EffectRefusal =
  /** Disk no longer matched the expectation; what is there now. */
  | { readonly kind: 'refused'; readonly now: Observation }
  /** Another reason (permission, disk full), as a clause. */
  | { readonly kind: 'failed'; readonly reason: string };

/** The outcome of a write: done with the new file's metadata (its fingerprint becomes the evidence), or not done. */
export type WriteResult = { readonly kind: 'done'; readonly meta: FileMeta } | EffectRefusal;

/** The outcome of an unlink. */
export type UnlinkResult = { readonly kind: 'done' } | EffectRefusal;

/**
 * One mount's disk. Every method resolves; an expected problem is a value, not a throw.
 * A method that throws is taken as "outcome unknown": for an effect, the pending intent
 * stays recorded and is resolved from what disk shows later (README, "Crash safety").
 */
export interface DiskPort {
  /** Where the mount root is (missing, replaced or unreadable roots are never "empty"). */
  locateRoot(): Promise<RootLocation>;
  /**
   * A stat of one path, without reading it. Named paths are observed even where a walk
   * would pass over them (ignored names, swap and backup files). Symlinks are followed
   * only where the mount allows, and only inside the root; anything that is not a regular
   * file is `unobservable` with the reason.
   */
  stat(path: string): Promise<Observation>;
  /**
   * Reads one file whole, unless it is larger than `maxBytes` (then `bytes: null`). A walk's
   * pass keeps up to 8 reads in flight at once; every other method is called one at a time
   * per pass. `into`: a buffer the bytes may be read into where the file fits it — the
   * reading's bytes are then a view of it, the caller's to reuse once it is done with them
   * (a pass reads hundreds of MB, and a fresh buffer a file costs a page fault a page).
   */
  read(path: string, maxBytes: number, into?: Uint8Array): Promise<Reading>;
  /**
   * Walks the directory `dir` (`''`: the root) and everything beneath it, applying the
   * mount's ignore rules and its cap. Only metadata is returned; bytes are read later, and
   * only for files whose fingerprint the evidence does not vouch for.
   */
  walk(dir: string): Promise<Walk>;
  /**
   * Replaces `path` with `bytes`, atomically: a temporary file in the same directory,
   * written and fsynced, then renamed over the path (parents created as needed). Checked
   * at the point of effect: just before the rename, disk must still hold what `expect`
   * says, else `refused` and nothing changes. `mode` null: the platform's default for a new
   * file. The new bytes are visible at once but durable only after {@link syncDirectory}.
   */
  write(
    path: string,
    bytes: Uint8Array,
    options: { readonly mode: number | null; readonly expect: Expectation },
  ): Promise<WriteResult>;
  /** Removes the file at `path`, checked at the point of effect like {@link write}. Durable after {@link syncDirectory}. */
  unlink(path: string, options: { readonly expect: Expectation }): Promise<UnlinkResult>;
  /**
   * Makes every write and unlink in directory `dir` durable (fsync of the directory, and of
   * each parent a write created, up to the root). A push calls it once per directory it
   * touched, before it records any outcome.
   */
  syncDirectory(dir: string): Promise<void>;
}

/**
 * Where a version of a file came from, as a store's history records it (the host's
 * `history` tool shows it): an agent's draft (`write`, `edit`, `delete`, `move`,
 * `restore`), a person's choice on the host's review page (`review`: hunks taken out of
 * a draft, or set aside while others are written), a draft dropped for disk's copy
 * (`discard`), disk's change taken in
 * (`disk`), a push's write or unlink (`materialize`), or the selected branch changing
 * (`branch-switch`, recorded by the host's store, never by this package).
 */
export type VersionSource = 'write' | 'edit' | 'delete' | 'move' | 'restore' | 'review' | 'discard' | 'disk' | 'materialize' | 'branch-switch';

/** Why S changed, for the store's history: the source, and for a move the path the text came from. */
export interface VersionCause {
  readonly source: VersionSource;
  /** A move within the mount: the mount-relative path these bytes come from (a history follows it). */
  readonly movedFrom?: string;
}

/** What the store holds for a path on a branch: S. Only text is stored. */
export interface TreeEntry {
  readonly hash: Hash;
  readonly size: number;
  /** Disk's permission bits when the text came from disk; null for a file the workspace made. */
  readonly mode: number | null;
}

/** Identifies a disk file's content: text by hash, a file that is not stored by `id`. */
export type ContentId =
  | { readonly kind: 'text'; readonly hash: Hash }
  /** `id`: the hash of a binary file's bytes; the fingerprint of a file too large to read. */
  | { readonly kind: 'opaque'; readonly why: NotStoredWhy; readonly id: string };

/**
 * The evidence, P: the last state on which disk and store were known to agree. Per
 * (mount, path), not per branch: it records what *disk* held at agreement. `text`: disk
 * and store held this text. `opaque`: disk held a file that is not stored, and the store
 * held nothing (the path reads disk-only). `absent`: neither had the file (kept, so that
 * another branch that has the file reads it as a draft, not as a copy of unknown
 * provenance). No row: P unknown.
 */
export type Evidence =
  | { readonly kind: 'absent' }
  | {
      readonly kind: 'text';
      readonly hash: Hash;
      readonly size: number;
      readonly mode: number | null;
      /** The fingerprint disk had for these bytes, when known: a later stat with the same one vouches for them. */
      readonly fingerprint: string | null;
    }
  | {
      readonly kind: 'opaque';
      readonly why: NotStoredWhy;
      readonly id: string;
      readonly size: number;
      readonly mode: number | null;
      readonly fingerprint: string | null;
    };

/** Where a conflict keeps its disk side. */
export type DiskSide =
  /** Disk's text, stored as a blob (searchable, readable). */
  | { readonly kind: 'stored'; readonly hash: Hash; readonly size: number }
  /** Disk's file was binary or too large: referenced by identity, not stored. */
  | { readonly kind: 'referenced'; readonly why: NotStoredWhy; readonly id: string; readonly size: number }
  /** Disk had no file. */
  | { readonly kind: 'absent' };

/** The kinds of conflict (README, "The rule" and "Crash safety"). */
export type ConflictKind =
  | 'deleted-on-disk'
  | 'changed-after-workspace-delete'
  | 'both-changed'
  | 'unknown-provenance'
  | 'store-origin-collision'
  | 'interrupted';

/** A recorded conflict: it stays until settled explicitly or until D and S converge. */
export interface ConflictRecord {
  readonly kind: ConflictKind;
  /** Disk's side when the conflict was recorded. */
  readonly disk: DiskSide;
  /** Disk no longer holds `disk`, as of the last pass that observed the path. */
  readonly diskChangedSince: boolean;
  /** What disk held at the last pass that observed the path. */
  readonly diskNow: 'file' | 'absent';
}

/**
 * The per-branch path intent: what the workspace did to a path on one branch. A branch
 * created from another copies its tree *and* these marks.
 */
export interface BranchMark {
  /**
   * Where S came from: `workspace` (an agent wrote it), `disk` (taken in from disk), or
   * null (unknown). It matters only while P is unknown.
   */
  readonly origin: 'workspace' | 'disk' | null;
  /**
   * A workspace deletion (S was removed by the workspace) and what it removed: the text
   * S held, or (S had none) what the evidence said disk held; null when neither was known.
   */
  readonly tombstone: { readonly base: ContentId | null } | null;
  /** A recorded conflict on this branch, or null. */
  readonly conflict: ConflictRecord | null;
}

/** The store's three records for a path on a branch, as one value. */
export interface PathRecords {
  readonly tree: TreeEntry | null;
  readonly evidence: Evidence | null;
  readonly mark: BranchMark | null;
}

/**
 * An announced effect (README, "Crash safety"), recorded durably before it acts and cleared after its
 * outcome is recorded. One per (mount, path) at a time. `branch` is the branch it acted
 * for (a branch switch may come between announcing and finishing).
 */
export type PendingEffect =
  /** An adoption: the store records moving from `before` to `after`. */
  | { readonly kind: 'adopt'; readonly branch: string; readonly before: PathRecords; readonly after: PathRecords }
  /** A push writing S's text (`hash`) to disk, where disk was expected to hold `expect`. */
  | {
      readonly kind: 'write';
      readonly branch: string;
      readonly hash: Hash;
      readonly size: number;
      readonly mode: number | null;
      readonly expect: Expectation;
      readonly expectId: ContentId | null;
      readonly forced: boolean;
    }
  /** A push removing disk's file, where disk was expected to hold `expect`. */
  | {
      readonly kind: 'unlink';
      readonly branch: string;
      readonly expect: Expectation;
      readonly expectId: ContentId | null;
      readonly forced: boolean;
    };

/** Everything the store holds about one path, for one branch. */
export interface StoredPath extends PathRecords {
  readonly path: string;
  readonly pending: PendingEffect | null;
  /**
   * A store shared by several hosts: the texts this path held on this branch when some
   * host's disk agreed with the store (taken in from a disk, or materialized to one).
   * Where this host has no evidence of its own, a disk holding one of them is this host's
   * agreement, not a collision (the README's "The rule"). Absent on a one-host store.
   */
  readonly agreedElsewhere?: readonly Hash[];
}

/**
 * The embedded store, for every mount. Synchronous (bun:sqlite is). Reads see every write
 * made so far, barrier or not.
 *
 * Durability: a write is durable once a later {@link barrier} returns. After a crash, the
 * writes since the last barrier may be lost — **any subset of them** (the fakes lose a
 * random subset), so the package never relies on two unbarriered writes surviving
 * together. A SQLite transaction (all or nothing) is a stronger guarantee and satisfies
 * this: begin at the first write after a barrier, commit in `barrier()`. The package
 * always calls `barrier()` before it awaits anything, except after {@link putBlob} (blobs
 * are immutable and harmless to keep or lose until referenced).
 */
export interface StorePort {
  /**
   * True where a barrier commits every write since the last one all or nothing (a
   * transaction, as SQLite's): a crash then keeps all of them or none, never a subset, so
   * an adoption's records need no announcement before them — a pass writes them and
   * barriers once. Absent or false: the weakest durability above, and every adoption is
   * announced first (README, "Crash safety").
   */
  readonly atomicBarriers?: boolean;
  /** The selected branch's id. A pass reads it before and after observing disk. */
  selectedBranch(): string;
  /** The records of one path: S and the mark on `branch`, and the branch-free evidence and pending effect. */
  read(branch: string, mount: string, path: string): StoredPath;
  /**
   * Every path at or beneath `dir` (`''`: the whole mount; `a/b`: `a/b` itself and
   * `a/b/…`, not `a/bc`) that has any record: a tree entry or mark on `branch`, evidence,
   * or a pending effect. Any order.
   */
  scan(branch: string, mount: string, dir: string): Iterable<StoredPath>;
  /** Every path of the mount with a pending effect (for recovery at startup). */
  pendingPaths(mount: string): Iterable<string>;

  /** A blob's bytes by hash, or null when the store has none. */
  getBlob(hash: Hash): Uint8Array | null;
  /**
   * Stores a blob under its hash (idempotent). May be called while a pass awaits disk.
   * Keeps no hold on `bytes` once it returns: the caller may overwrite them (a pass reads
   * the next file into the same buffer), so a write that waits copies what it keeps.
   */
  putBlob(hash: Hash, bytes: Uint8Array): void;
  /**
   * {@link putBlob}, its slow part (compression, say) done off the calling thread where
   * the store can: a pass's reads go on meanwhile. The blob is stored when it resolves,
   * and from then on `bytes` are the caller's again, as after `putBlob`.
   * Optional: a pass calls `putBlob` where a store has none.
   */
  putBlobSoon?(hash: Hash, bytes: Uint8Array): Promise<void>;

  /**
   * Sets S for a path on `branch` (null: the branch does not have the file), and records
   * in the store's history why: a version where the text or its presence changes (a mode
   * alone is not a version) or where `cause.movedFrom` is set — in the same write, so a
   * crash keeps both or neither.
   */
  setTree(branch: string, mount: string, path: string, entry: TreeEntry | null, cause: VersionCause): void;
  /**
   * Records a version of a path without changing S: a push wrote `entry`'s text to disk,
   * or (null) deleted disk's file (`cause.source` is `materialize`). Idempotent: where the
   * path's newest version is already this one (same branch, source and text), it records
   * nothing — so a push's outcome recorded again on recovery adds no second version.
   */
  addVersion(branch: string, mount: string, path: string, entry: TreeEntry | null, cause: VersionCause): void;
  /** Sets P for a path (null: no evidence). */
  setEvidence(mount: string, path: string, evidence: Evidence | null): void;
  /** Sets or clears the pending effect of a path. */
  setPending(mount: string, path: string, pending: PendingEffect | null): void;
  /** Sets the branch mark of a path on `branch` (null: none). */
  setMark(branch: string, mount: string, path: string, mark: BranchMark | null): void;

  /** The identity of the root directory last agreed under, or null before the first pass. */
  rootIdentity(mount: string): string | null;
  /** Records the root directory agreed under. */
  setRootIdentity(mount: string, identity: string): void;

  /** Makes every write so far durable (a committed transaction, fsynced). */
  barrier(): void;
}
