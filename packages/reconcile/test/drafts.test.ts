import { describe, expect, test } from 'bun:test';
import { type PassResult, readFinding, readSentence } from '../src/index.ts';
import { MOUNT, type World, bytes, world } from './fakes/world.ts';

const all = { scope: { kind: 'directory' as const, path: '' } };
const named = (...paths: string[]) => ({ scope: { kind: 'paths' as const, paths } });
async function synced(files: Record<string, string>): Promise<World> {
  const w = world();
  for (const [path, content] of Object.entries(files)) w.disk.personWrite(path, bytes(content));
  await w.r.pass(all);
  return w;
}
function state(result: PassResult, path: string): string {
  if (result.kind !== 'done') return result.kind;
  return result.paths.find((r) => r.path === path)?.state ?? 'missing';
}

describe('workspace drafts', () => {
  test('a write records the draft, its origin, and the mode disk had', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.disk.personChmod('a.txt', 0o755);
    await w.r.pass(named('a.txt'));
    const recorded = w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('two') }]);
    expect(recorded).toEqual({ branch: 'main', written: ['a.txt'], deleted: [] });
    const s = w.store.read('main', MOUNT, 'a.txt');
    expect(s.tree?.mode).toBe(0o755);
    expect(s.mark?.origin).toBe('workspace');
    expect(w.workspace('a.txt')).toBe('two');
  });

  test('a deletion records a tombstone naming what it removed, and does not look at disk first', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.disk.personWrite('a.txt', bytes('person'));
    const reads = w.disk.counts.read + w.disk.counts.stat;
    w.r.recordDrafts([{ path: 'a.txt', bytes: null }]);
    expect(w.disk.counts.read + w.disk.counts.stat).toBe(reads);
    expect(w.store.read('main', MOUNT, 'a.txt').mark?.tombstone?.base?.kind).toBe('text');
    // Disk changed before the deletion was pushed: a conflict, never a silent removal.
    expect(state(await w.r.pass(named('a.txt')), 'a.txt')).toBe('conflict');
  });

  test('every change is durable when recordDrafts returns (nothing waits for a barrier)', async () => {
    const w = await synced({});
    w.r.recordDrafts([
      { path: 'x.txt', bytes: bytes('x') },
      { path: 'y.txt', bytes: bytes('y') },
    ]);
    w.store.crash(() => 0.99);
    expect(w.workspace('x.txt')).toBe('x');
    expect(w.workspace('y.txt')).toBe('y');
  });

  test('a new file the workspace made reads as a draft, and a write after a workspace deletion clears the tombstone', async () => {
    const w = await synced({});
    w.r.recordDrafts([{ path: 'n.txt', bytes: bytes('new') }]);
    expect(state(await w.r.pass(named('n.txt')), 'n.txt')).toBe('workspace-draft');
    w.r.recordDrafts([{ path: 'n.txt', bytes: null }]);
    expect(state(await w.r.pass(named('n.txt')), 'n.txt')).toBe('absent');
    w.r.recordDrafts([{ path: 'n.txt', bytes: bytes('again') }]);
    expect(w.store.read('main', MOUNT, 'n.txt').mark?.tombstone).toBeNull();
  });
});

describe('branches and evidence', () => {
  test("after another branch's push deleted a file, a branch that has it reads it as a draft to push", async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.store.createBranch('other');
    w.store.switchBranch('other');
    w.r.recordDrafts([{ path: 'a.txt', bytes: null }]);
    await w.r.push({ scope: { kind: 'paths', paths: ['a.txt'] } });
    w.store.switchBranch('main');
    expect(state(await w.r.pass(all), 'a.txt')).toBe('workspace-draft');
    const pushed = await w.r.push({ scope: { kind: 'directory', path: '' } });
    expect(pushed.kind === 'done' && pushed.written).toEqual(['a.txt']);
  });

  test("a file the selected branch doesn't have stands as not-in-branch, and reads say so", async () => {
    const w = await synced({});
    w.store.createBranch('other');
    w.disk.personWrite('a.txt', bytes('one'));
    await w.r.pass(all);
    w.store.switchBranch('other');
    const result = await w.r.pass(named('a.txt'));
    expect(state(result, 'a.txt')).toBe('not-in-branch');
    expect(readFinding(result, 'a.txt', { workspaceHolds: false, directory: false })).toEqual({ kind: 'answer', reason: 'not-in-branch', message: readSentence.notInBranch });
  });
});

describe('the read finding for the remaining states', () => {
  test('a workspace deletion not yet on disk reads as the file being gone', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: null }]);
    const result = await w.r.pass(named('a.txt'));
    expect(readFinding(result, 'a.txt', { workspaceHolds: false, directory: false })).toEqual({ kind: 'missing' });
  });

  test('a binary file the workspace never held reads as binary, with its size', async () => {
    const w = await synced({});
    w.disk.personWrite('b.bin', new Uint8Array([104, 0, 105]));
    const result = await w.r.pass(named('b.bin'));
    expect(readFinding(result, 'b.bin', { workspaceHolds: false, directory: false })).toEqual({ kind: 'binary', size: 3 });
  });

  test('a directory the workspace holds no file at reads as a directory, even when the pass gave up', async () => {
    const w = await synced({});
    const result = await w.r.pass(named('src'));
    expect(readFinding(result, 'src', { workspaceHolds: false, directory: true })).toEqual({ kind: 'directory' });
    const gaveUp: PassResult = { kind: 'gave-up', reason: 'x', gathers: 4 };
    expect(readFinding(gaveUp, 'src', { workspaceHolds: false, directory: true })).toEqual({ kind: 'directory' });
    expect(readFinding(gaveUp, 'src', { workspaceHolds: true, directory: true })).toEqual({ kind: 'page', notes: [readSentence.gaveUp] });
  });

  test('a conflict where the workspace deleted the file answers with the ways out', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: null }]);
    w.disk.personWrite('a.txt', bytes('person'));
    const finding = readFinding(await w.r.pass(named('a.txt')), 'a.txt', { workspaceHolds: false, directory: false });
    expect(finding).toMatchObject({ kind: 'answer', reason: 'conflict' });
    if (finding.kind === 'answer') expect(finding.message).toContain("deletes disk's file");
  });

  test('a path with nothing on disk or in the workspace is missing, and a draft shows with no note', async () => {
    const w = await synced({});
    expect(readFinding(await w.r.pass(named('none.txt')), 'none.txt', { workspaceHolds: false, directory: false })).toEqual({ kind: 'missing' });
    w.r.recordDrafts([{ path: 'd.txt', bytes: bytes('draft') }]);
    expect(readFinding(await w.r.pass(named('d.txt')), 'd.txt', { workspaceHolds: true, directory: false })).toEqual({ kind: 'page', notes: [] });
  });
});
