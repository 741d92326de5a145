/**
 * A quiet sync (the README, "A quiet sync"): a whole-mount sync that finds nothing changed
 * answers with the last sync's report, and only then. Each change a pass would see — to a
 * file's bytes (even with its mtime put back), its mode, a name added, removed or renamed
 * at any depth, an ignore file, a directory swapped for a link, the store written by a
 * tool or by another connection, the mount's config — sends the sync through a pass.
 * SQLite's stores only: a PostgreSQL store keeps no quiet records (every sync is a pass).
 */
import { describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from 'bun:sqlite';
import type { Report } from '@ws/tools';
import { sha256 } from '../src/host.ts';
import { quietAnswers } from '../src/mounts/store-backed/quiet.ts';
import { openStore } from '../src/store/open-store.ts';
import { enc, tempDir } from './fixtures.ts';
import { openTestHost, testConfig, writeFiles } from './host-fixtures.ts';

const FILES: Record<string, string | Uint8Array> = {
  '.gitignore': 'build/\n*.log\n',
  'a.txt': 'one\n',
  'crlf.txt': 'one\r\ntwo\r\n',
  'bin.dat': new Uint8Array([0, 1, 2, 3, 0, 255]),
  'src/deep/er/x.ts': 'export const x = 1;\n',
  'src/deep/y.ts': 'export const y = 2;\n',
  'src/.gitignore': 'gen/\n',
  'src/gen/skip.ts': 'skipped\n',
  'build/out.js': 'ignored\n',
  'note.log': 'ignored\n',
  // An ignore file that ignores itself: no walked file, only its own stat says it changed.
  'lib/.ignore': 'gen/\n.ignore\n',
  'lib/gen/g.ts': 'generated\n',
};

/** Past the timestamp granularity and the clock's slack: what was just made is no longer racy. */
const settle = () => Bun.sleep(120);

async function opened(mountExtra: Record<string, unknown> = {}, root = tempDir(), storePath?: string) {
  if (Object.keys(FILES).every((p) => !statSync(join(root, p), { throwIfNoEntry: false }))) writeFiles(root, FILES);
  const config = testConfig(root, [{ name: 'work', path: '.', ...mountExtra }], ...(storePath ? [storePath] : []));
  const host = await openTestHost(config, { watch: false });
  const mount = host.workspace.mounts[0];
  const sync = async (): Promise<{ report: Report; quiet: boolean }> => {
    const before = quietAnswers.count;
    const r = await mount.sync(undefined);
    if (!r.ok) throw new Error(r.message);
    return { report: r.report, quiet: quietAnswers.count > before };
  };
  return { host, mount, root, sync, config };
}

/** A mount synced, then synced again with nothing changed until a sync answers from its kept report. */
async function keptQuiet(mountExtra: Record<string, unknown> = {}) {
  const m = await opened(mountExtra);
  const first = await m.sync(); // the first sync takes everything in
  expect(first.quiet).toBe(false);
  await settle();
  const kept = await quietSoon(m.sync);
  return { ...m, kept };
}

/**
 * The new state's report is kept in turn and answered, as the pass before gave it: once no
 * stat is racy, a pass may still refresh evidence a racy stat left (it writes, so keeps
 * nothing); a pass that writes nothing keeps its report, and the next sync answers with it.
 */
async function quietSoon(sync: () => Promise<{ report: Report; quiet: boolean }>, before?: Report): Promise<Report> {
  let last = before;
  for (let i = 0; i < 3; i++) {
    const r = await sync();
    if (r.quiet) {
      expect(last).toBeDefined();
      expect(r.report).toEqual(last as Report);
      return r.report;
    }
    last = r.report;
  }
  throw new Error('three syncs with nothing changed, and none answered from a kept report');
}

describe('a quiet sync', () => {
  test('answers as the pass did where nothing changed, again and again', async () => {
    const m = await keptQuiet();
    for (let i = 0; i < 3; i++) {
      const again = await m.sync();
      expect(again.quiet).toBe(true);
      expect(again.report).toEqual(m.kept);
    }
    expect((m.kept as { counts: Record<string, number> }).counts.synced).toBe(6);
  });

  // Each change, made after a report was kept: the next sync is a pass, and sees it.
  const changes: { name: string; change: (root: string) => void; seen: (r: Report) => boolean; never?: boolean }[] = [
    {
      name: 'a file rewritten in place, the same size, its mtime put back',
      change: (root) => {
        const p = join(root, 'a.txt');
        const st = statSync(p);
        writeFileSync(p, 'two\n');
        utimesSync(p, st.atime, st.mtime);
      },
      seen: (r) => JSON.stringify(r.tookIn).includes('a.txt'),
    },
    { name: 'a file appended to', change: (root) => writeFileSync(join(root, 'src/deep/er/x.ts'), 'export const x = 1;\nmore\n'), seen: (r) => JSON.stringify(r.tookIn).includes('x.ts') },
    { name: 'a file made three levels down', change: (root) => writeFileSync(join(root, 'src/deep/er/new.ts'), 'new\n'), seen: (r) => JSON.stringify(r.tookIn).includes('new.ts') },
    { name: 'a file removed', change: (root) => rmSync(join(root, 'src/deep/y.ts')), seen: (r) => JSON.stringify(r.tookIn).includes('y.ts') },
    { name: 'a file renamed', change: (root) => renameSync(join(root, 'crlf.txt'), join(root, 'crlf2.txt')), seen: (r) => JSON.stringify(r.tookIn).includes('crlf2.txt') },
    // A mode alone is taken in without a line in the report: that the sync was a pass is what counts.
    { name: 'a file made executable', change: (root) => chmodSync(join(root, 'a.txt'), 0o755), seen: () => true },
    {
      name: 'an ignore file changed in place, un-ignoring a directory',
      change: (root) => writeFileSync(join(root, 'src/.gitignore'), 'zzz/\n'),
      seen: (r) => JSON.stringify(r.tookIn).includes('skip.ts'),
    },
    {
      name: 'an ignore file that ignores itself changed in place',
      change: (root) => writeFileSync(join(root, 'lib/.ignore'), '.ignore\n'),
      seen: (r) => JSON.stringify(r.tookIn).includes('g.ts'),
    },
    {
      // The records beneath the link are looked at by name, beyond what the walk saw: no report is kept while they stand.
      never: true,
      name: 'a directory swapped for a link to a copy of it',
      change: (root) => {
        const copy = tempDir();
        writeFiles(copy, { 'er/x.ts': 'export const x = 1;\n', 'y.ts': 'export const y = 2;\n' });
        renameSync(join(root, 'src/deep'), join(copy, 'old'));
        symlinkSync(copy, join(root, 'src/deep'));
      },
      seen: (r) => JSON.stringify(r).includes('symbolic link'),
    },
    { name: 'an empty directory made', change: (root) => mkdirSync(join(root, 'src/empty')), seen: () => true },
  ];
  for (const { name, change, seen, never } of changes) {
    test(`goes through a pass after ${name}`, async () => {
      const m = await keptQuiet();
      change(m.root);
      const after = await m.sync();
      expect(after.quiet).toBe(false);
      expect(seen(after.report)).toBe(true);
      await settle();
      if (never) {
        for (let i = 0; i < 3; i++) expect((await m.sync()).quiet).toBe(false);
      } else {
        await quietSoon(m.sync, after.report);
      }
    });
  }

  test('goes through a pass after a tool wrote a draft, and reports the draft', async () => {
    const m = await keptQuiet();
    const w = await m.mount.commit([{ path: 'a.txt', bytes: enc('drafted\n') }]);
    expect(w.ok).toBe(true);
    const after = await m.sync();
    expect(after.quiet).toBe(false);
    expect(JSON.stringify(after.report)).toContain('a.txt');
    const quiet = await quietSoon(m.sync, after.report);
    expect(quiet).toEqual(after.report); // the draft still listed
  });

  test('goes through a pass after the mount’s config changed', async () => {
    const m = await keptQuiet();
    m.host.close();
    const other = await opened({ ignore: ['src/'] }, m.root, m.config.storePath);
    const after = await other.sync();
    expect(after.quiet).toBe(false);
    expect(JSON.stringify(after.report.passedOver)).toContain('src/');
  });

  test('gives nothing where the kept stats are damaged, and fails no sync', async () => {
    const m = await keptQuiet();
    const path = m.config.storePath;
    const db = new Database(path);
    db.run('UPDATE quiet SET stats = zeroblob(7)');
    db.close();
    const after = await m.sync();
    expect(after.quiet).toBe(false);
    expect(after.report).toEqual(m.kept);
  });

  test('keeps nothing where another connection wrote between the pass and the keeping', async () => {
    const m = await keptQuiet();
    const path = m.config.storePath;
    const db = new Database(path);
    db.run('DELETE FROM quiet');
    // Another writer's transaction counts itself: the record this process makes is not kept.
    db.run('UPDATE changes SET n = n + 1');
    db.close();
    const after = await m.sync();
    expect(after.quiet).toBe(false);
    const rows = new Database(path, { readonly: true }).query('SELECT COUNT(*) AS n FROM quiet').get() as { n: number };
    expect(rows.n).toBe(1); // this sync's own pass read the new count, and kept its report
    const db2 = new Database(path);
    db2.run('UPDATE changes SET n = n + 1');
    db2.close();
    const next = await m.sync();
    expect(next.quiet).toBe(false); // the count moved since the record: a pass
  });

  test('keeps nothing from a tree changed just before its pass', async () => {
    const m = await opened();
    await m.sync();
    await settle();
    writeFileSync(join(m.root, 'src/deep/fresh.ts'), 'fresh\n');
    const took = await m.sync(); // takes it in: wrote, so keeps nothing
    expect(took.quiet).toBe(false);
    const racy = await m.sync(); // the directory changed within the granularity of this walk: nothing kept
    expect(racy.quiet).toBe(false);
    const next = await m.sync();
    expect(next.quiet).toBe(false);
  });
});

describe("the SQLite store's count of changes", () => {
  test('moves with every kind of write a pass reads, and a record made before a write is not kept', async () => {
    const store = await openStore(join(tempDir('ws-store-'), 'store.sqlite'));
    const quiet = store.quiet;
    const bytes = enc('text\n');
    const hash = sha256(bytes);
    const writes: [string, () => void][] = [
      ['a tree entry', () => store.setTree('main', 'work', 'a.txt', { hash, size: bytes.length, mode: null }, { source: 'write' })],
      ['evidence', () => store.setEvidence('work', 'a.txt', { kind: 'text', hash, size: bytes.length, mode: null, fingerprint: '1:5:1.0:1.0' } as never)],
      ['a mark', () => store.setMark('main', 'work', 'a.txt', { kind: 'tombstone' } as never)],
      ['a pending effect', () => store.setPending('work', 'a.txt', { kind: 'write' } as never)],
      ['the root', () => store.setRootIdentity('work', '1:2')],
      ['a branch made', () => store.createBranch('other')],
      ['a branch selected', () => store.selectBranch('other')],
    ];
    store.putBlob(hash, bytes);
    store.barrier();
    for (const [what, write] of writes) {
      const before = quiet.changes();
      write();
      store.barrier();
      expect({ what, moved: quiet.changes() > before }).toEqual({ what, moved: true });
    }
    // A record made at an older count is not kept; at the count now, it is.
    const record = { key: 'k', report: '{}', stats: new Uint8Array(4) };
    expect(quiet.put('work', 'other', quiet.changes() - 1, record)).toBe(false);
    expect(quiet.get('work', 'other')).toBeNull();
    expect(quiet.put('work', 'other', quiet.changes(), record)).toBe(true);
    expect(quiet.get('work', 'other')?.key).toBe('k');
    // Kept records are worth nothing once anything is written.
    store.setMark('other', 'work', 'b.txt', null);
    store.barrier();
    expect(quiet.get('work', 'other')).toBeNull();
    store.close();
  });
});
