/**
 * The read's disk check (`@ws/reconcile` README, "What a read shows") on a store-backed mount, each answer reached through
 * real disk changes under a real SQLite store.
 */
import { describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSentence, wayOutSentence } from '@ws/reconcile';
import { enc, tempDir } from './fixtures.ts';
import { TEST_ENGINE } from './engine.ts';
import { openTestHost, storeHost, testConfig, textOf, writeFiles } from './host-fixtures.ts';

const draft = (text: string) => [{ path: 'a.txt', bytes: enc(text) }];

describe('the read\u2019s disk check', () => {
  test('a new disk file is taken in and read without a note', async () => {
    const { mount } = await storeHost({ files: { 'a.txt': 'one\n' } });
    const r = await mount.read('a.txt');
    expect(textOf(r)).toBe('one\n');
    expect(r.kind === 'file' && r.notes).toEqual([]);
  });

  test('disk\u2019s newer text is taken in and the note says the read shows disk\u2019s text', async () => {
    const { mount, root } = await storeHost({ files: { 'a.txt': 'one\n' } });
    await mount.read('a.txt');
    writeFileSync(join(root, 'a.txt'), 'two\n');
    const r = await mount.read('a.txt');
    expect(textOf(r)).toBe('two\n');
    expect(r.kind === 'file' && r.notes).toEqual([readSentence.tookDiskChange]);
  });

  test('a mode change alone is taken in with no note', async () => {
    const { mount, root } = await storeHost({ files: { 'a.txt': 'one\n' } });
    await mount.read('a.txt');
    chmodSync(join(root, 'a.txt'), 0o755);
    const r = await mount.read('a.txt');
    expect(textOf(r)).toBe('one\n');
    expect(r.kind === 'file' && r.notes).toEqual([]);
  });

  test('disk\u2019s deletion is taken in and the answer says so', async () => {
    const { mount, root } = await storeHost({ files: { 'a.txt': 'one\n' } });
    await mount.read('a.txt');
    rmSync(join(root, 'a.txt'));
    expect(await mount.read('a.txt')).toEqual({ kind: 'answer', message: readSentence.deletedOnDisk });
    expect(await mount.read('a.txt')).toEqual({ kind: 'missing' });
  });

  test('a file disk made binary is on disk but no longer stored', async () => {
    const { mount, root } = await storeHost({ files: { 'a.txt': 'one\n' } });
    await mount.read('a.txt');
    writeFileSync(join(root, 'a.txt'), new Uint8Array([0, 1, 2]));
    expect(await mount.read('a.txt')).toEqual({ kind: 'answer', message: readSentence.notStored('binary', true) });
  });

  test('a file disk made too large is no longer stored: it reads as a large file, and says the workspace dropped it', async () => {
    const { mount, root } = await storeHost({ files: { 'a.txt': 'one\n' }, mount: { maxFileSize: 10 } });
    await mount.read('a.txt');
    writeFileSync(join(root, 'a.txt'), 'x'.repeat(11));
    const got = await mount.read('a.txt');
    if (got.kind !== 'large') throw new Error(`expected a large file, got ${got.kind}`);
    expect(got.size).toBe(11);
    expect(got.notes).toEqual([readSentence.notStored('too-large', true)]);
    expect(new TextDecoder().decode((await got.range(0, 100)) ?? new Uint8Array())).toBe('x'.repeat(11));
  });

  test('a binary file the workspace never held reads as binary', async () => {
    const { mount } = await storeHost({ files: { 'img.bin': new Uint8Array([0x89, 0, 1]) } });
    expect(await mount.read('img.bin')).toEqual({ kind: 'binary', size: 3, bytes: new Uint8Array([0x89, 0, 1]) });
  });

  test('a draft disk changed too is a conflict: the read shows the draft and both ways out', async () => {
    const { mount, root } = await storeHost({ files: { 'a.txt': 'one\n' } });
    await mount.read('a.txt');
    expect((await mount.commit(draft('agent\n'))).ok).toBe(true);
    writeFileSync(join(root, 'a.txt'), 'person\n');
    const r = await mount.read('a.txt');
    expect(textOf(r)).toBe('agent\n');
    const note = r.kind === 'file' ? r.notes.join(' ') : '';
    expect(note).toContain('conflict');
    expect(note).toContain(wayOutSentence.discardKeepsDisk);
    expect(note).toContain(wayOutSentence.forceWrites);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('person\n');
  });

  test('a draft disk deleted is a conflict whose ways out take the deletion or write the draft', async () => {
    const { mount, root } = await storeHost({ files: { 'a.txt': 'one\n' } });
    await mount.read('a.txt');
    await mount.commit(draft('agent\n'));
    rmSync(join(root, 'a.txt'));
    const r = await mount.read('a.txt');
    expect(textOf(r)).toBe('agent\n');
    const note = r.kind === 'file' ? r.notes.join(' ') : '';
    expect(note).toContain(wayOutSentence.discardTakesDeletion);
    expect(note).toContain(wayOutSentence.forceWrites);
    expect(note).not.toContain(wayOutSentence.discardKeepsDisk);
  });

  test('a both-changed conflict that disk then deleted offers the deletion\u2019s way out', async () => {
    const { mount, root } = await storeHost({ files: { 'a.txt': 'one\n' } });
    await mount.read('a.txt');
    await mount.commit(draft('agent\n'));
    writeFileSync(join(root, 'a.txt'), 'person\n');
    const first = await mount.read('a.txt');
    expect(first.kind === 'file' && first.notes.join(' ')).toContain(wayOutSentence.discardKeepsDisk);
    rmSync(join(root, 'a.txt'));
    const r = await mount.read('a.txt');
    const note = r.kind === 'file' ? r.notes.join(' ') : '';
    expect(note).toContain(wayOutSentence.discardTakesDeletion);
    expect(note).not.toContain(wayOutSentence.discardKeepsDisk);
  });

  test('on a read-only mount a conflict does not offer the forced materialize', async () => {
    const root = tempDir();
    writeFiles(root, { 'a.txt': 'one\n' });
    const storePath = join(tempDir('ws-store-'), 'store.sqlite');
    const rw = await openTestHost(testConfig(root, [{ name: 'work', path: '.' }], storePath), { watch: false });
    await rw.workspace.mounts[0].read('a.txt');
    await rw.workspace.mounts[0].commit(draft('agent\n'));
    rw.close();
    writeFileSync(join(root, 'a.txt'), 'person\n');
    const ro = await openTestHost(testConfig(root, [{ name: 'work', path: '.', mode: 'read-only' }], storePath), { watch: false });
    const r = await ro.workspace.mounts[0].read('a.txt');
    const note = r.kind === 'file' ? r.notes.join(' ') : '';
    expect(note).toContain(wayOutSentence.syncKeepsDisk);
    expect(note).not.toContain('materialize');
    ro.close();
  });

  test('a held file disk can no longer check (a directory where it was) is unverified and shows the workspace\u2019s copy', async () => {
    const { mount, root } = await storeHost({ files: { 'a.txt': 'one\n' } });
    await mount.read('a.txt');
    rmSync(join(root, 'a.txt'));
    mkdirSync(join(root, 'a.txt'));
    const r = await mount.read('a.txt');
    expect(textOf(r)).toBe('one\n');
    expect(r.kind === 'file' && r.notes.join(' ')).toContain('This read shows the workspace\u2019s copy'.replace('\u2019', "'"));
  });

  test('a held file replaced by something that is not a regular file is unverified', async () => {
    const { mount, root } = await storeHost({ files: { 'a.txt': 'one\n' } });
    await mount.read('a.txt');
    rmSync(join(root, 'a.txt'));
    Bun.spawnSync(['mkfifo', join(root, 'a.txt')]);
    const r = await mount.read('a.txt');
    expect(textOf(r)).toBe('one\n');
    expect(r.kind === 'file' && r.notes[0]).toStartWith('Disk could not be checked');
  });

  test('a root that is gone makes held files unverified, never deleted', async () => {
    const { mount, root } = await storeHost({ files: { 'a.txt': 'one\n' } });
    await mount.read('a.txt');
    renameSync(root, `${root}-moved`);
    const r = await mount.read('a.txt');
    expect(textOf(r)).toBe('one\n');
    expect(r.kind === 'file' && r.notes.join(' ')).toContain('mount root is unavailable');
    renameSync(`${root}-moved`, root);
    const back = await mount.read('a.txt');
    expect(back.kind === 'file' && back.notes).toEqual([]);
  });

  test('a path the workspace does not hold, with disk unreadable, is answered as not in the workspace', async () => {
    const { mount, root } = await storeHost({ files: {} });
    Bun.spawnSync(['mkfifo', join(root, 'p')]);
    const r = await mount.read('p');
    expect(r.kind).toBe('answer');
    expect(r.kind === 'answer' && r.message).toStartWith("This file isn't in the workspace, and disk could not be checked.");
  });

  test('a workspace copy with no disk copy and no record of where it came from says so', async () => {
    const { mount, host } = await storeHost({ files: {} });
    const store = host.store!;
    const bytes = enc('orphan\n');
    const hash = new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
    store.putBlob(hash, bytes);
    store.setTree(store.selectedBranch(), 'work', 'orphan.txt', { hash, size: bytes.length, mode: null }, { source: 'write' });
    store.barrier();
    const r = await mount.read('orphan.txt');
    expect(textOf(r)).toBe('orphan\n');
    // On a shared store a file in the tree that this host holds no record of is another
    // host's draft (the host README, "A shared store on PostgreSQL"): it reads as a draft.
    expect(r.kind === 'file' && r.notes).toEqual(TEST_ENGINE === 'sqlite' ? [readSentence.provenanceUnknown] : []);
  });

  test('when the branch switches during every disk read, the check gives up and says read again', async () => {
    let switching = false;
    const { mount, host } = await storeHost({
      files: { 'a.txt': 'one\n' },
      wrapDisk: (_m, disk) => ({
        ...disk,
        stat: async (path) => {
          if (switching) flip();
          return disk.stat(path);
        },
        read: async (path, max) => {
          if (switching) flip();
          return disk.read(path, max);
        },
        locateRoot: async () => {
          if (switching) flip();
          return disk.locateRoot();
        },
      }),
    });
    const store = host.store!;
    // Every disk call moves to a branch no gather has started on, as a person switching
    // branches again and again would (each copied from the last, so each holds a.txt).
    let n = 0;
    const flip = () => {
      n++;
      store.createBranch(`b${n}`);
      store.selectBranch(`b${n}`);
    };
    await mount.read('a.txt');
    switching = true;
    const held = await mount.read('a.txt');
    expect(textOf(held)).toBe('one\n');
    expect(held.kind === 'file' && held.notes).toEqual([readSentence.gaveUp]);
    const notHeld = await mount.read('b.txt');
    expect(notHeld).toEqual({ kind: 'answer', message: readSentence.notHeldGaveUp });
  });

  test('a held file beneath an ignored directory is checked by name: its change, then its deletion', async () => {
    const { mount, root } = await storeHost({ files: { 'build/out.txt': 'v1\n' }, mount: { ignore: ['build/'] } });
    expect(textOf(await mount.read('build/out.txt'))).toBe('v1\n');
    writeFileSync(join(root, 'build/out.txt'), 'v2\n');
    const changed = await mount.read('build/out.txt');
    expect(textOf(changed)).toBe('v2\n');
    expect(changed.kind === 'file' && changed.notes).toEqual([readSentence.tookDiskChange]);
    rmSync(join(root, 'build/out.txt'));
    expect(await mount.read('build/out.txt')).toEqual({ kind: 'answer', message: readSentence.deletedOnDisk });
  });

  test('a held file ignored by its own name is checked by name: its change, then its deletion', async () => {
    const { mount, root } = await storeHost({ files: { 'x.log': 'v1\n', 'notes.swp': 's1\n' }, mount: { ignore: ['*.log'] } });
    for (const [name, next] of [['x.log', 'v2\n'], ['notes.swp', 's2\n']] as const) {
      await mount.read(name);
      writeFileSync(join(root, name), next);
      expect(textOf(await mount.read(name))).toBe(next);
      rmSync(join(root, name));
      expect(await mount.read(name)).toEqual({ kind: 'answer', message: readSentence.deletedOnDisk });
    }
  });
});

