/**
 * Benchmarks with the in-memory fakes (README, "Passes and pushes"; issue 5):
 * - a pass over one held path (the read's disk check), median per call at 500, 5,000
 *   and 50,000 tracked paths: flat, the ratio of the 50,000 median to the 500 median
 *   must stay ≤ 1.5;
 * - a directory pass over 50,000 tracked paths;
 * - a push of 1,000 drafts.
 * Every figure and ratio is measured in this run; nothing here is a pass/fail on time.
 */
import { createReconciler, type Reconciler } from '../src/index.ts';
import { FakeDisk } from '../test/fakes/disk.ts';
import { fakeHash, rng } from '../test/fakes/faults.ts';
import { FakeStore } from '../test/fakes/store.ts';

const encoder = new TextEncoder();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** A mount of `n` text files in 100 directories, taken in by a first pass. */
async function mountOf(n: number): Promise<{ r: Reconciler; disk: FakeDisk; store: FakeStore; paths: string[] }> {
  const store = new FakeStore();
  const disk = new FakeDisk();
  const paths: string[] = [];
  for (let i = 0; i < n; i++) {
    const path = `d${i % 100}/f${i}.txt`;
    paths.push(path);
    disk.personWrite(path, encoder.encode(`file ${i}\n`));
  }
  const r = createReconciler({ store, disk, hash: fakeHash, mount: 'work', maxFileSize: 5 * 1024 * 1024 });
  const first = await r.pass({ scope: { kind: 'directory', path: '' } });
  if (first.kind !== 'done' || first.counts.synced !== n) throw new Error('the first pass did not take every file in');
  return { r, disk, store, paths };
}

/** Microseconds per named pass over a held, unchanged path, for one block of calls. */
async function heldPathBlock(r: Reconciler, picks: readonly string[]): Promise<number> {
  const t = performance.now();
  for (const path of picks) {
    const result = await r.pass({ scope: { kind: 'paths', paths: [path] } });
    if (result.kind !== 'done' || result.paths[0].state !== 'synced') throw new Error('not synced');
  }
  return ((performance.now() - t) / picks.length) * 1000;
}

/** Microseconds per bare Map.get of the same keys in a Map of as many entries: the memory system's share. */
function mapBlock(map: Map<string, number>, picks: readonly string[]): number {
  const t = performance.now();
  let found = 0;
  for (let k = 0; k < 20; k++) for (const key of picks) found += map.get(key) ?? 0;
  if (found < 0) throw new Error('unreachable');
  return ((performance.now() - t) / (picks.length * 20)) * 1000;
}

// The sizes are measured in alternating blocks, so load on the machine hits each alike.
const sizes = [500, 5_000, 50_000];
const mounts = await Promise.all(sizes.map((n) => mountOf(n)));
const maps = mounts.map((m) => new Map(m.paths.map((p, i) => [p, i] as const)));
const random = rng(42);
type Series = { pass: number[]; map: number[] };
const hot: Series[] = sizes.map(() => ({ pass: [], map: [] }));
const cold: Series[] = sizes.map(() => ({ pass: [], map: [] }));
for (let round = 0; round < 240; round++) {
  for (let k = 0; k < sizes.length; k++) {
    const at = (k + round) % sizes.length;
    const { r, paths } = mounts[at];
    // A working set of 100 paths spread across the mount, and fresh random paths.
    const spread = Array.from({ length: 20 }, () => paths[Math.floor(random() * 100) * (paths.length / 100)]);
    const scattered = Array.from({ length: 20 }, () => paths[Math.floor(random() * paths.length)]);
    const h = await heldPathBlock(r, spread);
    const c = await heldPathBlock(r, scattered);
    if (round < 30) continue; // warm-up
    hot[at].pass.push(h);
    cold[at].pass.push(c);
    hot[at].map.push(mapBlock(maps[at], spread));
    cold[at].map.push(mapBlock(maps[at], scattered));
  }
}
const show = (series: Series[], what: 'pass' | 'map', unit: string) =>
  sizes.map((n, k) => `${fmt(n)} tracked ${median(series[k][what]).toFixed(what === 'pass' ? 2 : 3)} ${unit}`).join('; ');
const ratio = (series: Series[], what: 'pass' | 'map') => median(series[2][what]) / median(series[0][what]);
console.log(`pass over one held path (a working set of 100 paths spread over the mount), median per call: ${show(hot, 'pass', 'µs')}`);
console.log(`ratio 50,000 / 500 tracked: ${ratio(hot, 'pass').toFixed(2)} (target <= 1.5)`);
console.log(`pass over one held path (a random path each call), median per call: ${show(cold, 'pass', 'µs')}`);
console.log(
  `ratio 50,000 / 500 tracked: ${ratio(cold, 'pass').toFixed(2)}; reference, a bare Map.get of a random key among as many: ${ratio(cold, 'map').toFixed(2)} (${show(cold, 'map', 'µs')})`,
);
mounts.length = 0;

{
  const n = 50_000;
  const { r, disk } = await mountOf(n);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const result = await r.pass({ scope: { kind: 'directory', path: '' } });
    times.push(performance.now() - t);
    if (result.kind !== 'done' || result.paths.length !== n) throw new Error('the directory pass missed paths');
  }
  const unchanged = median(times);
  console.log(`directory pass over ${fmt(n)} tracked paths, nothing changed: ${unchanged.toFixed(1)} ms (${((unchanged / n) * 1000).toFixed(2)} µs per path)`);
  for (let i = 0; i < n; i += 100) disk.personWrite(`d${i % 100}/f${i}.txt`, encoder.encode(`changed ${i}\n`));
  const t = performance.now();
  const result = await r.pass({ scope: { kind: 'directory', path: '' } });
  const changed = performance.now() - t;
  const taken = result.kind === 'done' ? result.paths.filter((p) => p.taken !== null).length : 0;
  console.log(`directory pass over ${fmt(n)} tracked paths, ${fmt(taken)} changed on disk and taken in: ${changed.toFixed(1)} ms`);
}

{
  const drafts = 1_000;
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    const { r, paths } = await mountOf(drafts);
    r.recordDrafts(paths.map((path, i) => ({ path, bytes: encoder.encode(`draft ${round} ${i}\n`) })));
    const t = performance.now();
    const result = await r.push({ scope: { kind: 'directory', path: '' } });
    times.push(performance.now() - t);
    if (result.kind !== 'done' || result.written.length !== drafts) throw new Error('the push did not write every draft');
  }
  const push = median(times);
  console.log(`push of ${fmt(drafts)} drafts: ${push.toFixed(1)} ms (${((push / drafts) * 1000).toFixed(1)} µs per draft)`);
}
