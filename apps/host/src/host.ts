/**
 * The host: a configuration made real — the store opened, each mount built (direct or
 * store-backed), effects left pending by a stopped process resolved, and (where a mount
 * asks) a watcher started. The one rule: one store and one lock per host, shared by
 * every store-backed mount, so the records of all mounts move under one lock — and
 * nothing a lock holder left open in the store outlives its hold (each hold ends with a
 * barrier).
 */
import type { DiskPort, Hasher } from '@ws/reconcile';
import type { Mount, Workspace } from '@ws/tools';
import type { HostConfig } from './config.ts';
import { insideRel } from './disk/contain.ts';
import { NoLineMemo } from './grep/no-line-memo.ts';
import { grepWorkers } from './grep/runner.ts';
import { CallTracker } from './calls.ts';
import type { Indexer } from './index/indexer.ts';
import { directMount } from './mounts/direct.ts';
import type { StoreMount } from './mounts/store-backed/mount.ts';
import type { Lock } from './store/lock.ts';
import { openConfiguredStore } from './store/open-store.ts';
import type { BranchInfo, Store } from './store/store.ts';
import type { Watching } from './watch.ts';

/** SHA-256 of the bytes, hex: how the store names a blob. */
export const sha256: Hasher = (bytes) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');

/** What a branch command answers. */
export type BranchOutcome = { readonly ok: true; readonly branch: string; readonly note: string } | { readonly ok: false; readonly error: string };

/** A running host. */
export interface Host {
  readonly config: HostConfig;
  readonly workspace: Workspace;
  /** The store, when any mount is store-backed. */
  readonly store: Store | undefined;
  /** The background indexer of a long-running host (`watch: true`) with a store. */
  readonly indexer: Indexer | undefined;
  /** The tool calls in flight that the servers track: the indexer waits while there are any. */
  readonly calls: CallTracker;
  readonly branches: {
    list(): BranchInfo[];
    create(name: string): Promise<BranchOutcome>;
    switchTo(name: string): Promise<BranchOutcome>;
  };
  /**
   * `ws sync --accept-new-root [MOUNT]`: whole-mount syncs of the store-backed mounts
   * (or the one named) that accept a root directory other than the one last agreed under.
   */
  acceptNewRoots(mount?: string): Promise<{ ok: true; data: unknown } | { ok: false; error: string }>;
  close(): void;
}

const BRANCH_NAME = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/;

/** How a host is opened. */
export interface HostOptions {
  /** False: a one-shot CLI command, which starts no watcher even where a mount asks for one and keeps less of the store in memory. */
  readonly watch: boolean;
  /** Wraps a mount's disk port (tests use it to act between observations). */
  readonly wrapDisk?: (mount: string, disk: DiskPort) => DiskPort;
  /** How the store is opened (`maxPageCount`: a size cap, which tests use as a full disk). */
  readonly store?: { readonly maxPageCount?: number };
}

/** The store lock, each hold ending with a barrier: no write a holder left open outlives the hold. */
function settlingLock(lock: Lock, store: Store | undefined): Lock {
  return {
    run: (op) =>
      lock.run(async () => {
        try {
          return await op();
        } finally {
          store?.barrier();
        }
      }),
    close: () => lock.close(),
  };
}

