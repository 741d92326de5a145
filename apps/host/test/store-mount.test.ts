/**
 * The store-backed mount's seams: suggestions from the store's own records (no pass), a
 * disk call that throws becoming the verb's one sentence (its trace only with WS_DEBUG=1),
 * a listing that is not recursive looking at its one level only, and a recursive listing
 * (and glob) of a watched mount made from the store's records.
 */
import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import { mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiskPort } from '@ws/reconcile';
import { handleToolCall } from '@ws/tools';
import type { StoreMount } from '../src/mounts/store-backed/mount.ts';
import type { Store } from '../src/store/store.ts';
import { openTestHost, storeHost, testConfig, writeFiles } from './host-fixtures.ts';
import { tempDir } from './fixtures.ts';

/** A disk port that counts walks and stats, and throws from both once `failing` is set. */
function counting(disk: DiskPort, seen: { walks: number; stats: number; failing: boolean }): DiskPort {
  return {
    ...disk,
    locateRoot: () => disk.locateRoot(),
    read: (p, max) => disk.read(p, max),
    write: (p, b, o) => disk.write(p, b, o),
    unlink: (p, o) => disk.unlink(p, o),
    syncDirectory: (d) => disk.syncDirectory(d),
    async walk(dir) {
      seen.walks++;
      if (seen.failing) throw new Error('EIO: i/o error, scandir\n    at somewhere (file.ts:1:1)');
      return disk.walk(dir);
    },
    async stat(path) {
      seen.stats++;
      if (seen.failing) throw new Error('EIO: i/o error, stat\n    at somewhere (file.ts:1:1)');
      return disk.stat(path);
    },
  };
}

describe('a store-backed mount', () => {
  let spy: ReturnType<typeof spyOn> | undefined;
  afterEach(() => {
    spy?.mockRestore();
    delete process.env.WS_DEBUG;
  });

  test('a mistyped path gets candidates from the store, without a pass over the mount', async () => {
    const seen = { walks: 0, stats: 0, failing: false };
    const { host, mount } = await storeHost({
      files: { 'src/app.ts': 'a\n', 'src/util.ts': 'u\n', 'docs/app.ts': 'd\n', 'other/x.txt': 'x\n' },
      wrapDisk: (_m, disk) => counting(disk, seen),
    });
    await mount.list('', { recursive: true }); // the store learns the files
    seen.walks = 0;
    seen.stats = 0;
    const candidates = await (mount as StoreMount).candidates('src/APP.ts');
    expect(candidates.sort()).toEqual(['docs/app.ts', 'src/app.ts', 'src/util.ts']);
    expect(seen).toEqual({ walks: 0, stats: 0, failing: false });
    host.close();
  });

  test('a disk call that throws is the read\'s one sentence; WS_DEBUG=1 prints the trace on stderr', async () => {
    const seen = { walks: 0, stats: 0, failing: false };
    const { host, mount } = await storeHost({ files: { 'a.txt': 'one\n' }, wrapDisk: (_m, disk) => counting(disk, seen) });
    seen.failing = true;
    spy = spyOn(console, 'error').mockImplementation(() => {});
    expect(await mount.read('a.txt')).toEqual({ kind: 'answer', message: 'Reading work/a.txt failed: EIO: i/o error, stat.' });
    expect(spy).not.toHaveBeenCalled();
    process.env.WS_DEBUG = '1';
    const listed = await mount.list('', { recursive: false });
    expect(listed).toEqual({ ok: false, message: 'Listing work/ failed: EIO: i/o error, scandir.' });
    expect(spy).toHaveBeenCalledTimes(1);
    host.close();
  });
});

