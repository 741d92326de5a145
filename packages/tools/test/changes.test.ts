import { describe, expect, test } from 'bun:test';
import { handleToolCall } from '../src/index.ts';
import { bytesOf, memoryWorkspace } from './memory-workspace.ts';

const dec = new TextDecoder('utf-8', { ignoreBOM: true });

function workspace(backend: 'store' | 'direct', autoMaterialize = false) {
  return memoryWorkspace([{ name: 'work', backend, autoMaterialize, files: { 'a.txt': 'one\n', 'dir/b.txt': 'two\n' } }]);
}

async function run(ws: ReturnType<typeof workspace>, name: string, input: unknown) {
  return handleToolCall(ws, { name, input });
}

for (const backend of ['store', 'direct'] as const) {
  describe(`write and delete on a ${backend} mount`, () => {
    test('write replaces a file whole, exactly as given, creating parents', async () => {
      const ws = workspace(backend);
      expect(await run(ws, 'write', { path: 'work/new/deep/c.txt', content: 'x\r\ny' })).toEqual({
        success: true,
        data: { path: 'work/new/deep/c.txt', bytes: 4, lines: 2 },
      });
      const read = await run(ws, 'read', { path: 'work/new/deep/c.txt', offsetChars: 0 });
      expect(read.success && (read.data as { content: string }).content).toBe('x\r\ny');
    });

    test('write refuses the mount root, a directory and a lone surrogate', async () => {
      const ws = workspace(backend);
      expect(await run(ws, 'write', { path: 'work', content: '' })).toEqual({ success: false, error: "work is a mount's root; write needs a file inside it, as in work/a.txt." });
      expect(await run(ws, 'write', { path: 'work/dir', content: '' })).toEqual({ success: false, error: 'work/dir is a directory.' });
      const lone = await run(ws, 'write', { path: 'work/z.txt', content: 'a\ud800b' });
      expect(lone.success).toBe(false);
      if (!lone.success) expect(lone.error).toContain('lone surrogate');
    });

    test('move onto the directory that holds the file names the directory; into the path moved, itself', async () => {
      const ws = workspace(backend);
      expect(await run(ws, 'move', { from: 'work/dir/b.txt', to: 'work/dir' })).toEqual({
        success: false,
        error: 'work/dir is a directory; move takes the new path itself (work/dir/name for a file inside it).',
      });
      expect(await run(ws, 'move', { from: 'work/dir', to: 'work/dir/inner' })).toEqual({ success: false, error: 'move cannot put work/dir inside itself (work/dir/inner); choose a path outside it.' });
      expect(await run(ws, 'move', { from: 'work/a.txt', to: 'work/a.txt' })).toEqual({ success: false, error: "move's from and to are both work/a.txt; give the new path as to." });
      // Each refusal left both files where they were.
      for (const [path, text] of [['work/a.txt', 'one\n'], ['work/dir/b.txt', 'two\n']]) {
        const read = await run(ws, 'read', { path, offsetChars: 0 });
        expect(read.success && (read.data as { content: string }).content).toBe(text);
      }
    });

    test('delete removes one file; a missing one is the mount’s sentence', async () => {
      const ws = workspace(backend);
      expect(await run(ws, 'delete', { path: 'work/a.txt' })).toEqual({ success: true, data: { path: 'work/a.txt', deleted: true } });
      expect((await run(ws, 'read', { path: 'work/a.txt' })).success).toBe(false);
      expect(await run(ws, 'delete', { path: 'work/a.txt' })).toEqual({ success: false, error: 'work/a.txt does not exist; there is nothing to delete.' });
    });
  });
}