describe('bad paths', () => {
  test('a path escaping the root is refused and touches nothing', async () => {
    const outside = tempDir('ws-outside-');
    writeFileSync(join(outside, 'secret'), 'keep');
    const { mount, root, host } = await storeHost({ files: { 'a.txt': 'one\n' } });
    Bun.spawnSync(['ln', '-s', outside, join(root, 'out')]);
    const before = readdirSync(root).sort();
    for (const bad of ['../x', '/etc/passwd', 'out/secret', 'a/../../x']) {
      const r = await mount.read(bad);
      expect(r.kind).toBe('answer');
      const w = await mount.commit([{ path: bad, bytes: enc('x') }]);
      expect(w.ok).toBe(false);
      expect((await mount.list(bad, { recursive: false })).ok).toBe(false);
    }
    expect(readdirSync(root).sort()).toEqual(before);
    expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('keep');
    expect([...host.store!.scan('main', 'work', '')].map((s) => s.path)).toEqual([]);
  });
});

describe('syncs', () => {
  test('a sync of a directory a person deleted takes in its files\u2019 deletions', async () => {
    const { mount, root } = await storeHost({ files: { 'pack/one.txt': '1\n', 'pack/two.txt': '2\n', 'keep.txt': 'k\n' } });
    expect((await mount.sync(undefined)).ok).toBe(true);
    rmSync(join(root, 'pack'), { recursive: true });
    const r = await mount.sync('pack');
    if (!r.ok) throw new Error(r.message);
    expect((r.report as { unverified: unknown[] }).unverified).toEqual([]);
    expect(await mount.read('pack/one.txt')).toEqual({ kind: 'missing' });
    expect(textOf(await mount.read('keep.txt'))).toBe('k\n');
  });
});

