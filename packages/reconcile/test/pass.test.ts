import { describe, expect, test } from 'bun:test';
import {
  BRANCH_KEPT_CHANGING,
  type PassDone,
  type PassResult,
  type PathReport,
  readFinding,
  readSentence,
  unverifiedReason,
} from '../src/index.ts';
import { MAX_FILE_SIZE, MOUNT, type World, bytes, text, world } from './fakes/world.ts';

function done(result: PassResult): PassDone {
  if (result.kind !== 'done') throw new Error(`the pass gave up: ${result.reason}`);
  return result;
}
function report(result: PassResult, path: string): PathReport {
  const r = done(result).paths.find((p) => p.path === path);
  if (!r) throw new Error(`no report for ${path}`);
  return r;
}
const named = (...paths: string[]) => ({ scope: { kind: 'paths' as const, paths } });
const dir = (path = '') => ({ scope: { kind: 'directory' as const, path } });

/** Disk holds these files, and a first pass took them in. */
async function synced(files: Record<string, string>): Promise<World> {
  const w = world();
  for (const [path, content] of Object.entries(files)) w.disk.personWrite(path, bytes(content));
  await w.r.pass(dir());
  return w;
}

describe('a pass takes disk in', () => {
  test('a directory pass ingests new text files, and the next pass reads none of them again', async () => {
    const w = await synced({ 'a.txt': 'one', 'src/b.txt': 'two' });
    expect(w.workspace('a.txt')).toBe('one');
    expect(w.workspace('src/b.txt')).toBe('two');
    const reads = w.disk.counts.read;
    const again = done(await w.r.pass(dir()));
    expect(w.disk.counts.read).toBe(reads);
    expect(again.counts).toEqual({ synced: 2 });
  });

  test('a held, unchanged file costs no store write and no barrier', async () => {
    const w = await synced({ 'a.txt': 'one' });
    const { writes, barriers } = w.store.counts;
    expect(report(await w.r.pass(named('a.txt')), 'a.txt').state).toBe('synced');
    expect(w.store.counts).toEqual({ writes, barriers });
  });

  test("disk's change to a file the workspace did not change is taken in, and a read says it shows disk's text", async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.disk.personWrite('a.txt', bytes('two'));
    const result = await w.r.pass(named('a.txt'));
    expect(report(result, 'a.txt').taken).toEqual({ kind: 'text', new: false });
    expect(w.workspace('a.txt')).toBe('two');
    expect(readFinding(result, 'a.txt', { workspaceHolds: true, directory: false })).toEqual({ kind: 'page', notes: [readSentence.tookDiskChange] });
  });

  test('a mode change alone is taken in, and a read carries no note', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.disk.personChmod('a.txt', 0o755);
    const result = await w.r.pass(named('a.txt'));
    expect(report(result, 'a.txt').taken).toEqual({ kind: 'mode' });
    expect(w.store.read('main', MOUNT, 'a.txt').tree?.mode).toBe(0o755);
    expect(readFinding(result, 'a.txt', { workspaceHolds: true, directory: false })).toEqual({ kind: 'page', notes: [] });
  });

  test("disk's deletion is taken in, and a read answers that disk deleted it", async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.disk.personDelete('a.txt');
    const result = await w.r.pass(named('a.txt'));
    expect(report(result, 'a.txt')).toMatchObject({ state: 'absent', taken: { kind: 'deletion' } });
    expect(w.workspace('a.txt')).toBeNull();
    expect(readFinding(result, 'a.txt', { workspaceHolds: true, directory: false })).toEqual({ kind: 'answer', reason: 'deleted-on-disk', message: readSentence.deletedOnDisk });
  });

  test('a file disk made binary or too large is dropped from the store and reads as on disk but not stored', async () => {
    const w = await synced({ 'a.txt': 'one', 'b.txt': 'two' });
    w.disk.personWrite('a.txt', new Uint8Array([104, 0, 105]));
    w.disk.personWrite('b.txt', bytes('x'.repeat(MAX_FILE_SIZE + 1)));
    const result = await w.r.pass(named('a.txt', 'b.txt'));
    expect(report(result, 'a.txt')).toMatchObject({ state: 'disk-only', taken: { kind: 'not-stored', why: 'binary', dropped: true } });
    expect(report(result, 'b.txt')).toMatchObject({ state: 'disk-only', taken: { kind: 'not-stored', why: 'too-large', dropped: true } });
    expect(w.workspace('a.txt')).toBeNull();
    expect(readFinding(result, 'b.txt', { workspaceHolds: false, directory: false })).toEqual({
      kind: 'answer',
      reason: 'not-stored',
      why: 'too-large',
      message: readSentence.notStored('too-large', true),
    });
  });
});

