/**
 * The seam between the tools and whatever holds the files. `@ws/tools` talks only to
 * this interface; `apps/host` implements it with Bun.file (direct mounts) and
 * bun:sqlite + `@ws/reconcile` (store-backed mounts); tests implement it in memory.
 * The one rule: every path crossing this seam is mount-relative (`src/a.ts`, `''` for
 * the root), `/`-separated, already checked by the tools to stay inside its mount
 * (no `..`, no leading `/`); the mount checks again at the point of effect (symlinks).
 * Nothing here throws for an expected problem: an outcome carries a sentence instead.
 */
import type { MatchJobResult, MatchRunner, StretchSizes } from '@ws/grep';
import type { Progress } from './tool.ts';

/** A refusal or problem, as a full sentence a model can act on. */
export interface Refusal {
  readonly ok: false;
  readonly message: string;
}

/** What reading one path found. */
export type ReadOutcome =
  /** Text (or what will be shown as text): the bytes, and the disk check's notes (the store-backed read, `@ws/reconcile`'s README). */
  | { readonly kind: 'file'; readonly bytes: Uint8Array; readonly notes: readonly string[] }
  /**
   * A binary file (read shows text only, and images). `bytes` where the mount has them at
   * hand (the file is within `maxFileSize`), so an image can be shown.
   */
  | { readonly kind: 'binary'; readonly size: number; readonly bytes?: Uint8Array }
  /**
   * A text file over the mount's `maxFileSize`: never read whole, never stored, paged
   * read-only straight from disk (the README's "Large files"). `range` reads up to
   * `length` bytes from byte `start` (fewer at the end); null where the file changed or
   * went since this outcome was made, so no page mixes two versions of it. The bytes are
   * valid until the next call (a mount may reuse one buffer): use them before asking again.
   */
  | {
      readonly kind: 'large';
      readonly size: number;
      readonly notes: readonly string[];
      range(start: number, length: number): Promise<Uint8Array | null>;
    }
  /** A directory (use ls). */
  | { readonly kind: 'directory' }
  /** Nothing at this path, on disk or in the workspace. */
  | { readonly kind: 'missing' }
  /** No page: the mount's sentence says why (e.g. "disk deleted it and the deletion was taken in"). */
  | { readonly kind: 'answer'; readonly message: string };

/** One entry of a listing. */
export interface Entry {
  /** Mount-relative path. */
  readonly path: string;
  readonly kind: 'file' | 'directory';
  /** Bytes, for files. */
  readonly size?: number;
  /** When the file last changed (ms since the epoch), where the mount knows it: glob's `sort: "modified"`. */
  readonly modified?: number;
  /** On a store-backed mount: the path's state (`@ws/reconcile`'s README, "States"), e.g. `synced`, `workspace-draft`. */
  readonly state?: string;
}

/** What a listing found, and what its walk passed over, counted by reason. */
export type ListOutcome =
  | {
      readonly ok: true;
      readonly entries: readonly Entry[];
      /** e.g. `{ ignored: 12, 'editor swap or backup file': 2 }`. */
      readonly passedOver: Readonly<Record<string, number>>;
      /** Set when the walk stopped early (a cap) or could not read a region: why. */
      readonly incomplete?: string;
      /**
       * A `filesOnly` listing made without a walk (a store-backed mount's, from its records
       * where they hold what disk does): `passedOver` counts nothing, and a caller that
       * needs the counts lists again without `filesOnly`.
       */
      readonly uncounted?: true;
    }
  | Refusal;

