/**
 * A quiet record's stats checked by two threads at once (`disk/quiet.ts`, `stillQuiet`
 * with a share): each takes chunks of the entries in turn, so every entry is checked by
 * exactly one of them; a thread that finds an entry not as it was says so, and the other
 * stops. A whole-mount grep of a store-backed mount shares the check with one of grep's
 * Workers while it reads the store, and where that Worker took chunks and never answered
 * (it failed, or was ended), checks them all again itself. SQLite's stores only: a
 * PostgreSQL store keeps no quiet records.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handleToolCall, type Mount, type Workspace } from '@ws/tools';
import type { MountConfig } from '../src/config.ts';
import { QUIET_SHARING, quietEntries, quietShare, SHARE_CHUNK, stillQuiet } from '../src/disk/quiet.ts';
import { grepWorkers } from '../src/grep/runner.ts';
import type { Prescanner } from '../src/grep/prescan.ts';
import type { Host } from '../src/host.ts';
import { storeMount } from '../src/mounts/store-backed/mount.ts';
import { quietAnswers } from '../src/mounts/store-backed/quiet.ts';
import { tempDir } from './fixtures.ts';
import { openTestHost, testConfig, writeFiles } from './host-fixtures.ts';

/** Header words and words an entry, as `quiet.ts` packs the stats. */
const HEAD = 2;
const ENTRY = 15;

let root: string;
let host: Host;
/** The record's stats, unpacked into a SharedArrayBuffer as a grep shares them. */
let stats: Uint8Array;
let entries: number;
const workers = grepWorkers();

/** A copy of the stats with entry `i`'s size word changed: the tree then differs from them at that entry alone. */
function differingAt(i: number): Uint8Array {
  const copy = new Uint8Array(new SharedArrayBuffer(stats.length));
  copy.set(stats);
  new Uint32Array(copy.buffer, 0, copy.length >> 2)[HEAD + ENTRY * i + 6] ^= 1;
  return copy;
}

/** A share whose next chunk to take is `chunk`: a thread given it checks from there on (the ones before were another's). */
function shareFrom(chunk: number): Int32Array {
  const share = quietShare();
  share[0] = chunk;
  return share;
}

const chunks = () => Math.ceil(entries / SHARE_CHUNK);

/** Syncs until a sync answers from a kept record (the first takes the tree in; a racy stat may hold the next back). */
async function keepRecord(mount: Mount): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const before = quietAnswers.count;
    const r = await mount.sync(undefined);
    if (!r.ok) throw new Error(r.message);
    if (quietAnswers.count > before) return;
    await Bun.sleep(120);
  }
  throw new Error('no sync answered from a kept record');
}

beforeAll(async () => {
  root = tempDir('ws-quiet-share-');
  const files: Record<string, string> = { '.gitignore': 'skip/\n' };
  // Some 1,750 entries (directories, ignore files and files): three chunks and part of a fourth.
  for (let k = 0; k < 1700; k++) files[`d${k % 9}/e${k % 4}/f${k}.txt`] = `file ${k}\n`;
  writeFiles(root, files);
  host = await openTestHost(testConfig(root, [{ name: 'work', path: '.' }]), { watch: false });
  await Bun.sleep(120);
  await keepRecord(host.workspace.mounts[0]);
  const kept = host.store?.quiet?.get('work', host.store.selectedBranch());
  if (!kept) throw new Error('no record kept');
  const unpacked = Bun.zstdDecompressSync(kept.stats);
  stats = new Uint8Array(new SharedArrayBuffer(unpacked.length));
  stats.set(unpacked);
  entries = quietEntries(stats);
});
afterAll(() => {
  host?.close();
  workers.close();
});

