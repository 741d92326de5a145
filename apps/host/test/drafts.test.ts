/**
 * The drafts tools on the real store-backed mount (bun:sqlite store, real disk), through
 * the tools as a model calls them: history and its sources, versions read back byte for
 * byte, restore across branch switches, discard, and the sync rule (a draft disk has
 * not changed is kept; only a conflict is given up, and stays in history).
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DiskPort, wayOutSentence } from '@ws/reconcile';
import { handleToolCall, keptDraftsNote, noAgreedVersion, noSuchVersion } from '@ws/tools';
import { tempDir } from './fixtures.ts';
import { openTestHost, storeHost, testConfig, writeFiles } from './host-fixtures.ts';

type Data = Record<string, unknown>;
type Shown = { id: string; source: string; size: number | null; at: string };

async function opened(files: Record<string, string | Uint8Array>, mount: Record<string, unknown> = {}) {
  const made = await storeHost({ files, mount });
  const call = async (name: string, input: unknown): Promise<Data> => {
    const r = await handleToolCall(made.host.workspace, { name, input });
    if (!r.success) throw new Error(`${name} ${JSON.stringify(input)}: ${r.error}`);
    return r.data as Data;
  };
  const refused = async (name: string, input: unknown): Promise<string> => {
    const r = await handleToolCall(made.host.workspace, { name, input });
    if (r.success) throw new Error(`${name} ${JSON.stringify(input)} succeeded: ${JSON.stringify(r.data)}`);
    return r.error;
  };
  const versions = async (path: string) => (await call('history', { path })).versions as Shown[];
  const content = async (path: string, version?: string) => {
    const r = await call('read', { path, offsetChars: 0, ...(version ? { version } : {}) });
    return r.content as string;
  };
  const onDisk = (path: string) => (existsSync(join(made.root, path)) ? readFileSync(join(made.root, path), 'utf8') : null);
  return { ...made, call, refused, versions, content, onDisk };
}

describe('history on the real store', () => {
  test('each change is a version with its source, newest first: disk, write, edit, materialize, a person’s save, delete', async () => {
    const w = await opened({ 'a.txt': 'one\n' });
    await w.call('read', { path: 'work/a.txt' });
    await w.call('write', { path: 'work/a.txt', content: 'two\n' });
    await w.call('edit', { path: 'work/a.txt', oldString: 'two', newString: 'three' });
    await w.call('materialize', { path: 'work/a.txt' });
    writeFileSync(join(w.root, 'a.txt'), 'person\n');
    await w.call('delete', { path: 'work/a.txt' }); // a deletion takes no disk change in first
    const listed = await w.versions('work/a.txt');
    expect(listed.map((v) => [v.source, v.size])).toEqual([
      ['delete', null],
      ['materialize', 6],
      ['edit', 6],
      ['write', 4],
      ['disk', 4],
    ]);
    expect(listed.every((v) => /^\d+$/.test(v.id) && !Number.isNaN(Date.parse(v.at)))).toBe(true);
    expect(await w.content('work/a.txt', listed[1].id)).toBe('three\n');
    expect(await w.content('work/a.txt', listed[4].id)).toBe('one\n');
    // The person's save is taken in by the next check that looks: a read of disk's version changes nothing.
    expect(await w.content('work/a.txt', 'disk')).toBe('person\n');
    expect((await w.versions('work/a.txt')).length).toBe(5);
    w.host.close();
  });

  test('a version reads back byte for byte: CRLF, a BOM and bytes that are not UTF-8', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0xff, 0xfe, 0x0d, 0x0a, 0x62]);
    const w = await opened({ 'odd.txt': bytes });
    await w.call('edit', { path: 'work/odd.txt', oldString: 'a', newString: 'A' });
    const [edited, taken] = await w.versions('work/odd.txt');
    expect([edited.source, taken.source]).toEqual(['edit', 'disk']);
    const v = w.host.store!.history('work', 'odd.txt').find((x) => String(x.seq) === taken.id)!;
    expect([...w.host.store!.getBlob(v.hash!)!]).toEqual([...bytes]);
    await w.call('restore', { path: 'work/odd.txt', version: taken.id });
    await w.call('materialize', { path: 'work/odd.txt' });
    expect([...readFileSync(join(w.root, 'odd.txt'))]).toEqual([...bytes]);
    w.host.close();
  });

  test('history follows a move: the moved file lists its versions from before the move', async () => {
    const w = await opened({ 'a.txt': 'one\n' });
    await w.call('edit', { path: 'work/a.txt', oldString: 'one', newString: 'two' });
    await w.call('move', { from: 'work/a.txt', to: 'work/sub/b.txt' });
    expect((await w.versions('work/sub/b.txt')).map((v) => v.source)).toEqual(['move', 'edit', 'disk']);
    expect((await w.versions('work/a.txt')).map((v) => [v.source, v.size])).toEqual([['move', null], ['edit', 4], ['disk', 4]]);
    const older = (await w.versions('work/sub/b.txt'))[2];
    expect(await w.content('work/sub/b.txt', older.id)).toBe('one\n');
    w.host.close();
  });

  test('history of a directory or the mount is refused in one sentence; a file never stored has none; a bad id is named', async () => {
    const w = await opened({ 'dir/a.txt': 'a\n' });
    expect(await w.refused('history', { path: 'work/dir' })).toContain('is a directory');
    expect(await w.call('history', { path: 'work/none.txt' })).toMatchObject({ versions: [] });
    expect(await w.refused('read', { path: 'work/dir/a.txt', version: '999999' })).toBe(noSuchVersion('work/dir/a.txt', '999999'));
    for (const bad of ['12abc', '0', '-1', '01', '1e3', '9'.repeat(40)]) {
      expect(await w.refused('read', { path: 'work/dir/a.txt', version: bad })).toBe(noSuchVersion('work/dir/a.txt', bad));
    }
    const huge = await w.refused('read', { path: 'work/dir/a.txt', version: 'x'.repeat(100_000) });
    expect(huge.length).toBeLessThan(400);
    expect(await w.refused('read', { path: 'work/none.txt', version: 'agreed' })).toBe(noAgreedVersion('work/none.txt'));
    w.host.close();
  });
});

describe('restore across branch switches', () => {
  test('a branch switch is a version; a version from another branch restores byte for byte; disk waits for materialize', async () => {
    const root = tempDir();
    writeFiles(root, { 'a.txt': 'base\n' });
    const config = testConfig(root, [{ name: 'work', path: '.' }]);
    let host = await openTestHost(config, { watch: false });
    const call = async (name: string, input: unknown) => {
      const r = await handleToolCall(host.workspace, { name, input });
      if (!r.success) throw new Error(r.error);
      return r.data as Data;
    };
    await call('read', { path: 'work/a.txt' });
    expect((await host.branches.create('feature')).ok).toBe(true);
    expect((await host.branches.switchTo('feature')).ok).toBe(true);
    await call('write', { path: 'work/a.txt', content: 'feature\r\nwork\r\n' });
    expect((await host.branches.switchTo('main')).ok).toBe(true);
    host.close();
    host = await openTestHost(config, { watch: false }); // a new process sees the same history
    const listed = (await call('history', { path: 'work/a.txt' })).versions as Shown[];
    expect(listed.map((v) => v.source)).toEqual(['branch-switch', 'write', 'disk']);
    expect((await call('read', { path: 'work/a.txt', offsetChars: 0 })).content).toBe('base\n');
    await call('restore', { path: 'work/a.txt', version: listed[1].id });
    expect((await call('read', { path: 'work/a.txt', offsetChars: 0 })).content).toBe('feature\r\nwork\r\n');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('base\n');
    await call('materialize', { path: 'work/a.txt' });
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('feature\r\nwork\r\n');
    expect(((await call('history', { path: 'work/a.txt' })).versions as Shown[]).map((v) => v.source).slice(0, 2)).toEqual(['materialize', 'restore']);
    host.close();
  });
});

describe('discard on the real store', () => {
  test('drops drafts, deletions and conflicts beneath a directory for disk’s copy; disk untouched; the dropped text restores', async () => {
    const w = await opened({ 'd/a.txt': 'a\n', 'd/b.txt': 'b\n', 'd/c.txt': 'c\n', 'keep.txt': 'k\n' });
    await w.call('ls', { path: 'work', recursive: true });
    await w.call('write', { path: 'work/d/a.txt', content: 'draft a\n' });
    await w.call('delete', { path: 'work/d/b.txt' });
    await w.call('write', { path: 'work/d/c.txt', content: 'draft c\n' });
    await w.call('write', { path: 'work/d/new.txt', content: 'new\n' });
    await w.call('write', { path: 'work/keep.txt', content: 'draft k\n' });
    writeFileSync(join(w.root, 'd/c.txt'), 'person c\n');
    const dropped = await w.call('discard', { path: 'work/d' });
    expect(dropped).toEqual({ path: 'work/d', discarded: ['work/d/a.txt', 'work/d/b.txt', 'work/d/c.txt', 'work/d/new.txt'] });
    expect(await w.content('work/d/a.txt')).toBe('a\n');
    expect(await w.content('work/d/b.txt')).toBe('b\n');
    expect(await w.content('work/d/c.txt')).toBe('person c\n');
    expect(await w.refused('read', { path: 'work/d/new.txt' })).toContain('does not exist');
    expect(await w.content('work/keep.txt')).toBe('draft k\n');
    expect(['d/a.txt', 'd/b.txt', 'd/c.txt', 'd/new.txt'].map(w.onDisk)).toEqual(['a\n', 'b\n', 'person c\n', null]);
    const c = await w.versions('work/d/c.txt');
    expect(c.map((v) => v.source)).toEqual(['discard', 'write', 'disk']);
    await w.call('restore', { path: 'work/d/c.txt', version: c[1].id });
    expect(await w.content('work/d/c.txt')).toBe('draft c\n');
    expect(await w.call('discard', { path: 'work/d/a.txt' })).toMatchObject({ discarded: [] });
    w.host.close();
  });

  test('a read-only mount refuses discard and changes nothing', async () => {
    const w = await opened({ 'a.txt': 'a\n' }, { mode: 'read-only' });
    expect(await w.refused('discard', { path: 'work/a.txt' })).toContain('read-only');
    w.host.close();
  });

  test('where disk can’t be checked, discard goes back to the last agreement; with none recorded, the draft is kept and said', async () => {
    let hidden = false;
    const unobservable = { kind: 'unobservable' as const, reason: 'permission denied' };
    const { host } = await storeHost({
      files: { 'a.txt': 'agreed\n' },
      wrapDisk: (_mount, disk: DiskPort): DiskPort => ({
        ...disk,
        stat: async (path) => (hidden ? unobservable : disk.stat(path)),
        read: async (path, max) => (hidden ? unobservable : disk.read(path, max)),
      }),
    });
    const call = async (name: string, input: unknown) => {
      const r = await handleToolCall(host.workspace, { name, input });
      if (!r.success) throw new Error(r.error);
      return r.data as Data;
    };
    await call('read', { path: 'work/a.txt' });
    await call('write', { path: 'work/a.txt', content: 'draft\n' });
    await call('write', { path: 'work/new.txt', content: 'new\n' });
    hidden = true;
    const dropped = await call('discard', { path: 'work/a.txt' });
    expect(dropped).toEqual({ path: 'work/a.txt', discarded: ['work/a.txt'] });
    const held = host.store!.read('main', 'work', 'a.txt').tree;
    expect(held && new TextDecoder().decode(host.store!.getBlob(held.hash)!)).toBe('agreed\n');
    const kept = await call('discard', { path: 'work/new.txt' });
    expect(kept).toMatchObject({ discarded: [], report: { notDiscarded: [{ path: 'new.txt' }] } });
    host.close();
  });
});

describe('sync keeps drafts', () => {
  test('a draft disk has not changed is kept and listed with the sentence naming discard; a conflict is given up and stays in history', async () => {
    const w = await opened({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    await w.call('ls', { path: 'work' });
    await w.call('write', { path: 'work/a.txt', content: 'draft a\n' });
    await w.call('write', { path: 'work/b.txt', content: 'draft b\n' });
    writeFileSync(join(w.root, 'b.txt'), 'person b\n');
    const one = (await w.call('sync', { path: 'work/a.txt' })).mounts as Data[];
    expect(one[0]).toMatchObject({ scope: 'work/a.txt', gaveUp: [], drafts: ['work/a.txt'], note: keptDraftsNote });
    expect(await w.content('work/a.txt')).toBe('draft a\n');
    const read = await w.call('read', { path: 'work/b.txt' });
    expect(read.note).toContain(wayOutSentence.discardKeepsDisk);
    const all = (await w.call('sync', {})).mounts as Data[];
    expect(all[0]).toMatchObject({ scope: '(whole mount)', gaveUp: [{ path: 'work/b.txt', was: 'conflict', conflict: 'both-changed' }], drafts: ['work/a.txt'] });
    expect(await w.content('work/b.txt')).toBe('person b\n');
    const b = await w.versions('work/b.txt');
    expect(b.map((v) => v.source)).toEqual(['disk', 'write', 'disk']);
    expect(await w.content('work/b.txt', b[1].id)).toBe('draft b\n');
    expect(await w.content('work/a.txt')).toBe('draft a\n');
    w.host.close();
  });
});

describe('a file where the workspace or disk has a directory, or inside a file', () => {
  test('write, move and delete refuse it with one sentence; nothing is stored, disk untouched, and a file beside them still goes in', async () => {
    const w = await opened({ 'src/a.ts': 'a\n', 'src/big.bin': new Uint8Array([0, 1, 2, 3]), 'docs/readme.md': 'r\n' });
    await w.call('ls', { path: 'work', recursive: true });
    // A directory only a draft holds counts too.
    await w.call('write', { path: 'work/drafted/one.txt', content: '1\n' });
    const refusals = [
      ['write', { path: 'work/src', content: 'x' }, 'work/src is a directory, so no file can take its place; nothing was stored. Name a file inside it (work/src/…).'],
      ['write', { path: 'work/drafted', content: 'x' }, 'work/drafted is a directory, so no file can take its place; nothing was stored. Name a file inside it (work/drafted/…).'],
      ['write', { path: 'work/src/a.ts/inner.txt', content: 'y' }, 'work/src/a.ts is a file, so work/src/a.ts/inner.txt cannot be made inside it; nothing was stored.'],
      // A binary file is on disk, not in the workspace's text: disk says it is a file.
      ['write', { path: 'work/src/big.bin/x/y.txt', content: 'y' }, 'work/src/big.bin is a file, so work/src/big.bin/x/y.txt cannot be made inside it; nothing was stored.'],
      ['write', { path: 'work/drafted/one.txt/two.txt', content: 'y' }, 'work/drafted/one.txt is a file, so work/drafted/one.txt/two.txt cannot be made inside it; nothing was stored.'],
      ['move', { from: 'work/docs/readme.md', to: 'work/src/a.ts/readme.md' }, 'work/src/a.ts is a file, so work/src/a.ts/readme.md cannot be made inside it; nothing was stored.'],
      // A directory is no file to delete, whether disk or only a draft holds it.
      ['delete', { path: 'work/src' }, 'work/src is a directory; delete removes one file: name a file inside it (work/src/…).'],
      ['delete', { path: 'work/drafted' }, 'work/drafted is a directory; delete removes one file: name a file inside it (work/drafted/…).'],
    ] as const;
    // The sentence alone: it says nothing was stored, so it is not prefixed with that again.
    for (const [tool, input, sentence] of refusals) expect({ tool, input, error: await w.refused(tool, input) }).toEqual({ tool, input, error: sentence });
    const status = (await w.call('status', {})).mounts as { drafts: string[]; pendingDeletions: string[] }[];
    expect({ drafts: status[0].drafts, deletions: status[0].pendingDeletions }).toEqual({ drafts: ['work/drafted/one.txt'], deletions: [] });
    expect(['src/a.ts', 'docs/readme.md'].map(w.onDisk)).toEqual(['a\n', 'r\n']);
    expect(existsSync(join(w.root, 'src/a.ts/inner.txt'))).toBe(false);
    // Beside them, and in a new directory, a file goes in as ever.
    await w.call('write', { path: 'work/src/b.ts', content: 'b\n' });
    await w.call('write', { path: 'work/src/new/deeper/c.ts', content: 'c\n' });
    expect(await w.content('work/src/new/deeper/c.ts')).toBe('c\n');
    w.host.close();
  });
});
