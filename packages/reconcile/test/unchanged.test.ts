/**
 * Unchanged paths by count (`PassRequest.unchangedByCount`): the same answer as a pass
 * that decides every path. Two worlds take the same seeded steps — a person's saves
 * (some in place with the same size, some within the clock's tick), deletions, new
 * files, mode changes, agent drafts and deletions, materializes — and after each round
 * one passes by count and the other decides every path: the counts are the same (in the
 * same order), the reports are the same but for the plain `synced` ones the first
 * counted, and the stores hold the same records. One world's walk and scan come in path
 * order, the other's not, so both ways of matching a walked file to its records are used.
 */
import { describe, expect, test } from 'bun:test';
import type { PassDone, PassResult, PathReport } from '../src/index.ts';
import { rng } from './fakes/faults.ts';
import { type World, bytes, world } from './fakes/world.ts';

const seed = Number(process.env.WS_SEED ?? Date.now() % 1_000_000);

function done(result: PassResult): PassDone {
  if (result.kind !== 'done') throw new Error(`the pass gave up: ${result.reason}`);
  return result;
}

/** A report the pass by count may leave to its count: synced, nothing taken, given up, settled or drafted. */
function plain(r: PathReport): boolean {
  return r.state === 'synced' && r.taken === null && r.gaveUp === null && r.settled === null && r.conflict === null && r.draft === null;
}

const dir = (path = '', unchangedByCount = false, listUnchanged = false) => ({ scope: { kind: 'directory' as const, path }, takeDisk: 'sync' as const, unchangedByCount, listUnchanged });

/** Text with each racy fingerprint's unique suffix cut to its mark (the worlds read in different orders, so number them differently). */
const unsuffixed = (text: string) => text.replace(/~\d+/g, '~');

/** Compares a pass by count with a pass deciding every path, over two worlds in the same state. */
function same(byCount: PassDone, full: PassDone): void {
  expect(JSON.stringify(byCount.counts)).toBe(JSON.stringify(full.counts));
  expect(unsuffixed(JSON.stringify(byCount.paths.filter((r) => !plain(r))))).toBe(unsuffixed(JSON.stringify(full.paths.filter((r) => !plain(r)))));
  expect(byCount.paths.length + byCount.unchanged).toBe(full.paths.length);
  expect(full.unchanged).toBe(0);
  // Every path the count left out is one the full pass reported plain synced.
  const reported = new Set(byCount.paths.map((r) => r.path));
  const left = full.paths.filter((r) => !reported.has(r.path));
  expect(left.length).toBe(byCount.unchanged);
  expect(left.every(plain)).toBe(true);
  // Listed, the counted paths' records are those paths, each with the text the full pass
  // reported in its workspace.
  if (byCount.unchangedRecords !== undefined) {
    const listed = byCount.unchangedRecords.map((s) => [s.path, s.tree?.hash, s.tree?.size]).sort();
    expect(listed).toEqual(left.map((r) => [r.path, r.workspace?.hash, r.workspace?.size]).sort());
  }
}