describe('a replaced mount root', () => {
  test('is never read as every file deleted; a tool sync keeps it unverified; a person can accept it', async () => {
    const { mount, root, host } = await storeHost({ files: { 'a.txt': 'one\n', 'b.txt': 'two\n' } });
    expect((await mount.sync(undefined)).ok).toBe(true);
    renameSync(root, `${root}-old`);
    mkdirSync(root);
    writeFileSync(join(root, 'a.txt'), 'one in the new root\n');

    const r = await mount.read('b.txt');
    expect(textOf(r)).toBe('two\n');
    expect(r.kind === 'file' && r.notes.join(' ')).toContain('not the directory last agreed under');
    const synced = await mount.sync(undefined);
    if (!synced.ok) throw new Error(synced.message);
    expect(synced.report).toMatchObject({ rootProblem: expect.stringContaining('moved or replaced'), wayOut: expect.stringContaining('ws sync --accept-new-root work') });
    expect(textOf(await mount.read('b.txt'))).toBe('two\n');

    const accepted = await host.acceptNewRoots('work');
    expect(accepted.ok).toBe(true);
    expect(textOf(await mount.read('a.txt'))).toBe('one in the new root\n');
    expect(await mount.read('b.txt')).toEqual({ kind: 'missing' });
    expect((await host.acceptNewRoots('nope')).ok).toBe(false);
  });
});

describe('the size limit', () => {
  for (const backend of ['store', 'direct'] as const) {
    test(`a ${backend} mount refuses new content over maxFileSize and stores nothing`, async () => {
      const { mount, root } = await storeHost({ files: { 'a.txt': 'one\n' }, mount: { backend, maxFileSize: 16 } });
      const r = await mount.commit([
        { path: 'b.txt', bytes: enc('small\n') },
        { path: 'a.txt', bytes: enc('x'.repeat(17)) },
      ]);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.message).toContain('over mount "work"\'s limit of 16 bytes; nothing was stored');
      expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n');
      expect(await mount.read('b.txt')).toEqual({ kind: 'missing' });
    });
  }
});
