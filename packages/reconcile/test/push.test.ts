import { describe, expect, test } from 'bun:test';
import { type PushDone, type PushResult, skipReason } from '../src/index.ts';
import { Crash } from './fakes/faults.ts';
import { MOUNT, type World, bytes, text, world } from './fakes/world.ts';

function done(result: PushResult): PushDone {
  if (result.kind !== 'done') throw new Error(`the push gave up: ${result.reason}`);
  return result;
}
const named = (...paths: string[]) => ({ kind: 'paths' as const, paths });
const all = { kind: 'directory' as const, path: '' };

async function synced(files: Record<string, string>, options: { readOnly?: boolean } = {}): Promise<World> {
  const w = world(options);
  for (const [path, content] of Object.entries(files)) w.disk.personWrite(path, bytes(content));
  await w.r.pass({ scope: all });
  return w;
}
const onDisk = (w: World, path: string) => text(w.disk.bytesAt(path));

describe('a push writes drafts', () => {
  test('drafts are written, agreement is left alone, and each is reported', async () => {
    const w = await synced({ 'a.txt': 'one', 'b.txt': 'two' });
    w.r.recordDrafts([
      { path: 'a.txt', bytes: bytes('ONE') },
      { path: 'new/c.txt', bytes: bytes('three') },
    ]);
    const result = done(await w.r.push({ scope: all }));
    expect(result.written.toSorted()).toEqual(['a.txt', 'new/c.txt']);
    expect(result.unchanged).toEqual(['b.txt']);
    expect(result.skipped).toEqual([]);
    expect(onDisk(w, 'a.txt')).toBe('ONE');
    expect(onDisk(w, 'new/c.txt')).toBe('three');
    expect(w.disk.unsyncedPaths()).toEqual([]);
    const again = done(await w.r.push({ scope: all }));
    expect(again.written).toEqual([]);
    expect(w.disk.counts.write).toBe(2);
  });

  test('a conflict is refused without force, with a reason that says how to settle it, and written with force', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    w.disk.personWrite('a.txt', bytes('person'));
    const refused = done(await w.r.push({ scope: all }));
    expect(refused.skipped).toHaveLength(1);
    expect(refused.skipped[0].state).toBe('conflict');
    expect(refused.skipped[0].reason).toContain('`discard` on this path');
    expect(refused.skipped[0].reason).toContain('with force');
    expect(onDisk(w, 'a.txt')).toBe('person');
    const forced = done(await w.r.push({ scope: all, force: true }));
    expect(forced.written).toEqual(['a.txt']);
    expect(onDisk(w, 'a.txt')).toBe('draft');
    expect(w.store.read('main', MOUNT, 'a.txt').mark).toBeNull();
    // The person's save it replaced is kept in history, just before the materialize.
    expect(w.store.versions(MOUNT, 'a.txt').map((v) => [v.source, text(w.store.getBlob(v.hash!))])).toEqual([
      ['disk', 'one'],
      ['write', 'draft'],
      ['disk', 'person'],
      ['materialize', 'draft'],
    ]);
  });

  test("a forced deletion over a person's save keeps that save in history; a forced write over the agreed text adds nothing", async () => {
    const w = await synced({ 'a.txt': 'one', 'b.txt': 'two' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: null }]);
    w.disk.personWrite('a.txt', bytes('person a'));
    done(await w.r.push({ scope: named('a.txt'), force: true }));
    expect(w.disk.bytesAt('a.txt')).toBeNull();
    expect(w.store.versions(MOUNT, 'a.txt').map((v) => [v.source, v.hash === null ? null : text(w.store.getBlob(v.hash))])).toEqual([
      ['disk', 'one'],
      ['delete', null],
      ['disk', 'person a'],
      ['materialize', null],
    ]);
    // No conflict: a forced push writes the draft over the agreed text, which history holds already.
    w.r.recordDrafts([{ path: 'b.txt', bytes: bytes('draft b') }]);
    done(await w.r.push({ scope: named('b.txt'), force: true }));
    expect(w.store.versions(MOUNT, 'b.txt').map((v) => v.source)).toEqual(['disk', 'write', 'materialize']);
  });

  test('a disk copy that cannot be checked is refused unless forced', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    w.disk.personChmod('a.txt', 0o600);
    w.disk.unreadableFiles.add('a.txt');
    const refused = done(await w.r.push({ scope: all }));
    expect(refused.skipped[0]).toMatchObject({ path: 'a.txt', state: 'unverified' });
    expect(onDisk(w, 'a.txt')).toBe('one');
    const forced = done(await w.r.push({ scope: all, force: true }));
    expect(forced.written).toEqual(['a.txt']);
    expect(onDisk(w, 'a.txt')).toBe('draft');
  });

  test('a path nothing has evidence about is written only when the call names it', async () => {
    const w = world();
    const b = bytes('orphan');
    w.store.putBlob('h-orphan', b);
    w.store.setTree('main', MOUNT, 'o.txt', { hash: 'h-orphan', size: b.length, mode: null }, { source: 'write' });
    w.store.barrier();
    const walked = done(await w.r.push({ scope: all }));
    expect(walked.skipped).toEqual([{ path: 'o.txt', state: 'disk-missing-provenance-unknown', reason: skipReason.provenanceNotAsked }]);
    expect(onDisk(w, 'o.txt')).toBeNull();
    expect(done(await w.r.push({ scope: named('o.txt') })).written).toEqual(['o.txt']);
    expect(onDisk(w, 'o.txt')).toBe('orphan');
  });

  test('a workspace deletion reaches disk only when asked', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: null }]);
    const walked = done(await w.r.push({ scope: all }));
    expect(walked.skipped).toEqual([{ path: 'a.txt', state: 'workspace-deleted', reason: skipReason.deletionNotAsked }]);
    expect(onDisk(w, 'a.txt')).toBe('one');
    expect(done(await w.r.push({ scope: named('a.txt') })).deleted).toEqual(['a.txt']);
    expect(onDisk(w, 'a.txt')).toBeNull();
    expect(w.store.read('main', MOUNT, 'a.txt')).toMatchObject({ tree: null, evidence: { kind: 'absent' }, mark: null });
  });

  test('a stale disk copy (disk changed, store did not) is taken in, never pushed over, even with force', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.disk.personWrite('a.txt', bytes('person'));
    const result = done(await w.r.push({ scope: all, force: true }));
    expect(result.written).toEqual([]);
    expect(result.pass.paths[0].taken).toEqual({ kind: 'text', new: false });
    expect(onDisk(w, 'a.txt')).toBe('person');
    expect(w.workspace('a.txt')).toBe('person');
  });

  test('a read-only mount pushes nothing', async () => {
    const w = await synced({ 'a.txt': 'one' }, { readOnly: true });
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    const result = done(await w.r.push({ scope: all, force: true }));
    expect(result.skipped).toEqual([{ path: 'a.txt', state: 'workspace-draft', reason: skipReason.readOnly }]);
    expect(w.disk.counts.write).toBe(0);
  });

  test('an unavailable root writes nothing, forced or not', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    w.disk.rootAvailable = false;
    const result = done(await w.r.push({ scope: all, force: true }));
    expect(result.written).toEqual([]);
    expect(result.skipped[0].reason).toContain('mount root is unavailable');
  });
});

