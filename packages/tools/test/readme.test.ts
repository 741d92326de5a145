import { join } from 'node:path';
import { describeReadmes } from '../../../test/readme-examples.ts';

/** What the examples take as given: a workspace, here one in-memory store-backed mount holding the files they name. */
const PRELUDE = `
import { memoryWorkspace as __memoryWorkspace } from ${JSON.stringify(join(import.meta.dir, 'memory-workspace.ts'))};
const workspace = __memoryWorkspace([{ name: 'work', backend: 'store', files: {
  'src/a.ts': 'const x = 1;\\nexport default x;\\n',
  'src/b.ts': 'export const b = 2;\\n',
  'a.ts': 'let a = 1;\\nlet b = 2;\\nx;\\n',
} }]);
`;

describeReadmes({ dir: join(import.meta.dir, '..'), name: '@ws/tools', prelude: PRELUDE, checks: 4, rootChecks: 1 });
