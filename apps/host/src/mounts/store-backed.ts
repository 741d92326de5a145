/**
 * A store-backed mount: the workspace copy of each text file lives in the store; agent
 * writes are drafts until materialized; every read, listing, search and edit first runs
 * a pass so disk's changes are taken in by the three-way rule (`@ws/reconcile`). The one
 * rule: everything that reads the store and then writes it runs under the store lock, so
 * no other operation (in this process or another) decides on the same records meanwhile.
 */
import { statSync } from 'node:fs';
import {
  type DiskPort,
  type Hasher,
  type PassDone,
  type PassResult,
  type PathReport,
  type PushDone,
  type Reconciler,
  type Scope,
  type StoredPath,
  createReconciler,
  looksBinary,
  readFinding,
  unverifiedReason,
} from '@ws/reconcile';
import type { Change, Entry, ListOutcome, Mount, ReadOutcome, Refusal, Report, SearchFile } from '@ws/tools';
import type { MountConfig } from '../config.ts';
import { containPath } from '../disk/contain.ts';
import { diskPort } from '../disk/disk-port.ts';
import { walkRules } from '../disk/rules.ts';
import type { StoreLock } from '../store/lock.ts';
import type { SqliteStore } from '../store/sqlite-store.ts';
import { WALK_CAP } from './direct.ts';
import { mountWords } from './words.ts';

/** What a store-backed mount shares with the host. */
export interface StoreMountDeps {
  readonly store: SqliteStore;
  readonly lock: StoreLock;
  readonly hash: Hasher;
  /** The store's path inside this mount's root, if it lies there (walks pass over it). */
  readonly storeRel: string | undefined;
  /** Wraps the disk port (tests use it to act between observations). */
  readonly wrapDisk?: (disk: DiskPort) => DiskPort;
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
  /** Resolves effects a stopped process left pending (run once at start). */
  recover(): Promise<PassResult>;
}

/** States that mean the workspace view has a file at the path. */
const LISTED = new Set(['synced', 'workspace-draft', 'conflict', 'disk-only', 'not-in-branch', 'unverified', 'disk-missing-provenance-unknown']);

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

