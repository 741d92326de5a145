/**
 * The host: a configuration made real — the store opened, each mount built (direct or
 * store-backed), effects left pending by a stopped process resolved, and (where a mount
 * asks) a watcher started. The one rule: one store and one lock per host, shared by
 * every store-backed mount, so the records of all mounts move under one lock.
 */
import { relative } from 'node:path';
import type { DiskPort, Hasher } from '@ws/reconcile';
import type { Mount, Workspace } from '@ws/tools';
import type { HostConfig } from './config.ts';
import { isInside } from './disk/contain.ts';
import { grepWorkers } from './grep/runner.ts';
import { directMount } from './mounts/direct.ts';
import { type StoreMount, storeMount } from './mounts/store-backed.ts';
import { StoreLock } from './store/lock.ts';
import { type BranchInfo, openStore, type SqliteStore } from './store/sqlite-store.ts';
import { type Watching, watchMounts } from './watch.ts';

/** SHA-256 of the bytes, hex: how the store names a blob. */
export const sha256: Hasher = (bytes) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');

/** What a branch command answers. */
export type BranchOutcome = { readonly ok: true; readonly branch: string; readonly note: string } | { readonly ok: false; readonly error: string };

/** A running host. */
export interface Host {
  readonly config: HostConfig;
  readonly workspace: Workspace;
  /** The store, when any mount is store-backed. */
  readonly store: SqliteStore | undefined;
  readonly branches: {
    list(): BranchInfo[];
    create(name: string): BranchOutcome;
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

/**
 * Opens the host for a configuration. `watch: false` skips watchers even where a mount
 * asks for one (a one-shot CLI command).
 */
export async function openHost(
  config: HostConfig,
  options: { watch: boolean; wrapDisk?: (mount: string, disk: DiskPort) => DiskPort },
): Promise<Host> {
  const anyStore = config.mounts.some((m) => m.backend === 'store');
  const store = anyStore ? openStore(config.storePath) : undefined;
  const lock = new StoreLock(config.storePath);
  const mounts: Mount[] = [];
  const storeMounts: StoreMount[] = [];
  for (const m of config.mounts) {
    const storeRel = isInside(m.root, config.storePath) ? relative(m.root, config.storePath).split('\\').join('/') : undefined;
    if (m.backend === 'direct' || store === undefined) {
      mounts.push(directMount(m, storeRel));
    } else {
      const wrap = options.wrapDisk;
      const sm = storeMount(m, { store, lock, hash: sha256, storeRel, ...(wrap ? { wrapDisk: (d: DiskPort) => wrap(m.name, d) } : {}) });
      mounts.push(sm);
      storeMounts.push(sm);
    }
  }
  for (const sm of storeMounts) await sm.recover();

  const watchers: Watching | undefined = options.watch
    ? watchMounts(storeMounts.filter((m) => m.config.watch === 'always'), config.storePath)
    : undefined;

  // Greps scan in Workers under the configured deadline, so a slow pattern holds no other call.
  const workers = grepWorkers();
  const workspace: Workspace = {
    mounts,
    hasDirectMount: mounts.some((m) => m.backend === 'direct'),
    grep: { runner: workers.runner, timeoutMs: config.grepTimeoutMs },
  };
  const noStore: BranchOutcome = { ok: false, error: 'No mount is store-backed, so there are no branches.' };

  return {
    config,
    workspace,
    store,
    branches: {
      list: () => store?.branches() ?? [],
      create(name) {
        if (store === undefined) return noStore;
        if (!BRANCH_NAME.test(name)) {
          return { ok: false, error: `"${name}" is not a usable branch name: use letters, digits, ".", "_", "-" or "/", starting with a letter or digit.` };
        }
        if (store.hasBranch(name)) return { ok: false, error: `A branch named "${name}" already exists; pick another name or switch to it.` };
        const from = store.selectedBranch();
        store.createBranch(name);
        return { ok: true, branch: name, note: `Created branch "${name}" from "${from}"; "${from}" is still selected.` };
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
    },
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
      workers.close();
      watchers?.stop();
      store?.close();
      lock.close();
    },
  };
}