/** A file offered to grep: its bytes, or why it was not read — or many that hold no match. */
export type SearchFile =
  | {
      /**
       * Files in a row the mount knows hold no line that matches (`scanAhead` said so of
       * their bytes), each as the `noMatch` file of `paths[k]` and `sizes[k]` would be
       * (`@ws/grep`'s `noMatches`): one for many, where a search finds thousands at a time.
       */
      readonly noMatches: { readonly paths: readonly string[]; readonly sizes: readonly number[] };
    }
  | {
      readonly path: string;
      readonly bytes: Uint8Array;
      /** `'conflicting-disk'` for a conflict's disk version, searched beside the workspace copy. */
      readonly version?: 'conflicting-disk';
    }
  | {
      readonly path: string;
      readonly skipped: string;
    }
  | {
      readonly path: string;
      /**
       * A text file over the mount's `maxFileSize`, searched straight from disk a stretch
       * at a time (the README's "Large files"): its size, and `range` as a `large` read
       * outcome has it (null once the file is not the one first seen; bytes valid until
       * the next call).
       */
      readonly large: { readonly size: number; range(start: number, length: number): Promise<Uint8Array | null> };
    }
  | {
      readonly path: string;
      /** The mount's index says it holds none of the query's terms: searched, no line matches (`@ws/grep`'s `noMatch`). */
      readonly noMatch: true;
      readonly size: number;
      readonly version?: 'conflicting-disk';
    }
  | {
      readonly path: string;
      /**
       * Searched ahead once the query's page was full (`SearchQuery.pageFull`): its scan,
       * without its bytes (`@ws/grep`'s `counted`: `scanAhead` of this query answered
       * `'scanned'`). Its results are counted, none shown.
       */
      readonly counted: { readonly size: number; readonly scan: MatchJobResult };
      readonly version?: 'conflicting-disk';
    };

/** What grep looks for, so a mount with an index may answer `noMatch` for files that can't match. */
export interface SearchQuery {
  readonly pattern: string;
  readonly caseInsensitive: boolean;
  readonly fixedStrings: boolean;
  readonly multiline: boolean;
  /**
   * True once the answer's page can take no more results (it stays so): from then on a
   * mount that searches ahead may offer a matching file as `counted`, sparing its bytes.
   */
  readonly pageFull?: () => boolean;
}

/** One file's change in a commit: new bytes, or `null` to delete. */
export interface Change {
  readonly path: string;
  readonly bytes: Uint8Array | null;
  /**
   * What the path held when the change was planned (`null`: absent). Where given, the
   * commit refuses if the path holds anything else now, so an edit never lands on text
   * it was not planned on. `undefined`: replace whatever is there (write).
   */
  readonly expected?: Uint8Array | null;
  /**
   * A move within this mount: the mount-relative path these bytes come from, deleted
   * by another change of the same commit. A store-backed mount's history follows the
   * path: `history(path)` lists `movedFrom`'s versions before the move's own.
   */
  readonly movedFrom?: string;
}

/** Where a version of a file came from, as `history` shows it. */
export type VersionSource =
  /** The agent's `write`. */
  | 'write'
  /** The agent's `edit` or `edit_many`. */
  | 'edit'
  /** The agent's `delete`. */
  | 'delete'
  /** The agent's `move` (on both paths: the deletion of `from`, the creation of `to`). */
  | 'move'
  /** The agent's `restore` of an earlier version. */
  | 'restore'
  /** A person's choice on the host's review page: hunks taken out of the draft, or set aside while others were written to disk. */
  | 'review'
  /** The agent's `discard`: the workspace reads disk's copy again. */
  | 'discard'
  /** Disk's change taken in (a read's check, a pass, `sync`, the watcher). */
  | 'disk'
  /** A draft written to disk by `materialize` (or `autoMaterialize`). */
  | 'materialize'
  /** The workspace's copy changed with a branch switch. */
  | 'branch-switch';

/** Why a commit is made: the history source its versions are recorded under. */
export interface CommitIntent {
  readonly source: 'write' | 'edit' | 'delete' | 'move' | 'restore';
}

/** One version of a file the store holds. */
export interface Version {
  /** Stable for the life of the store; what `read { version }` and `restore` take. Never `"disk"` or `"agreed"`. */
  readonly id: string;
  /** When it was recorded: an ISO 8601 time in UTC. */
  readonly at: string;
  readonly source: VersionSource;
  /** Its bytes; `null` when the version is an absence (a deletion). */
  readonly size: number | null;
}

