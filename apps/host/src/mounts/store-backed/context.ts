/**
 * What every verb of a store-backed mount shares: the mount's config, its disk, the
 * store, the lock, the reconciler and the mount's words, and the two questions about disk
 * the verbs ask beside the reconciler. The one rule: a verb reaches the file system only
 * through `disk`, `contain` and `isDirectory`, and the store only through `store`; so
 * the disk layer or the store engine can change underneath without touching a verb.
 */
import type { DiskPort, PassResult, Reconciler, Work as ReconcileWork, Scope, TakeDisk, Walk } from '@ws/reconcile';
import type { ReadOutcome, SearchFile, Work } from '@ws/tools';
import type { MountConfig } from '../../config.ts';
import type { NameWalk } from '../../disk/disk-port.ts';
import type { NoLineMemo } from '../../grep/no-line-memo.ts';
import type { Prescanner } from '../../grep/prescan.ts';
import type { Lock } from '../../store/lock.ts';
import type { Store } from '../../store/store.ts';
import type { mountWords } from '../words.ts';
import type { QuietDisk } from './quiet.ts';

/** Why a path is contained: to be read, or to be changed (the disk layer refuses protected paths for the latter). */
export type Purpose = 'read' | 'change';

/** Where a mount-relative path lands, or the sentence refusing it. */
export type Containment = { readonly ok: true; readonly abs: string } | { readonly ok: false; readonly message: string };

/** What a pass may be asked beside its scope, and how its caller follows and stops it. */
export interface PassOptions extends ReconcileWork {
  readonly takeDisk?: TakeDisk;
  readonly acceptNewRoot?: boolean;
  /** Unchanged paths by count only (`@ws/reconcile`'s `PassRequest.unchangedByCount`). */
  readonly unchangedByCount?: boolean;
  /** With `unchangedByCount`, their records too (`PassRequest.listUnchanged`). */
  readonly listUnchanged?: boolean;
}

/** A tool call's work (signal, progress) as `@ws/reconcile` takes it. */
export function reconcileWork(work: Work | undefined): ReconcileWork {
  if (work === undefined) return {};
  const progress = work.progress;
  return {
    ...(work.signal ? { signal: work.signal } : {}),
    ...(progress ? { progress: (done: number, total?: number) => progress(total === undefined ? { done } : { done, total }) } : {}),
  };
}

/** What a mount asks of its watcher. */
export interface MountWatch {
  /**
   * Passes over whatever the watcher has seen change and not yet passed over; true when
   * that is everything it saw and it still watches (false: a search must pass itself).
   */
  settle(): Promise<boolean>;
}

/** One store-backed mount's context, built once by `mount.ts`. */
export interface StoreMountContext {
  readonly config: MountConfig;
  readonly disk: DiskPort;
  readonly store: Store;
  readonly lock: Lock;
  readonly reconciler: Reconciler;
  readonly words: ReturnType<typeof mountWords>;
  /** False for `watch = "never"`: nothing looks at disk until `sync`. */
  readonly checksDisk: boolean;
  /** The host serves one command (the CLI's): what a pass kept is let go once it is done with. */
  readonly oneShot: boolean;
  /** Runs `fn` with its whole walks on this thread, none in Workers (`HostDisk.oneThread`). */
  walkingAlone<T>(fn: () => Promise<T>): Promise<T>;
  /** Keeps `path` inside the mount; every verb's containment goes through here. */
  contain(path: string, purpose: Purpose): Containment;
  /** True when a directory is at `path` on disk now (a contained path). */
  isDirectory(path: string): Promise<boolean>;
  /** A walk of the directory `dir`'s own entries on disk, none beneath where the disk can (a listing that is not recursive). */
  walkLevel(dir: string): Promise<Walk>;
  /** A walk of everything beneath `dir` by names (no stat a file), where the disk has one: a listing from the store's records takes its directories and counts from it. */
  walkNames(dir: string): Promise<NameWalk | undefined>;
  /** Disk's file at `path`, over `maxFileSize`, as pages straight from disk (the store never holds it). */
  readLarge(path: string): Promise<ReadOutcome>;
  /** Why a walk passes over the directory `dir` (its rule, or an ancestor's), or undefined. */
  passedOver(dir: string): string | undefined;
  /** The same file as grep searches it, a stretch at a time straight from disk (nothing where it went). */
  searchLarge(path: string): Promise<SearchFile | undefined>;
  /** The mount's own disk, for a quiet sync (`quiet.ts`); absent where the disk is wrapped (tests acting between observations). */
  readonly quietDisk?: QuietDisk;
  /** grep's Workers, which search ahead of a search (`grep/prescan.ts`), where the host has them. */
  readonly prescanner?: Prescanner;
  /** The blobs a long-running host's searches found no line in, by search (`grep/no-line-memo.ts`); none in a one-shot command. */
  readonly noLines?: NoLineMemo;
  /** Runs a pass, remembering what a whole-mount pass passed over (for status from the store). */
  pass(scope: Scope, options?: PassOptions): Promise<PassResult>;
  /** What the mount remembers between calls. */
  readonly memory: {
    /** Set only while `acceptRoot` runs: a person saying the new root directory is the mount. */
    acceptingNewRoot: boolean;
    /** What the last whole-mount pass passed over, by reason. */
    lastPassedOver: Record<string, number>;
    /** The mount's watcher (`watch = "always"`), once it runs. */
    watch: MountWatch | undefined;
    /** A whole-mount pass has been done since the watcher started: with the watcher's passes, the store holds what disk does. */
    passedSinceWatch: boolean;
  };
}

/** Code-unit order: the order the store and the walk agree on. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The directory holding `path` (`''`: the root). */
export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** True when `path` is `dir` or beneath it (`''`: every path). */
export function inDirectory(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/** Is `path` a directory, on disk or in the workspace tree of `branch`? */
export async function isDirectoryPath(ctx: StoreMountContext, path: string, branch: string): Promise<boolean> {
  if (path === '') return true;
  return (await ctx.isDirectory(path)) || ctx.store.holdsBeneath(branch, ctx.config.name, path);
}

/** The scope a verb acts on: the directory at `path`, or the one path. */
export async function scopeOf(ctx: StoreMountContext, path: string | undefined, branch: string): Promise<Scope> {
  if (path === undefined || path === '') return { kind: 'directory', path: '' };
  return (await isDirectoryPath(ctx, path, branch)) ? { kind: 'directory', path } : { kind: 'paths', paths: [path] };
}
