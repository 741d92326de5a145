import { describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diskPort } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';
import { newTally, walk } from '../src/disk/walk.ts';
import { enc, tempDir } from './fixtures.ts';

describe('containment', () => {
  const contained = (root: string, path: string, follow: boolean) =>
    diskPort({ root, rules: walkRules([], undefined), followSymlinks: follow, walkCap: 100 }).contain(path, 'read');

  test('a path with .. or a leading / is refused', () => {
    const root = tempDir();
    expect(contained(root, '../x', false).ok).toBe(false);
    expect(contained(root, 'a/../../x', false).ok).toBe(false);
    expect(contained(root, '/etc/passwd', false).ok).toBe(false);
    expect(contained(root, 'a/b.txt', false)).toEqual({ ok: true, abs: join(root, 'a/b.txt') });
  });

  test('a symlink is refused where the mount does not follow links', () => {
    const root = tempDir();
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'link'));
    const r = contained(root, 'link/a.txt', false);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toContain('symbolic link');
    expect(contained(root, 'link/a.txt', true).ok).toBe(true);
  });

  test('a symlink out of the root is refused even where links are followed', () => {
    const root = tempDir();
    const outside = tempDir();
    symlinkSync(outside, join(root, 'out'));
    const r = contained(root, 'out/secret', true);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toContain('outside the mount');
  });
});

describe('one spelling for every check', () => {
  const root = tempDir();
  mkdirSync(join(root, '.git'), { recursive: true });
  writeFileSync(join(root, '.git/config'), 'orig');
  const disk = diskPort({ root, rules: walkRules([], '.ws/store.sqlite'), followSymlinks: false, walkCap: 100, storeRel: '.ws/store.sqlite', protect: ['.git/'] });
  const cases: [string, string | null][] = [
    ['.git/./config', 'mount.protect'],
    ['./.git/config', 'mount.protect'],
    ['.git//config', 'mount.protect'],
    ['.git\0/config', 'NUL'],
    ['.ws/./store.sqlite', "ws's own file"],
    ['./.ws-tmp-x-1-abc', "ws's own file"],
    ['a/./b.txt', null],
    ['./', null],
  ];
  for (const [path, refused] of cases) {
    test(`${JSON.stringify(path)} is ${refused === null ? 'allowed' : `refused (${refused})`} for a change`, async () => {
      const named = path.replace('\\0', '\0');
      const r = disk.contain(named, 'change');
      expect(r.ok).toBe(refused === null);
      if (!r.ok && refused !== null) expect(r.message).toContain(refused);
      if (refused !== null && named !== './') {
        const w = await disk.write(named, enc('pwned'), { mode: null, expect: { kind: 'any' } });
        expect(w.kind).toBe('failed');
      }
      expect(readFileSync(join(root, '.git/config'), 'utf8')).toBe('orig');
    });
  }
});

describe('atomic writes', () => {
  test('a write creates parents, keeps the mode it is given, and leaves no temporary file', async () => {
    const root = tempDir();
    const disk = diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 100 });
    const file = join(root, 'a/b/c.txt');
    const one = await disk.write('a/b/c.txt', enc('one'), { mode: null, expect: { kind: 'absent' } });
    if (one.kind !== 'done') throw new Error('expected a write');
    chmodSync(file, 0o600);
    const seen = await disk.stat('a/b/c.txt');
    if (seen.kind !== 'file') throw new Error('expected a file');
    expect(seen.meta.mode).toBe(0o600);
    await disk.write('a/b/c.txt', enc('two'), { mode: seen.meta.mode, expect: { kind: 'file', fingerprint: seen.meta.fingerprint } });
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect((Bun.file(file).size)).toBe(3);
    expect(readdirSync(join(root, 'a/b'))).toEqual(['c.txt']);
  });
});

