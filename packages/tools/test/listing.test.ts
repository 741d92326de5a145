import { describe, expect, test } from 'bun:test';
import { jsonLength } from '@ws/text';
import { handleToolCall } from '../src/index.ts';
import { memoryWorkspace } from './memory-workspace.ts';

const files = {
  'src/a.ts': 'a\n',
  'src/deep/b.ts': 'bb\n',
  'src/c.js': 'c\n',
  'README.md': 'readme\n',
  '.env': 'X=1\n',
};

function workspace(backend: 'store' | 'direct') {
  return memoryWorkspace([
    { name: 'work', backend, files },
    { name: 'docs', backend, files: { 'guide.md': 'guide\n', 'api/ref.ts': 'ref\n' }, readOnly: true },
  ]);
}

async function data(ws: ReturnType<typeof workspace>, name: string, input: unknown, resultMaxChars?: number) {
  const r = await handleToolCall(ws, { name, input, ...(resultMaxChars === undefined ? {} : { resultMaxChars }) });
  if (!r.success) throw new Error(r.error);
  return r.data as Record<string, unknown>;
}

for (const backend of ['store', 'direct'] as const) {
  describe(`glob on ${backend} mounts`, () => {
    test('mount-prefixed patterns, with Bun.Glob semantics', async () => {
      const ws = workspace(backend);
      expect((await data(ws, 'glob', { pattern: 'work/**/*.ts' })).files).toEqual(['work/src/a.ts', 'work/src/deep/b.ts']);
      expect((await data(ws, 'glob', { pattern: 'work/src/*.ts' })).files).toEqual(['work/src/a.ts']);
      expect((await data(ws, 'glob', { pattern: '*/**/*.ts' })).files).toEqual(['docs/api/ref.ts', 'work/src/a.ts', 'work/src/deep/b.ts']);
      expect((await data(ws, 'glob', { pattern: '**/*.md' })).files).toEqual(['docs/guide.md', 'work/README.md']);
      expect((await data(ws, 'glob', { pattern: 'work/*' })).files).toEqual(['work/.env', 'work/README.md']);
      expect((await data(ws, 'glob', { pattern: 'work/src/{a,c}.*' })).files).toEqual(['work/src/a.ts', 'work/src/c.js']);
    });

    test('with a path, a pattern that does not start with a mount name is relative to it', async () => {
      const ws = workspace(backend);
      expect((await data(ws, 'glob', { pattern: '*.ts', path: 'work/src' })).files).toEqual(['work/src/a.ts']);
      expect((await data(ws, 'glob', { pattern: '**/*.ts', path: 'work/src/deep' })).files).toEqual(['work/src/deep/b.ts']);
      expect((await data(ws, 'glob', { pattern: 'work/**/*.ts', path: 'work/src/deep' })).files).toEqual(['work/src/deep/b.ts']);
    });

    test('no match says so and how patterns are written', async () => {
      expect(await data(workspace(backend), 'glob', { pattern: 'src/**/*.ts' })).toEqual({
        pattern: 'src/**/*.ts',
        files: [],
        note: 'No file matches src/**/*.ts. Patterns are mount-prefixed (work/**/*.ts); check the mount name and the directory.',
      });
      // The example names a mount the workspace has, not one it lacks.
      const repo = memoryWorkspace([{ name: 'repo', backend, files: { 'a.ts': 'a\n' } }]);
      expect((await data(repo, 'glob', { pattern: 'src/**/*.ts' })).note).toBe(
        'No file matches src/**/*.ts. Patterns are mount-prefixed (repo/**/*.ts); check the mount name and the directory.',
      );
    });

    test('the answer is held to the budget with a note of where to continue', async () => {
      const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`f/${String(i).padStart(3, '0')}.txt`, 'x']));
      const ws = memoryWorkspace([{ name: 'work', backend, files: many }]);
      const d = await data(ws as never, 'glob', { pattern: 'work/**' }, 1000);
      const shown = d.files as string[];
      expect(jsonLength(d)).toBeLessThanOrEqual(1000);
      expect(shown[0]).toBe('work/f/000.txt');
      expect(d.note).toBe(`Showing files 1-${shown.length} of 500; continue with offset=${shown.length}.`);
      const next = await data(ws as never, 'glob', { pattern: 'work/**', offset: shown.length }, 1000);
      expect((next.files as string[])[0]).toBe(`work/f/${String(shown.length).padStart(3, '0')}.txt`);
      expect((await data(ws as never, 'glob', { pattern: 'work/**' })).files).toHaveLength(500);
    });
  });

  describe(`ls on ${backend} mounts`, () => {
    test('without a path, the mounts', async () => {
      expect(await data(workspace(backend), 'ls', {})).toEqual({
        entries: [
          { path: 'work', kind: 'mount', backend, readOnly: false },
          { path: 'docs', kind: 'mount', backend, readOnly: true },
        ],
      });
    });

    test('a directory’s entries with kind and size, and state on a store-backed mount', async () => {
      const d = await data(workspace(backend), 'ls', { path: 'work/src' });
      const state = backend === 'store' ? { state: 'synced' } : {};
      expect(d).toEqual({
        path: 'work/src',
        entries: [
          { path: 'work/src/a.ts', kind: 'file', size: 2, ...state },
          { path: 'work/src/c.js', kind: 'file', size: 2, ...state },
          { path: 'work/src/deep', kind: 'directory' },
        ],
      });
    });

    test('recursive lists the whole tree beneath', async () => {
      const d = await data(workspace(backend), 'ls', { path: 'work', recursive: true });
      expect((d.entries as { path: string }[]).map((e) => e.path)).toEqual([
        'work/.env',
        'work/README.md',
        'work/src',
        'work/src/a.ts',
        'work/src/c.js',
        'work/src/deep',
        'work/src/deep/b.ts',
      ]);
    });

    test('held to the budget', async () => {
      const d = await data(workspace(backend), 'ls', { path: 'work', recursive: true }, 200);
      expect(jsonLength(d)).toBeLessThanOrEqual(200);
      expect(d.note).toMatch(/^Showing entries 1-\d+ of \d+; continue with offset=\d+\.$/);
    });
  });
}