describe('drafts on a store-backed mount', () => {
  test('write changes the workspace copy; materialize pushes it and reports what it did', async () => {
    const ws = workspace('store');
    await run(ws, 'write', { path: 'work/a.txt', content: 'draft\n' });
    expect(dec.decode(ws.mounts[0].disk.get('a.txt'))).toBe('one\n');
    const status = await run(ws, 'status', {});
    expect(status.success && (status.data as { mounts: { drafts: string[] }[] }).mounts[0].drafts).toEqual(['work/a.txt']);
    expect(await run(ws, 'materialize', {})).toEqual({
      success: true,
      data: { mounts: [{ mount: 'work', written: ['work/a.txt'], unchanged: 1, deleted: [], skipped: [] }] },
    });
    expect(dec.decode(ws.mounts[0].disk.get('a.txt'))).toBe('draft\n');
  });

  test('autoMaterialize pushes a write at once', async () => {
    const ws = workspace('store', true);
    const r = await run(ws, 'write', { path: 'work/a.txt', content: 'now\n' });
    expect(r.success && (r.data as { report: unknown }).report).toEqual({ materialized: { written: ['work/a.txt'], unchanged: 0, deleted: [], skipped: [] } });
    expect(dec.decode(ws.mounts[0].disk.get('a.txt'))).toBe('now\n');
  });

  test('a path sync adopts disk for that path and says which workspace changes it gave up', async () => {
    const ws = workspace('store');
    await run(ws, 'write', { path: 'work/a.txt', content: 'draft\n' });
    ws.mounts[0].disk.set('a.txt', bytesOf('disk\n'));
    expect(await run(ws, 'sync', { path: 'work/a.txt' })).toEqual({
      success: true,
      data: { mounts: [{ mount: 'work', adopted: ['work/a.txt'], gaveUp: ['work/a.txt'] }] },
    });
    const read = await run(ws, 'read', { path: 'work/a.txt' });
    expect(read.success && (read.data as { content: string }).content).toBe('1\tdisk');
  });

  test('materialize skips a conflict unless forced', async () => {
    const ws = workspace('store');
    await run(ws, 'write', { path: 'work/a.txt', content: 'draft\n' });
    ws.mounts[0].disk.set('a.txt', bytesOf('disk\n'));
    await run(ws, 'read', { path: 'work/a.txt' });
    const skipped = await run(ws, 'materialize', { mount: 'work' });
    expect(skipped.success && (skipped.data as { mounts: { skipped: unknown[] }[] }).mounts[0].skipped).toHaveLength(1);
    const forced = await run(ws, 'materialize', { path: 'work/a.txt', force: true });
    expect(forced.success && (forced.data as { mounts: { written: string[] }[] }).mounts[0].written).toEqual(['work/a.txt']);
    expect(dec.decode(ws.mounts[0].disk.get('a.txt'))).toBe('draft\n');
  });
});

describe('sync, materialize and status choose their mounts', () => {
  const two = () =>
    memoryWorkspace([
      { name: 'work', backend: 'store', files: { 'a.txt': 'a' } },
      { name: 'disk', backend: 'direct', files: { 'b.txt': 'b' } },
    ]);

  test('status reports every mount, or the one named', async () => {
    const all = await handleToolCall(two(), { name: 'status', input: {} });
    expect(all.success && (all.data as { mounts: { mount: string; backend: string }[] }).mounts.map((m) => [m.mount, m.backend])).toEqual([
      ['work', 'store'],
      ['disk', 'direct'],
    ]);
    expect(await handleToolCall(two(), { name: 'status', input: { mount: 'disk' } })).toEqual({
      success: true,
      data: { mounts: [{ mount: 'disk', backend: 'direct', root: 'memory:/disk', readOnly: false }] },
    });
  });

  test('a path and a mount together, or an unknown mount, are refused', async () => {
    expect(await handleToolCall(two(), { name: 'sync', input: { path: 'work/a.txt', mount: 'work' } })).toEqual({
      success: false,
      error: 'sync takes a path or a mount, not both; a path already names its mount.',
    });
    expect(await handleToolCall(two(), { name: 'materialize', input: { mount: 'nope' } })).toEqual({
      success: false,
      error: 'There is no mount named "nope"; the mounts are work and disk.',
    });
  });

  test('sync of a path acts on that path only, in its own mount', async () => {
    const ws = two();
    let asked: [string, string | undefined][] = [];
    for (const m of ws.mounts) {
      const sync = m.sync.bind(m);
      m.sync = (p: string | undefined) => {
        asked.push([m.name, p]);
        return sync(p);
      };
    }
    await handleToolCall(ws, { name: 'sync', input: { path: 'work/a.txt' } });
    expect(asked).toEqual([['work', 'a.txt']]);
    asked = [];
    await handleToolCall(ws, { name: 'sync', input: {} });
    expect(asked).toEqual([['work', undefined], ['disk', undefined]]);
  });
});