describe('a pass and the selected branch', () => {
  test('gathers again when the selected branch changes during observation, and decides for the new one', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.store.createBranch('other');
    let switches = 1;
    w.disk.onObserve = () => {
      if (switches-- > 0) w.store.switchBranch('other');
    };
    w.disk.personWrite('a.txt', bytes('two'));
    const result = done(await w.r.pass(named('a.txt')));
    expect(result.branch).toBe('other');
    expect(w.workspace('a.txt', 'other')).toBe('two');
    expect(w.workspace('a.txt', 'main')).toBe('one');
  });

  test('gives up after 3 more gathers with the spec\'s reason, deciding nothing', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.store.createBranch('other');
    let flip = false;
    w.disk.onObserve = () => {
      flip = !flip;
      w.store.switchBranch(flip ? 'other' : 'main');
    };
    w.disk.personWrite('a.txt', bytes('two'));
    const before = w.store.recordsSnapshot();
    const result = await w.r.pass(named('a.txt'));
    expect(result).toEqual({ kind: 'gave-up', reason: BRANCH_KEPT_CHANGING, gathers: 4 });
    expect(BRANCH_KEPT_CHANGING).toBe('the selected branch kept changing while the scan ran');
    expect(w.store.recordsSnapshot()).toBe(before);
    expect(readFinding(result, 'a.txt', { workspaceHolds: true, directory: false })).toEqual({ kind: 'page', notes: [readSentence.gaveUp] });
    expect(readFinding(result, 'new.txt', { workspaceHolds: false, directory: false })).toMatchObject({ kind: 'answer', reason: 'gave-up' });
    expect(readSentence.gaveUp).toContain('read again');
  });
});

describe('named passes and walks', () => {
  test('a named pass observes an ignored name and an editor swap file that a walk passes over', async () => {
    const w = world();
    w.disk.personWrite('ignored/x.txt', bytes('kept'));
    w.disk.personWrite('notes.txt.swp', bytes('swap'));
    w.disk.personWrite('a.txt', bytes('a'));
    const walked = done(await w.r.pass(dir()));
    expect(walked.paths.map((p) => p.path)).toEqual(['a.txt']);
    expect(walked.passedOver).toEqual({ ignored: 1, 'editor swap or backup file': 1 });
    // The same, an entry each, for a caller counting part of it; a named pass walks nothing.
    expect(walked.passedOverEntries.map((e) => [e.path, e.reason]).sort()).toEqual([
      ['ignored', 'ignored'],
      ['notes.txt.swp', 'editor swap or backup file'],
    ]);
    const result = await w.r.pass(named('ignored/x.txt', 'notes.txt.swp'));
    expect(done(result).passedOverEntries).toEqual([]);
    expect(report(result, 'ignored/x.txt').state).toBe('synced');
    expect(report(result, 'notes.txt.swp').state).toBe('synced');
    expect(w.workspace('ignored/x.txt')).toBe('kept');
  });

  test('a walk still checks held paths where it passes over, and never takes them as deleted', async () => {
    const w = world();
    w.disk.personWrite('ignored/x.txt', bytes('one'));
    await w.r.pass(named('ignored/x.txt'));
    w.disk.personWrite('ignored/x.txt', bytes('two'));
    const result = await w.r.pass(dir());
    expect(report(result, 'ignored/x.txt')).toMatchObject({ state: 'synced', taken: { kind: 'text', new: false } });
    w.disk.personDelete('ignored/x.txt');
    expect(report(await w.r.pass(dir()), 'ignored/x.txt').taken).toEqual({ kind: 'deletion' });
  });

  test('a walk reports the directories it entered', async () => {
    const w = world();
    w.disk.personWrite('src/deep/a.txt', bytes('a'));
    expect([...done(await w.r.pass(dir())).directories].sort()).toEqual(['src', 'src/deep']);
  });

  test('held paths beneath a directory the walk could not read are unverified, not deleted', async () => {
    const w = await synced({ 'src/a.txt': 'one', 'b.txt': 'two' });
    w.disk.unreadableDirs.add('src');
    const result = await w.r.pass(dir());
    expect(report(result, 'src/a.txt')).toMatchObject({
      state: 'unverified',
      reason: unverifiedReason.region('src', 'permission denied'),
    });
    expect(w.workspace('src/a.txt')).toBe('one');
  });

  test('held paths a capped walk did not reach are unverified, not deleted', async () => {
    const w = await synced({ 'a.txt': 'one', 'b.txt': 'two', 'c.txt': 'three' });
    w.disk.cap = 1;
    const result = done(await w.r.pass(dir()));
    expect(result.incomplete).toBe('the scan stopped at its cap of 1 files');
    expect(report(result, 'b.txt').state).toBe('unverified');
    expect(report(result, 'c.txt').state).toBe('unverified');
    expect(w.workspace('c.txt')).toBe('three');
  });

  test('a file that cannot be read is unverified with why, and a read shows the workspace copy', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.disk.personWrite('a.txt', bytes('two'));
    w.disk.unreadableFiles.add('a.txt');
    const result = await w.r.pass(named('a.txt'));
    const reason = unverifiedReason.path('permission denied');
    expect(report(result, 'a.txt')).toMatchObject({ state: 'unverified', reason });
    expect(readFinding(result, 'a.txt', { workspaceHolds: true, directory: false })).toEqual({ kind: 'page', notes: [readSentence.unverified(reason)] });
  });
});

