import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { readmeExample } from '../../../test/readme-examples.ts';

const README = join(import.meta.dir, '../README.md');
const ROOT_README = join(import.meta.dir, '../../../README.md');

/** What the examples take as given: a workspace, here one in-memory store-backed mount holding the files they name. */
const PRELUDE = `
import { memoryWorkspace as __memoryWorkspace } from ${JSON.stringify(join(import.meta.dir, 'memory-workspace.ts'))};
const workspace = __memoryWorkspace([{ name: 'work', backend: 'store', files: {
  'src/a.ts': 'const x = 1;\\nexport default x;\\n',
  'src/b.ts': 'export const b = 2;\\n',
  'a.ts': 'let a = 1;\\nlet b = 2;\\nx;\\n',
} }]);
`;

describe('the README examples run and give what they say', () => {
  test("the package README's example", async () => {
    expect(await readmeExample(README, { prelude: PRELUDE })).toBe(4);
  });

  test("the root README's @ws/tools example", async () => {
    expect(await readmeExample(ROOT_README, { heading: '### @ws/tools', dir: import.meta.dir, prelude: PRELUDE })).toBe(1);
  });
});