function inDirectory(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/** Sizes on disk or in the workspace, whichever the view shows. */
function sizeOf(r: PathReport): number | undefined {
  if (r.workspace) return r.workspace.size;
  return r.disk.kind === 'text' || r.disk.kind === 'opaque' ? r.disk.size : undefined;
}

/** A pass result, summarized for sync and status reports. */
function passSummary(result: PassDone) {
  const tookIn = result.paths
    .filter((r) => r.taken !== null && r.taken.kind !== 'mode')
    .map((r) => ({ path: r.path, took: r.taken!.kind === 'text' ? (r.taken as { new: boolean }).new ? 'new file' : 'change' : r.taken!.kind }));
  const conflicts = result.paths
    .filter((r) => r.conflict !== null)
    .map((r) => ({
      path: r.path,
      kind: r.conflict!.kind,
      description: r.conflict!.description,
      diskNow: r.conflict!.diskNow,
      diskChangedSince: r.conflict!.diskChangedSince,
      diskSide: r.conflict!.diskSide.kind,
      waysOut: r.conflict!.waysOut.map((w) => w.sentence),
    }));
  const unverified = result.paths.filter((r) => r.state === 'unverified').map((r) => ({ path: r.path, reason: r.reason }));
  return { tookIn, conflicts, unverified };
}

/** A store-backed mount over `config.root`, keeping its copy in `deps.store`. */
export function storeMount(config: MountConfig, deps: StoreMountDeps): StoreMount {
  const { store, lock, hash } = deps;
  const words = mountWords(config.name);
  const rules = walkRules(config.ignore, deps.storeRel, config.gitignore ? config.root : undefined);
  const realDisk = diskPort({ root: config.root, rules, followSymlinks: config.followSymlinks, walkCap: WALK_CAP });
  const disk = deps.wrapDisk ? deps.wrapDisk(realDisk) : realDisk;
  const reconciler: Reconciler = createReconciler({
    store,
    disk,
    hash,
    mount: config.name,
    readOnly: config.readOnly,
    maxFileSize: config.maxFileSize,
    isBinary: looksBinary,
  });
  const checksDisk = config.watch !== 'never';
  /** Set only by `acceptRoot`: a person saying the new root directory is the mount. */
  let acceptingNewRoot = false;
  let lastPassedOver: Record<string, number> = {};

  /** A root problem for a report, with the way out where the root was replaced. */
  function rootAdvice(problem: string | null) {
    if (problem === null) return {};
    return problem === unverifiedReason.rootReplaced
      ? { rootProblem: problem, wayOut: words.acceptNewRoot() }
      : { rootProblem: problem };
  }

  function refuse(message: string): Refusal {
    return { ok: false, message };
  }

  /** Is `path` a directory, on disk or in the workspace tree? */
  function isDirectory(path: string, branch: string): boolean {
    if (path === '') return true;
    try {
      if (statSync(`${config.root}/${path}`).isDirectory()) return true;
    } catch {
      // not on disk: the workspace may still hold files beneath it
    }
    return store.treeFiles(branch, config.name, path).some((f) => f.path !== path);
  }

  function workspaceBytes(branch: string, path: string): Uint8Array | null {
    const tree = store.read(branch, config.name, path).tree;
    return tree === null ? null : store.getBlob(tree.hash);
  }

  async function pass(scope: Scope, options: { takeDisk?: boolean; acceptNewRoot?: boolean } = {}): Promise<PassResult> {
    const result = await reconciler.pass({ scope, ...options });
    if (result.kind === 'done' && scope.kind === 'directory' && scope.path === '') lastPassedOver = { ...result.passedOver };
    return result;
  }

  /** The workspace view of a scope without looking at disk (`watch = "never"`, or a pass that gave up). */
  function storedView(branch: string, dir: string): { path: string; size: number; state: string }[] {
    const out: { path: string; size: number; state: string }[] = [];
    for (const rec of store.scan(branch, config.name, dir)) {
      const state = storedState(rec);
      if (rec.tree !== null && state !== undefined) out.push({ path: rec.path, size: rec.tree.size, state });
    }
    return out.sort((a, b) => compare(a.path, b.path));
  }

  async function readLocked(path: string): Promise<ReadOutcome> {
    if (!checksDisk) {
      const branch = store.selectedBranch();
      const bytes = workspaceBytes(branch, path);
      if (bytes !== null) return { kind: 'file', bytes, notes: [] };
      return isDirectory(path, branch) ? { kind: 'directory' } : { kind: 'missing' };
    }
    const result = await pass({ kind: 'paths', paths: [path] });
    const report = result.kind === 'done' ? result.paths.find((p) => p.path === path) : undefined;
    const shownBranch = result.kind === 'done' ? result.branch : store.selectedBranch();
    const held = report ? report.workspace : store.read(shownBranch, config.name, path).tree;
    const finding = readFinding(result, path, held !== null);
    if (finding.kind === 'page' && held !== null) {
      const bytes = store.getBlob(held.hash);
      if (bytes !== null) return { kind: 'file', bytes, notes: finding.notes };
    }
    // Not a page: a directory the workspace holds no file at reads as a directory
    // (its named check found a directory where a file would be).
    if (held === null && isDirectory(path, shownBranch)) return { kind: 'directory' };
    // The workspace's own deletion reads as the file being gone, as it would on a direct
    // mount after a delete (status lists it as a pending deletion).
    if (finding.kind === 'answer' && finding.reason === 'workspace-deleted') return { kind: 'missing' };
    if (finding.kind === 'answer') {
      const dropped = report?.taken?.kind === 'not-stored' && report.taken.dropped;
      // A binary file the workspace never held reads as any binary file does; one that
      // disk just made binary says the workspace's copy was dropped.
      if (finding.reason === 'not-stored' && finding.why === 'binary' && !dropped) {
        return { kind: 'binary', size: report?.disk.kind === 'opaque' ? report.disk.size : 0 };
      }
      return { kind: 'answer', message: finding.message };
    }
    return { kind: 'missing' };
  }

  async function listLocked(path: string, recursive: boolean): Promise<ListOutcome> {
    const branch = store.selectedBranch();
    let files: { path: string; size?: number; state: string }[];
    let directories: string[] = [];
    let passedOver: Record<string, number> = {};
    let incomplete: string | undefined;
    const result = checksDisk ? await pass({ kind: 'directory', path }) : undefined;
    if (result?.kind === 'done') {
      files = result.paths
        .filter((r) => LISTED.has(r.state))
        .map((r) => ({ path: r.path, size: sizeOf(r), state: r.state }));
      directories = [...result.directories];
      passedOver = { ...result.passedOver };
      incomplete = result.rootProblem ?? result.incomplete ?? undefined;
    } else {
      files = storedView(branch, path);
      if (result?.kind === 'gave-up') incomplete = `disk could not be checked (${result.reason}); this lists the workspace's copy`;
    }
    const exact = files.find((f) => f.path === path);
    if (path !== '' && exact && files.length === 1) return refuse(words.notADirectory(path));
    if (path !== '' && files.length === 0 && directories.length === 0 && !isDirectory(path, branch)) {
      return refuse(words.missing(path));
    }

    const dirs = new Set<string>(directories.filter((d) => d !== path));
    for (const f of files) {
      for (let p = parentOf(f.path); p !== '' && p !== path && inDirectory(p, path); p = parentOf(p)) dirs.add(p);
    }
    const entries: Entry[] = [];
    const direct = (p: string) => parentOf(p) === path;
    for (const d of dirs) if (recursive || direct(d)) entries.push({ path: d, kind: 'directory' });
    for (const f of files) {
      if (!recursive && !direct(f.path)) continue;
      entries.push({ path: f.path, kind: 'file', ...(f.size === undefined ? {} : { size: f.size }), state: f.state });
    }
    entries.sort((a, b) => compare(a.path, b.path));
    return { ok: true, entries, passedOver, ...(incomplete ? { incomplete } : {}) };
  }

  /** The files grep looks at under `path`, decided under the lock; bytes are read afterwards. */
  async function searchPlan(path: string): Promise<{ path: string; source: 'workspace' | 'disk' | 'skip'; hash?: string; conflictHash?: string; reason?: string }[]> {
    const branch = store.selectedBranch();
    const directory = isDirectory(path, branch);
    if (!checksDisk) {
      return store.treeFiles(branch, config.name, path).map((f) => ({ path: f.path, source: 'workspace' as const, hash: f.entry.hash }));
    }
    const result = await pass(directory ? { kind: 'directory', path } : { kind: 'paths', paths: [path] });
    if (result.kind === 'gave-up') {
      return store.treeFiles(branch, config.name, path).map((f) => ({ path: f.path, source: 'workspace' as const, hash: f.entry.hash }));
    }
    const plan: { path: string; source: 'workspace' | 'disk' | 'skip'; hash?: string; conflictHash?: string; reason?: string }[] = [];
    for (const r of result.paths) {
      if (!LISTED.has(r.state)) continue;
      const side = r.conflict?.diskSide;
      const conflictHash = side?.kind === 'stored' && side.hash !== r.workspace?.hash ? side.hash : undefined;
      if (r.workspace) {
        plan.push({ path: r.path, source: 'workspace', hash: r.workspace.hash, ...(conflictHash ? { conflictHash } : {}) });
      } else if (r.state === 'disk-only' && r.disk.kind === 'opaque') {
        plan.push(
          r.disk.why === 'too-large'
            ? { path: r.path, source: 'skip', reason: words.overLimit(r.disk.size, config.maxFileSize) }
            : { path: r.path, source: 'disk' },
        );
      }
    }
    return plan;
  }

  function pushSummary(done: PushDone) {
    return {
      written: done.written,
      deleted: done.deleted,
      unchanged: done.unchanged.length,
      skipped: done.skipped.map((s) => ({ path: s.path, state: s.state, reason: s.reason })),
      ...passSummary(done.pass),
    };
  }

  return {
    name: config.name,
    backend: 'store',
    readOnly: config.readOnly,
    maxFileSize: config.maxFileSize,
    config,

    async read(path) {
      const where = containPath(config.root, path, config.followSymlinks);
      if (!where.ok) return { kind: 'answer', message: where.reason };
      return lock.run(() => readLocked(path));
    },

    async list(path, options) {
      const where = containPath(config.root, path, config.followSymlinks);
      if (!where.ok) return refuse(where.reason);
      return lock.run(() => listLocked(path, options.recursive));
    },

    async *searchFiles(path): AsyncIterable<SearchFile> {
      const where = containPath(config.root, path, config.followSymlinks);
      if (!where.ok) return;
      const plan = await lock.run(() => searchPlan(path));
      for (const item of plan) {
        if (item.source === 'skip') {
          yield { path: item.path, skipped: item.reason ?? '', tooLarge: true };
        } else if (item.source === 'disk') {
          const read = await disk.read(item.path, config.maxFileSize);
          if (read.kind === 'file' && read.bytes !== null) yield { path: item.path, bytes: read.bytes };
        } else {
          const bytes = item.hash ? store.getBlob(item.hash) : null;
          if (bytes !== null) yield { path: item.path, bytes };
          const other = item.conflictHash ? store.getBlob(item.conflictHash) : null;
          if (other !== null) yield { path: item.path, bytes: other, version: 'conflicting-disk' };
        }
      }
    },

    async commit(changes: readonly Change[]) {
      if (config.readOnly) return refuse(words.readOnly());
      for (const ch of changes) {
        const where = containPath(config.root, ch.path, config.followSymlinks);
        if (!where.ok) return refuse(where.reason);
        if (ch.bytes !== null && ch.bytes.length > config.maxFileSize) {
          return refuse(words.contentTooLarge(ch.path, ch.bytes.length, config.maxFileSize));
        }
      }
      return lock.run(async () => {
        const branch = store.selectedBranch();
        for (const ch of changes) {
          const held = workspaceBytes(branch, ch.path);
          if (ch.expected !== undefined) {
            const same = held === null || ch.expected === null ? held === ch.expected : Buffer.compare(held, ch.expected) === 0;
            if (!same) return refuse(words.changedSincePlanned(ch.path));
          }
          if (ch.bytes === null && held === null) {
            let rec = store.read(branch, config.name, ch.path);
            if (rec.mark?.tombstone) return refuse(words.missing(ch.path)); // already deleted here
            if (rec.evidence === null && rec.mark === null && checksDisk) {
              // A file the store has never seen: take it in first, so the deletion names
              // what it removes. (A known path is not passed over: that could take in a
              // disk change the deletion's push would then remove unseen.)
              await pass({ kind: 'paths', paths: [ch.path] });
              rec = store.read(branch, config.name, ch.path);
            }
            const diskHadIt = rec.evidence !== null && rec.evidence.kind !== 'absent';
            if (!diskHadIt && rec.tree === null) return refuse(words.missing(ch.path));
          }
        }
        reconciler.recordDrafts(changes.map((c) => ({ path: c.path, bytes: c.bytes })));
        // A plain commit answers as a direct mount's does (the receipt says what changed);
        // only a push made at once has more to say.
        const report: Record<string, unknown> = {};
        if (config.autoMaterialize) {
          const pushed = await reconciler.push({ scope: { kind: 'paths', paths: changes.map((c) => c.path) } });
          report.materialized = pushed.kind === 'done' ? pushSummary(pushed) : { gaveUp: pushed.reason };
        }
        return { ok: true as const, report };
      });
    },

    async sync(path) {
      if (path !== undefined) {
        const where = containPath(config.root, path, config.followSymlinks);
        if (!where.ok) return refuse(where.reason);
      }
      return lock.run(async () => {
        const branch = store.selectedBranch();
        const whole = path === undefined || path === '';
        const directory = whole || isDirectory(path, branch);
        const result = await pass(
          directory ? { kind: 'directory', path: path ?? '' } : { kind: 'paths', paths: [path] },
          whole ? { acceptNewRoot: acceptingNewRoot } : directory ? {} : { takeDisk: true },
        );
        if (result.kind === 'gave-up') return refuse(words.gaveUp(result.reason));
        const summary = passSummary(result);
        const gaveUp = result.paths
          .filter((r) => r.gaveUp !== null)
          .map((r) => ({ path: r.path, was: r.gaveUp!.state, ...(r.gaveUp!.conflict ? { conflict: r.gaveUp!.conflict } : {}) }));
        const report: Report = {
          mount: config.name,
          branch: result.branch,
          scope: directory ? (path ?? '') || '(whole mount)' : path,
          tookIn: summary.tookIn,
          gaveUp,
          conflicts: summary.conflicts,
          unverified: summary.unverified,
          counts: result.counts,
          passedOver: result.passedOver,
          ...rootAdvice(result.rootProblem),
          ...(result.incomplete ? { incomplete: result.incomplete } : {}),
        };
        return { ok: true as const, report };
      });
    },

    async materialize({ path, force }) {
      if (path !== undefined) {
        const where = containPath(config.root, path, config.followSymlinks);
        if (!where.ok) return refuse(where.reason);
      }
      return lock.run(async () => {
        const branch = store.selectedBranch();
        const scope: Scope =
          path === undefined || path === '' || isDirectory(path, branch)
            ? { kind: 'directory', path: path ?? '' }
            : { kind: 'paths', paths: [path] };
        const pushed = await reconciler.push({ scope, force });
        if (pushed.kind === 'gave-up') return refuse(words.gaveUp(pushed.reason));
        const report: Report = { mount: config.name, branch: pushed.pass.branch, ...(config.readOnly ? { readOnly: words.readOnly() } : {}), ...pushSummary(pushed) };
        return { ok: true as const, report };
      });
    },

    async status(): Promise<Report> {
      return lock.run(async () => {
        const branch = store.selectedBranch();
        const base = {
          mount: config.name,
          backend: 'store',
          root: config.root,
          readOnly: config.readOnly,
          branch,
          autoMaterialize: config.autoMaterialize,
          watch: config.watch,
        };
        const result = config.watch === 'on-tool-call' ? await pass({ kind: 'directory', path: '' }) : undefined;
        if (result?.kind === 'done') {
          const summary = passSummary(result);
          return {
            ...base,
            drafts: result.paths.filter((r) => r.state === 'workspace-draft').map((r) => r.path),
            conflicts: summary.conflicts,
            pendingDeletions: result.paths.filter((r) => r.deletedInWorkspace).map((r) => r.path),
            unverified: summary.unverified,
            counts: result.counts,
            passedOver: result.passedOver,
            ...rootAdvice(result.rootProblem),
            ...(result.incomplete ? { incomplete: result.incomplete } : {}),
          };
        }
        return { ...base, ...storedStatus(branch), passedOver: lastPassedOver, ...(result?.kind === 'gave-up' ? { gaveUp: result.reason } : {}) };
      });
    },

    async acceptRoot() {
      acceptingNewRoot = true;
      try {
        return await this.sync(undefined);
      } finally {
        acceptingNewRoot = false;
      }
    },
    passPaths: (paths) => lock.run(() => pass({ kind: 'paths', paths: [...paths] })),
    passDirectory: (path) => lock.run(() => pass({ kind: 'directory', path })),
    recover: () => lock.run(() => reconciler.recover()),
  };

  /** Status from the store alone (no disk check): drafts, conflicts, pending deletions. */
  function storedStatus(branch: string) {
    const drafts: string[] = [];
    const conflicts: { path: string; kind: string }[] = [];
    const pendingDeletions: string[] = [];
    for (const rec of store.scan(branch, config.name, '')) {
      const state = storedState(rec);
      if (state === 'conflict') conflicts.push({ path: rec.path, kind: rec.mark!.conflict!.kind });
      else if (state === 'workspace-deleted') pendingDeletions.push(rec.path);
      else if (state === 'workspace-draft') drafts.push(rec.path);
    }
    const order = (xs: string[]) => xs.sort(compare);
    return { drafts: order(drafts), conflicts: conflicts.sort((a, b) => compare(a.path, b.path)), pendingDeletions: order(pendingDeletions) };
  }
}

/**
 * A path's state from the store's records alone, without looking at disk (for
 * `watch = "never"`, or a pass that gave up): undefined where the workspace holds nothing.
 */
function storedState(rec: StoredPath): 'conflict' | 'workspace-deleted' | 'synced' | 'workspace-draft' | undefined {
  if (rec.mark?.conflict) return 'conflict';
  if (rec.tree === null) return rec.mark?.tombstone ? 'workspace-deleted' : undefined;
  return rec.evidence?.kind === 'text' && rec.evidence.hash === rec.tree.hash ? 'synced' : 'workspace-draft';
}
