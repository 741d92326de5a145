/**
 * A conflict end to end through the real `ws mcp` (the SDK's client over stdio): the
 * agent drafts, a person saves the same file in an editor, the agent reads disk's
 * version and the diff, writes a merged draft and materializes with force — and disk
 * holds the merge, the person's edit kept. Then history tells the story, newest first.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { type StdioSession, type Workspace, connectStdio, makeWorkspace, mcpCall } from './ws-process.ts';

setDefaultTimeout(120_000);

const NOTES = 'title\r\nfirst point\r\nsecond point\r\n';

describe('a conflict settled by merging, over MCP on stdio', () => {
  let w: Workspace;
  let session: StdioSession;
  beforeAll(async () => {
    w = makeWorkspace([{ name: 'work', backend: 'store', files: { 'notes.txt': NOTES, 'other.txt': 'other\n' } }]);
    session = await connectStdio(w.config, w.dir);
  });
  afterAll(async () => {
    await session.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await mcpCall(session.client, name, args);
    if (r.isError) throw new Error(`${name}: ${r.text}`);
    return r.data as Record<string, unknown>;
  };

  test('the agent drafts, a person saves, the agent merges both and forces; disk holds the merge', async () => {
    await call('read', { path: 'work/notes.txt' });
    await call('edit', { path: 'work/notes.txt', oldString: 'first point', newString: 'first point, sharpened' });
    // The person's editor saves the file on disk, behind ws's back.
    writeFileSync(w.disk('work/notes.txt'), 'title\r\nfirst point\r\nsecond point\r\nthird point from the person\r\n');

    const read = await call('read', { path: 'work/notes.txt' });
    expect(read.content).toBe('1\ttitle\n2\tfirst point, sharpened\n3\tsecond point');
    expect(read.note).toContain('in conflict');
    expect(read.note).toContain('`discard`');
    expect(read.note).toContain('`materialize` with force');

    const disk = await call('read', { path: 'work/notes.txt', version: 'disk' });
    expect(disk.content).toBe('1\ttitle\n2\tfirst point\n3\tsecond point\n4\tthird point from the person');

    const diff = (await call('diff', { path: 'work/notes.txt' })).diff as string;
    expect(diff.split('\n').filter((l) => l.startsWith('---') || l.startsWith('+++'))).toEqual([
      '--- work/notes.txt (agreed)',
      '+++ work/notes.txt (workspace)',
      '--- work/notes.txt (agreed)',
      '+++ work/notes.txt (disk)',
    ]);
    expect(diff).toContain('-first point\n+first point, sharpened');
    expect(diff).toContain('+third point from the person');

    // Both changes in one draft, CRLF as the file has it; then written over disk's copy.
    await call('edit', { path: 'work/notes.txt', oldString: 'second point', newString: 'second point\nthird point from the person' });
    const pushed = (await call('materialize', { path: 'work/notes.txt', force: true })).mounts as { written: string[]; conflicts: unknown[] }[];
    expect(pushed[0].written).toEqual(['work/notes.txt']);
    // Settled by the forced write: not offered again with ways out that no longer apply.
    expect(pushed[0].conflicts).toEqual([]);
    expect(readFileSync(w.disk('work/notes.txt'), 'utf8')).toBe('title\r\nfirst point, sharpened\r\nsecond point\r\nthird point from the person\r\n');

    expect((await call('diff', { path: 'work/notes.txt' })).diff).toBe('');
    const status = (await call('status', {})).mounts as { conflicts: unknown[]; drafts: unknown[] }[];
    expect([status[0].conflicts, status[0].drafts]).toEqual([[], []]);
    const history = (await call('history', { path: 'work/notes.txt' })).versions as { id: string; source: string }[];
    // The person's save the forced materialize wrote over stays in history, just before it.
    expect(history.map((v) => v.source)).toEqual(['materialize', 'disk', 'edit', 'edit', 'disk']);
    const theirs = history[1];
    expect((await call('read', { path: 'work/notes.txt', version: theirs.id })).content).toBe('1\ttitle\n2\tfirst point\n3\tsecond point\n4\tthird point from the person');
  });

  test('sync keeps a draft disk has not changed and names discard; discard drops it and disk is untouched', async () => {
    await call('write', { path: 'work/other.txt', content: 'agent\n' });
    const synced = (await call('sync', { path: 'work/other.txt' })).mounts as { drafts?: string[]; note?: string; gaveUp: unknown[] }[];
    expect(synced[0].gaveUp).toEqual([]);
    expect(synced[0].drafts).toEqual(['work/other.txt']);
    expect(synced[0].note).toContain('discard');
    expect(await call('discard', { path: 'work/other.txt' })).toEqual({ path: 'work/other.txt', discarded: ['work/other.txt'] });
    expect((await call('read', { path: 'work/other.txt' })).content).toBe('1\tother');
    expect(readFileSync(w.disk('work/other.txt'), 'utf8')).toBe('other\n');
  });
});