for (const coarse of [null, 1000]) {
  describe(`unchanged paths by count, ${coarse === null ? 'exact times' : 'a 1 s clock'}`, () => {
    test(`the same answer and the same records as a pass deciding every path (seed ${seed})`, async () => {
      const make = () => world(coarse === null ? {} : { coarse: { granularityMs: coarse } });
      const a = make();
      const b = make();
      // World a's walk and scan come in path order (as the host's do: matched side by side),
      // b's in the fakes' own order (matched by a map).
      const byPath = <T extends { path: string }>(xs: Iterable<T>) => [...xs].sort((p, q) => (p.path < q.path ? -1 : p.path > q.path ? 1 : 0));
      const walkA = a.disk.walk.bind(a.disk);
      a.disk.walk = async (d) => {
        const walked = await walkA(d);
        return { ...walked, files: byPath(walked.files) };
      };
      const scanA = a.store.scan.bind(a.store);
      a.store.scan = (branch, mount, d) => byPath(scanA(branch, mount, d));
      const both = (f: (w: World) => void) => {
        f(a);
        f(b);
      };
      const rand = rng(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
      const names = Array.from({ length: 40 }, (_, i) => `${pick(['', 'src/', 'src/deep/', 'docs/'])}f${i}.txt`);
      for (const p of names.slice(0, 30)) both((w) => w.disk.personWrite(p, bytes(`first ${p}`)));
      const counted = [0, 0];
      for (let round = 0; round < 40; round++) {
        const flip = round % 2 === 0;
        const [x, y] = flip ? [a, b] : [b, a];
        // Every other round the counted paths' records are listed too.
        const px = done(await x.r.pass(dir('', true, round % 4 < 2)));
        expect(px.unchangedRecords === undefined).toBe(round % 4 >= 2);
        const py = done(await y.r.pass(dir('', false)));
        same(px, py);
        counted[flip ? 0 : 1] += px.unchanged;
        expect(unsuffixed(a.store.recordsSnapshot())).toBe(unsuffixed(b.store.recordsSnapshot()));
        // Matching a walked file to its records the one way or the other reads the same files.
        expect(a.disk.counts.read).toBe(b.disk.counts.read);
        for (let k = 0; k < 4; k++) {
          const p = pick(names);
          const now = a.disk.bytesAt(p);
          switch (Math.floor(rand() * 8)) {
            case 0: // in place, the same size
              if (now !== null) both((w) => w.disk.personWrite(p, bytes(`${'y'.repeat(Math.max(0, now.length - 1))}z`.slice(-now.length)), 0o644, true));
              break;
            case 1:
              both((w) => w.disk.personWrite(p, bytes(`saved in round ${round}`)));
              break;
            case 2:
              both((w) => w.disk.personDelete(p));
              break;
            case 3: {
              const mode = pick([0o644, 0o755, 0o600]);
              both((w) => w.disk.personChmod(p, mode));
              break;
            }
            case 4:
              both((w) => w.r.recordDrafts([{ path: p, bytes: bytes(`agent ${round}`) }]));
              break;
            case 5:
              both((w) => w.r.recordDrafts([{ path: p, bytes: null }]));
              break;
            case 6: {
              const pushed = [await a.r.push({ scope: { kind: 'paths', paths: [p] } }), await b.r.push({ scope: { kind: 'paths', paths: [p] } })];
              expect(pushed[0].kind).toBe(pushed[1].kind);
              break;
            }
            default:
              break; // nothing: the next pass finds this path unchanged
          }
        }
        const ms = pick([0, 300, 1500]);
        both((w) => w.disk.advance(ms));
      }
      // The count did take most unchanged paths (else this compares a full pass with itself).
      expect(counted[0]).toBeGreaterThan(100);
      expect(counted[1]).toBeGreaterThan(100);
    });
  });
}

test('a draft recorded while the walk is out is decided, not counted as unchanged', async () => {
  const w = world();
  for (const p of ['a.txt', 'b.txt', 'c.txt']) w.disk.personWrite(p, bytes(`first ${p}`));
  done(await w.r.pass(dir()));
  const walk = w.disk.walk.bind(w.disk);
  w.disk.walk = async (d) => {
    const walked = await walk(d);
    // The store was scanned already: this draft lands between the gather and the decision.
    w.r.recordDrafts([{ path: 'b.txt', bytes: bytes('an agent edit') }]);
    return walked;
  };
  const result = done(await w.r.pass(dir('', true)));
  expect(result.paths.map((r) => [r.path, r.state])).toEqual([['b.txt', 'workspace-draft']]);
  expect(result.counts).toEqual({ synced: 2, 'workspace-draft': 1 });
  expect(result.unchanged).toBe(2);
  expect(w.workspace('b.txt')).toBe('an agent edit');
});

test('the counts keep the order a report of every path meets the states', async () => {
  const w = world();
  for (const p of ['a.txt', 'm.txt', 'z.txt']) w.disk.personWrite(p, bytes(`first ${p}`));
  done(await w.r.pass(dir()));
  w.r.recordDrafts([{ path: 'z.txt', bytes: bytes('a draft') }]);
  const result = done(await w.r.pass(dir('', true)));
  // a.txt and m.txt counted, z.txt a draft: the counted synced comes first, as a.txt does.
  expect(result.paths.map((r) => r.path)).toEqual(['z.txt']);
  expect(Object.entries(result.counts)).toEqual([
    ['synced', 2],
    ['workspace-draft', 1],
  ]);
  w.r.recordDrafts([{ path: 'a.txt', bytes: bytes('a draft of a') }]);
  const again = done(await w.r.pass(dir('', true)));
  // a.txt first, a draft now: its state comes before the counted synced of m.txt.
  expect(Object.entries(again.counts)).toEqual([
    ['workspace-draft', 2],
    ['synced', 1],
  ]);
});
