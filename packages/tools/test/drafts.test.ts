import { describe, expect, test } from 'bun:test';
import { type Workspace, handleToolCall, withDraftsNote } from '../src/index.ts';
import {
  directHasNoDrafts,
  draftsStatusNote,
  historyOffsetPast,
  keptDraftsNote,
  moveAcrossKinds,
  moveTargetsExist,
  noSuchVersion,
  nothingToDiscard,
  versionAbsent,
} from '../src/errors.ts';
import { type MemoryMountOptions, bytesOf, memoryWorkspace } from './memory-workspace.ts';

const dec = new TextDecoder('utf-8', { ignoreBOM: true });

function ws(...mounts: MemoryMountOptions[]) {
  return memoryWorkspace(mounts);
}
const work = (files: Record<string, string | Uint8Array>, more: Partial<MemoryMountOptions> = {}): MemoryMountOptions => ({ name: 'work', backend: 'store', files, ...more });

async function ok(w: Workspace, name: string, input: unknown, resultMaxChars?: number) {
  const r = await handleToolCall(w, { name, input, ...(resultMaxChars === undefined ? {} : { resultMaxChars }) });
  if (!r.success) throw new Error(`${name}: ${r.error}`);
  return r.data as Record<string, unknown>;
}

async function refused(w: Workspace, name: string, input: unknown): Promise<string> {
  const r = await handleToolCall(w, { name, input });
  if (r.success) throw new Error(`expected a refusal, got ${JSON.stringify(r.data)}`);
  return r.error;
}

type Listed = { id: string; source: string; size: number | null; linesChanged: number | null };

describe('history and restore', () => {
  test('versions come newest first with where they came from, size and lines changed; a deletion has no size', async () => {
    const w = ws(work({ 'a.txt': 'one\ntwo\n' }));
    await ok(w, 'edit', { path: 'work/a.txt', oldString: 'two', newString: 'TWO\nthree' });
    await ok(w, 'write', { path: 'work/a.txt', content: 'whole\n' });
    await ok(w, 'delete', { path: 'work/a.txt' });
    const { versions } = (await ok(w, 'history', { path: 'work/a.txt' })) as { versions: Listed[] };
    expect(versions.map((v) => [v.source, v.size, v.linesChanged])).toEqual([
      ['delete', null, 1],
      ['write', 6, 4],
      ['edit', 14, 3],
      ['disk', 8, 2],
    ]);
  });

  test('held to a budget, history pages by offset and the pages join up', async () => {
    const w = ws(work({ 'a.txt': '0\n' }));
    for (let i = 1; i <= 40; i++) await ok(w, 'write', { path: 'work/a.txt', content: `${i}\n` });
    const all = ((await ok(w, 'history', { path: 'work/a.txt' })) as { versions: Listed[] }).versions.map((v) => v.id);
    const seen: string[] = [];
    let offset: number | undefined = 1;
    while (offset !== undefined) {
      const page = (await ok(w, 'history', { path: 'work/a.txt', offset }, 800)) as { versions: Listed[]; note?: string };
      expect(JSON.stringify(page).length).toBeLessThanOrEqual(800);
      seen.push(...page.versions.map((v) => v.id));
      const next = /continue with offset=(\d+)/.exec(page.note ?? '');
      offset = next ? Number(next[1]) : undefined;
    }
    expect(seen).toEqual(all);
    expect(await refused(w, 'history', { path: 'work/a.txt', offset: 99 })).toBe(historyOffsetPast('work/a.txt', 99, 41));
  });

  test('read and restore give a version back byte for byte; disk is untouched until materialize', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0xff, 0x0a]);
    const w = ws(work({ 'a.txt': bytes }));
    await ok(w, 'write', { path: 'work/a.txt', content: 'replaced\n' });
    const { versions } = (await ok(w, 'history', { path: 'work/a.txt' })) as { versions: Listed[] };
    const first = versions[versions.length - 1].id;
    const page = await ok(w, 'read', { path: 'work/a.txt', version: first });
    expect(page.content).toBe('1\ta\n2\t\uFFFD');
    expect(page.note).toContain(`This page shows version "${first}", read-only`);
    expect(await ok(w, 'restore', { path: 'work/a.txt', version: first })).toEqual({ path: 'work/a.txt', version: first, bytes: 8, lines: 2 });
    const m = w.mounts[0];
    expect(Array.from(m.store.get('a.txt')!)).toEqual(Array.from(bytes));
    await ok(w, 'write', { path: 'work/a.txt', content: 'again\n' });
    await ok(w, 'restore', { path: 'work/a.txt', version: first });
    expect(dec.decode(m.disk.get('a.txt'))).toBe(dec.decode(bytes));
    await ok(w, 'materialize', {});
    expect(Array.from(m.disk.get('a.txt')!)).toEqual(Array.from(bytes));
  });

  test('restoring a deletion deletes the draft; unknown versions and absences are sentences', async () => {
    const w = ws(work({ 'a.txt': 'one\n' }));
    await ok(w, 'delete', { path: 'work/a.txt' });
    const [deletion] = ((await ok(w, 'history', { path: 'work/a.txt' })) as { versions: Listed[] }).versions;
    expect(await refused(w, 'read', { path: 'work/a.txt', version: deletion.id })).toBe(versionAbsent('work/a.txt', deletion.id));
    await ok(w, 'restore', { path: 'work/a.txt', version: 'disk' });
    expect(await ok(w, 'read', { path: 'work/a.txt' })).toMatchObject({ content: '1\tone' });
    expect(await ok(w, 'restore', { path: 'work/a.txt', version: deletion.id })).toEqual({ path: 'work/a.txt', version: deletion.id, deleted: true });
    expect(w.mounts[0].store.get('a.txt')).toBeNull();
    expect(await refused(w, 'restore', { path: 'work/a.txt', version: '999' })).toBe(noSuchVersion('work/a.txt', '999'));
    expect(await refused(w, 'read', { path: 'work/a.txt', version: 'nope' })).toBe(noSuchVersion('work/a.txt', 'nope'));
  });

  test('a direct mount keeps no versions, and says so', async () => {
    const w = ws({ name: 'work', backend: 'direct', files: { 'a.txt': 'x\n' } });
    for (const [name, input] of [['history', { path: 'work/a.txt' }], ['restore', { path: 'work/a.txt', version: '1' }], ['discard', { path: 'work/a.txt' }]] as const) {
      expect(await refused(w, name, input)).toBe(directHasNoDrafts('work', name));
    }
  });
});