describe('glob with sort: "modified" on a store-backed mount', () => {
  test("newest first: a draft by the time of the agent's change, other files by disk's mtime", async () => {
    const { host, root } = await storeHost({ files: { 'old.ts': 'o\n', 'mid.ts': 'm\n', 'new.ts': 'n\n', 'drafted.ts': 'd\n' } });
    const now = Date.now() / 1000;
    // Disk's times, far apart: drafted.ts is the oldest on disk, but the agent changes it last.
    utimesSync(join(root, 'drafted.ts'), now - 4000, now - 4000);
    utimesSync(join(root, 'old.ts'), now - 3000, now - 3000);
    utimesSync(join(root, 'mid.ts'), now - 2000, now - 2000);
    utimesSync(join(root, 'new.ts'), now - 1000, now - 1000);
    const call = async (input: Record<string, unknown>) => {
      const r = await handleToolCall(host.workspace, { name: 'glob', input });
      if (!r.success) throw new Error(r.error);
      return (r.data as { files: string[] }).files;
    };
    expect(await call({ pattern: 'work/*.ts' })).toEqual(['work/drafted.ts', 'work/mid.ts', 'work/new.ts', 'work/old.ts']);
    expect(await call({ pattern: 'work/*.ts', sort: 'modified' })).toEqual(['work/new.ts', 'work/mid.ts', 'work/old.ts', 'work/drafted.ts']);
    const wrote = await handleToolCall(host.workspace, { name: 'write', input: { path: 'work/drafted.ts', content: 'by the agent\n' } });
    expect(wrote.success).toBe(true);
    expect(await call({ pattern: 'work/*.ts', sort: 'modified' })).toEqual(['work/drafted.ts', 'work/new.ts', 'work/mid.ts', 'work/old.ts']);
    host.close();
  });
});

/**
 * One scenario, made the same way twice: files at several depths, nested ignore files,
 * an empty directory and one holding only ignored files, the agent's drafts (one in a
 * directory disk never had), a person's saves, deletions and new files after the store
 * learned the tree. Generated from a seed, so each run makes the same ones.
 */
async function scenario(seed: number, wrapDisk?: (mount: string, disk: DiskPort) => DiskPort) {
  let x = seed;
  const rnd = (n: number) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    // The high bits: a power-of-two modulus leaves the low ones a short cycle.
    return Math.floor(x / 65536) % n;
  };
  const dirs = ['', 'src', 'src/lib', 'src/lib/deep', 'docs', 'gen', 'logs'];
  const files: Record<string, string> = { '.gitignore': 'logs/\n*.tmp\n', 'src/.gitignore': 'built/\n', 'gen/.ignore': '*\n!keep.txt\n' };
  for (let i = 0; i < 30; i++) {
    const dir = dirs[rnd(dirs.length)];
    const name = ['a.ts', 'b.ts', 'c.tmp', 'd.md', 'keep.txt', 'built/x.js', 'e f.txt'][rnd(7)];
    files[dir === '' ? name : `${dir}/${name}`] = `text ${i}\n`;
  }
  const made = await storeHost({ files, ...(wrapDisk ? { wrapDisk } : {}) });
  mkdirSync(join(made.root, 'empty'));
  mkdirSync(join(made.root, 'only-ignored'));
  writeFileSync(join(made.root, 'only-ignored/x.tmp'), 'x\n');
  const call = async (name: string, input: unknown) => {
    const r = await handleToolCall(made.host.workspace, { name, input });
    if (!r.success) throw new Error(`${name}: ${r.error}`);
    return r.data as { entries?: unknown[]; note?: string };
  };
  writeFileSync(join(made.root, 'ignored-later.txt'), 'held\n');
  mkdirSync(join(made.root, 'ignored-later'));
  writeFileSync(join(made.root, 'ignored-later/held.ts'), 'held\n');
  // The store learns the tree, then the agent and a person change it.
  await call('sync', {});
  // Ignored once the store holds them: a held path is still looked at, a new one beside it is not taken in.
  writeFileSync(join(made.root, '.gitignore'), 'logs/\n*.tmp\nignored-later/\nignored-later.txt\n');
  writeFileSync(join(made.root, 'ignored-later/new.ts'), 'new\n');
  await call('write', { path: 'work/drafted/new/one.ts', content: 'drafted\n' });
  await call('write', { path: `work/${rnd(2) ? 'src' : 'docs'}/drafted.ts`, content: 'drafted\n' });
  const known = Object.keys(files).filter((f) => !f.includes('.tmp') && !f.startsWith('logs/') && !f.includes('built/') && !f.endsWith('ignore'));
  const edited = known[rnd(known.length)];
  await call('write', { path: `work/${edited}`, content: 'the agent’s\n' });
  const saved = known[rnd(known.length)];
  writeFileSync(join(made.root, saved), 'a person’s save\n');
  const gone = known[rnd(known.length)];
  if (gone !== edited) rmSync(join(made.root, gone));
  rmSync(join(made.root, 'docs'), { recursive: true, force: true });
  writeFileSync(join(made.root, `new-${rnd(100)}.txt`), 'new on disk\n');
  mkdirSync(join(made.root, 'src/lib/deep'), { recursive: true });
  writeFileSync(join(made.root, 'src/lib/deep/late.ts'), 'late\n');
  return { ...made, call };
}

