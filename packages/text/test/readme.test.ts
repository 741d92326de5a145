import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { describeReadmes, readmeExample } from '../../../test/readme-examples.ts';

describeReadmes({ dir: join(import.meta.dir, '..'), name: '@ws/text', checks: 5, rootChecks: 1 });

describe('the README check itself', () => {
  const dir = import.meta.dir;
  async function run(example: string): Promise<number> {
    const file = join(dir, `.readme-probe-${process.pid}.md`);
    await Bun.write(file, `# probe\n\nprose\n\n\`\`\`ts\n${example}\n\`\`\`\n`);
    try {
      return await readmeExample(file, { dir, prelude: 'const two = 2;' });
    } finally {
      await Bun.file(file).delete();
    }
  }

  test('a true stated result passes, and a false one fails naming its README line', async () => {
    expect(await run("import { fileText } from '@ws/text';\nfileText('a\\nb').lines; // → ['a', 'b']")).toBe(1);
    await expect(run("import { fileText } from '@ws/text';\n\nfileText('a\\nb').lines; // → ['a', 'c']")).rejects.toThrow('README line 8 states a result');
  });

  test('an object names only the fields that matter, and each of them must hold', async () => {
    expect(await run("import { fileText } from '@ws/text';\nfileText('a\\r\\n'); // → { lineEndings: 'CRLF', crlf: 1 }")).toBe(1);
    await expect(run("import { fileText } from '@ws/text';\nfileText('a\\r\\n'); // → { lineEndings: 'CRLF', crlf: 2 }")).rejects.toThrow('README line 7');
  });

  test('a declaration checks what it declares; a result may run over several comment lines; the prelude defines free names', async () => {
    expect(await run('const four = two * 2; // → 4\n[four, two]; // → [\n//   4,\n//   2,\n// ]')).toBe(2);
    await expect(run('[two, two]; // → [\n//   2,\n//   3,\n// ]')).rejects.toThrow('README line 6');
  });

  test('a stated throw must throw that error with that message (or its beginning, before " …")', async () => {
    const fail = "const fail = async () => { throw new RangeError('no such line: 9'); };";
    expect(await run(`${fail}\nawait fail(); // → throws RangeError: 'no such line: 9'`)).toBe(1);
    expect(await run(`${fail}\nawait fail(); // → throws RangeError: 'no such …'`)).toBe(1);
    await expect(run(`${fail}\nawait fail(); // → throws TypeError: 'no such line: 9'`)).rejects.toThrow('README line 7');
    await expect(run(`${fail}\nawait fail(); // → throws RangeError: 'no such line: 8'`)).rejects.toThrow('README line 7');
    await expect(run("two; // → throws Error: 'two'")).rejects.toThrow('README line 6');
  });
});