describe('a check shared by chunks', () => {
  test('the tree is as the stats say: a thread that starts at any chunk finds its chunks as they were', () => {
    expect(entries).toBeGreaterThan(3 * SHARE_CHUNK);
    expect(stillQuiet(root, stats)).toBe(true);
    for (let chunk = 0; chunk <= chunks(); chunk++) {
      const share = shareFrom(chunk);
      // The paths of the chunks it skipped are spelt out, not stat'd: a wrong one would fail its first stat.
      expect(stillQuiet(root, stats, share)).toBe(true);
      expect(share[0]).toBeGreaterThan(chunks() - 1);
      expect(share[1]).toBe(0);
    }
  });

  test('an entry not as it was is found by the thread whose chunk holds it, at either edge of a chunk, and not by one that takes only the chunks after it', () => {
    for (const i of [0, SHARE_CHUNK - 1, SHARE_CHUNK, 2 * SHARE_CHUNK + 7, entries - 1]) {
      const changed = differingAt(i);
      const mine = Math.floor(i / SHARE_CHUNK);
      expect(stillQuiet(root, changed)).toBe(false);
      const share = shareFrom(mine);
      expect(stillQuiet(root, changed, share)).toBe(false);
      // Said to the other threads: one that comes next stops at once, and answers false too.
      expect(share[1]).toBe(1);
      expect(stillQuiet(root, stats, share)).toBe(false);
      // A thread that takes only the chunks after it does not look at it.
      if (mine + 1 < chunks()) expect(stillQuiet(root, changed, shareFrom(mine + 1))).toBe(true);
    }
  });

  test('two threads that share it take every chunk once between them: a grep Worker and this thread', async () => {
    const share = quietShare();
    const there = workers.prescanner.stillQuiet({ root, stats, share });
    const here = stillQuiet(root, stats, share);
    expect(await there).toBe(true);
    expect(here).toBe(true);
    // Every chunk was taken, each once (one last take each finds none left).
    expect(share[0]).toBe(chunks() + 2);
    for (const i of [0, entries >> 1, entries - 1]) {
      const s = quietShare();
      const changed = differingAt(i);
      const away = workers.prescanner.stillQuiet({ root, stats: changed, share: s });
      const mine = stillQuiet(root, changed, s);
      // Awaited whatever this thread found: the Worker is free again before the next check.
      const there = await away;
      // Whichever took the entry's chunk found it; the pair says the tree changed.
      expect(mine && there === true).toBe(false);
      expect(s[1]).toBe(1);
    }
  });

  test('a Worker given a check this thread already finished takes nothing, and says its part held', async () => {
    const share = shareFrom(chunks());
    expect(await workers.prescanner.stillQuiet({ root, stats: differingAt(0), share })).toBe(true);
  });
});

