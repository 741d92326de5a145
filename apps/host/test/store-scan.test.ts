/**
 * A store's scan of a directory gives every path that has any record there, once, with
 * each of its records — whatever the paths' characters (SQLite orders text by its UTF-8
 * bytes and JavaScript by UTF-16 units, which differ past U+FFFF, so the scan cannot
 * always match tree and evidence rows side by side) and whichever records a path has.
 */
import { afterAll, expect, test } from 'bun:test';
import type { BranchMark, Evidence, PendingEffect, StoredPath, VersionCause } from '@ws/reconcile';
import type { Store } from '../src/store/store.ts';
import { freshStore } from './engine.ts';
import { seededRandom } from './fixtures.ts';

const opened: Store[] = [];
afterAll(() => {
  for (const s of opened) s.close();
});

const seed = Number(process.env.WS_SEED ?? Date.now() % 1_000_000);
const CAUSE: VersionCause = { source: 'disk' };

/** Names that sort differently as UTF-8 and as UTF-16 where `astral` (U+1F600 against U+FF5E). */
function names(astral: boolean): string[] {
  const out = ['a.txt', 'a-b.txt', 'a/b.txt', 'a/b/c.txt', 'b.txt', 'z.txt', 'é.txt', '\uff5e.txt'];
  if (astral) out.push('\u{1f600}.txt', 'a/\u{1f600}', 'a/\uff5e');
  return out;
}

for (const astral of [false, true]) {
  test(`a scan gives each path's records, once (${astral ? 'names past U+FFFF' : 'names within U+FFFF'}, seed ${seed})`, async () => {
    const rand = seededRandom(seed);
    const store = await freshStore();
    opened.push(store);
    const branch = store.selectedBranch();
    const want = new Map<string, Omit<StoredPath, 'path'>>();
    const all = names(astral);
    // Which path gets which mix of records is seeded; the mixes are the first ones of the
    // fifteen (tree only, evidence only, both, a mark only, …), each present.
    for (let i = all.length - 1; i > 0; i--) {
      const j = rand(i + 1);
      [all[i], all[j]] = [all[j], all[i]];
    }
    for (const [i, path] of all.entries()) {
      const has = 1 + (i % 15);
      const tree = has & 1 ? { hash: `h${i}`, size: i, mode: 0o644 } : null;
      const evidence: Evidence | null = has & 2 ? { kind: 'text', hash: `h${i}`, size: i, mode: 0o644, fingerprint: `fp${i}` } : null;
      const mark: BranchMark | null = has & 4 ? { origin: 'workspace', tombstone: null, conflict: null } : null;
      const pending: PendingEffect | null = has & 8 ? { kind: 'adopt', branch, before: { tree: null, evidence: null, mark: null }, after: { tree, evidence, mark: null } } : null;
      if (tree) store.setTree(branch, 'work', path, tree, CAUSE);
      if (evidence) store.setEvidence('work', path, evidence);
      if (mark) store.setMark(branch, 'work', path, mark);
      if (pending) store.setPending('work', path, pending);
      want.set(path, { tree, evidence, mark, pending });
    }
    store.barrier();
    for (const dir of ['', 'a']) {
      const got = [...store.scan(branch, 'work', dir)];
      const byPath = new Map(got.map((s) => [s.path, s]));
      expect(byPath.size).toBe(got.length);
      // Each path's records as the scan gives them are the ones a read of that path gives
      // (an engine may keep more than was set: PostgreSQL's tree write marks the origin).
      const inDir = [...want.keys()].filter((p) => dir === '' || p === dir || p.startsWith(`${dir}/`));
      expect(got.map((s) => s.path).sort()).toEqual(inDir.sort());
      for (const path of inDir) {
        const { tree, evidence, mark, pending } = store.read(branch, 'work', path);
        const s = byPath.get(path);
        expect({ tree: s?.tree, evidence: s?.evidence, mark: s?.mark, pending: s?.pending }).toEqual({ tree, evidence, mark, pending });
        // What was set is there.
        const set = want.get(path);
        if (set?.tree) expect(tree).toEqual(set.tree);
        if (set?.evidence) expect(evidence).toEqual(set.evidence);
        if (set?.mark) expect(mark).toEqual(set.mark);
        if (set?.pending) expect(pending).toEqual(set.pending);
      }
    }
  });
}

test(`a scan of many pages gives each path's records, once, names past U+FFFF among them (seed ${seed})`, async () => {
  const rand = seededRandom(seed);
  const store = await freshStore();
  opened.push(store);
  const branch = store.selectedBranch();
  // More paths than several of the scan's pages (2,048 rows a table), each name a run of
  // characters whose UTF-8 and UTF-16 orders differ, so page boundaries fall among them.
  const chars = ['a', 'b', '-', 'é', '\ue000', '\uff5e', '\u{10000}', '\u{1f600}'];
  const dirs = ['d', 'd/e', '\uff5e', '\u{1f600}'];
  const paths = new Set<string>();
  while (paths.size < 7000) {
    let name = '';
    for (let k = 1 + rand(4); k > 0; k--) name += chars[rand(chars.length)];
    paths.add(`${dirs[rand(dirs.length)]}/${name}`);
  }
  const want = new Map<string, { tree: boolean; evidence: boolean }>();
  let i = 0;
  for (const path of paths) {
    // Mostly both (a synced file), some tree only, some evidence only.
    const mix = rand(10);
    const tree = mix !== 0;
    const evidence = mix !== 1;
    if (tree) store.setTree(branch, 'work', path, { hash: `h${i}`, size: i, mode: 0o644 }, CAUSE);
    if (evidence) store.setEvidence('work', path, { kind: 'text', hash: mix === 2 ? `other${i}` : `h${i}`, size: i, mode: 0o644, fingerprint: `fp${i}` });
    if (mix === 3) store.setMark(branch, 'work', path, { origin: 'workspace', tombstone: null, conflict: null });
    want.set(path, { tree, evidence });
    i++;
  }
  store.barrier();
  for (const dir of ['', 'd', '\u{1f600}']) {
    const got = [...store.scan(branch, 'work', dir)];
    const inDir = [...want.keys()].filter((p) => dir === '' || p.startsWith(`${dir}/`));
    expect(got.length).toBe(inDir.length);
    expect(got.map((s) => s.path).sort()).toEqual(inDir.sort());
    for (const s of got) {
      const { tree, evidence, mark, pending } = store.read(branch, 'work', s.path);
      expect({ tree: s.tree, evidence: s.evidence, mark: s.mark, pending: s.pending }).toEqual({ tree, evidence, mark, pending });
      const set = want.get(s.path);
      expect({ tree: s.tree !== null, evidence: s.evidence !== null }).toEqual({ tree: set?.tree === true, evidence: set?.evidence === true });
    }
  }
});
