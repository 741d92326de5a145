/**
 * A symlink where a file is expected is never replaced unseen, through the real host:
 * a dangling or live symlink at a path being materialized or written stays a symlink,
 * and the call says why (a skip with a sentence, or a refusal), forced or not, on both
 * kinds of mount, following links or not.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './fixtures.ts';
import { connectStdio, mcpCall, type StdioSession } from './ws-process.ts';
import { storeToml } from './engine.ts';

const sessions: StdioSession[] = [];
afterAll(async () => {
  for (const s of sessions) await s.close();
});

async function mount(backend: 'store' | 'direct', followSymlinks: boolean) {
  const dir = tempDir('ws-link-');
  const root = join(dir, 'm');
  mkdirSync(root);
  writeFileSync(join(root, 'a.txt'), 'alpha\n');
  const config = join(dir, 'ws.toml');
  writeFileSync(
    config,
    `${storeToml('.ws/store.sqlite', dir)}[[mount]]\nname = "m"\npath = "m"\nbackend = "${backend}"\nfollowSymlinks = ${followSymlinks}\n`,
  );
  const s = await connectStdio(config, dir);
  sessions.push(s);
  return { root, s };
}

/** Still the symlink it was, to the same target. */
function stillLink(root: string, name: string, target: string): void {
  expect({ name, link: lstatSync(join(root, name)).isSymbolicLink() }).toEqual({ name, link: true });
  expect(readlinkSync(join(root, name))).toBe(target);
}

for (const follow of [false, true]) {
  describe(`a store-backed mount${follow ? ' that follows links' : ''}`, () => {
    test('a draft over a dangling or a live symlink is not materialized over it, forced or not, and says why', async () => {
      const { root, s } = await mount('store', follow);
      expect((await mcpCall(s.client, 'sync', {})).isError).toBe(false);
      expect((await mcpCall(s.client, 'write', { path: 'm/new.txt', content: 'draft new\n' })).isError).toBe(false);
      expect((await mcpCall(s.client, 'write', { path: 'm/live.txt', content: 'draft live\n' })).isError).toBe(false);
      // A person puts symlinks where the drafts are to go.
      symlinkSync('nowhere', join(root, 'new.txt'));
      symlinkSync('a.txt', join(root, 'live.txt'));
      for (const force of [false, true]) {
        for (const path of ['m/new.txt', 'm/live.txt']) {
          const r = await mcpCall(s.client, 'materialize', { path, force });
          const report = JSON.stringify(r.isError ? r.text : r.data);
          expect({ path, force, wrote: !r.isError && (r.data.mounts[0].written as string[]).length > 0 }).toEqual({ path, force, wrote: false });
          // Unforced: a conflict, or a skip naming the link; forced: a refusal naming the link.
          const said = report.includes('symbolic link') || (!force && report.includes('"conflicts":[{'));
          expect({ path, force, said, report }).toEqual({ path, force, said: true, report });
        }
      }
      const whole = await mcpCall(s.client, 'materialize', { force: true });
      expect(whole.isError).toBe(false);
      stillLink(root, 'new.txt', 'nowhere');
      stillLink(root, 'live.txt', 'a.txt');
      expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('alpha\n');
    }, 60_000);
  });

  describe(`a direct mount${follow ? ' that follows links' : ''}`, () => {
    test('a write or a delete at a symlink is refused with a sentence and the link stays', async () => {
      const { root, s } = await mount('direct', follow);
      symlinkSync('nowhere', join(root, 'new.txt'));
      symlinkSync('a.txt', join(root, 'live.txt'));
      for (const path of ['m/new.txt', 'm/live.txt']) {
        for (const [tool, input] of [
          ['write', { path, content: 'agent\n' }],
          ['delete', { path }],
        ] as const) {
          const r = await mcpCall(s.client, tool, input);
          expect({ tool, path, isError: r.isError }).toEqual({ tool, path, isError: true });
          expect(r.text).toContain('symbolic link');
        }
      }
      stillLink(root, 'new.txt', 'nowhere');
      stillLink(root, 'live.txt', 'a.txt');
      expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('alpha\n');
    }, 60_000);
  });
}