describe('an unavailable mount root', () => {
  test('a missing root makes every held path unverified, never deleted', async () => {
    const w = await synced({ 'a.txt': 'one', 'src/b.txt': 'two' });
    w.disk.rootAvailable = false;
    const before = w.store.recordsSnapshot();
    const result = done(await w.r.pass(dir()));
    expect(result.rootProblem).toBe(unverifiedReason.rootUnavailable('the directory is missing'));
    expect(result.paths.map((p) => [p.path, p.state])).toEqual([
      ['a.txt', 'unverified'],
      ['src/b.txt', 'unverified'],
    ]);
    expect(w.store.recordsSnapshot()).toBe(before);
  });

  test('a root that is not the directory last agreed under is unverified until a sync accepts it', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.disk.rootIdentity = 'root-2';
    w.disk.personDelete('a.txt');
    expect(report(await w.r.pass(dir()), 'a.txt')).toMatchObject({ state: 'unverified', reason: unverifiedReason.rootReplaced });
    expect(w.workspace('a.txt')).toBe('one');
    const accepted = await w.r.pass({ ...dir(), acceptNewRoot: true });
    expect(report(accepted, 'a.txt').taken).toEqual({ kind: 'deletion' });
    expect(w.store.rootIdentity(MOUNT)).toBe('root-2');
  });

  test("a read of a path the workspace doesn't hold, with disk unavailable, answers that it could not be checked", async () => {
    const w = await synced({});
    w.disk.rootAvailable = false;
    const finding = readFinding(await w.r.pass(named('new.txt')), 'new.txt', { workspaceHolds: false, directory: false });
    expect(finding).toMatchObject({ kind: 'answer', reason: 'unverified' });
  });
});

