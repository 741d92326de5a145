/**
 * A quiet sync (the README, "A quiet sync"): a whole-mount sync that finds nothing changed
 * answers with the last sync's report, and only then. Each change a pass would see — to a
 * file's bytes (even with its mtime put back), its mode, a name added, removed or renamed
 * at any depth, an ignore file, a directory swapped for a link, the store written by a
 * tool or by another connection, the mount's config — sends the sync through a pass.
 * A whole-mount grep plans its files from a kept record the same way, and answers as a
 * grep after a pass does; a whole-mount glob or recursive ls lists from the store's
 * records where a record holds, as a pass lists. SQLite's stores only: a PostgreSQL store keeps no quiet records
 * (every sync and grep there passes).
 */
import { describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from 'bun:sqlite';
import { handleToolCall, type Report } from '@ws/tools';
import { sha256 } from '../src/host.ts';
import { quietAnswers } from '../src/mounts/store-backed/quiet.ts';
import { openStore } from '../src/store/open-store.ts';
import { enc, seededRandom, tempDir } from './fixtures.ts';
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

/** Rewrites `path` with `text` and puts its mtime back: only its ctime (and its bytes, and its size where that differs) say it changed. */
function rewriteKeepingMtime(path: string, text: string): void {
  const st = statSync(path);
  writeFileSync(path, text);
  utimesSync(path, st.atime, st.mtime);
}

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
      change: (root) => rewriteKeepingMtime(join(root, 'a.txt'), 'two\n'),
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
    const record = { key: 'k', report: '{}', plan: '', stats: new Uint8Array(4) };
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

describe('a whole-mount grep where nothing changed', () => {
  /** Every line a grep of the whole mount finds, and whether it planned from a kept record. */
  const grep = async (m: Awaited<ReturnType<typeof opened>>, pattern: string) => {
    const before = quietAnswers.count;
    const answer = await handleToolCall(m.host.workspace, { name: 'grep', input: { pattern, output: 'count' } });
    return { answer: JSON.stringify(answer), quiet: quietAnswers.count > before };
  };

  test('plans from the kept record, with a draft, a disk-only file and a conflict, and finds what a pass-planned grep finds', async () => {
    const m = await keptQuiet();
    // A draft; a conflict (a draft, then disk's own change to the same file); a binary file disk alone holds.
    expect((await m.mount.commit([{ path: 'src/deep/y.ts', bytes: enc('export const y = "drafted";\n') }])).ok).toBe(true);
    expect((await m.mount.commit([{ path: 'a.txt', bytes: enc('drafted one\n') }])).ok).toBe(true);
    writeFileSync(join(m.root, 'a.txt'), 'disk one\n');
    await settle();
    // Passes until one keeps its record (it writes the conflict, then evidence; then nothing).
    const passed: string[] = [];
    let quiet: { answer: string; quiet: boolean } | undefined;
    for (let i = 0; i < 4 && quiet === undefined; i++) {
      const g = await grep(m, 'one|drafted|const');
      if (g.quiet) quiet = g;
      else passed.push(g.answer);
    }
    expect(quiet).toBeDefined();
    expect(quiet?.answer).toEqual(passed.at(-1) as string);
    // Both sides of the conflict, and the draft, are searched.
    expect(quiet?.answer).toContain('a.txt');
    expect(quiet?.answer).toContain('y.ts');
    // The same record answers a grep of another pattern, as a pass would.
    const again = await grep(m, 'export');
    expect(again.quiet).toBe(true);
    const path = m.config.storePath;
    const db = new Database(path);
    db.run('UPDATE changes SET n = n + 1'); // a pass, for the reference
    db.close();
    const reference = await grep(m, 'export');
    expect(reference.quiet).toBe(false);
    expect(again.answer).toEqual(reference.answer);
  });

  test("on a watched mount, the kept record stands for the whole pass: the next grep plans from the records", async () => {
    const m = await keptQuiet();
    m.host.close();
    // The same store and tree, now watched (the key leaves the watch out: the record holds).
    const root = m.root;
    const config = testConfig(root, [{ name: 'work', path: '.', watch: 'always' }], m.config.storePath);
    const host = await openTestHost(config, { watch: true });
    const first = quietAnswers.count;
    const a = await handleToolCall(host.workspace, { name: 'grep', input: { pattern: 'one', output: 'count' } });
    expect(quietAnswers.count).toBe(first + 1); // planned from the kept record, no pass
    const b = await handleToolCall(host.workspace, { name: 'grep', input: { pattern: 'one', output: 'count' } });
    expect(quietAnswers.count).toBe(first + 1); // planned from the records the watcher keeps current: no sweep
    expect(JSON.stringify(b)).toEqual(JSON.stringify(a));
    host.close();
  });

  test('passes after disk changed, and finds the new text', async () => {
    const m = await keptQuiet();
    expect((await grep(m, 'one')).quiet).toBe(true);
    rewriteKeepingMtime(join(m.root, 'a.txt'), 'six\n');
    const after = await grep(m, 'six');
    expect(after.quiet).toBe(false);
    expect(after.answer).toContain('a.txt');
  });

  test('gives only what a pass plans where the record no longer holds, not the stored text', async () => {
    const m = await keptQuiet();
    expect((await grep(m, 'one')).quiet).toBe(true);
    // The same size and mtime: only its ctime (and its bytes) say it changed; the store's blob still holds "one".
    rewriteKeepingMtime(join(m.root, 'a.txt'), 'uno\n');
    const lines = async () => JSON.stringify(await handleToolCall(m.host.workspace, { name: 'grep', input: { pattern: 'one|uno' } }));
    const before = quietAnswers.count;
    const after = await lines();
    expect(quietAnswers.count).toBe(before);
    // a.txt once, as disk holds it now; the stored blob ("one") is not given too.
    const results = (JSON.parse(after) as { data: { results: { path: string; matches: { text: string }[] }[] } }).data.results;
    expect(results.filter((r) => r.path === 'work/a.txt').map((r) => r.matches.map((x) => x.text))).toEqual([['uno']]);
    expect(results.map((r) => r.path)).toEqual(['work/a.txt', 'work/crlf.txt']);
    // The same answer as a grep planned by a pass over the same tree and store.
    const db = new Database(m.config.storePath);
    db.run('UPDATE changes SET n = n + 1');
    db.close();
    expect(await lines()).toBe(after);
  });

  test("with the store's index built, a grep planned from the record names what a pass-planned one does; after disk changed, a file's new text is found though the lookup was taken before the pass stored it", async () => {
    const m = await keptQuiet();
    const store = m.host.store as NonNullable<typeof m.host.store>;
    while (store.indexSome(1_000) > 0) {}
    const lines = async (pattern: string) => JSON.stringify(await handleToolCall(m.host.workspace, { name: 'grep', input: { pattern } }));
    // The index narrows the search (x.ts and y.ts are ruled out for "one") and the record plans it.
    const before = quietAnswers.count;
    const quiet = await lines('one');
    expect(quietAnswers.count).toBe(before + 1);
    expect(quiet).toContain('a.txt');
    const db = new Database(m.config.storePath);
    db.run('UPDATE changes SET n = n + 1'); // a pass, for the reference
    db.close();
    expect(await lines('one')).toBe(quiet);
    await quietSoon(m.sync);
    // Disk's change fails the record's check after its lookup was taken: the pass stores the
    // new text as a blob the index does not know, which that lookup would have ruled out.
    rewriteKeepingMtime(join(m.root, 'src/deep/y.ts'), 'export const y = "zebra";\n');
    const after = quietAnswers.count;
    const found = await lines('zebra');
    expect(quietAnswers.count).toBe(after);
    expect(found).toContain('y.ts');
    expect(found).toContain('zebra');
  });

  test('passes after a tool wrote a draft, and finds the draft', async () => {
    const m = await keptQuiet();
    expect((await grep(m, 'one')).quiet).toBe(true);
    expect((await m.mount.commit([{ path: 'src/deep/er/x.ts', bytes: enc('export const seven = 7;\n') }])).ok).toBe(true);
    const after = await grep(m, 'seven');
    expect(after.quiet).toBe(false);
    expect(after.answer).toContain('x.ts');
  });
});

describe('a whole-mount glob and recursive ls where nothing changed', () => {
  /** A tool's whole answer, and whether a kept record stood for its pass. */
  const called = async (m: Awaited<ReturnType<typeof opened>>, name: string, input: unknown) => {
    const before = quietAnswers.count;
    const answer = await handleToolCall(m.host.workspace, { name, input });
    return { answer: JSON.stringify(answer), quiet: quietAnswers.count > before };
  };
  const invalidate = (m: Awaited<ReturnType<typeof opened>>) => {
    const db = new Database(m.config.storePath);
    db.run('UPDATE changes SET n = n + 1'); // a pass, for the reference
    db.close();
  };

  test('list from the records where the kept record holds, with a draft, a conflict and a disk-only file, as a pass lists', async () => {
    const m = await keptQuiet();
    expect((await m.mount.commit([{ path: 'src/deep/y.ts', bytes: enc('export const y = "drafted";\n') }])).ok).toBe(true);
    expect((await m.mount.commit([{ path: 'src/drafted/new.ts', bytes: enc('new\n') }])).ok).toBe(true);
    expect((await m.mount.commit([{ path: 'a.txt', bytes: enc('drafted one\n') }])).ok).toBe(true);
    writeFileSync(join(m.root, 'a.txt'), 'disk one\n');
    await settle();
    // Greps until one plans from a kept record (its passes write the conflict, then evidence, then nothing; a sync would settle the conflict for disk).
    const kept = async () => {
      for (let i = 0; i < 4; i++) if ((await called(m, 'grep', { pattern: 'x', output: 'count' })).quiet) return;
      throw new Error('no record was kept');
    };
    await kept();
    const inputs: [string, unknown][] = [
      ['glob', { pattern: '**' }],
      ['glob', { pattern: 'work/**/*.ts' }],
      ['glob', { pattern: '**/*.nothing' }],
      ['ls', { path: 'work', recursive: true }],
    ];
    for (const [name, input] of inputs) {
      const quiet = await called(m, name, input);
      expect({ name, input, quiet: quiet.quiet }).toEqual({ name, input, quiet: true });
      invalidate(m);
      const pass = await called(m, name, input);
      expect(pass.quiet).toBe(false);
      expect(quiet.answer).toEqual(pass.answer);
      await kept();
    }
    const all = await called(m, 'ls', { path: 'work', recursive: true });
    expect(all.quiet).toBe(true);
    for (const shown of ['"state":"conflict"', '"state":"workspace-draft"', 'bin.dat', 'src/drafted/new.ts']) expect(all.answer).toContain(shown);
    // A directory's listing passes over that directory (the record stands for the whole mount's pass only).
    expect((await called(m, 'ls', { path: 'work/src', recursive: true })).quiet).toBe(false);
  });

  test('pass after disk changed, and list the new file', async () => {
    const m = await keptQuiet();
    expect((await called(m, 'glob', { pattern: '**/*.txt' })).quiet).toBe(true);
    writeFileSync(join(m.root, 'src/deep/late.txt'), 'late\n');
    const after = await called(m, 'glob', { pattern: '**/*.txt' });
    expect(after.quiet).toBe(false);
    expect(after.answer).toContain('work/src/deep/late.txt');
  });
});

describe('a quiet answer is the pass’s answer', () => {
  test('at every step of random disk changes, drafts, materializes, syncs and greps, a quiet answer equals a pass’s over the same store and tree', async () => {
    const seed = Number(process.env.WS_QUIET_SEED ?? Date.now() % 100000);
    const random = seededRandom(seed);
    const m = await opened();
    await m.sync();
    // (Not beneath an ignored directory: a stored path there is looked at by name, and no record is kept while it stands.)
    const names = ['a.txt', 'src/deep/er/x.ts', 'src/deep/y.ts', 'src/new/n.ts', 'lib/other.ts', 'z.txt'];
    const path = m.config.storePath;
    const invalidate = () => {
      const db = new Database(path);
      db.run('UPDATE changes SET n = n + 1');
      db.close();
    };
    let quietSeen = 0;
    for (let step = 0; step < 72; step++) {
      if (step % 6 === 5) {
        // Now and then time passes and the mount is synced until nothing is left to take in: the next check may be quiet.
        await settle();
        for (let k = 0; k < 3; k++) await m.sync();
      }
      const name = names[random(names.length)];
      const abs = join(m.root, name);
      const op = random(9);
      try {
        if (op === 0) writeFiles(m.root, { [name]: `step ${step}\n` });
        else if (op === 1) rmSync(abs, { force: true });
        else if (op === 2) chmodSync(abs, random(2) === 0 ? 0o644 : 0o755);
        else if (op === 3) await m.mount.commit([{ path: name, bytes: enc(`draft ${step}\n`) }]);
        else if (op === 4) await m.mount.materialize({ path: name, force: false });
        else await Bun.sleep(random(3) * 60); // time passes: racy stats settle, records get kept
      } catch {
        // A path that is not there: nothing changed.
      }
      if (random(2) === 0) {
        const s = await m.sync();
        if (s.quiet) {
          quietSeen++;
          invalidate();
          const pass = await m.sync();
          expect({ seed, step, report: pass.report }).toEqual({ seed, step, report: s.report });
        }
      } else {
        // A grep, a glob or a recursive listing of the whole mount.
        const call = [
          { name: 'grep', input: { pattern: 'step|draft|one', output: 'count' } },
          { name: 'glob', input: { pattern: '**' } },
          { name: 'ls', input: { path: 'work', recursive: true } },
        ][step % 3];
        const before = quietAnswers.count;
        const g = JSON.stringify(await handleToolCall(m.host.workspace, call));
        // Quiet or not (a record whose stats no longer held sends the call through a pass), the answer is a pass's.
        if (quietAnswers.count > before) quietSeen++;
        invalidate();
        const pass = JSON.stringify(await handleToolCall(m.host.workspace, call));
        expect({ seed, step, answer: pass }).toEqual({ seed, step, answer: g });
      }
    }
    // The walk of steps answered quietly some of the time (or the test would test nothing).
    expect({ seed, quietSeen: quietSeen > 0 }).toEqual({ seed, quietSeen: true });
  }, 60_000);
});
