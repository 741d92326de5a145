/**
 * @ws/tools' contract suite against the host's real mounts: a store-backed mount (bun:sqlite
 * store, real disk) and a direct mount over the same files answer every tool identically,
 * and the store-backed one offers the draft methods (diff, history, restore, discard, read
 * with a version) — a person's save is a real write to the mount's directory.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractSuite } from '../../../packages/tools/test/contract.ts';
import { openHost } from '../src/host.ts';
import { tempDir } from './fixtures.ts';
import { testConfig, writeFiles } from './host-fixtures.ts';

contractSuite(
  'host mounts (bun:sqlite store, real disk)',
  async (backend, files) => {
    const root = tempDir('ws-contract-');
    writeFiles(root, files);
    const config = testConfig(root, [{ name: 'work', path: '.', backend }], join(tempDir('ws-contract-store-'), 'store.sqlite'));
    const host = await openHost(config, { watch: false });
    return {
      workspace: host.workspace,
      dispose: () => host.close(),
      personSaves: (path, bytes) => (bytes === null ? rmSync(join(root, path)) : writeFileSync(join(root, path), bytes)),
    };
  },
  { draftMethods: true },
);
