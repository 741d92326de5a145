/**
 * A store-backed mount: the workspace copy of each text file lives in the store; agent
 * writes are drafts until materialized; every read, listing, search and edit first runs
 * a pass so disk's changes are taken in by the three-way rule (`@ws/reconcile`). This
 * file only wires the verbs (one file each, beside it) to the lock. The one rule:
 * everything that reads the store and then writes it runs under the store lock, so no
 * other operation (in this process or another) decides on the same records meanwhile.
 */
import { type DiskPort, type Hasher, type PassResult, type Reconciler, createReconciler, looksBinary } from '@ws/reconcile';
import type { Mount, Refusal, Report, SearchFile } from '@ws/tools';
import type { MountConfig } from '../../config.ts';
import { diskPort } from '../../disk/disk-port.ts';
import { walkRules } from '../../disk/rules.ts';
import { largeFile, largeSearchFile } from '../large-file.ts';
import type { NoLineMemo } from '../../grep/no-line-memo.ts';
import type { Prescanner } from '../../grep/prescan.ts';
import type { Lock } from '../../store/lock.ts';
import type { Store } from '../../store/store.ts';
import { WALK_CAP } from '../direct.ts';
import { mountWords } from '../words.ts';
import { commitChanges, refuseBeforeLock } from './commit.ts';
import { discardAt } from './discard.ts';
import { draftsAt } from './drafts.ts';
import { historyOf } from './history.ts';
import { readVersionOf } from './read-version.ts';
import type { Containment, MountWatch, Purpose, StoreMountContext } from './context.ts';
import { listPath } from './list.ts';
import { materializePath } from './materialize.ts';
import { readPath } from './read.ts';
import { type ReviewVerbs, reviewVerbs, withReviewNotes } from './review.ts';
import { indexLookup, type PlanAfter, searchBytes, searchPlan } from './search.ts';
import { mountStatus } from './status.ts';
import { guarded } from './failures.ts';
import { acceptRoot, syncPath } from './sync.ts';
import { closeTo } from './suggest.ts';
import { collector } from '../../collector.ts';

/** What a store-backed mount shares with the host. */
export interface StoreMountDeps {
  readonly store: Store;
  readonly lock: Lock;
  readonly hash: Hasher;
  /** The store's path inside this mount's root, if it lies there (walks pass over it). */
  readonly storeRel: string | undefined;
  /** Wraps the disk port (tests use it to act between observations). */
  readonly wrapDisk?: (disk: DiskPort) => DiskPort;
  /** grep's Workers, which search ahead of a search (`grep/prescan.ts`). */
  readonly prescanner?: Prescanner;
  /** The blobs searches found no line in, by search: a long-running host's, shared by its store's mounts (`grep/no-line-memo.ts`). */
  readonly noLines?: NoLineMemo;
  /** The host serves one command: the store's scans are let go after each pass (`Store.forgetScans`). */
  readonly oneShot?: boolean;
}

/** A store-backed mount, with what the host needs beside the tools' interface. */
export interface StoreMount extends Mount {
  readonly backend: 'store';
  readonly config: MountConfig;
  /**
   * A whole-mount sync that accepts a root directory other than the one last agreed
   * under (a person moved or re-created it on purpose: `ws sync --accept-new-root`).
   * A tool's sync never does: a replaced root must not read as every file deleted.
   */
  acceptRoot(): Promise<{ readonly ok: true; readonly report: Report } | Refusal>;
  /** Named passes over paths a watcher saw change. */
  passPaths(paths: readonly string[]): Promise<PassResult>;
  /** A pass over a directory a watcher saw appear or go (its files may not have been named). */
  passDirectory(path: string): Promise<PassResult>;
  /** The mount's watcher starts: searches may then skip their pass (the host README, "A watched mount's grep"). */
  watchedBy(watch: MountWatch): void;
  /** Resolves effects a stopped process left pending (run once at start). */
  recover(): Promise<PassResult>;
  /**
   * Paths the workspace holds that a mistyped `path` may have meant, from the store's own
   * records (same name elsewhere, or beside it) — never a pass over the mount.
   */
  candidates(path: string): Promise<string[]>;
  /** The review page's verbs (`review.ts`), each under the lock. */
  readonly review: ReviewVerbs;
}

