/**
 * The replace guard's cost: a push (materialize) of 1,000 drafts over files disk holds,
 * through the real disk port and SQLite store, with the guard (exchange in, check the
 * file that came out; deletions moved aside and checked) against the same with a check
 * and a plain rename, in one run. Target: guarded / plain ≤ 1.3.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReconciler, looksBinary } from '@ws/reconcile';
import { diskPort } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';
import { sha256 } from '../src/host.ts';
import { openStore } from '../src/store/open-store.ts';

const FILES = 1000;
const ROUNDS = 3;

async function pushOnce(replaceGuard: boolean): Promise<number> {
  const base = mkdtempSync(join(tmpdir(), 'ws-guard-bench-'));
  try {
    const root = join(base, 'root');
    for (let i = 0; i < FILES; i++) {
      mkdirSync(join(root, `d${i % 20}`), { recursive: true });
      writeFileSync(join(root, `d${i % 20}/f${i}.txt`), `file ${i}\n`);
    }
    const store = await openStore(join(base, 'store.sqlite'));
    const disk = diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 100_000, replaceGuard });
    const reconciler = createReconciler({ store, disk, hash: sha256, mount: 'work', readOnly: false, maxFileSize: 1 << 20, isBinary: looksBinary });
    await reconciler.pass({ scope: { kind: 'directory', path: '' } });
    await Bun.sleep(80); // past the timestamp granularity, so the push's pass is not all re-hashing
    const enc = new TextEncoder();
    reconciler.recordDrafts(Array.from({ length: FILES }, (_, i) => ({ path: `d${i % 20}/f${i}.txt`, bytes: enc.encode(`draft ${i}\n`) })));
    const started = performance.now();
    const pushed = await reconciler.push({ scope: { kind: 'directory', path: '' } });
    const ms = performance.now() - started;
    if (pushed.kind !== 'done' || pushed.written.length !== FILES) throw new Error('the push did not write every draft');
    store.close();
    return ms;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

const guarded: number[] = [];
const plain: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  plain.push(await pushOnce(false));
  guarded.push(await pushOnce(true));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ratio = median(guarded) / median(plain);
// Without its reference (no plain run, or one that measured nothing) there is no ratio to judge.
if (plain.length !== ROUNDS || !(median(plain) > 0) || !Number.isFinite(ratio)) {
  console.error('replace guard: the reference (check, then plain rename) measured nothing, so there is no ratio');
  process.exit(1);
}
console.log('replace guard (materialize of 1,000 drafts, real disk and store)');
console.log(`  guarded ${median(guarded).toFixed(0)} ms, plain ${median(plain).toFixed(0)} ms: ratio ${ratio.toFixed(2)} (target ≤ 1.3)`);
if (ratio > 1.3) process.exit(1);