/** Which version `readVersion` reads: disk's file as it is, the last agreed version, or an id from `history`. */
export type VersionName = 'disk' | 'agreed' | (string & {});

/** A path whose workspace copy differs from disk's on a store-backed mount. */
export interface Draft {
  /** Mount-relative path. */
  readonly path: string;
  /** `draft`: new or changed text; `deletion`: the workspace deleted it; `conflict`: disk changed it too since the last agreement. */
  readonly kind: 'draft' | 'deletion' | 'conflict';
}

/** A JSON-serializable report (sync, materialize, status, commit details). */
export type Report = { readonly [key: string]: unknown };

/**
 * How a caller follows and stops a mount's long work (a sync, a materialize, a walk): an
 * aborted `signal` stops it at the next safe point — what is durable stays, nothing is
 * half-applied — and `progress` is told how far it has come.
 */
export interface Work {
  readonly signal?: AbortSignal;
  readonly progress?: (progress: Progress) => void;
}

/** How {@link Mount.list} lists. */
export interface ListOptions {
  readonly recursive: boolean;
  readonly modified?: boolean;
  readonly filesOnly?: boolean;
}

/** A named root the tools can act on. */
export interface Mount {
  readonly name: string;
  readonly backend: 'store' | 'direct';
  readonly readOnly: boolean;
  /** The most bytes a file may have to be read, searched or stored as text. */
  readonly maxFileSize: number;
  /**
   * The mount's directory on disk, absolute, where it has one: an absolute path inside it
   * (as editor agents' tools take paths) is refused with the mount path it names.
   */
  readonly root?: string;

  /**
   * Mount-relative paths a mistyped `path` may have meant, found without walking the
   * mount (a store's records: the same name elsewhere, the same directory). Where a
   * mount lacks it, "did you mean" ranks every file a recursive listing finds.
   */
  candidates?(path: string): Promise<readonly string[]>;
  /** Reads one path; on a store-backed mount, checks disk first (`@ws/reconcile`'s read check). */
  read(path: string): Promise<ReadOutcome>;
  /**
   * Lists a directory (`''`: the root), or the whole tree beneath it when `recursive`;
   * `modified`: give each file its `modified` time where the mount knows it (glob's
   * newest-first order), which may cost a look at every file; `filesOnly`: only the files
   * are wanted, by path (glob's), so a listing may leave out its directories, sizes and
   * states, and may be made without a walk (then it says `uncounted`).
   */
  list(path: string, options: ListOptions, work?: Work): Promise<ListOutcome>;
  /**
   * Every file at or beneath `path` (a file or a directory; `''`: the whole mount) that
   * grep should look at, in path order: the workspace copy on a store-backed mount
   * (plus a conflict's disk version), disk as it is on a direct mount.
   */
  searchFiles(path: string, query?: SearchQuery): AsyncIterable<SearchFile>;
  /**
   * Stores every change or none (a read-only mount refuses). On a store-backed mount
   * the changes are drafts, pushed at once where the mount has `autoMaterialize`.
   * `intent` (where given) is the history source each new version is recorded under;
   * without it a version with bytes is `write`, a deletion `delete`.
   */
  commit(changes: readonly Change[], intent?: CommitIntent): Promise<{ readonly ok: true; readonly report: Report } | Refusal>;
  /**
   * Takes disk's changes in for `path` (or the whole mount): the `sync` tool. What it
   * must do (the README's "sync keeps drafts"): where disk changed and the workspace
   * had not, take disk's copy in; where the workspace has a draft or a deletion and
   * disk has not changed since the last agreement, keep the draft and list the path in
   * the report's `drafts` with the sentence `keptDraftsNote` (it names `discard`);
   * only a conflict gives the draft up for disk's copy (listed in `gaveUp`, the draft
   * kept in history as its own version), and a conflict's ways out name `discard`
   * (keep disk's copy) beside a forced `materialize` (keep the workspace's).
   */
  sync(path: string | undefined, work?: Work): Promise<{ readonly ok: true; readonly report: Report } | Refusal>;
  /**
   * Pushes drafts to disk (`@ws/reconcile`'s push): the `materialize` tool. Cancelled,
   * it stops between two files: each is written whole or not at all, and the report says
   * which were written and that the rest are still drafts.
   */
  materialize(options: { path?: string; force: boolean }, work?: Work): Promise<{ readonly ok: true; readonly report: Report } | Refusal>;
  /** The `status` tool's report for this mount: backend, root, read-only, branch, drafts, conflicts… */
  status(): Promise<Report>;