/** Opens the host for a configuration: the store (under its lock), the mounts, recovery, watchers. */
export async function openHost(config: HostConfig, options: HostOptions): Promise<Host> {
  const anyStore = config.mounts.some((m) => m.backend === 'store');
  // What only some hosts need loads while the store opens, so it is there when it is
  // wanted: the store-backed mount where a mount is store-backed, the watchers and the
  // indexer for a long-running host. A one-shot command on direct mounts parses none of it.
  const storeModule = anyStore ? import('./mounts/store-backed/mount.ts') : undefined;
  const longRunning = options.watch ? Promise.all([import('./watch.ts'), import('./index/indexer.ts')]) : undefined;
  // Awaited below; a store that fails to open leaves them unawaited, not unhandled.
  storeModule?.catch(() => undefined);
  longRunning?.catch(() => undefined);
  const { store, lock: storeLock } = await openConfiguredStore(config, { open: anyStore, oneShot: !options.watch, ...options.store });
  const lock = settlingLock(storeLock, store);
  // Greps scan in Workers under the configured deadline, so a slow pattern holds no other call;
  // the mounts hand them files to search ahead, on every core (a long-running host's even on two).
  const workers = grepWorkers({ longRunning: options.watch });
  const { prescanner } = workers;
  // A long-running host's greps remember the blobs a search found no line in, for the
  // searches made last (`grep/no-line-memo.ts`); `WS_GREP_REMEMBER=0` has each scan as the
  // first does (the bench times a pattern a server meets for the first time so).
  const noLines = options.watch && process.env.WS_GREP_REMEMBER !== '0' ? new NoLineMemo() : undefined;
  const mounts: Mount[] = [];
  const storeMounts: StoreMount[] = [];
  const storeMount = store === undefined || storeModule === undefined ? undefined : (await storeModule).storeMount;
  for (const m of config.mounts) {
    const storeRel = insideRel(m.root, config.storePath);
    if (m.backend === 'direct' || store === undefined || storeMount === undefined) {
      mounts.push(directMount(m, storeRel, undefined, prescanner));
    } else {
      const wrap = options.wrapDisk;
      const sm = storeMount(m, { store, lock, hash: sha256, storeRel, prescanner, ...(noLines === undefined ? {} : { noLines }), oneShot: !options.watch, ...(wrap ? { wrapDisk: (d: DiskPort) => wrap(m.name, d) } : {}) });
      mounts.push(sm);
      storeMounts.push(sm);
    }
  }
  try {
    for (const sm of storeMounts) await sm.recover();
  } catch (err) {
    workers.close();
    try {
      store?.close();
    } finally {
      lock.close();
    }
    throw err;
  }

  const later = longRunning === undefined ? undefined : await longRunning;
  const watchers: Watching | undefined = later?.[0].watchMounts(storeMounts.filter((m) => m.config.watch === 'always'), config.storePath);

  // A long-running host builds grep's index while idle (no tool call in flight); a one-shot command never waits for it.
  const calls = new CallTracker();
  const indexer = later !== undefined && store !== undefined ? later[1].startIndexer(store, lock, { busy: () => calls.size > 0 }) : undefined;

  const workspace: Workspace = {
    mounts,
    hasDirectMount: mounts.some((m) => m.backend === 'direct'),
    grep: { runner: workers.runner, timeoutMs: config.grepTimeoutMs },
  };
  return {
    config,
    workspace,
    store,
    indexer,
    calls,
    branches: branchCommands(store, lock),
    async acceptNewRoots(name) {
      const chosen = storeMounts.filter((m) => name === undefined || m.name === name);
      if (chosen.length === 0) {
        const known = storeMounts.map((m) => m.name).join(', ') || 'none';
        return { ok: false, error: `There is no store-backed mount named "${name}"; the store-backed mounts are: ${known}.` };
      }
      const mounts = [];
      for (const m of chosen) {
        const r = await m.acceptRoot();
        mounts.push(r.ok ? { mount: m.name, ...r.report } : { mount: m.name, refused: r.message });
      }
      return { ok: true, data: { mounts } };
    },
    close() {
      indexer?.stop();
      workers.close();
      watchers?.stop();
      store?.close();
      lock.close();
    },
  };
}

/** The branch commands over `store` (none when no mount is store-backed); changes run under the lock. */
function branchCommands(store: Store | undefined, lock: Lock): Host['branches'] {
  const noStore: BranchOutcome = { ok: false, error: 'No mount is store-backed, so there are no branches.' };
  return {
    list: () => store?.branches() ?? [],
    async create(name) {
      if (store === undefined) return noStore;
      if (!BRANCH_NAME.test(name)) {
        return { ok: false, error: `"${name}" is not a usable branch name: use letters, digits, ".", "_", "-" or "/", starting with a letter or digit.` };
      }
      return lock.run(async () => {
        if (store.hasBranch(name)) return { ok: false as const, error: `A branch named "${name}" already exists; pick another name or switch to it.` };
        const from = store.selectedBranch();
        store.createBranch(name);
        return { ok: true as const, branch: name, note: `Created branch "${name}" from "${from}"; "${from}" is still selected.` };
      });
    },
    async switchTo(name) {
      if (store === undefined) return noStore;
      if (!store.hasBranch(name)) {
        const known = store.branches().map((b) => b.name).join(', ');
        return { ok: false, error: `There is no branch named "${name}"; the branches are: ${known}.` };
      }
      return lock.run(async () => {
        store.selectBranch(name);
        return {
          ok: true as const,
          branch: name,
          note: `Selected branch "${name}". Its files are the workspace's copy now; materialize writes them to disk.`,
        };
      });
    },
  };
}
