/**
 * The boundary through the real host (`ws mcp` over stdio, and `ws call`): ws's own files
 * (the store, its -wal and -shm, the .ws/ directory, .ws-tmp-* files) are never shown and
 * never read or changed; `mount.protect` paths (`.git/` by default) are read but never
 * changed, and a person can clear the setting.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './fixtures.ts';
import { connectStdio, mcpCall, type StdioSession, wsCall } from './ws-process.ts';

const sessions: StdioSession[] = [];
afterAll(async () => {
  for (const s of sessions) await s.close();
});

/** A mount `m` at `dir/m` (the store inside it, at `.ws/store.sqlite`), with what the test needs on disk. */
function workspace(backend: 'store' | 'direct', extra: string[] = []) {
  const dir = tempDir('ws-boundary-');
  const root = join(dir, 'm');
  mkdirSync(join(root, '.ws'), { recursive: true });
  mkdirSync(join(root, '.git'), { recursive: true });
  mkdirSync(join(root, 'sub'), { recursive: true });
  writeFileSync(join(root, 'a.txt'), 'alpha\n');
  writeFileSync(join(root, '.git/config'), '[core]\n');
  // A live writer's temporary files (this test's own pid, fresh): never swept, never shown.
  const temps = [`.ws-tmp-a.txt-${process.pid}-live1`, `sub/.ws-tmp-b-${process.pid}-live2`];
  for (const t of temps) writeFileSync(join(root, t), 'half a write\n');
  if (backend === 'direct') {
    writeFileSync(join(root, '.ws/store.sqlite'), 'store bytes\n');
    writeFileSync(join(root, '.ws/store.sqlite-wal'), 'wal bytes\n');
  }
  const config = join(dir, 'ws.toml');
  writeFileSync(
    config,
    ['[store]', 'path = "m/.ws/store.sqlite"', '[[mount]]', 'name = "m"', 'path = "m"', `backend = "${backend}"`, ...extra, ''].join('\n'),
  );
  return { dir, root, config, temps };
}

async function session(config: string, cwd: string): Promise<StdioSession> {
  const s = await connectStdio(config, cwd);
  sessions.push(s);
  return s;
}

