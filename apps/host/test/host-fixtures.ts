/** Hosts over real temporary directories and real stores (SQLite, or PostgreSQL in the second run: `engine.ts`), for tests. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DiskPort } from '@ws/reconcile';
import type { Mount, ReadOutcome } from '@ws/tools';
import { checkConfig, type HostConfig } from '../src/config.ts';
import { type Host, type HostOptions, openHost } from '../src/host.ts';
import { keepForClosing, storeTable } from './engine.ts';
import { tempDir } from './fixtures.ts';

/** One mount's settings in a test config (name and path required). */
export type MountSpec = { name: string; path: string } & Record<string, unknown>;

/**
 * A config over `base` with these mounts and a store outside every mount: the SQLite file
 * at `storePath`, or on the PostgreSQL run the database that stands for it.
 */
export function testConfig(base: string, mounts: MountSpec[], storePath = join(tempDir('ws-store-'), 'store.sqlite')): HostConfig {
  return checkConfig({ store: storeTable(storePath), mount: mounts }, 'test config', base);
}

/** `openHost`, the host closed after the test on the PostgreSQL run (see `engine.ts`). */
export async function openTestHost(config: HostConfig, options: HostOptions): Promise<Host> {
  return keepForClosing(await openHost(config, options));
}

/** Writes files (path → text or bytes) under `root`, creating directories. */
export function writeFiles(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** Opens a host (no watcher) over one store-backed mount `work` at a fresh directory. */
export async function storeHost(
  options: { files?: Record<string, string | Uint8Array>; mount?: Record<string, unknown>; wrapDisk?: (mount: string, disk: DiskPort) => DiskPort } = {},
): Promise<{ host: Host; root: string; mount: Mount; config: HostConfig }> {
  const root = tempDir();
  writeFiles(root, options.files ?? {});
  const config = testConfig(root, [{ name: 'work', path: '.', ...options.mount }]);
  const host = await openTestHost(config, { watch: false, ...(options.wrapDisk ? { wrapDisk: options.wrapDisk } : {}) });
  return { host, root, mount: host.workspace.mounts[0], config };
}

/** The text a file outcome holds, or a description of the outcome for a failing assertion. */
export function textOf(outcome: ReadOutcome): string {
  if (outcome.kind !== 'file') throw new Error(`expected a file, got ${JSON.stringify(outcome)}`);
  return new TextDecoder().decode(outcome.bytes);
}