describe('a listing that is not recursive on a store-backed mount', () => {
  const level = (entries: unknown[], dir: string) =>
    (entries as { path: string }[]).filter((e) => {
      const inside = dir === 'work' ? e.path.slice('work/'.length) : e.path.slice(dir.length + 1);
      return e.path.startsWith(`${dir}/`) && !inside.includes('/');
    });

  // Each test twice: as the listing chooses between the two looks, and with the level's look on every listing.
  for (const forced of [false, true]) {
  const titled = (title: string) => (forced ? `${title} (WS_LEVEL_LOOK=always)` : title);
  test(titled('lists exactly the entries a whole pass would show at that level, on generated trees'), async () => {
    if (forced) process.env.WS_LEVEL_LOOK = 'always';
    // Ignored directories named outright (logs/, src/built/) are listed as a walk of them shows them.
    const places = ['work', 'work/src', 'work/src/lib', 'work/src/built', 'work/docs', 'work/drafted', 'work/drafted/new', 'work/gen', 'work/logs', 'work/empty', 'work/only-ignored', 'work/ignored-later'];
    let compared = 0;
    let notes = 0;
    for (let seed = 1; seed <= 6; seed++) {
      // The same scenario twice: one listed level by level, the other by whole passes (a recursive listing of the same place).
      const one = await scenario(seed);
      const whole = await scenario(seed);
      // What it says it passed over is the level's, as a direct mount of the same tree says it.
      const direct = await openTestHost(testConfig(one.root, [{ name: 'work', path: '.', backend: 'direct' }]), { watch: false });
      for (const dir of places) {
        const shallow = await one.call('ls', { path: dir }).catch((err: Error) => ({ error: err.message }));
        const deep = await whole.call('ls', { path: dir, recursive: true }).catch((err: Error) => ({ error: err.message }));
        if ('error' in shallow || 'error' in deep) {
          expect(shallow).toEqual(deep);
        } else {
          expect(shallow.entries).toEqual(level(deep.entries ?? [], dir));
          compared += shallow.entries?.length ?? 0;
          if (dir === 'work') {
            // A file beside a held one in a directory ignored since: a whole pass does not take it in, nor does the level's.
            const held = (host: typeof one) => {
              const store = host.host.store as Store;
              return store.read(store.selectedBranch(), 'work', 'ignored-later/new.ts');
            };
            expect(held(one)).toEqual(held(whole));
            expect(held(one).tree).toBeNull();
          }
          const plain = await handleToolCall(direct.workspace, { name: 'ls', input: { path: dir } });
          if (plain.success) {
            expect(shallow.note).toBe((plain.data as { note?: string }).note);
            notes += shallow.note === undefined ? 0 : 1;
          }
        }
      }
      one.host.close();
      whole.host.close();
      direct.close();
    }
    expect(compared).toBeGreaterThan(100);
    expect(notes).toBeGreaterThan(10);
    delete process.env.WS_LEVEL_LOOK;
  });
  }

  test('reads nothing beneath the level: a change deeper down is left for the next look at it', async () => {
    const seen: string[] = [];
    const { host, root } = await storeHost({
      files: { 'top.txt': 'top\n', 'sub/inner.txt': 'inner\n', 'sub/deeper/far.txt': 'far\n', ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`sub/more/m${i}.txt`, 'm\n'])) },
      wrapDisk: (_m, disk) => ({
        ...disk,
        locateRoot: () => disk.locateRoot(),
        read: (p, max) => {
          seen.push(`read ${p}`);
          return disk.read(p, max);
        },
        stat: (p) => {
          seen.push(`stat ${p}`);
          return disk.stat(p);
        },
        walk: (dir, ...rest: unknown[]) => {
          seen.push(`walk ${dir} ${JSON.stringify(rest)}`);
          return (disk.walk as (d: string, ...r: unknown[]) => ReturnType<DiskPort['walk']>)(dir, ...rest);
        },
      }),
    });
    const call = async (name: string, input: unknown) => {
      const r = await handleToolCall(host.workspace, { name, input });
      if (!r.success) throw new Error(`${name}: ${r.error}`);
      return r.data as { entries: { path: string; kind: string; state?: string }[]; note?: string };
    };
    await call('ls', { path: 'work', recursive: true });
    writeFileSync(join(root, 'sub/deeper/far.txt'), 'changed far\n');
    writeFileSync(join(root, 'top.txt'), 'changed top\n');
    seen.length = 0;
    const listed = await call('ls', { path: 'work' });
    expect(listed.entries.map((e) => [e.path, e.kind, e.state])).toEqual([
      ['work/sub', 'directory', undefined],
      ['work/top.txt', 'file', 'synced'],
    ]);
    expect(seen.filter((s) => s.includes('sub/'))).toEqual([]);
    expect(seen).toContain('walk  [{"shallow":true}]');
    // The deeper change is taken in where it is looked at.
    const deeper = await call('ls', { path: 'work/sub/deeper' });
    expect(deeper.entries.map((e) => [e.path, e.state])).toEqual([['work/sub/deeper/far.txt', 'synced']]);
    host.close();
  });

  test("a file's path is said to be a file, as a direct mount says it: on disk, a draft only, and one deleted by the agent is missing", async () => {
    const { host, root } = await storeHost({ files: { 'a.txt': 'a\n', 'gone.txt': 'g\n', 'dir/b.txt': 'b\n' } });
    const ls = async (path: string) => {
      const r = await handleToolCall(host.workspace, { name: 'ls', input: { path } });
      return r.success ? 'listed' : r.error;
    };
    await handleToolCall(host.workspace, { name: 'write', input: { path: 'work/dir/draft.ts', content: 'd\n' } });
    await handleToolCall(host.workspace, { name: 'delete', input: { path: 'work/gone.txt' } });
    const direct = await openTestHost(testConfig(root, [{ name: 'work', path: '.', backend: 'direct' }]), { watch: false });
    const directLs = async (path: string) => {
      const r = await handleToolCall(direct.workspace, { name: 'ls', input: { path } });
      return r.success ? 'listed' : r.error;
    };
    expect(await ls('work/a.txt')).toBe(await directLs('work/a.txt'));
    expect(await ls('work/a.txt')).toBe('work/a.txt is a file, not a directory; read it instead.');
    expect(await ls('work/dir/draft.ts')).toBe('work/dir/draft.ts is a file, not a directory; read it instead.');
    expect(await ls('work/gone.txt')).toBe('work/gone.txt does not exist.');
    expect(await ls('work/nothing')).toBe('work/nothing does not exist.');
    expect(await ls('work/dir')).toBe('listed');
    direct.close();
    host.close();
  });

  test('a level holding most of the files beneath it is looked at by the whole pass, which costs less there, with the same answer', async () => {
    const walks: string[] = [];
    const files = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`flat/f${i}.txt`, `${i}\n`]));
    const { host } = await storeHost({
      files: { ...files, 'flat/sub/one.txt': 'one\n' },
      wrapDisk: (_m, disk) => ({
        ...disk,
        locateRoot: () => disk.locateRoot(),
        walk: (dir, ...rest: unknown[]) => {
          walks.push(`${dir} ${JSON.stringify(rest)}`);
          return (disk.walk as (d: string, ...r: unknown[]) => ReturnType<DiskPort['walk']>)(dir, ...rest);
        },
      }),
    });
    const ls = async () => {
      const r = await handleToolCall(host.workspace, { name: 'ls', input: { path: 'work/flat' } });
      if (!r.success) throw new Error(r.error);
      return r.data;
    };
    await handleToolCall(host.workspace, { name: 'sync', input: {} });
    walks.length = 0;
    const chosen = await ls();
    // The store's counts decide before anything is walked: the whole pass's walk alone.
    expect(walks).toEqual(['flat []']);
    process.env.WS_LEVEL_LOOK = 'always';
    walks.length = 0;
    const forced = await ls();
    delete process.env.WS_LEVEL_LOOK;
    expect(walks).toEqual(['flat [{"shallow":true}]']);
    expect(forced).toEqual(chosen);
    host.close();
  });

});

