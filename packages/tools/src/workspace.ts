/**
 * The seam between the tools and whatever holds the files. `@ws/tools` talks only to
 * this interface; `apps/host` implements it with Bun.file (direct mounts) and
 * bun:sqlite + `@ws/reconcile` (store-backed mounts); tests implement it in memory.
 * The one rule: every path crossing this seam is mount-relative (`src/a.ts`, `''` for
 * the root), `/`-separated, already checked by the tools to stay inside its mount
 * (no `..`, no leading `/`); the mount checks again at the point of effect (symlinks).
 * Nothing here throws for an expected problem: an outcome carries a sentence instead.
 */
import type { MatchRunner } from '@ws/grep';

/** A refusal or problem, as a full sentence a model can act on. */
export interface Refusal {
  readonly ok: false;
  readonly message: string;
}

/** What reading one path found. */
export type ReadOutcome =
  /** Text (or what will be shown as text): the bytes, and the disk check's notes (the store-backed read, `@ws/reconcile`'s README). */
  | { readonly kind: 'file'; readonly bytes: Uint8Array; readonly notes: readonly string[] }
  /** A binary file (read shows text only). */
  | { readonly kind: 'binary'; readonly size: number }
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
    }
  | Refusal;

/** A file offered to grep: its bytes, or why it was not read. */
export type SearchFile =
  | {
      readonly path: string;
      readonly bytes: Uint8Array;
      /** `'conflicting-disk'` for a conflict's disk version, searched beside the workspace copy. */
      readonly version?: 'conflicting-disk';
    }
  | {
      readonly path: string;
      readonly skipped: string;
      /** Set where it was not read for being over the mount's `maxFileSize` (grep counts those under one reason). */
      readonly tooLarge?: boolean;
    };

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
}

/** A JSON-serializable report (sync, materialize, status, commit details). */
export type Report = { readonly [key: string]: unknown };

/** A named root the tools can act on. */
export interface Mount {
  readonly name: string;
  readonly backend: 'store' | 'direct';
  readonly readOnly: boolean;
  /** The most bytes a file may have to be read, searched or stored as text. */
  readonly maxFileSize: number;

  /** Reads one path; on a store-backed mount, checks disk first (`@ws/reconcile`'s read check). */
  read(path: string): Promise<ReadOutcome>;
  /** Lists a directory (`''`: the root), or the whole tree beneath it when `recursive`. */
  list(path: string, options: { recursive: boolean }): Promise<ListOutcome>;
  /**
   * Every file at or beneath `path` (a file or a directory; `''`: the whole mount) that
   * grep should look at, in path order: the workspace copy on a store-backed mount
   * (plus a conflict's disk version), disk as it is on a direct mount.
   */
  searchFiles(path: string): AsyncIterable<SearchFile>;
  /**
   * Stores every change or none (a read-only mount refuses). On a store-backed mount
   * the changes are drafts, pushed at once where the mount has `autoMaterialize`.
   */
  commit(changes: readonly Change[]): Promise<{ readonly ok: true; readonly report: Report } | Refusal>;
  /** Takes disk's changes in for `path` (or the whole mount): the `sync` tool. */
  sync(path: string | undefined): Promise<{ readonly ok: true; readonly report: Report } | Refusal>;
  /** Pushes drafts to disk (`@ws/reconcile`'s push): the `materialize` tool. */
  materialize(options: { path?: string; force: boolean }): Promise<{ readonly ok: true; readonly report: Report } | Refusal>;
  /** The `status` tool's report for this mount: backend, root, read-only, branch, drafts, conflicts… */
  status(): Promise<Report>;
}

/** How grep runs its searches in this workspace. */
export interface GrepSettings {
  /** Where scans run (a host passes a Worker it can end); default: in the caller's thread. */
  readonly runner?: MatchRunner;
  /** How long one grep may search before it answers what it found (the host's `grepTimeoutMs`; default 10,000). */
  readonly timeoutMs?: number;
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