describe('effects are checked at the point of effect', () => {
  test('a person editing the file between the decision and the write keeps their edit, and the next pass finds a conflict', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    w.disk.beforeEffect = (path) => w.disk.personWrite(path, bytes('person'));
    const result = done(await w.r.push({ scope: all }));
    w.disk.beforeEffect = null;
    expect(result.written).toEqual([]);
    expect(result.skipped).toEqual([{ path: 'a.txt', state: 'workspace-draft', reason: skipReason.changedAtEffect }]);
    expect(onDisk(w, 'a.txt')).toBe('person');
    expect(w.disk.violations).toEqual([]);
    expect(w.store.read('main', MOUNT, 'a.txt').pending).toBeNull();
    const pass = await w.r.pass({ scope: named('a.txt') });
    expect(pass.kind === 'done' && pass.paths[0].state).toBe('conflict');
  });

  test('a person deleting the file between the decision and its deletion is not overruled', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: null }]);
    w.disk.beforeEffect = (path) => w.disk.personWrite(path, bytes('person'));
    const result = done(await w.r.push({ scope: named('a.txt') }));
    expect(result.deleted).toEqual([]);
    expect(onDisk(w, 'a.txt')).toBe('person');
  });

  test('a pass during a push leaves the pushed path to the push (it reads as busy)', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    let release = () => {};
    w.disk.effectGate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const push = w.r.push({ scope: all });
    await Bun.sleep(1);
    const during = await w.r.pass({ scope: named('a.txt') });
    expect(during.kind === 'done' && during.paths[0]).toMatchObject({ state: 'unverified', reason: skipReason.busy });
    const second = done(await w.r.push({ scope: named('a.txt') }));
    expect(second.skipped).toEqual([{ path: 'a.txt', state: 'unverified', reason: skipReason.busy }]);
    release();
    w.disk.effectGate = null;
    expect(done(await push).written).toEqual(['a.txt']);
    expect(onDisk(w, 'a.txt')).toBe('draft');
  });
});