/** The context of one mount: its disk (wrapped where a test asks), its reconciler and its words. */
function contextOf(config: MountConfig, deps: StoreMountDeps): StoreMountContext {
  const { store, lock, hash } = deps;
  const realDisk = diskPort({
    root: config.root,
    rules: walkRules(config.ignore, deps.storeRel, config.gitignore ? config.root : undefined),
    followSymlinks: config.followSymlinks,
    walkCap: WALK_CAP,
    ...(deps.storeRel === undefined ? {} : { storeRel: deps.storeRel }),
    protect: config.protect,
    mount: config.name,
  });
  const disk = deps.wrapDisk ? deps.wrapDisk(realDisk) : realDisk;
  const reconciler: Reconciler = createReconciler({
    store,
    disk,
    hash,
    mount: config.name,
    readOnly: config.readOnly,
    maxFileSize: config.maxFileSize,
    isBinary: looksBinary,
    reclaim: collector(),
  });
  const contain = (path: string, purpose: Purpose): Containment => realDisk.contain(path, purpose);
  const ctx: StoreMountContext = {
    config,
    disk,
    store,
    lock,
    reconciler,
    words: mountWords(config.name),
    checksDisk: config.watch !== 'never',
    oneShot: deps.oneShot === true,
    walkingAlone: (fn) => realDisk.oneThread(fn),
    contain,
    async isDirectory(path) {
      return realDisk.kindOf(path).kind === 'directory';
    },
    // Through the mount's disk as wrapped (where a test acts between observations); a port
    // that does not take the option walks deeper, and the listing keeps the one level.
    walkLevel: (dir) => (disk.walk as typeof realDisk.walk)(dir, { shallow: true }),
    walkNames: async (dir) => realDisk.walkNames?.(dir),
    readLarge: (path) => largeFile(realDisk, ctx.words, path),
    searchLarge: (path) => largeSearchFile(realDisk, ctx.words, path),
    passedOver: (dir) => realDisk.passedOver(dir),
    async pass(scope, options = {}) {
      const result = await reconciler.pass({ scope, ...options });
      // A one-shot command's pass is its last: the scan it kept for its second look goes.
      if (ctx.oneShot) store.forgetScans();
      if (result.kind === 'done' && scope.kind === 'directory' && scope.path === '') {
        ctx.memory.lastPassedOver = { ...result.passedOver };
        if (ctx.memory.watch !== undefined) ctx.memory.passedSinceWatch = true;
      }
      return result;
    },
    ...(deps.prescanner ? { prescanner: deps.prescanner } : {}),
    ...(deps.noLines ? { noLines: deps.noLines } : {}),
    ...(deps.wrapDisk === undefined ? { quietDisk: realDisk } : {}),
    memory: { acceptingNewRoot: false, lastPassedOver: {}, watch: undefined, passedSinceWatch: false },
  };
  return ctx;
}

/**
 * True where the mount's watcher has passed over everything it heard change, since a
 * whole-mount pass after it started: the store then holds what disk does. Asked before
 * the lock is taken (the watcher's passes take it).
 */
async function settledNow(ctx: StoreMountContext): Promise<boolean> {
  return ctx.memory.watch !== undefined && ctx.memory.passedSinceWatch && (await ctx.memory.watch.settle());
}