describe('conflicts as a pass reports them', () => {
  test('a draft disk changed too: kind, where disk side is kept, what disk holds now, and the ways out', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    w.disk.personWrite('a.txt', bytes('person'));
    const result = await w.r.pass(named('a.txt'));
    const r = report(result, 'a.txt');
    expect(r.state).toBe('conflict');
    expect(r.conflict).toMatchObject({ kind: 'both-changed', diskChangedSince: false, diskNow: 'file', workspace: 'file' });
    expect(r.conflict?.diskSide.kind).toBe('stored');
    expect(r.conflict?.waysOut.map((x) => [x.tool, x.effect])).toEqual([['discard', 'keeps-disk'], ['materialize', 'writes-workspace']]);
    expect(w.workspace('a.txt')).toBe('draft');
    const finding = readFinding(result, 'a.txt', { workspaceHolds: true, directory: false });
    expect(finding.kind).toBe('page');
    if (finding.kind === 'page') expect(finding.notes[0]).toContain("keeps disk's copy");
  });

  test('a conflict recorded as both-changed, then deleted on disk, names the deletion\'s way out', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    w.disk.personWrite('a.txt', bytes('person'));
    await w.r.pass(named('a.txt'));
    w.disk.personDelete('a.txt');
    const r = report(await w.r.pass(named('a.txt')), 'a.txt');
    expect(r.conflict).toMatchObject({ kind: 'both-changed', diskChangedSince: true, diskNow: 'absent' });
    expect(r.conflict?.waysOut.map((x) => x.effect)).toEqual(['takes-disk-deletion', 'writes-workspace']);
  });

  test('a read-only mount offers no forced materialize', async () => {
    const w = world({ readOnly: true });
    w.disk.personWrite('a.txt', bytes('one'));
    await w.r.pass(dir());
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    w.disk.personDelete('a.txt');
    const r = report(await w.r.pass(named('a.txt')), 'a.txt');
    expect(r.conflict?.kind).toBe('deleted-on-disk');
    expect(r.conflict?.waysOut.map((x) => x.tool)).toEqual(['sync']);
  });

  test('a conflict is reported on every pass until D and S converge, then reported settled', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    w.disk.personWrite('a.txt', bytes('person'));
    for (let i = 0; i < 3; i++) expect(report(await w.r.pass(dir()), 'a.txt').state).toBe('conflict');
    w.disk.personWrite('a.txt', bytes('draft'));
    expect(report(await w.r.pass(dir()), 'a.txt')).toMatchObject({ state: 'synced', settled: 'both-changed' });
  });

  test('a path sync settles it for disk and says which workspace change it gave up', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    w.disk.personWrite('a.txt', bytes('person'));
    await w.r.pass(named('a.txt'));
    const r = report(await w.r.pass({ ...named('a.txt'), takeDisk: 'sync-path' }), 'a.txt');
    expect(r).toMatchObject({ state: 'synced', settled: 'both-changed', gaveUp: { state: 'conflict', conflict: 'both-changed' } });
    expect(w.workspace('a.txt')).toBe('person');
    // The draft given up stays a version; disk's copy taken in is the newest.
    expect(w.store.versions(MOUNT, 'a.txt').map((v) => [v.source, text(w.store.getBlob(v.hash!))])).toEqual([
      ['disk', 'one'],
      ['write', 'draft'],
      ['disk', 'person'],
    ]);
  });

  test('a path sync keeps a draft disk has not changed, and says it is a draft', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }, { path: 'b.txt', bytes: null }]);
    const result = await w.r.pass({ scope: { kind: 'paths', paths: ['a.txt', 'b.txt'] }, takeDisk: 'sync-path' });
    expect(report(result, 'a.txt')).toMatchObject({ state: 'workspace-draft', gaveUp: null, draft: 'draft' });
    expect(report(result, 'b.txt')).toMatchObject({ gaveUp: null });
    expect(w.workspace('a.txt')).toBe('draft');
  });

  test('a discard drops drafts, deletions and conflicts for disk’s copy, recorded as discard versions', async () => {
    const w = await synced({ 'a.txt': 'one', 'b.txt': 'two', 'c.txt': 'three' });
    w.r.recordDrafts([
      { path: 'a.txt', bytes: bytes('draft a'), source: 'edit' },
      { path: 'b.txt', bytes: null },
      { path: 'c.txt', bytes: bytes('draft c') },
      { path: 'n.txt', bytes: bytes('new') },
    ]);
    w.disk.personWrite('c.txt', bytes('person c'));
    const result = await w.r.discard(dir());
    if (result.kind !== 'done') throw new Error('gave up');
    expect(result.paths.map((r) => [r.path, r.state, r.gaveUp?.state ?? null, r.draft])).toEqual([
      ['a.txt', 'synced', 'workspace-draft', null],
      ['b.txt', 'synced', 'workspace-deleted', null],
      ['c.txt', 'synced', 'conflict', null],
      ['n.txt', 'absent', 'workspace-draft', null],
    ]);
    expect(['a.txt', 'b.txt', 'c.txt', 'n.txt'].map((p) => w.workspace(p))).toEqual(['one', 'two', 'person c', null]);
    const sources = (p: string) => w.store.versions(MOUNT, p).map((v) => v.source);
    expect(sources('a.txt')).toEqual(['disk', 'edit', 'discard']);
    expect(sources('b.txt')).toEqual(['disk', 'delete', 'discard']);
    expect(sources('n.txt')).toEqual(['write', 'discard']);
    expect(text(w.store.getBlob(w.store.versions(MOUNT, 'a.txt')[1].hash!))).toBe('draft a');
  });

  test('disk with no copy and no record of a deletion: the read shows the workspace copy and says so', async () => {
    const w = world();
    const b = bytes('orphan');
    w.store.putBlob('h-orphan', b);
    w.store.setTree('main', MOUNT, 'o.txt', { hash: 'h-orphan', size: b.length, mode: null }, { source: 'write' });
    w.store.barrier();
    const result = await w.r.pass(named('o.txt'));
    expect(report(result, 'o.txt').state).toBe('disk-missing-provenance-unknown');
    expect(readFinding(result, 'o.txt', { workspaceHolds: true, directory: false })).toEqual({ kind: 'page', notes: [readSentence.provenanceUnknown] });
  });
});
