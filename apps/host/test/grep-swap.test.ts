/**
 * A direct mount's grep reads every file through its Workers' quick read (`readForSearch`)
 * after a walk by names: neither may be led outside the mount. While another process swaps
 * a directory of the mount with a symlink to a directory outside (renameat2
 * RENAME_EXCHANGE, in a tight loop), greps with the Workers a one-shot command uses never
 * show a line from outside, and every file that stays put is found each time.
 */
import { afterAll, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handleToolCall, type Workspace } from '@ws/tools';
import { grepWorkers } from '../src/grep/runner.ts';
import { directMount } from '../src/mounts/direct.ts';
import { tempDir, whileSwapping } from './fixtures.ts';
import { testConfig } from './host-fixtures.ts';

const workers = grepWorkers();
afterAll(() => workers.close());

test('a directory swapped for a symlink to outside, again and again while greps read, is never read through', async () => {
  const root = tempDir('ws-grep-swap-');
  const outside = tempDir('ws-grep-swap-outside-');
  mkdirSync(join(outside, 'inner'), { recursive: true });
  // Where the swapped-in link leads: files of the same names as the mount's own, holding a secret.
  writeFileSync(join(outside, 'inner/mine.txt'), 'needle outside secret\n');
  writeFileSync(join(outside, 'outside.txt'), 'needle outside secret\n');
  for (let i = 0; i < 30; i++) {
    mkdirSync(join(root, `top${i}`), { recursive: true });
    writeFileSync(join(root, `top${i}/f.txt`), `needle ${i}\n`);
  }
  // `sub` is the directory the swapper exchanges with `link` (to outside) in a tight loop.
  mkdirSync(join(root, 'sub/inner'), { recursive: true });
  writeFileSync(join(root, 'sub/inner/mine.txt'), 'needle mine\n');
  symlinkSync(outside, join(root, 'link'));
  const config = testConfig(root, [{ name: 'work', path: '.', backend: 'direct' }]).mounts[0];
  const workspace: Workspace = { mounts: [directMount(config, undefined, undefined, workers.prescanner)], hasDirectMount: true, grep: { runner: workers.runner, timeoutMs: 60_000 } };
  await whileSwapping(root, async () => {
    let mine = 0;
    for (let round = 0; round < 60; round++) {
      const got = await handleToolCall(workspace, { name: 'grep', input: { pattern: 'needle' }, resultMaxChars: 1_000_000 });
      expect(got.success).toBe(true);
      const said = JSON.stringify(got);
      expect(said).not.toContain('outside');
      // Whichever name the directory had when it was walked: its own file, under that name.
      if (said.includes('needle mine')) mine++;
      for (let i = 0; i < 30; i++) expect(said).toContain(`needle ${i}"`);
    }
    // The mount's own directory was read, under one name or the other, in some of the rounds.
    expect(mine).toBeGreaterThan(0);
  });
  expect(readdirSync(outside).sort()).toEqual(['inner', 'outside.txt']);
});