/** A store-backed mount over `config.root`, keeping its copy in `deps.store`. */
export function storeMount(config: MountConfig, deps: StoreMountDeps): StoreMount {
  const ctx = contextOf(config, deps);
  const { lock } = ctx;
  const refuse = (message: string): Refusal => ({ ok: false, message });
  const contained = (path: string | undefined, purpose: 'read' | 'change'): Refusal | null => {
    if (path === undefined) return null;
    const where = ctx.contain(path, purpose);
    return where.ok ? null : refuse(where.message);
  };
  return {
    name: config.name,
    backend: 'store',
    readOnly: config.readOnly,
    maxFileSize: config.maxFileSize,
    root: config.root,
    config,

    async read(path) {
      const where = ctx.contain(path, 'read');
      if (!where.ok) return { kind: 'answer', message: where.message };
      const reading = () => lock.run(async () => withReviewNotes.read(ctx, path, await readPath(ctx, path)));
      return guarded(ctx, { verb: 'Reading', path }, reading, (message) => ({ kind: 'answer', message }));
    },
    async list(path, options, work) {
      const refused = contained(path, 'read');
      if (refused !== null) return refused;
      // A recursive listing of a watched mount may come from the store's records (`list.ts`), as a search's plan may.
      const settled = options.recursive && options.modified !== true && (await settledNow(ctx));
      return guarded(ctx, { verb: 'Listing', path }, () => lock.run(() => listPath(ctx, path, { ...options, settled }, work)), refuse);
    },
    async *searchFiles(path, query): AsyncIterable<SearchFile> {
      if (contained(path, 'read') !== null) return;
      const passedOver = (await ctx.isDirectory(path)) ? ctx.passedOver(path) : undefined;
      if (passedOver !== undefined) {
        // Named, but passed over by the walk: said, not silently empty.
        yield { path, skipped: ctx.words.namedPassedOver(passedOver) };
        return;
      }
      const settled = await settledNow(ctx);
      const after: PlanAfter = {};
      Object.assign(after, await indexLookup(ctx, query));
      const plan = await guarded(ctx, { verb: 'Searching', path }, () => lock.run(() => searchPlan(ctx, path, settled, after)), (message) => [{ path, source: 'skip' as const, reason: message }]);
      yield* searchBytes(ctx, plan, query, after);
      // Every file planned was read: a pass that changed nothing keeps its record now.
      after.keep?.();
    },
    async commit(changes, intent) {
      const committing = async () => withReviewNotes.commit(ctx, changes, await commitChanges(ctx, changes, intent));
      return refuseBeforeLock(ctx, changes) ?? guarded(ctx, { verb: 'Storing the change to', path: changes[0]?.path }, () => lock.run(committing), refuse);
    },
    async sync(path, work) {
      // sync changes only the store (disk is read), so a protected path may be synced; ws's own files never are.
      return contained(path, 'read') ?? guarded(ctx, { verb: 'Syncing', path }, () => lock.run(() => syncPath(ctx, path, work)), refuse);
    },
    async materialize({ path, force }, work) {
      return contained(path, 'change') ?? guarded(ctx, { verb: 'Materializing', path }, () => lock.run(() => materializePath(ctx, path, force, work)), refuse);
    },
    async drafts(path) {
      return contained(path, 'read') ?? guarded(ctx, { verb: 'Comparing', path }, () => lock.run(() => draftsAt(ctx, path)), refuse);
    },
    async readVersion(path, version) {
      const where = ctx.contain(path, 'read');
      if (!where.ok) return { kind: 'answer', message: where.message };
      return guarded(ctx, { verb: 'Reading', path }, () => readVersionOf(ctx, path, version), (message) => ({ kind: 'answer', message }));
    },
    async history(path) {
      return contained(path, 'read') ?? guarded(ctx, { verb: 'Listing the versions of', path }, () => lock.run(() => historyOf(ctx, path)), refuse);
    },
    async discard(path) {
      // discard changes only the store (disk is read), so a protected path's draft may be dropped, as sync may take it in.
      return contained(path, 'read') ?? guarded(ctx, { verb: 'Discarding', path }, () => lock.run(() => discardAt(ctx, path)), refuse);
    },
    async status() {
      return guarded(ctx, { verb: 'Status of' }, () => lock.run(async () => withReviewNotes.status(ctx, await mountStatus(ctx))), (message) => ({ mount: config.name, backend: 'store', root: config.root, failed: message }));
    },
    acceptRoot: () => guarded(ctx, { verb: 'Syncing' }, () => lock.run(() => acceptRoot(ctx)), refuse),
    passPaths: (paths) => lock.run(() => ctx.pass({ kind: 'paths', paths: [...paths] })),
    passDirectory: (path) => lock.run(() => ctx.pass({ kind: 'directory', path })),
    recover: () => lock.run(() => ctx.reconciler.recover()),
    review: reviewVerbs(ctx),
    watchedBy(watch) {
      ctx.memory.watch = watch;
      ctx.memory.passedSinceWatch = false;
    },
    candidates: (path) => guarded(ctx, { verb: 'Suggesting paths for', path }, () => closeTo(ctx, path), () => []),
  };
}