describe('walks', () => {
  function tree(root: string, files: string[]) {
    for (const f of files) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      writeFileSync(join(root, f), f);
    }
  }

  test('a walk yields files in plain string order and counts what it passed over by reason', () => {
    const root = tempDir();
    tree(root, ['a.txt', 'a/b.txt', 'b.ts', 'node_modules/x.js', '.git/HEAD', 'x.log', '.a.swp', 'notes~', '.ws/store.sqlite']);
    const tally = newTally();
    const entries = [...walk({ root, from: '', rules: walkRules(['node_modules/', '.git/', '*.log'], '.ws/store.sqlite'), followSymlinks: false, cap: 100 }, tally)];
    // A directory comes just before what it holds; files come in plain string order.
    expect(entries.map((e) => e.path)).toEqual(['a.txt', 'a', 'a/b.txt', 'b.ts']);
    const files = entries.filter((e) => e.kind === 'file').map((e) => e.path);
    expect(files).toEqual([...files].sort());
    expect(tally.passedOver).toEqual({
      'ignored by the mount\u2019s ignore: .git/': 1,
      'ignored by the mount\u2019s ignore: node_modules/': 1,
      'ignored by the mount\u2019s ignore: *.log': 1,
      'editor swap or backup file': 2,
      'the ws store': 1,
    });
  });

  test('nested .gitignore and .ignore files are honoured, naming the rule; without them (gitignore = false) not', () => {
    const root = tempDir();
    tree(root, ['.gitignore', 'dist/x.js', 'src/a.ts', 'src/.gitignore', 'src/gen/b.ts', 'src/keep.log', 'x.log', 'node_modules/m/index.js']);
    writeFileSync(join(root, '.gitignore'), 'dist/\n*.log\n');
    writeFileSync(join(root, 'src/.gitignore'), 'gen/\n!keep.log\n');
    // A person who commits node_modules takes it out of the mount's ignore list.
    const tally = newTally();
    const seen = walk({ root, from: '', rules: walkRules(['.git/'], undefined, root), followSymlinks: false, cap: 100 }, tally).map((e) => e.path);
    expect(seen).toEqual(['.gitignore', 'node_modules', 'node_modules/m', 'node_modules/m/index.js', 'src', 'src/.gitignore', 'src/a.ts', 'src/keep.log']);
    expect(tally.passedOver).toEqual({ 'ignored by .gitignore: dist/': 1, 'ignored by .gitignore: *.log': 1, 'ignored by src/.gitignore: gen/': 1 });
    const all = walk({ root, from: '', rules: walkRules([], undefined), followSymlinks: false, cap: 100 }, newTally()).filter((e) => e.kind === 'file');
    expect(all).toHaveLength(8);
  });

  test('a walk stops at its cap and says so', () => {
    const root = tempDir();
    tree(root, ['1', '2', '3', '4']);
    const tally = newTally();
    const paths = [...walk({ root, from: '', rules: walkRules([], undefined), followSymlinks: false, cap: 2 }, tally)];
    expect(paths).toHaveLength(2);
    expect(tally.incomplete).toContain('cap');
  });
});