test('ls on a store-backed mount shows each path’s state', async () => {
  const ws = workspace('store');
  await handleToolCall(ws, { name: 'write', input: { path: 'work/src/a.ts', content: 'draft\n' } });
  ws.mounts[0].disk.set('new-on-disk.bin', new Uint8Array([0, 1, 2]));
  const d = await data(ws, 'ls', { path: 'work' , recursive: true });
  const states = Object.fromEntries((d.entries as { path: string; state?: string }[]).map((e) => [e.path, e.state]));
  expect(states['work/src/a.ts']).toBe('workspace-draft');
  expect(states['work/new-on-disk.bin']).toBe('disk-only');
  expect(states['work/README.md']).toBe('synced');
});

test('glob with sort: "modified" lists newest first; files without a time, and ties, keep path order', async () => {
  const ws = memoryWorkspace([{ name: 'work', backend: 'direct', files: { 'a.ts': 'x', 'b.ts': 'x', 'c.ts': 'x', 'd.ts': 'x' } }]);
  const m = ws.mounts[0];
  m.modified.set('a.ts', 100);
  m.modified.set('b.ts', 300);
  m.modified.set('c.ts', 100);
  const sorted = await data(ws as never, 'glob', { pattern: 'work/*.ts', sort: 'modified' });
  expect(sorted.files).toEqual(['work/b.ts', 'work/a.ts', 'work/c.ts', 'work/d.ts']);
  expect((await data(ws as never, 'glob', { pattern: 'work/*.ts' })).files).toEqual(['work/a.ts', 'work/b.ts', 'work/c.ts', 'work/d.ts']);
});
