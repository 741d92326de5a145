import { contractSuite } from './contract.ts';
import { memoryWorkspace } from './memory-workspace.ts';

// Until apps/host lands, the contract runs against the in-memory mounts; the host runs
// the same suite with its own factory (see contract.ts and the README).
contractSuite(
  'in-memory mounts',
  async (backend, files) => {
    const workspace = memoryWorkspace([{ name: 'work', backend, files }]);
    const disk = workspace.mounts[0].disk;
    return { workspace, personSaves: (path, bytes) => void (bytes === null ? disk.delete(path) : disk.set(path, bytes)) };
  },
  { draftMethods: true },
);
