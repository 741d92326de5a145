/**
 * Two writers (the three-way rule, `@ws/reconcile` README): a person edits files on disk while the agent edits the same
 * files through the store, interleaved at random. Every outcome is merged by the rule or
 * a reported conflict; no draft is lost and no person's change is overwritten unseen.
 */
import { expect, test } from 'bun:test';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PATH_STATES } from '@ws/reconcile';
import { sha256 } from '../src/host.ts';
import { enc, seededRandom } from './fixtures.ts';
import { storeHost, writeFiles } from './host-fixtures.ts';

const STEPS = 1000;
const PATHS = ['a.txt', 'b.txt', 'c.txt', 'dir/d.txt', 'dir/e.txt', 'f.txt'];
const seed = Number(process.env.WS_SEED ?? Date.now() % 1_000_000);


test(`a person and the agent editing the same files lose nothing (${STEPS} steps, seed ${seed})`, async () => {
  const rand = seededRandom(seed);
  const { mount, root, host } = await storeHost({ files: { 'a.txt': 'start a\n', 'dir/d.txt': 'start d\n' } });
  const store = host.store!;
  // The history through the store's own port (either engine): a path's versions after a
  // place in it, and the newest place (history places grow across the whole store).
  const historySince = (path: string, seq: number) => store.history('work', path).filter((v) => v.path === path && v.seq > seq).map((v) => v.hash);
  const maxSeq = () => Math.max(0, ...PATHS.flatMap((path) => store.history('work', path).map((v) => v.seq)));

  const disk = (p: string) => (existsSync(join(root, p)) ? readFileSync(join(root, p), 'utf8') : null);
  const held = (p: string) => {
    const tree = store.read(store.selectedBranch(), 'work', p).tree;
    return tree ? new TextDecoder().decode(store.getBlob(tree.hash)!) : null;
  };
  /** The agent's changes not yet on disk and not given up: what S must hold. */
  const drafts = new Map<string, string | null>();
  /** The person's latest change per path, with the history position when it was made. */
  const personAt = new Map<string, { text: string | null; seq: number; heldThen: string | null; knownThen: boolean }>();
  /** Paths whose last status reported a conflict. */
  const conflicted = new Set<string>();
  const counts = { conflicts: 0, pushedOverPerson: 0, merged: 0 };

  const check = (step: number, what: string) => {
    const where = `step ${step} (${what}), seed ${seed}`;
    for (const [p, text] of drafts) {
      if (held(p) !== text) throw new Error(`${where}: the agent's draft of ${p} was lost: store holds ${JSON.stringify(held(p))}, the draft was ${JSON.stringify(text)}`);
    }
  };

  for (let step = 0; step < STEPS; step++) {
    const p = PATHS[rand(PATHS.length)];
    const roll = rand(100);
    let what = '';
    if (roll < 30) {
      // The person edits or deletes p on disk.
      const seq = maxSeq();
      if (rand(5) === 0 && disk(p) !== null) {
        rmSync(join(root, p));
        // Did the store know of a disk file here? (Evidence of agreed absence says it did not.)
        const evidence = store.read(store.selectedBranch(), 'work', p).evidence;
        const knownThen = evidence !== null && evidence.kind !== 'absent';
        personAt.set(p, { text: null, seq, heldThen: held(p), knownThen });
        what = `person deletes ${p}`;
      } else {
        const text = `person ${step} ${p}\n`;
        writeFiles(root, { [p]: text });
        personAt.set(p, { text, seq, heldThen: held(p), knownThen: true });
        what = `person writes ${p}`;
      }
    } else if (roll < 55) {
      // The agent edits p as the edit tool does: read (with the disk check), then commit on what it read.
      what = `agent edits ${p}`;
      const r = await mount.read(p);
      const text = `agent ${step} ${p}\n`;
      const expected = r.kind === 'file' ? r.bytes : null;
      if (r.kind === 'file' || r.kind === 'missing') {
        const c = await mount.commit([{ path: p, bytes: enc(text), expected }]);
        expect(c.ok).toBe(true);
        drafts.set(p, text);
      }
    } else if (roll < 62) {
      // The agent writes p whole, without a disk check (as write does).
      what = `agent writes ${p}`;
      const text = `agent-write ${step} ${p}\n`;
      expect((await mount.commit([{ path: p, bytes: enc(text) }])).ok).toBe(true);
      drafts.set(p, text);
    } else if (roll < 67) {
      what = `agent deletes ${p}`;
      if (held(p) !== null) {
        expect((await mount.commit([{ path: p, bytes: null }])).ok).toBe(true);
        drafts.set(p, null);
      }
    } else if (roll < 82) {
      // Materialize (never forced): disk may change only over what the store had taken in.
      const named = rand(2) === 0;
      what = named ? `materialize ${p}` : 'materialize all';
      const before = new Map(PATHS.map((q) => [q, disk(q)]));
      const r = await mount.materialize(named ? { path: p, force: false } : { force: false });
      expect(r.ok).toBe(true);
      for (const q of PATHS) {
        const was = before.get(q) ?? null;
        if (disk(q) === was) continue;
        const person = personAt.get(q);
        if (person && person.text === was) {
          // The person's version was overwritten: the store must have taken it in first.
          // Taken in: the store's history holds that version since the person made it. A
          // deletion loses nothing where the workspace had deleted the file too (they agree
          // on absence) or where the store never knew of a disk file there (absence is all
          // it ever saw).
          const hashes = historySince(q, person.seq);
          const seen =
            hashes.includes(was === null ? null : sha256(enc(was))) ||
            (was === null && (person.heldThen === null || !person.knownThen));
          if (!seen) throw new Error(`step ${step} (${what}), seed ${seed}: the person's change to ${q} was overwritten unseen`);
          counts.pushedOverPerson++;
        }
        if (drafts.get(q) === disk(q)) drafts.delete(q);
      }
    } else if (roll < 86) {
      // A path sync keeps a draft disk has not changed; only a conflict is given up for disk's copy.
      what = `sync ${p}`;
      const r = await mount.sync(p);
      if (!r.ok) throw new Error(r.message);
      const report = r.report as { gaveUp: { path: string; was: string }[]; drafts?: string[] };
      // Reports name paths as the tools take them: the mount's name first.
      if (report.gaveUp.some((g) => g.path === `work/${p}`)) {
        expect(report.gaveUp.map((g) => g.was)).toEqual(report.gaveUp.map((g) => (g.was === 'not-in-branch' ? 'not-in-branch' : 'conflict')));
        drafts.delete(p);
        conflicted.delete(p);
        if (disk(p) !== held(p)) throw new Error(`step ${step}: after sync ${p} gave up its conflict, disk and store differ`);
      } else if (drafts.has(p) && drafts.get(p) !== disk(p)) {
        expect({ step, kept: report.drafts ?? [] }).toEqual({ step, kept: [`work/${p}`] });
      }
    } else if (roll < 90) {
      // A discard drops the agent's change there, conflict or not; the dropped text stays in history.
      what = `discard ${p}`;
      const had = held(p);
      const r = await mount.discard!(p);
      if (!r.ok) throw new Error(r.message);
      drafts.delete(p);
      conflicted.delete(p);
      if (disk(p) !== held(p)) throw new Error(`step ${step}: after discard ${p}, disk and store differ`);
      if (had !== null && r.discarded.includes(p)) {
        const kept = historySince(p, 0);
        if (!kept.includes(sha256(enc(had)))) throw new Error(`step ${step}: the discarded text of ${p} is not in history`);
      }
    } else {
      what = 'status';
      const s = (await mount.status()) as { conflicts: { path: string }[]; drafts: string[] };
      const now = new Set(s.conflicts.map((c) => c.path.slice('work/'.length)));
      for (const q of conflicted) {
        // A reported conflict stays reported until settled or until disk and store converge.
        if (!now.has(q) && disk(q) !== held(q)) throw new Error(`step ${step}, seed ${seed}: the conflict on ${q} vanished unsettled`);
      }
      for (const q of now) if (!conflicted.has(q)) counts.conflicts++;
      conflicted.clear();
      for (const q of now) conflicted.add(q);
      const listing = await mount.list('', { recursive: true });
      if (!listing.ok) throw new Error(listing.message);
      const files = listing.entries.filter((e) => e.kind === 'file');
      expect(new Set(files.map((f) => f.path)).size).toBe(files.length);
      for (const f of files) expect(PATH_STATES as readonly string[]).toContain(f.state!);
    }
    for (const [q, text] of drafts) if (disk(q) === text && held(q) === text) drafts.delete(q), counts.merged++;
    // Disk and store converging settles a conflict (the next pass records the agreement).
    for (const q of conflicted) if (disk(q) === held(q)) conflicted.delete(q);
    check(step, what);
  }
  // The run must have exercised both kinds of outcome.
  expect(counts.conflicts).toBeGreaterThan(0);
  expect(counts.pushedOverPerson + counts.merged).toBeGreaterThan(0);
}, 180_000);
