import { contractSuite } from './contract.ts';
import { memoryWorkspace } from './memory-workspace.ts';

// Until apps/host lands, the contract runs against the in-memory mounts; the host runs
// the same suite with its own factory (see contract.ts and the README).
contractSuite('in-memory mounts', async (backend, files) => memoryWorkspace([{ name: 'work', backend, files }]));