  // ── Drafts: what a store-backed mount offers for diff, history, discard and restore ──
  // Optional, so a mount built before them still compiles; where a store-backed mount
  // lacks one, the tool that needs it answers `notOnThisMount` (errors.ts). A direct
  // mount needs none of them: the tools answer for it (nothing to compare, no versions).

  /**
   * Every path at or beneath `path` (a file or a directory; `''`: the whole mount)
   * whose workspace copy differs from disk's, in path order: the paths `diff` shows.
   * It may run the same disk check a read does first; it changes no draft.
   */
  drafts?(path: string): Promise<{ readonly ok: true; readonly drafts: readonly Draft[] } | Refusal>;
  /**
   * One version of a file, read-only — no disk check, nothing taken in or changed:
   * `'disk'` is disk's file as it is now (`missing` where disk has none); `'agreed'` is
   * the last version disk and the workspace agreed on (`missing` where they agreed the
   * file was absent; an `answer` where the store records no agreement for the path);
   * any other name is an id from `history` (`missing` for a deletion; an `answer` naming
   * `history` where the path has no such version). `notes` are for the page, usually none.
   */
  readVersion?(path: string, version: VersionName): Promise<ReadOutcome>;
  /**
   * The versions the store holds for a file, newest first: each change to the
   * workspace's copy one version, and each materialize of it one more, its bytes the
   * ones written to disk (see `VersionSource`), following the path across a
   * `move` within the mount (`Change.movedFrom`). An empty list where the store holds
   * none; a `Refusal` only for a path that cannot have any (a directory).
   */
  history?(path: string): Promise<{ readonly ok: true; readonly versions: readonly Version[] } | Refusal>;
  /**
   * Drops the workspace's draft or deletion at `path` (a file, or every one beneath a
   * directory; `''`: the whole mount), so the workspace reads disk's copy again; a
   * conflict is settled for disk's copy. The dropped text stays in history (it is
   * already a version) and the workspace's new copy is recorded as a `discard` version.
   * Disk is not touched. `discarded`: the mount-relative paths it dropped, in path order
   * (empty where there was nothing to drop). A read-only mount refuses.
   */
  discard?(path: string): Promise<{ readonly ok: true; readonly discarded: readonly string[]; readonly report: Report } | Refusal>;
}

/** How grep runs its searches in this workspace. */
export interface GrepSettings {
  /** Where scans run (a host passes a Worker it can end); default: in the caller's thread. */
  readonly runner?: MatchRunner;
  /** How long one grep may search before it answers what it found (the host's `grepTimeoutMs`; default 10,000). */
  readonly timeoutMs?: number;
  /** How a file over `maxFileSize` is read, a stretch at a time (`@ws/grep`'s `STRETCH_SIZES` by default; tests make them small). */
  readonly stretch?: StretchSizes;
}

/** The mounts a tool call can reach. */
export interface Workspace {
  /** Every mount, in configuration order. */
  readonly mounts: readonly Mount[];
  /** True when any mount is direct: grep's CR note then mentions disk's file (the README's "grep's CR and BOM notes"). */
  readonly hasDirectMount: boolean;
  /** How grep runs; absent: in this thread, with the default deadline. */
  readonly grep?: GrepSettings;
}
