/**
 * Directories that vanish mid-walk, through one long-running `ws mcp`: while another
 * process keeps making and removing directories (and symlinks to them) in a mount that
 * follows links, ls, grep, glob and status never fail as a whole — each answers, and
 * what vanished is skipped.
 */
import { afterAll, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './fixtures.ts';
import { connectStdio, mcpCall, type StdioSession } from './ws-process.ts';
import { storeToml } from './engine.ts';

const CALLS = 200;
const sessions: StdioSession[] = [];
afterAll(async () => {
  for (const s of sessions) await s.close();
});

const CHURN = `
const { mkdirSync, rmSync, symlinkSync, writeFileSync } = require('node:fs');
const root = process.argv[1];
for (let i = 0; ; i++) {
  const d = root + '/churn' + (i % 8);
  try {
    mkdirSync(d + '/deep/er', { recursive: true });
    writeFileSync(d + '/deep/er/f.txt', 'churn ' + i + '\\n');
    symlinkSync('churn' + (i % 8), root + '/link' + (i % 8));
  } catch {}
  try { rmSync(d, { recursive: true, force: true }); rmSync(root + '/link' + ((i + 3) % 8), { force: true }); } catch {}
}
`;

for (const backend of ['direct', 'store'] as const) {
  test(`ls, grep, glob and status on a ${backend} mount answer while directories vanish beneath them`, async () => {
    const dir = tempDir('ws-vanish-');
    const root = join(dir, 'm');
    mkdirSync(join(root, 'stable'), { recursive: true });
    writeFileSync(join(root, 'stable/keep.txt'), 'keep me\n');
    const config = join(dir, 'ws.toml');
    writeFileSync(config, `${storeToml('.ws/store.sqlite', dir)}[[mount]]\nname = "m"\npath = "m"\nbackend = "${backend}"\nfollowSymlinks = true\n`);
    const s = await connectStdio(config, dir);
    sessions.push(s);
    const churn = Bun.spawn(['bun', '-e', CHURN, root], { stdout: 'ignore', stderr: 'ignore' });
    const failed: string[] = [];
    try {
      for (let i = 0; i < CALLS; i++) {
        const [tool, input] = (
          [
            ['ls', { path: 'm', recursive: true }],
            ['grep', { pattern: 'keep|churn', path: 'm' }],
            ['glob', { pattern: '**/*.txt', path: 'm' }],
            ['status', {}],
          ] as const
        )[i % 4];
        const r = await mcpCall(s.client, tool, input);
        if (r.isError) failed.push(`${tool}: ${r.text.slice(0, 300)}`);
        else if (tool !== 'status') expect(r.text).toContain('keep');
      }
    } finally {
      churn.kill();
      await churn.exited;
    }
    expect(failed).toEqual([]);
    expect(s.stderr()).not.toContain('    at ');
  }, 120_000);
}
