/**
 * A pass that counts unchanged paths (`unchangedByCount`, what `ws sync` and `ws status`
 * ask for) answers as a pass that decides every path, on the real disk port and the real
 * store: two reconcilers over the same tree, each with its own store, take the same
 * seeded disk changes and the same drafts round after round — a file rewritten in place
 * with the same size and its mtime put back (only its ctime moves), a save within the
 * timestamp tick, a mode change, a file replaced by a directory, by a FIFO or by a
 * symlink, a rename, deletions and new files — and after every round the reports are the
 * same but for the plain `synced` ones the first counted, the counts are the same (in the
 * same order), and the stores hold the same records (racy fingerprints' suffixes aside).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createReconciler, looksBinary, type PassDone, type PathReport, type StoredPath } from '@ws/reconcile';
import { diskPort } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';
import { sha256 } from '../src/host.ts';
import type { Store } from '../src/store/store.ts';
import { freshStore } from './engine.ts';
import { enc, seededRandom, tempDir } from './fixtures.ts';

const seed = Number(process.env.WS_SEED ?? Date.now() % 1_000_000);
const opened: Store[] = [];
afterAll(() => {
  for (const s of opened) s.close();
});

/** A report the count may stand for: synced, with nothing taken, given up, settled or drafted. */
function plain(r: PathReport): boolean {
  return r.state === 'synced' && r.taken === null && r.gaveUp === null && r.settled === null && r.conflict === null && r.draft === null;
}

/** Text with racy fingerprints' unique suffixes cut (the two reconcilers stat at different moments). */
function unsuffixed(value: unknown): string {
  return JSON.stringify(value).replace(/~[^"]*"/g, '"');
}

function records(store: Store): string {
  return unsuffixed([...store.scan('main', 'work', '')].sort((a: StoredPath, b: StoredPath) => (a.path < b.path ? -1 : 1)));
}

/** Every regular file beneath `root`, mount-relative. */
function files(root: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[]).filter((p) => lstatSync(join(root, p)).isFile()).sort();
}

for (const coarse of [undefined, 1000]) {
  describe(`a pass by count answers as a full pass, ${coarse === undefined ? 'the file system’s own times' : 'times kept to 1 s'}`, () => {
    test(`the same reports, counts and records, round after round (seed ${seed})`, async () => {
      const rand = seededRandom(seed);
      const root = tempDir('ws-unchanged-');
      for (let d = 0; d < 4; d++) {
        for (let f = 0; f < 6; f++) {
          mkdirSync(join(root, `d${d}/s${f % 2}`), { recursive: true });
          writeFileSync(join(root, `d${d}/s${f % 2}/f${f}.txt`), `file ${d} ${f}\n`);
        }
      }
      const make = async () => {
        const store = await freshStore();
        opened.push(store);
        const disk = diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 10_000, ...(coarse ? { coarseTimesMs: coarse } : {}) });
        return { store, r: createReconciler({ store, disk, hash: sha256, mount: 'work', readOnly: false, maxFileSize: 1 << 20, isBinary: looksBinary }) };
      };
      const [a, b] = [await make(), await make()];
      const scope = { kind: 'directory' as const, path: '' };
      let counted = 0;
      const passBoth = async (round: number) => {
        // Which one counts alternates: each passes second half the time (nearer the racy window's end).
        const [x, y] = round % 2 === 0 ? [a, b] : [b, a];
        const px = (await x.r.pass({ scope, takeDisk: 'sync', unchangedByCount: true })) as PassDone;
        const py = (await y.r.pass({ scope, takeDisk: 'sync' })) as PassDone;
        expect(px.kind).toBe('done');
        expect(py.kind).toBe('done');
        expect(JSON.stringify(px.counts)).toBe(JSON.stringify(py.counts));
        expect(unsuffixed(px.paths.filter((r) => !plain(r)))).toBe(unsuffixed(py.paths.filter((r) => !plain(r))));
        expect(px.paths.length + px.unchanged).toBe(py.paths.length);
        expect(px.passedOver).toEqual(py.passedOver);
        expect(records(a.store)).toBe(records(b.store));
        counted += px.unchanged;
      };
      await passBoth(0);
      // Times kept to 1 s leave a stat racy for a second: most rounds wait that out, so the count has something to take.
      const rounds = coarse === undefined ? 14 : 8;
      for (let round = 1; round <= rounds; round++) {
        const present = files(root);
        for (let k = 0; k < 5; k++) {
          const p = present[rand(present.length)];
          if (p === undefined || !existsSync(join(root, p)) || !lstatSync(join(root, p)).isFile()) continue;
          const abs = join(root, p);
          switch (rand(9)) {
            case 0: {
              // In place, the same size, the mtime put back: only the ctime tells.
              const st = statSync(abs);
              writeFileSync(abs, `${'x'.repeat(Math.max(0, st.size - 1))}\n`);
              utimesSync(abs, st.atime, st.mtime);
              break;
            }
            case 1:
              writeFileSync(abs, `saved within the tick ${round}\n`);
              break;
            case 2:
              chmodSync(abs, statSync(abs).mode & 0o100 ? 0o644 : 0o755);
              break;
            case 3:
              rmSync(abs);
              mkdirSync(abs);
              writeFileSync(join(abs, 'inside.txt'), `a directory where a file was ${round}\n`);
              break;
            case 4:
              rmSync(abs);
              Bun.spawnSync(['mkfifo', abs]);
              break;
            case 5: {
              // A symlink swapped in for the file, pointing at a file with the same text.
              const twin = `${abs}.twin`;
              renameSync(abs, twin);
              symlinkSync(twin, abs);
              break;
            }
            case 6:
              renameSync(abs, `${abs}.moved`);
              break;
            case 7:
              rmSync(abs);
              break;
            default:
              writeFileSync(join(root, `d${rand(4)}/new-${round}-${k}.txt`), `new ${round} ${k}\n`);
          }
        }
        const draft = present[rand(present.length)];
        if (draft !== undefined && rand(2) === 0) {
          for (const m of [a, b]) m.r.recordDrafts([{ path: draft, bytes: enc(`draft ${round}\n`) }]);
        }
        if (rand(3) > 0) await Bun.sleep((coarse ?? 50) + 100);
        await passBoth(round);
      }
      // Most paths were counted in most rounds: else this compares a full pass with itself.
      expect(counted).toBeGreaterThan(coarse === undefined ? 50 : 20);
    }, 60_000);
  });
}
