/**
 * The store-backed mount against real disks and a real SQLite store:
 * - the read's disk check on a held, unchanged file, at 500 and 20,000 files (flat: ratio ≤ 1.5; median ≤ 0.2 ms);
 * - the first full sync of 20,000 small files, then syncs with nothing changed (≥ 5× faster);
 * - peak RSS while syncing 100,000 files (< 500 MB).
 * Each scenario runs in its own process so its peak RSS is its own.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkConfig } from '../src/config.ts';
import { openHost } from '../src/host.ts';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function makeTree(root: string, files: number): void {
  for (let i = 0; i < files; i++) {
    const dir = join(root, `d${i % 100}`, `e${Math.floor(i / 100) % 20}`);
    if (i < 2000) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.txt`), `file ${i}\nline two of ${i}\r\n`);
  }
}

function fileName(i: number): string {
  return `d${i % 100}/e${Math.floor(i / 100) % 20}/f${i}.txt`;
}

async function withTree<T>(files: number, run: (root: string, storePath: string) => Promise<T>): Promise<T> {
  const base = mkdtempSync(join(tmpdir(), 'ws-bench-'));
  const root = join(base, 'root');
  mkdirSync(root);
  makeTree(root, files);
  try {
    return await run(root, join(base, 'store.sqlite'));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

/** One scenario, run in this process; prints a JSON line. */
async function scenario(name: string, files: number): Promise<void> {
  await withTree(files, async (root, storePath) => {
    const config = checkConfig({ store: { path: storePath }, mount: [{ name: 'work', path: root }] }, 'bench', root);
    const host = await openHost(config, { watch: false });
    const mount = host.workspace.mounts[0];
    if (name === 'read-check') {
      const first = await mount.read(fileName(7));
      if (first.kind !== 'file') throw new Error(`unexpected ${first.kind}`);
      const evidence = host.store!.read('main', 'work', fileName(7)).evidence;
      // Make the store hold every file, as a mount in use does, then time the held file's check.
      await mount.sync(undefined);
      const times: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const t = performance.now();
        const r = await mount.read(fileName(7));
        times.push(performance.now() - t);
        if (r.kind !== 'file' || r.notes.length) throw new Error('the held file should read clean');
      }
      console.log(JSON.stringify({ files, medianMs: median(times.slice(200)), evidenceBytes: JSON.stringify(evidence).length }));
    } else {
      const t1 = performance.now();
      const first = await mount.sync(undefined);
      const firstMs = performance.now() - t1;
      const rssAfterFirst = peakRssMb();
      // Syncs with nothing changed: the median of three (the first of them also warms up
      // the no-change path, which the first sync never took).
      const again: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t2 = performance.now();
        const second = await mount.sync(undefined);
        again.push(performance.now() - t2);
        if (!second.ok) throw new Error('sync refused');
      }
      const secondMs = median(again);
      if (!first.ok) throw new Error('sync refused');
      const counts = (first.report as { counts: Record<string, number> }).counts;
      console.log(JSON.stringify({ files, firstMs, secondMs, peakRssMb: rssAfterFirst, synced: counts.synced ?? 0 }));
    }
    host.close();
  });
}

async function inChild(name: string, files: number): Promise<Record<string, number>> {
  const child = Bun.spawn(['bun', import.meta.path, name, String(files)], { stdout: 'pipe', stderr: 'inherit' });
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`${name} ${files} failed`);
  return JSON.parse(out.trim().split('\n').pop()!);
}

if (process.argv[2]) {
  await scenario(process.argv[2], Number(process.argv[3]));
} else {
  console.log('store-backed mount (real disk, real SQLite)');
  const small = await inChild('read-check', 500);
  const large = await inChild('read-check', 20_000);
  console.log(`  read's disk check, held unchanged file: ${small.medianMs.toFixed(3)} ms at 500 files, ${large.medianMs.toFixed(3)} ms at 20,000 (target ≤ 0.2 ms)`);
  console.log(`  flatness: 20,000 / 500 = ${(large.medianMs / small.medianMs).toFixed(2)} (target ≤ 1.5)`);
  console.log(`  first read of an unvouched path records one evidence row of ${small.evidenceBytes} bytes (JSON)`);
  const s20 = await inChild('sync', 20_000);
  console.log(`  first sync of 20,000 small files: ${(s20.firstMs / 1000).toFixed(2)} s, peak RSS ${s20.peakRssMb.toFixed(0)} MB (${s20.synced} synced)`);
  console.log(`  a sync with nothing changed (median of 3): ${(s20.secondMs / 1000).toFixed(2)} s; first / that = ${(s20.firstMs / s20.secondMs).toFixed(1)}x (target ≥ 5x)`);
  const s100 = await inChild('sync', 100_000);
  console.log(`  sync of 100,000 files: ${(s100.firstMs / 1000).toFixed(1)} s, peak RSS ${s100.peakRssMb.toFixed(0)} MB (target < 500 MB)`);
}
