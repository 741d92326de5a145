/**
 * Sync with its walk in Workers answers as sync on one thread: two hosts over the same
 * tree, each with its own store, the one walking in Workers (`WS_WALK_WORKERS=2`, this
 * thread walking beside them) and the other on one thread (`0`), take the same seeded
 * disk changes and the same drafts, round
 * after round — a file rewritten in place with the same size (its mtime set back to what
 * it was, so only its ctime moved), a save within the timestamp tick, deletions, new
 * files and directories, a mode change, a directory replaced by a file — and every
 * sync's report and every status are the same.
 */
import { afterEach, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mount } from '@ws/tools';
import { callerWalks, walkedInWorkers } from '../src/disk/walk-parallel.ts';
import { openHost } from '../src/host.ts';
import { enc, seededRandom, tempDir } from './fixtures.ts';
import { testConfig, writeFiles } from './host-fixtures.ts';

const seed = Number(process.env.WS_SEED ?? Date.now() % 1_000_000);
const was = process.env.WS_WALK_WORKERS;
afterEach(() => {
  if (was === undefined) delete process.env.WS_WALK_WORKERS;
  else process.env.WS_WALK_WORKERS = was;
});

/** Every file beneath `root`, mount-relative. */
function files(root: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[]).filter((p) => statSync(join(root, p)).isFile()).sort();
}

test(`sync in Workers and on one thread: the same reports, round after round (seed ${seed})`, async () => {
  const rand = seededRandom(seed);
  const root = tempDir('ws-sync-workers-');
  const start: Record<string, string> = {};
  for (let d = 0; d < 8; d++) for (let s = 0; s < 3; s++) for (let f = 0; f < 4; f++) start[`d${d}/s${s}/f${f}.txt`] = `file ${d} ${s} ${f}\n`;
  writeFiles(root, start);
  const hosts = await Promise.all(['one', 'split'].map((name) => openHost(testConfig(root, [{ name: 'work', path: '.' }], join(tempDir(`ws-${name}-`), 'store.sqlite')), { watch: false })));
  const [one, split] = hosts.map((h) => h.workspace.mounts[0]);
  const syncBoth = async () => {
    process.env.WS_WALK_WORKERS = '0';
    const a = await one.sync(undefined);
    process.env.WS_WALK_WORKERS = '2';
    // Walked in parts, by the Workers and this thread (whichever claimed each).
    const parts = walkedInWorkers.parts + callerWalks.parts;
    const b = await split.sync(undefined);
    expect(walkedInWorkers.parts + callerWalks.parts).toBeGreaterThan(parts);
    expect(b).toEqual(a);
    process.env.WS_WALK_WORKERS = '0';
    const sa = await one.status();
    process.env.WS_WALK_WORKERS = '2';
    const sb = await split.status();
    expect(sb).toEqual(sa);
    return a;
  };
  try {
    await syncBoth();
    for (let round = 0; round < 12; round++) {
      const present = files(root);
      const pick = () => present[rand(present.length)];
      for (let k = 0; k < 6; k++) {
        const p = pick();
        if (p === undefined || !existsSync(join(root, p))) continue;
        const abs = join(root, p);
        switch (rand(7)) {
          case 0: {
            // In place, same size, the mtime put back: only the ctime tells.
            const st = statSync(abs);
            const text = `${'x'.repeat(Math.max(0, st.size - 1))}\n`;
            writeFileSync(abs, text);
            utimesSync(abs, st.atime, st.mtime);
            break;
          }
          case 1:
            writeFileSync(abs, `saved within the tick ${round}\n`); // racy: compared by content next time
            break;
          case 2:
            rmSync(abs);
            break;
          case 3:
            writeFiles(root, { [`d${rand(8)}/new${round}-${k}/n.txt`]: `new ${round}\n` });
            break;
          case 4:
            chmodSync(abs, 0o755);
            break;
          case 5: {
            const dir = p.slice(0, p.lastIndexOf('/'));
            if (!dir.includes('/')) break; // the top directories stay
            rmSync(join(root, dir), { recursive: true, force: true });
            writeFileSync(join(root, dir), 'a file where a directory was\n');
            break;
          }
          default:
            try {
              mkdirSync(join(root, `d${rand(8)}/s${rand(3)}`), { recursive: true });
            } catch {
              // a file is there now
            }
        }
      }
      // The same draft on both hosts: a sync keeps it, or a disk change makes a conflict the sync settles for disk.
      const draft = pick();
      if (draft !== undefined && rand(2) === 0) {
        for (const m of [one, split]) expect((await m.commit([{ path: draft, bytes: enc(`draft ${round}\n`) }])).ok).toBe(true);
      }
      await syncBoth();
    }
  } finally {
    for (const h of hosts) h.close();
  }
});

/** How many files a grep for `needle` over the whole mount is offered to search. */
async function filesWithNeedle(mount: Mount): Promise<number> {
  let found = 0;
  for await (const f of mount.searchFiles('', { pattern: 'needle', caseInsensitive: false, fixedStrings: false, multiline: false })) if ('bytes' in f || 'counted' in f) found++;
  return found;
}

test("a one-shot grep's pass walks on one thread (its peak is the pass); its sync and a server's grep share the walk with a Worker", async () => {
  const root = tempDir('ws-grep-alone-');
  const start: Record<string, string> = {};
  for (let d = 0; d < 8; d++) for (let s = 0; s < 3; s++) start[`d${d}/s${s}/f.txt`] = `needle ${d} ${s}\n`;
  writeFiles(root, start);
  process.env.WS_WALK_WORKERS = '1';
  const open = (watch: boolean) => openHost(testConfig(root, [{ name: 'work', path: '.' }], join(tempDir('ws-grep-alone-store-'), 'store.sqlite')), { watch });
  const shared = () => walkedInWorkers.parts + callerWalks.parts;
  const oneShot = await open(false);
  try {
    const mount = oneShot.workspace.mounts[0];
    expect((await mount.sync(undefined)).ok).toBe(true);
    writeFiles(root, { 'd0/s0/f.txt': 'needle changed\n' });
    const before = shared();
    expect(await filesWithNeedle(mount)).toBe(24);
    expect(shared()).toBe(before);
    // The same host's sync walks with its Worker.
    writeFiles(root, { 'd1/s0/f.txt': 'needle changed\n' });
    expect((await mount.sync(undefined)).ok).toBe(true);
    expect(shared()).toBeGreaterThan(before);
  } finally {
    oneShot.close();
  }
  // A long-running host's grep (watch = "on-tool-call": each grep passes first) shares its walk too.
  const server = await open(true);
  try {
    const mount = server.workspace.mounts[0];
    writeFiles(root, { 'd2/s0/f.txt': 'needle changed\n' });
    const before = shared();
    expect(await filesWithNeedle(mount)).toBe(24);
    expect(shared()).toBeGreaterThan(before);
  } finally {
    server.close();
  }
});