for (const backend of ['store', 'direct'] as const) {
  describe(`ws's own files on a ${backend} mount`, () => {
    test('every tool refuses them with one sentence, no walk shows them, and they are left as they were', async () => {
      const w = workspace(backend);
      const s = await session(w.config, w.dir);
      // The store exists once a call has opened it.
      expect((await mcpCall(s.client, 'read', { path: 'm/a.txt' })).isError).toBe(false);
      const own = ['.ws/store.sqlite', '.ws/store.sqlite-wal', '.ws/store.sqlite-shm', '.ws/notes.txt', ...w.temps];
      const before = new Map(own.filter((p) => existsSync(join(w.root, p))).map((p) => [p, readFileSync(join(w.root, p))]));
      const calls: [string, (p: string) => Record<string, unknown>][] = [
        ['read', (p) => ({ path: `m/${p}` })],
        ['write', (p) => ({ path: `m/${p}`, content: 'agent\n' })],
        ['edit', (p) => ({ path: `m/${p}`, oldString: 'bytes', newString: 'gone' })],
        ['edit_many', (p) => ({ edits: [{ path: `m/${p}`, oldString: 'bytes', newString: 'gone' }] })],
        ['delete', (p) => ({ path: `m/${p}` })],
      ];
      if (backend === 'store') {
        calls.push(['materialize', (p) => ({ path: `m/${p}`, force: true })]);
        calls.push(['sync', (p) => ({ path: `m/${p}` })]);
      }
      let refused = 0;
      for (const p of own) {
        for (const [tool, input] of calls) {
          const r = await mcpCall(s.client, tool, input(p));
          expect({ tool, p, isError: r.isError }).toEqual({ tool, p, isError: true });
          expect(r.text).toContain("is ws's own file");
          refused++;
        }
      }
      expect(refused).toBe(own.length * calls.length);

      const ls = await mcpCall(s.client, 'ls', { path: 'm', recursive: true });
      const shown = (ls.data.entries as { path: string }[]).map((e) => e.path);
      expect(shown).toContain('m/a.txt');
      expect(shown.filter((p) => p.includes('.ws'))).toEqual([]);
      const glob = await mcpCall(s.client, 'glob', { pattern: '**', path: 'm' });
      expect(glob.text).toContain('a.txt');
      expect(glob.text).not.toContain('.ws');
      const grep = await mcpCall(s.client, 'grep', { pattern: 'bytes|half a write|SQLite', path: 'm' });
      expect(grep.data.totalMatches).toBe(0);
      const grepOwn = await mcpCall(s.client, 'grep', { pattern: '.', path: 'm/.ws/store.sqlite' });
      expect(grepOwn.text).not.toContain('store bytes');

      for (const [p, bytes] of before) expect(readFileSync(join(w.root, p))).toEqual(bytes);
      if (backend === 'store') {
        // The store still holds the workspace: a draft made now is there on the next call.
        expect((await mcpCall(s.client, 'write', { path: 'm/b.txt', content: 'b\n' })).isError).toBe(false);
        expect((await mcpCall(s.client, 'read', { path: 'm/b.txt' })).text).toContain('b');
      }
    }, 60_000);

    test('a symlink to the store is refused as the store is, where the mount follows links', async () => {
      const w = workspace(backend, ['followSymlinks = true']);
      symlinkSync('.ws', join(w.root, 'innocent'));
      symlinkSync('.ws/store.sqlite-wal', join(w.root, 'wal'));
      const s = await session(w.config, w.dir);
      for (const path of ['m/innocent/store.sqlite', 'm/wal']) {
        for (const [tool, input] of [
          ['read', { path }],
          ['write', { path, content: 'x' }],
          ['delete', { path }],
        ] as const) {
          const r = await mcpCall(s.client, tool, input);
          expect({ tool, path, isError: r.isError }).toEqual({ tool, path, isError: true });
          expect(r.text).toContain("is ws's own file");
        }
      }
    }, 60_000);
  });

  describe(`mount.protect on a ${backend} mount`, () => {
    test('.git/ is read but never changed by default, and every changing tool names the setting', async () => {
      const w = workspace(backend);
      const s = await session(w.config, w.dir);
      const read = await mcpCall(s.client, 'read', { path: 'm/.git/config' });
      expect(read.isError).toBe(false);
      expect(read.text).toContain('[core]');
      const changes: [string, Record<string, unknown>][] = [
        ['write', { path: 'm/.git/config', content: '[core]\n\tfsmonitor = "touch /tmp/pwned"\n' }],
        ['write', { path: 'm/.git/hooks/pre-commit', content: '#!/bin/sh\n' }],
        ['edit', { path: 'm/.git/config', oldString: '[core]', newString: '[core]\n\tfsmonitor = x' }],
        ['edit_many', { edits: [{ path: 'm/.git/config', oldString: '[core]', newString: '[x]' }] }],
        ['delete', { path: 'm/.git/config' }],
      ];
      if (backend === 'store') changes.push(['materialize', { path: 'm/.git/config', force: true }]);
      for (const [tool, input] of changes) {
        const r = await mcpCall(s.client, tool, input);
        expect({ tool, isError: r.isError }).toEqual({ tool, isError: true });
        expect(r.text).toContain('mount.protect');
      }
      expect(readFileSync(join(w.root, '.git/config'), 'utf8')).toBe('[core]\n');
      expect(existsSync(join(w.root, '.git/hooks'))).toBe(false);
    }, 60_000);

    test('a symlink into .git/ is protected as .git/ is, where the mount follows links', async () => {
      const w = workspace(backend, ['followSymlinks = true']);
      symlinkSync('.git', join(w.root, 'repo'));
      const s = await session(w.config, w.dir);
      const r = await mcpCall(s.client, 'write', { path: 'm/repo/config', content: '[core]\n\tfsmonitor = x\n' });
      expect(r.isError).toBe(true);
      expect(r.text).toContain('mount.protect');
      expect(readFileSync(join(w.root, '.git/config'), 'utf8')).toBe('[core]\n');
    }, 60_000);

    test('a person can clear it (protect = [])', async () => {
      const w = workspace(backend, ['protect = []']);
      const r = await wsCall(w.dir, 'edit', { path: 'm/.git/config', oldString: '[core]\n', newString: '[core]\n\tbare = false\n' }, ['--config', w.config]);
      expect(r.result.success).toBe(true);
      if (backend === 'store') {
        const m = await wsCall(w.dir, 'materialize', { path: 'm/.git/config' }, ['--config', w.config]);
        expect(m.result.success).toBe(true);
      }
      expect(readFileSync(join(w.root, '.git/config'), 'utf8')).toBe('[core]\n\tbare = false\n');
    }, 60_000);
  });
}

test('the embedded default: the store cannot be deleted, written over or force-materialized through ws call', async () => {
  const dir = tempDir('ws-boundary-default-');
  writeFileSync(join(dir, 'a.txt'), 'alpha\n');
  expect((await wsCall(dir, 'write', { path: 'work/a.txt', content: 'draft\n' })).result.success).toBe(true);
  const store = join(dir, '.ws/store.sqlite');
  expect(existsSync(store)).toBe(true);
  for (const [tool, input] of [
    ['delete', { path: 'work/.ws/store.sqlite' }],
    ['materialize', { path: 'work/.ws/store.sqlite', force: true }],
    ['write', { path: 'work/.ws/store.sqlite', content: '' }],
  ] as const) {
    const r = await wsCall(dir, tool, input);
    expect(r.result.success).toBe(false);
    expect(!r.result.success && r.result.error).toContain("is ws's own file");
  }
  // The draft is still there.
  const read = await wsCall(dir, 'read', { path: 'work/a.txt' });
  expect(JSON.stringify(read.result)).toContain('draft');
}, 60_000);