describe('discard and sync', () => {
  test('discard drops a draft (kept in history) and the workspace reads disk’s copy; again, there is nothing to drop', async () => {
    const w = ws(work({ 'a.txt': 'disk\n' }));
    await ok(w, 'write', { path: 'work/a.txt', content: 'draft\n' });
    expect(await ok(w, 'discard', { path: 'work/a.txt' })).toEqual({ path: 'work/a.txt', discarded: ['work/a.txt'] });
    expect(await ok(w, 'read', { path: 'work/a.txt' })).toMatchObject({ content: '1\tdisk' });
    expect(await ok(w, 'discard', { path: 'work/a.txt' })).toEqual({ path: 'work/a.txt', discarded: [], note: nothingToDiscard('work/a.txt') });
    const { versions } = (await ok(w, 'history', { path: 'work/a.txt' })) as { versions: Listed[] };
    expect(versions.map((v) => v.source)).toEqual(['discard', 'write', 'disk']);
    expect(await ok(w, 'read', { path: 'work/a.txt', version: versions[1].id })).toMatchObject({ content: '1\tdraft' });
  });

  test('discard settles a conflict for disk’s copy, and drops every draft beneath a directory', async () => {
    const w = ws(work({ 'd/a.txt': 'a\n', 'd/b.txt': 'b\n', 'c.txt': 'c\n' }));
    await ok(w, 'write', { path: 'work/d/a.txt', content: 'A\n' });
    await ok(w, 'delete', { path: 'work/d/b.txt' });
    await ok(w, 'write', { path: 'work/c.txt', content: 'C\n' });
    w.mounts[0].disk.set('d/a.txt', bytesOf('person\n'));
    expect(await ok(w, 'discard', { path: 'work/d' })).toEqual({ path: 'work/d', discarded: ['work/d/a.txt', 'work/d/b.txt'] });
    expect(await ok(w, 'read', { path: 'work/d/a.txt' })).toMatchObject({ content: '1\tperson' });
    expect(w.mounts[0].conflicts.size).toBe(0);
    expect(await ok(w, 'status', {})).toMatchObject({ mounts: [{ drafts: ['work/c.txt'] }] });
  });

  test('sync keeps a draft disk has not changed and says so, naming discard; only a conflict is given up', async () => {
    const w = ws(work({ 'a.txt': 'a\n', 'b.txt': 'b\n' }));
    await ok(w, 'write', { path: 'work/a.txt', content: 'draft\n' });
    expect(await ok(w, 'sync', {})).toEqual({ mounts: [{ mount: 'work', adopted: [], gaveUp: [], drafts: ['work/a.txt'], note: keptDraftsNote }] });
    expect(await ok(w, 'read', { path: 'work/a.txt' })).toMatchObject({ content: '1\tdraft' });
    expect(keptDraftsNote).toContain('discard');
  });

  test('status gains the drafts sentence where a mount has drafts, deletions or conflicts', () => {
    expect(withDraftsNote({ mounts: [{ mount: 'work', drafts: [], conflicts: [] }] })).toEqual({ mounts: [{ mount: 'work', drafts: [], conflicts: [] }] });
    expect(withDraftsNote({ mounts: [{ mount: 'a' }, { mount: 'work', pendingDeletions: ['work/x'] }] })).toMatchObject({ note: draftsStatusNote });
    expect(draftsStatusNote).toContain('diff');
    expect(draftsStatusNote).toContain('discard');
  });
});

