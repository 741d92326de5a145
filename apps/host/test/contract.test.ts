/**
 * @ws/tools' contract suite against the host's real mounts: a store-backed mount (on each
 * store engine: bun:sqlite, and PostgreSQL), real disk) and a direct mount over the same
 * files answer every tool identically, and the store-backed one offers the draft methods
 * (diff, history, restore, discard, read with a version) — a person's save is a real
 * write to the mount's directory.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractSuite } from '../../../packages/tools/test/contract.ts';
import type { HostConfig } from '../src/config.ts';
import { openHost } from '../src/host.ts';
import { tempDir } from './fixtures.ts';
import { testConfig, writeFiles } from './host-fixtures.ts';
import { freshDatabase, pgConfig } from './pg-fixtures.ts';

const engines: { name: string; config: (root: string, backend: 'store' | 'direct') => Promise<HostConfig> }[] = [
  {
    name: 'bun:sqlite store',
    config: async (root, backend) => testConfig(root, [{ name: 'work', path: '.', backend }], join(tempDir('ws-contract-store-'), 'store.sqlite')),
  },
  { name: 'PostgreSQL store', config: async (root, backend) => pgConfig(root, [{ name: 'work', path: '.', backend }], await freshDatabase()) },
];

for (const engine of engines) {
  contractSuite(
    `host mounts (${engine.name}, real disk)`,
    async (backend, files) => {
      const root = tempDir('ws-contract-');
      writeFiles(root, files);
      const host = await openHost(await engine.config(root, backend), { watch: false });
      return {
        workspace: host.workspace,
        dispose: () => host.close(),
        personSaves: (path, bytes) => (bytes === null ? rmSync(join(root, path)) : writeFileSync(join(root, path), bytes)),
      };
    },
    { draftMethods: true },
  );
}