describe('a push interrupted by a crash', () => {
  /** Runs a push that crashes at the `n`-th step boundary; true when it crashed. */
  async function crashAt(w: World, n: number, force = false): Promise<boolean> {
    w.faults.arm(n);
    try {
      await w.r.push({ scope: all, force });
      w.faults.disarm();
      return false;
    } catch (e) {
      if (!(e instanceof Crash)) throw e;
      return true;
    }
  }

  test('at every step boundary, a restart finds the draft on disk or still in the workspace, never lost', async () => {
    for (let n = 1; ; n++) {
      for (const keep of [0, 1]) {
        const w = await synced({ 'a.txt': 'one', 'src/b.txt': 'two' });
        w.r.recordDrafts([
          { path: 'a.txt', bytes: bytes('A') },
          { path: 'src/b.txt', bytes: bytes('B') },
        ]);
        const crashed = await crashAt(w, n);
        if (!crashed) {
          expect(n).toBeGreaterThan(5);
          return;
        }
        w.store.crash(() => keep);
        w.disk.crash(() => keep);
        const r = w.restart();
        await r.recover();
        for (const [path, draft] of [['a.txt', 'A'], ['src/b.txt', 'B']]) {
          expect(w.workspace(path)).toBe(draft);
          const pass = await r.pass({ scope: named(path) });
          expect(pass.kind === 'done' && pass.paths[0].state).toBe(onDisk(w, path) === draft ? 'synced' : 'workspace-draft');
          // A write that reached disk is one materialize version, recorded with its outcome or on recovery; none otherwise.
          const pushed = w.store.versions(MOUNT, path).filter((v) => v.source === 'materialize');
          expect({ n, keep, path, pushed: pushed.map((v) => text(w.store.getBlob(v.hash!))) }).toEqual({ n, keep, path, pushed: onDisk(w, path) === draft ? [draft] : [] });
        }
        expect([...w.store.pendingPaths(MOUNT)]).toEqual([]);
      }
    }
  });

  test("a forced write over a person's save, crashed at every step boundary: the save is in history once, before any materialize, whenever the write reached disk", async () => {
    for (let n = 1; ; n++) {
      for (const keep of [0, 1]) {
        const w = await synced({ 'a.txt': 'one' });
        w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
        w.disk.personWrite('a.txt', bytes('person'));
        await w.r.pass({ scope: all });
        const crashed = await crashAt(w, n, true);
        if (!crashed) {
          expect(n).toBeGreaterThan(3);
          return;
        }
        w.store.crash(() => keep);
        w.disk.crash(() => keep);
        await w.restart().recover();
        const after = w.store.versions(MOUNT, 'a.txt').map((v) => `${v.source}:${text(w.store.getBlob(v.hash!))}`);
        const written = onDisk(w, 'a.txt') === 'draft';
        // Recorded with the push's announcement: there once the announcement was, before the write.
        const kept = after.slice(2);
        expect({ n, keep, kept }).toEqual({ n, keep, kept: written ? ['disk:person', 'materialize:draft'] : kept.length === 0 ? [] : ['disk:person'] });
        if (written) expect(w.disk.bytesAt('a.txt') && text(w.disk.bytesAt('a.txt'))).toBe('draft');
        // Whatever happened, the person's text can be read back from history where disk no longer has it.
        if (written) expect(w.store.versions(MOUNT, 'a.txt').some((v) => v.hash !== null && text(w.store.getBlob(v.hash)) === 'person')).toBe(true);
      }
    }
  });

  test('an effect whose outcome cannot be told (disk changed before recovery) becomes an interrupted conflict', async () => {
    const w = await synced({ 'a.txt': 'one' });
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    // Crash right after the write is done, before anything is recorded.
    w.disk.beforeEffect = () => w.faults.arm(1);
    await expect(w.r.push({ scope: all })).rejects.toBeInstanceOf(Crash);
    w.store.crash(() => 0);
    w.disk.crash(() => 1);
    w.disk.personWrite('a.txt', bytes('person'));
    const r = w.restart();
    const recovered = await r.recover();
    expect(recovered.kind === 'done' && recovered.paths[0]).toMatchObject({ state: 'conflict', conflict: { kind: 'interrupted' } });
    expect(w.workspace('a.txt')).toBe('draft');
    expect(onDisk(w, 'a.txt')).toBe('person');
  });

  /** A conflict on main, then a forced push of it that crashes once its write reached disk. */
  async function forcedWriteCut(): Promise<World> {
    const w = await synced({ 'a.txt': 'one' });
    w.store.createBranch('other');
    w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('draft') }]);
    w.disk.personWrite('a.txt', bytes('person'));
    expect(done(await w.r.push({ scope: all })).skipped.map((s) => s.state)).toEqual(['conflict']);
    w.disk.forceAllowed = true;
    w.disk.beforeEffect = () => w.faults.arm(1);
    await expect(w.r.push({ scope: all, force: true })).rejects.toBeInstanceOf(Crash);
    w.disk.beforeEffect = null;
    w.disk.forceAllowed = false;
    w.store.crash(() => 0);
    w.disk.crash(() => 0); // the write was made durable
    expect(onDisk(w, 'a.txt')).toBe('draft');
    expect(w.store.read('main', MOUNT, 'a.txt').pending?.kind).toBe('write');
    return w;
  }

  test('a forced write found done on recovery settles its conflict, and the pass that finds it says so', async () => {
    const w = await forcedWriteCut();
    const recovered = await w.restart().recover();
    expect(recovered.kind === 'done' && recovered.paths.find((p) => p.path === 'a.txt')).toMatchObject({ state: 'synced', settled: 'both-changed', conflict: null });
    expect(w.store.read('main', MOUNT, 'a.txt').mark).toBeNull();
    expect(w.store.versions(MOUNT, 'a.txt').at(-1)).toMatchObject({ branch: 'main', source: 'materialize' });
  });

  test('a forced write found done by a pass on another branch settles the conflict on its own branch, which then reads synced', async () => {
    const w = await forcedWriteCut();
    w.store.switchBranch('other');
    const r = w.restart();
    const elsewhere = await r.recover();
    // The other branch still holds the text before the draft: beside disk's new text, a draft of its own.
    expect(elsewhere.kind === 'done' && elsewhere.paths.find((p) => p.path === 'a.txt')).toMatchObject({ state: 'workspace-draft', settled: null });
    expect(w.store.read('main', MOUNT, 'a.txt')).toMatchObject({ pending: null, mark: null });
    expect(w.store.versions(MOUNT, 'a.txt').at(-1)).toMatchObject({ branch: 'main', source: 'materialize' });
    w.store.switchBranch('main');
    const back = await r.pass({ scope: all });
    expect(back.kind === 'done' && back.paths.find((p) => p.path === 'a.txt')).toMatchObject({ state: 'synced', conflict: null, settled: null });
  });
});