describe('the disk port', () => {
  const port = (root: string) => diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 1000 });

  test('a stat gives a fingerprint that changes when the bytes do', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'a'), 'one');
    const disk = diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 1000, timestampGranularityMs: 20 });
    await Bun.sleep(80); // past the granularity and the clock slack: a stat now vouches for the bytes
    const first = await disk.stat('a');
    const same = await disk.stat('a');
    writeFileSync(join(root, 'a'), 'two!');
    const changed = await disk.stat('a');
    expect(first.kind === 'file' && same.kind === 'file' && first.meta.fingerprint === same.meta.fingerprint).toBe(true);
    expect(first.kind === 'file' && changed.kind === 'file' && first.meta.fingerprint !== changed.meta.fingerprint).toBe(true);
    expect(await disk.stat('missing')).toEqual({ kind: 'absent' });
    mkdirSync(join(root, 'd'));
    expect((await disk.stat('d')).kind).toBe('unobservable');
  });

  test('a fingerprint taken within the timestamp granularity is not evidence (racily clean)', async () => {
    const root = tempDir();
    // A file system keeping whole seconds, simulated on this one: a same-size save in the
    // same second keeps inode, size, mtime and ctime.
    const disk = diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 1000, coarseTimesMs: 1000 });
    writeFileSync(join(root, 'a'), 'aaaa');
    const seen = await disk.stat('a');
    writeFileSync(join(root, 'a'), 'bbbb');
    const later = await disk.stat('a');
    if (seen.kind !== 'file' || later.kind !== 'file') throw new Error('expected files');
    expect(later.meta.fingerprint).not.toBe(seen.meta.fingerprint);
    // Once the second is over, an unchanged file's stats agree again.
    await Bun.sleep(1100);
    const settled = await disk.stat('a');
    const again = await disk.stat('a');
    if (settled.kind !== 'file' || again.kind !== 'file') throw new Error('expected files');
    expect(again.meta.fingerprint).toBe(settled.meta.fingerprint);
  });

  test('a file emptied just now (a save between its truncate and its write) is looked at again before it is read as empty', async () => {
    const root = tempDir();
    // Times kept to a second, so the empty file is "just now" however long this machine
    // stalls between the truncate and the read (with the root's own fine times the window
    // is about 20 ms, which a loaded machine can outlast).
    const disk = diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 1000, timestampGranularityMs: 1000 });
    writeFileSync(join(root, 'a'), '');
    // The save's write lands while the read settles (timers run in order: 4 ms < 2 + 5 ms).
    setTimeout(() => writeFileSync(join(root, 'a'), 'saved'), 4);
    const r = await disk.read('a', 100);
    expect(r.kind === 'file' && r.bytes !== null ? new TextDecoder().decode(r.bytes) : r.kind).toBe('saved');
    // A file that stays empty is empty.
    writeFileSync(join(root, 'b'), '');
    const b = await disk.read('b', 100);
    expect(b.kind === 'file' && b.bytes?.length).toBe(0);
  });

  test('a write refuses where disk no longer holds what the decision saw', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'a'), 'one');
    const disk = port(root);
    const seen = await disk.stat('a');
    if (seen.kind !== 'file') throw new Error('expected a file');
    writeFileSync(join(root, 'a'), 'person');
    const r = await disk.write('a', enc('agent'), { mode: null, expect: { kind: 'file', fingerprint: seen.meta.fingerprint } });
    expect(r.kind).toBe('refused');
    expect(readFileSync(join(root, 'a'), 'utf8')).toBe('person');
    expect(readdirSync(root)).toEqual(['a']);
    const created = await disk.write('new/b', enc('b'), { mode: null, expect: { kind: 'absent' } });
    expect(created.kind).toBe('done');
    const again = await disk.write('new/b', enc('c'), { mode: null, expect: { kind: 'absent' } });
    expect(again.kind).toBe('refused');
  });

  test('an unlink refuses where disk changed, and a read returns bytes with their meta', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'a'), 'one');
    const disk = port(root);
    const r = await disk.read('a', 100);
    if (r.kind !== 'file' || r.bytes === null) throw new Error('expected bytes');
    expect(new TextDecoder().decode(r.bytes)).toBe('one');
    expect((await disk.read('a', 2)).kind === 'file' && (await disk.read('a', 2) as { bytes: null }).bytes).toBeNull();
    writeFileSync(join(root, 'a'), 'changed');
    expect((await disk.unlink('a', { expect: { kind: 'file', fingerprint: r.meta.fingerprint } })).kind).toBe('refused');
    expect(existsSync(join(root, 'a'))).toBe(true);
  });

  test('the root is unavailable when it is gone, and a walk lists passed-over paths one by one', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'keep.txt'), 'k');
    writeFileSync(join(root, 'x.swp'), 's');
    const disk = port(root);
    expect((await disk.locateRoot()).kind).toBe('available');
    const w = await disk.walk('');
    expect(w.files.map((f) => f.path)).toEqual(['keep.txt']);
    expect(w.passedOver).toEqual([{ path: 'x.swp', reason: 'editor swap or backup file', directory: false }]);
    const gone = port(join(root, 'nope'));
    expect((await gone.locateRoot()).kind).toBe('unavailable');
  });
});

describe('walk rules', () => {
  const rules = walkRules(['node_modules/', '.git/', 'build/', '*.log', '!keep.log'], '.ws/store.sqlite');
  const cases: [string, boolean, string | undefined][] = [
    ['x.swp', false, 'editor swap or backup file'],
    ['dir/notes.txt~', false, 'editor swap or backup file'],
    ['.#lock', false, 'editor swap or backup file'],
    ['#autosave#', false, 'editor swap or backup file'],
    ['4913', false, 'editor swap or backup file'],
    ['#', false, undefined],
    ['a.txt', false, undefined],
    ['.git', true, 'ignored by the mount\u2019s ignore: .git/'],
    ['pkg/node_modules', true, 'ignored by the mount\u2019s ignore: node_modules/'],
    ['node_modules', false, undefined],
    ['build', true, 'ignored by the mount\u2019s ignore: build/'],
    ['x.log', false, 'ignored by the mount\u2019s ignore: *.log'],
    ['keep.log', false, undefined],
    ['.ws', true, 'the ws store'],
    ['.ws/store.sqlite-wal', false, 'the ws store'],
    ['a/.ws-tmp-x-1-abc', false, 'ws temporary file'],
  ];
  for (const [path, isDir, reason] of cases) {
    test(`${isDir ? 'directory' : 'file'} ${path} is ${reason ?? 'looked at'}`, () => {
      expect(rules.passOver(path, isDir) as string | undefined).toBe(reason);
    });
  }
});