describe('a whole-mount grep shares the check with a Worker', () => {
  // This tree's stats are fewer than a check is shared for: shared all the same here.
  const sharingFrom = QUIET_SHARING.from;
  beforeAll(() => {
    QUIET_SHARING.from = 0;
  });
  afterAll(() => {
    QUIET_SHARING.from = sharingFrom;
  });
  const grep = async (mount: Mount, pattern: string) => {
    const ws: Workspace = { mounts: [mount], hasDirectMount: false, grep: { runner: workers.runner, timeoutMs: 10_000 } };
    const r = await handleToolCall(ws, { name: 'grep', input: { path: 'work', pattern }, resultMaxChars: 100_000 });
    if (!r.success) throw new Error(r.error);
    return JSON.stringify(r.data);
  };
  const mountWith = (prescanner: Prescanner): Mount => {
    const store = host.store;
    if (store === undefined) throw new Error('no store');
    const config = (host.workspace.mounts[0] as unknown as { config: MountConfig }).config;
    return storeMount(config, { store, lock: { run: (op) => op(), close() {} }, hash: (b) => new Bun.CryptoHasher('sha256').update(b).digest('hex'), storeRel: undefined, prescanner });
  };
  /** The pool's prescanner, its quiet checks answered by `quiet`. */
  const checkedBy = (quiet: Prescanner['stillQuiet']): Prescanner => ({ ...workers.prescanner, stillQuiet: quiet });

  test('with the pool as it is: planned from the record where nothing changed, by a pass once something did', async () => {
    const mount = mountWith(workers.prescanner);
    let before = quietAnswers.count;
    expect(await grep(mount, 'file 1699')).toContain('f1699.txt');
    expect(quietAnswers.count).toBe(before + 1);
    // A file added beside the first directory's: its directory's stat differs, in whichever thread's chunk.
    writeFileSync(join(root, 'd0', 'added.txt'), 'added here\n');
    before = quietAnswers.count;
    expect(await grep(mount, 'added here')).toContain('d0/added.txt');
    expect(quietAnswers.count).toBe(before);
    await keepRecord(host.workspace.mounts[0]);
  });

  test('stats too few to be worth a Worker are checked here alone, the Worker not asked', async () => {
    let asked = 0;
    const counting = checkedBy(async (job) => (asked++, workers.prescanner.stillQuiet(job)));
    const before = quietAnswers.count;
    QUIET_SHARING.from = 1e9;
    try {
      expect(await grep(mountWith(counting), 'file 12\\b')).toContain('f12.txt');
    } finally {
      QUIET_SHARING.from = 0;
    }
    expect(asked).toBe(0);
    expect(await grep(mountWith(counting), 'file 12\\b')).toContain('f12.txt');
    expect(asked).toBe(1);
    expect(quietAnswers.count).toBe(before + 2);
  });

  for (const [what, quiet] of [
    // Took the first chunk and never answered (ended, or failed): its chunk is checked again here.
    ['a Worker that took a chunk and never answered', async (job: { share: Int32Array }) => (Atomics.add(job.share, 0, 1), undefined)],
    // None free: this thread takes every chunk.
    ['no Worker free', async () => null],
  ] as const) {
    test(`${what}: a change in the first chunk still sends the grep through a pass`, async () => {
      const mount = mountWith(checkedBy(quiet as Prescanner['stillQuiet']));
      let before = quietAnswers.count;
      expect(await grep(mount, 'file 7\\b')).toContain('f7.txt');
      expect(quietAnswers.count).toBe(before + 1);
      // The root directory is the first entry: a name added there changes its stat.
      writeFileSync(join(root, `top-${what.length}.txt`), 'at the top\n');
      before = quietAnswers.count;
      expect(await grep(mount, 'at the top')).toContain(`top-${what.length}.txt`);
      expect(quietAnswers.count).toBe(before);
      await keepRecord(host.workspace.mounts[0]);
    });
  }
});

describe('a one-shot command answered from a kept record', () => {
  test('answers whole, as does a quiet sync: the command waits for its Worker’s part of the check (a Worker waiting for work keeps no process alive)', async () => {
    const dir = tempDir('ws-quiet-share-cli-');
    // Enough entries that the check is shared with a Worker.
    const files: Record<string, string> = {};
    for (let k = 0; k < QUIET_SHARING.from + 100; k++) files[`s${k % 20}/f${k}.txt`] = `line of file ${k}\n`;
    writeFiles(dir, files);
    const cfg = join(tempDir('ws-quiet-share-cfg-'), 'ws.toml');
    writeFileSync(cfg, `[store]\npath = "${join(tempDir('ws-quiet-share-store-'), 'store.sqlite')}"\n\n[[mount]]\nname = "work"\npath = "${dir}"\n`);
    const ws = (...args: string[]) => Bun.spawnSync(['bun', join(import.meta.dir, '..', 'src', 'cli.ts'), '--config', cfg, ...args], { stdout: 'pipe', stderr: 'pipe' });
    // Synced until a sync keeps its record (the first takes the tree in; a racy stat holds the next back).
    for (let i = 0; i < 3; i++) {
      const sync = ws('sync');
      expect(sync.exitCode).toBe(0);
      // Whole every time, the last from the kept record (where the check is shared too).
      expect(JSON.parse(sync.stdout.toString()).success).toBe(true);
      await Bun.sleep(120);
    }
    const r = ws('call', 'grep', '{"pattern":"file 4099\\\\b"}');
    expect(r.stderr.toString()).toBe('');
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout.toString());
    expect(JSON.stringify(out.data)).toContain('s19/f4099.txt');
  });
});