describe('move', () => {
  test('within a store-backed mount: a draft deletion and a draft creation, history following the path', async () => {
    const w = ws(work({ 'a.txt': 'one\n' }));
    await ok(w, 'edit', { path: 'work/a.txt', oldString: 'one', newString: 'ONE' });
    expect(await ok(w, 'move', { from: 'work/a.txt', to: 'work/b/c.txt' })).toEqual({ from: 'work/a.txt', to: 'work/b/c.txt', files: 1, overwritten: 0 });
    const m = w.mounts[0];
    expect(dec.decode(m.disk.get('a.txt'))).toBe('one\n');
    expect(m.store.get('a.txt')).toBeNull();
    const { versions } = (await ok(w, 'history', { path: 'work/b/c.txt' })) as { versions: Listed[] };
    expect(versions.map((v) => v.source)).toEqual(['move', 'edit', 'disk']);
    await ok(w, 'materialize', {});
    expect(m.disk.has('a.txt')).toBe(false);
    expect(dec.decode(m.disk.get('b/c.txt'))).toBe('ONE\n');
  });

  test('between two store-backed mounts; to a direct mount it is refused', async () => {
    const w = ws(work({ 'a.txt': 'one\n' }), { name: 'other', backend: 'store', files: {} }, { name: 'plain', backend: 'direct', files: {} });
    await ok(w, 'move', { from: 'work/a.txt', to: 'other/a.txt' });
    expect(dec.decode(w.mounts[1].store.get('a.txt')!)).toBe('one\n');
    expect(w.mounts[0].store.get('a.txt')).toBeNull();
    expect(await refused(w, 'move', { from: 'other/a.txt', to: 'plain/a.txt' })).toBe(moveAcrossKinds('other/a.txt', 'store', 'plain/a.txt', 'direct'));
  });

  test('all or none: where the source mount refuses, the copies already made in the target are taken back', async () => {
    const w = ws(work({ 'd/a.txt': 'a\n', 'd/b.txt': 'b\n' }), { name: 'other', backend: 'store', files: {} });
    const source = w.mounts[0];
    source.commit = async () => ({ ok: false, message: 'work/d/a.txt changed after it was read; read it again and redo the edit.' });
    const error = await refused(w, 'move', { from: 'work/d', to: 'other/d' });
    expect(error).toBe('Nothing was stored: work/d/a.txt changed after it was read; read it again and redo the edit. The changes already stored in other were taken back.');
    expect(w.mounts[1].store.get('d/a.txt') ?? null).toBeNull();
    expect(w.mounts[1].store.get('d/b.txt') ?? null).toBeNull();
  });

  test('a file changed between the move’s read and its commit is moved as it is then: the move is planned again, never over the change', async () => {
    for (const backend of ['store', 'direct'] as const) {
      const w = ws({ name: 'work', backend, files: { 'a.txt': 'one\n' } });
      const m = w.mounts[0];
      const read = m.read.bind(m);
      let reads = 0;
      m.read = async (path: string) => {
        const found = await read(path);
        // A person (or another call) writes a.txt just after the move read it.
        if (path === 'a.txt' && reads++ === 0) await m.commit([{ path: 'a.txt', bytes: bytesOf('changed\n') }]);
        return found;
      };
      const commits = m.calls.commit ?? 0;
      expect(await ok(w, 'move', { from: 'work/a.txt', to: 'work/b.txt' })).toMatchObject({ files: 1, overwritten: 0 });
      const held = backend === 'store' ? m.store : m.disk;
      expect(dec.decode(held.get('b.txt')!)).toBe('changed\n');
      expect(held.get('a.txt') ?? null).toBeNull();
      // The person's commit, the refused first plan, the second plan's.
      expect((m.calls.commit ?? 0) - commits).toBe(3);
    }
  });

  test('read-only mounts refuse move, restore and discard', async () => {
    const w = ws(work({ 'a.txt': 'x\n' }, { readOnly: true }));
    expect(await refused(w, 'move', { from: 'work/a.txt', to: 'work/b.txt' })).toContain('read-only; move cannot');
    expect(await refused(w, 'restore', { path: 'work/a.txt', version: 'disk' })).toContain('read-only; restore cannot');
    expect(await refused(w, 'discard', { path: 'work/a.txt' })).toContain('read-only; discard cannot');
  });

  test('an existing target is named and refused unless overwrite; every file of a directory moves', async () => {
    const w = ws({ name: 'work', backend: 'direct', files: { 'src/a.ts': 'a', 'src/b/c.ts': 'c', 'lib/a.ts': 'old' } });
    expect(await refused(w, 'move', { from: 'work/src', to: 'work/lib' })).toBe(moveTargetsExist(['work/lib/a.ts']));
    expect(await ok(w, 'move', { from: 'work/src', to: 'work/lib', overwrite: true })).toEqual({ from: 'work/src', to: 'work/lib', files: 2, overwritten: 1 });
    expect([...w.mounts[0].disk.keys()].sort()).toEqual(['lib/a.ts', 'lib/b/c.ts']);
  });
});