describe('a recursive listing and glob where the mount\'s watcher has settled', () => {
  const places = ['work', 'work/src', 'work/src/lib', 'work/src/built', 'work/docs', 'work/drafted', 'work/gen', 'work/logs', 'work/empty', 'work/only-ignored', 'work/ignored-later', 'work/nothing'];
  const patterns = ['work/**/*.ts', '**/keep.txt', 'work/src/**', '**/*.tmp', 'work/logs/**', 'work/**/e f.txt', '**/nothing.zz', 'work/gen/*'];
  const walking = (walks: string[]) => (_m: string, disk: DiskPort): DiskPort => ({
    ...disk,
    locateRoot: () => disk.locateRoot(),
    walk: (dir, ...rest: unknown[]) => {
      walks.push(dir);
      return (disk.walk as (d: string, ...r: unknown[]) => ReturnType<DiskPort['walk']>)(dir, ...rest);
    },
  });

  test('lists and globs from the store\'s records exactly what a pass shows, with no pass, on generated trees', async () => {
    let fromRecords = 0;
    let passed = 0;
    let compared = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const walks: string[] = [];
      // The same scenario twice: one watched by a watcher that has heard of nothing since, the other passing at every call.
      const one = await scenario(seed, walking(walks));
      const other = await scenario(seed);
      (one.mount as StoreMount).watchedBy({ settle: async () => true });
      // The whole-mount pass after the watcher started: from here the store holds what disk does.
      await one.call('sync', {});
      await other.call('sync', {});
      const both = async (name: string, input: Record<string, unknown>) => {
        walks.length = 0;
        const a = await handleToolCall(one.host.workspace, { name, input });
        if (walks.length === 0) fromRecords++;
        else passed++;
        const b = await handleToolCall(other.host.workspace, { name, input });
        expect(a).toEqual(b);
        compared += JSON.stringify(a).length;
      };
      for (const path of places) await both('ls', { path, recursive: true });
      for (const pattern of patterns) await both('glob', { pattern });
      await both('glob', { pattern: '*.ts', path: 'work/src' });
      // A page further on, followed as the note says.
      await both('ls', { path: 'work', recursive: true, offset: 3 });
      one.host.close();
      other.host.close();
    }
    // Where the scenario left a conflict (the agent's edit and a person's save of one file), the listing passed.
    expect(fromRecords).toBeGreaterThan(100);
    expect(passed).toBeGreaterThan(0);
    expect(compared).toBeGreaterThan(20_000);
  });

  test('a conflict is listed from its records as a pass lists it; a pending effect, a record a pass would change, a replaced root or a watcher that has not settled sends the listing to a pass', async () => {
    const walks: string[] = [];
    let settles = true;
    const { host, root, mount } = await storeHost({ files: { 'a.txt': 'a\n', 'sub/b.txt': 'b\n' }, wrapDisk: walking(walks) });
    (mount as StoreMount).watchedBy({ settle: async () => settles });
    const glob = async () => {
      walks.length = 0;
      const r = await handleToolCall(host.workspace, { name: 'glob', input: { pattern: '**' } });
      if (!r.success) throw new Error(r.error);
      return { files: (r.data as { files: string[] }).files, walked: walks.length > 0 };
    };
    await handleToolCall(host.workspace, { name: 'sync', input: {} });
    expect(await glob()).toEqual({ files: ['work/a.txt', 'work/sub/b.txt'], walked: false });
    // A change the watcher has not heard of is not seen (it is the next call's, once the watcher passes over it)…
    writeFileSync(join(root, 'late.txt'), 'late\n');
    expect(await glob()).toEqual({ files: ['work/a.txt', 'work/sub/b.txt'], walked: false });
    // …and a watcher that has not settled leaves it to a pass, which takes it in.
    settles = false;
    expect(await glob()).toEqual({ files: ['work/a.txt', 'work/late.txt', 'work/sub/b.txt'], walked: true });
    settles = true;
    // A conflict, disk as its record says: listed from the records, as a pass lists it…
    await handleToolCall(host.workspace, { name: 'write', input: { path: 'work/a.txt', content: 'agent\n' } });
    writeFileSync(join(root, 'a.txt'), 'person\n');
    await handleToolCall(host.workspace, { name: 'read', input: { path: 'work/a.txt' } });
    const ls = async () => {
      walks.length = 0;
      const listed = await handleToolCall(host.workspace, { name: 'ls', input: { path: 'work', recursive: true } });
      return { listed, walked: walks.length > 0 };
    };
    const fromRecords = await ls();
    expect(fromRecords.walked).toBe(false);
    expect(JSON.stringify(fromRecords.listed)).toContain('"state":"conflict"');
    settles = false;
    expect(await ls()).toEqual({ ...fromRecords, walked: true });
    // …but where disk changed since the conflict was recorded (a pass has seen it), only a pass says what disk holds.
    writeFileSync(join(root, 'a.txt'), 'person again\n');
    await ls();
    settles = true;
    expect((await ls()).walked).toBe(true);
    // A pending effect (a write that stopped midway leaves one): the same.
    const store = host.store as Store;
    const branch = store.selectedBranch();
    await handleToolCall(host.workspace, { name: 'sync', input: { path: 'work/a.txt', force: true } }).catch(() => undefined);
    await handleToolCall(host.workspace, { name: 'discard', input: { path: 'work/a.txt' } });
    expect(await glob()).toEqual({ files: ['work/a.txt', 'work/late.txt', 'work/sub/b.txt'], walked: false });
    // A record a pass would write to (its evidence without the fingerprint a pass records): the store is not what a pass leaves.
    const late = store.read(branch, 'work', 'late.txt');
    const evidence = late.evidence;
    if (evidence?.kind !== 'text') throw new Error('late.txt has no text evidence');
    store.setEvidence('work', 'late.txt', { ...evidence, fingerprint: null });
    store.barrier();
    expect((await glob()).walked).toBe(true);
    expect((await glob()).walked).toBe(false);
    const held = store.read(branch, 'work', 'sub/b.txt');
    const tree = held.tree as NonNullable<typeof held.tree>;
    store.setPending('work', 'sub/b.txt', { kind: 'write', branch, hash: tree.hash, size: tree.size, mode: null, expected: null } as never);
    store.barrier();
    expect((await glob()).walked).toBe(true);
    // A root replaced (moved away, another made in its place): the pass says so, as without a watcher.
    expect((await glob()).walked).toBe(false);
    renameSync(root, `${root}-moved`);
    mkdirSync(root);
    writeFileSync(join(root, 'other.txt'), 'other\n');
    const replaced = await handleToolCall(host.workspace, { name: 'glob', input: { pattern: '**' } });
    expect(JSON.stringify(replaced)).toContain('moved or replaced');
    host.close();
  });

  test("with a real watcher: a person's new file, deletion and new directory show once the watcher has passed over them, with no pass of the listing's own", async () => {
    const walks: string[] = [];
    const root = tempDir();
    writeFiles(root, { 'a.ts': 'a\n', 'sub/b.ts': 'b\n', 'gone.ts': 'g\n' });
    const config = testConfig(root, [{ name: 'work', path: '.', watch: 'always' }]);
    const host = await openTestHost(config, { watch: true, wrapDisk: walking(walks) });
    const glob = async () => {
      const r = await handleToolCall(host.workspace, { name: 'glob', input: { pattern: 'work/**/*.ts' } });
      if (!r.success) throw new Error(r.error);
      return (r.data as { files: string[] }).files;
    };
    // The first whole-mount pass since the watcher started.
    expect(await glob()).toEqual(['work/a.ts', 'work/gone.ts', 'work/sub/b.ts']);
    // In this order: once the last shows, the watcher has heard of every one.
    mkdirSync(join(root, 'empty'));
    writeFiles(root, { 'new/deep/c.ts': 'c\n', 'sub/d.ts': 'd\n' });
    rmSync(join(root, 'gone.ts'));
    const want = ['work/a.ts', 'work/new/deep/c.ts', 'work/sub/b.ts', 'work/sub/d.ts'];
    // The kernel tells the watcher in its own time: asked until it has (at most 10 s).
    const until = Date.now() + 10_000;
    let files = await glob();
    while (JSON.stringify(files) !== JSON.stringify(want) && Date.now() < until) {
      await Bun.sleep(50);
      files = await glob();
    }
    expect(files).toEqual(want);
    walks.length = 0;
    expect(await glob()).toEqual(want);
    const listed = await handleToolCall(host.workspace, { name: 'ls', input: { path: 'work', recursive: true } });
    // The listing's directories come from a walk by names, not a pass over the mount (the watcher's own passes walk only the directories it heard of).
    expect(walks.filter((dir) => dir === '')).toEqual([]);
    expect((listed.success ? (listed.data as { entries: { path: string }[] }).entries : []).map((e) => e.path)).toEqual([
      'work/a.ts',
      'work/empty',
      'work/new',
      'work/new/deep',
      'work/new/deep/c.ts',
      'work/sub',
      'work/sub/b.ts',
      'work/sub/d.ts',
    ]);
    host.close();
  });
});
