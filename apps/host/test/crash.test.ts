/**
 * Crash safety with real processes (the reconcile README, "Crash safety"): a child
 * materializes many drafts and is killed with SIGKILL at random moments. After each
 * kill, reopening the store and passing over the mount finds no draft lost, no disk
 * change lost, every path in exactly one state — and history holds each draft byte for
 * byte, a write that reached disk as exactly one materialize version, and a restore of a
 * version makes exactly its bytes the draft.
 */
import { expect, test } from 'bun:test';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATH_STATES } from '@ws/reconcile';
import { handleToolCall } from '@ws/tools';
import { loadConfig } from '../src/config.ts';
import { openHost, sha256 } from '../src/host.ts';
import { enc, seededRandom, tempDir } from './fixtures.ts';
import { writeFiles } from './host-fixtures.ts';
import { freshDatabase } from './pg-fixtures.ts';

/** Trials per engine: the shared store's take longer (a round trip per statement). */
const ENGINES = [
  { name: 'SQLite', trials: 50, store: async (dir: string) => `path = "${join(dir, 'store.sqlite')}"` },
  { name: 'PostgreSQL', trials: 25, store: async () => `url = "${await freshDatabase()}"\nhost = "crash-host"` },
];
const FILES = 120;
const seed = Number(process.env.WS_SEED ?? Date.now() % 1_000_000);

for (const { name: engine, trials: TRIALS, store: storeLines } of ENGINES)
test(`a materialize killed at random moments loses no draft and no disk change (${engine} store, ${TRIALS} trials, seed ${seed})`, async () => {
  const rand = seededRandom(seed);
  const root = tempDir('ws-crash-');
  const storeDir = tempDir('ws-crash-store-');
  const configFile = join(storeDir, 'ws.toml');
  writeFileSync(configFile, `[store]\n${await storeLines(storeDir)}\n[[mount]]\nname = "work"\npath = "${root}"\n`);
  const names = Array.from({ length: FILES }, (_, i) => `d${i % 7}/f${i}.txt`);
  writeFiles(root, Object.fromEntries(names.map((n) => [n, `initial ${n}\n`])));
  const config = await loadConfig(storeDir, configFile);

  // Take every file in once.
  {
    const host = await openHost(config, { watch: false });
    await host.workspace.mounts[0].sync(undefined);
    host.close();
  }

  // How long a push of a trial's drafts takes here, to aim the kills inside it.
  let lastPushMs = 50;
  let killedMidway = 0;
  for (let trial = 0; trial < TRIALS; trial++) {
    const context = `trial ${trial} (seed ${seed})`;
    // A person edits or deletes some files on disk, unseen by the store.
    const person = new Map<string, string | null>();
    // What disk held before the person's first change of each path (the last trial settled it:
    // the agreement), so a path the person changed and changed back counts as unchanged.
    const before = new Map<string, string | null>();
    for (let k = 0; k < 6; k++) {
      const p = names[rand(FILES)];
      if (!before.has(p)) before.set(p, existsSync(join(root, p)) ? readFileSync(join(root, p), 'utf8') : null);
      if (rand(4) === 0 && existsSync(join(root, p))) {
        rmSync(join(root, p));
        person.set(p, null);
      } else {
        const text = `person ${trial}.${k} ${p}\n`;
        writeFiles(root, { [p]: text });
        person.set(p, text);
      }
    }
    // The agent drafts many files (some the person also changed).
    const drafts = new Map<string, string>();
    {
      const host = await openHost(config, { watch: false });
      const changes = [];
      for (let k = 0; k < 60; k++) {
        const p = names[rand(FILES)];
        const text = `agent ${trial}.${k} ${p}\n`;
        drafts.set(p, text);
        changes.push({ path: p, bytes: enc(text) });
      }
      const r = await host.workspace.mounts[0].commit(changes);
      expect(r.ok).toBe(true);
      host.close();
    }

    // Materialize in a child, killed at a random moment.
    // The kill lands a random moment after the child says it has opened the store, while
    // it materializes (or, now and then, before it opens or after it is done).
    const child = Bun.spawn(['bun', join(import.meta.dir, 'crash-child.ts'), configFile], { stdout: 'pipe', stderr: 'pipe' });
    const reader = child.stdout.getReader();
    let out = '';
    const early = rand(10) === 0;
    while (!early && !out.includes('open')) {
      const chunk = await reader.read();
      if (chunk.done) break;
      out += new TextDecoder().decode(chunk.value);
    }
    await Bun.sleep(early ? rand(150) : rand(lastPushMs + 5));
    child.kill('SIGKILL');
    await child.exited;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) out += new TextDecoder().decode(chunk.value);
    if (out.includes('open') && !out.includes('done')) killedMidway++;
    const finished = /done (\d+)/.exec(out);
    if (finished) lastPushMs = Number(finished[1]);

    // Reopen (recovering pending effects) and pass over the whole mount.
    const host = await openHost(config, { watch: false });
    const mount = host.workspace.mounts[0];
    const store = host.store!;
    const listing = await mount.list('', { recursive: true });
    if (!listing.ok) throw new Error(`${context}: ${listing.message}`);
    const files = listing.entries.filter((e) => e.kind === 'file');
    expect(new Set(files.map((f) => f.path)).size).toBe(files.length);
    for (const f of files) expect(PATH_STATES as readonly string[]).toContain(f.state!);

    const onDisk = (p: string) => (existsSync(join(root, p)) ? readFileSync(join(root, p), 'utf8') : null);
    const inStore = (p: string) => {
      const tree = store.read(store.selectedBranch(), 'work', p).tree;
      return tree ? new TextDecoder().decode(store.getBlob(tree.hash)!) : null;
    };
    for (const [p, text] of drafts) {
      // No draft lost: the draft is on disk (written) or still the workspace's copy.
      if (onDisk(p) !== text && inStore(p) !== text) {
        throw new Error(`${context}: the draft of ${p} was lost (disk ${JSON.stringify(onDisk(p))}, store ${JSON.stringify(inStore(p))})`);
      }
    }
    for (const [p, text] of person) {
      // No disk change lost: the person's change is still on disk (a push never overwrote it unseen).
      if (onDisk(p) !== text) {
        throw new Error(`${context}: the person's change to ${p} was overwritten (disk ${JSON.stringify(onDisk(p))})`);
      }
      if (drafts.has(p) && text !== before.get(p)) {
        const state = files.find((f) => f.path === p)?.state;
        expect(`${context}: ${p}: ${state}`).toBe(`${context}: ${p}: conflict`);
      }
    }

    // History after the kill: each draft is a version byte for byte; one that reached disk
    // is exactly one materialize version (recorded with its outcome, or on recovery).
    const versionsOf = (p: string) => store.history('work', p);
    for (const [p, text] of drafts) {
      const hash = sha256(enc(text));
      const vs = versionsOf(p).filter((v) => v.hash === hash);
      const written = vs.filter((v) => v.source === 'write');
      if (written.length !== 1 || new TextDecoder().decode(store.getBlob(hash)!) !== text) throw new Error(`${context}: the draft of ${p} is not one version in history`);
      const materialized = vs.filter((v) => v.source === 'materialize').length;
      if (materialized !== (onDisk(p) === text ? 1 : 0)) {
        throw new Error(`${context}: ${p} has ${materialized} materialize versions of its draft, disk ${onDisk(p) === text ? 'holds' : 'does not hold'} it`);
      }
    }
    // A restore of a random version of a random file makes exactly its bytes the draft.
    {
      const p = names[rand(FILES)];
      const held = versionsOf(p).filter((v) => v.hash !== null);
      const v = held[rand(held.length)];
      const restored = await handleToolCall(host.workspace, { name: 'restore', input: { path: `work/${p}`, version: String(v.seq) } });
      if (!restored.success) throw new Error(`${context}: restore ${p} ${v.seq}: ${restored.error}`);
      const now = store.read(store.selectedBranch(), 'work', p).tree;
      expect(now && Buffer.compare(store.getBlob(now.hash)!, store.getBlob(v.hash!)!)).toBe(0);
    }

    // Settle for the next trial: conflicts and interrupted effects keep disk's side; the rest is pushed.
    const settled = await mount.list('', { recursive: true });
    if (!settled.ok) throw new Error(settled.message);
    for (const f of settled.entries) if (f.state === 'conflict') expect((await mount.sync(f.path)).ok).toBe(true);
    for (const p of person.keys()) if (!files.some((f) => f.path === p)) await mount.sync(p);
    const pushed = await mount.materialize({ force: false });
    expect(pushed.ok).toBe(true);
    const after = await mount.list('', { recursive: true });
    if (!after.ok) throw new Error(after.message);
    const unsettled = after.entries.filter((e) => e.kind === 'file' && e.state !== 'synced');
    expect(unsettled.map((e) => `${e.path}: ${e.state}`)).toEqual([]);
    host.close();
  }
  console.log(`crash test (${engine}): ${killedMidway} of ${TRIALS} kills landed inside materialize`);
  // The kills must land inside materialize often enough to mean something.
  expect(killedMidway).toBeGreaterThan(TRIALS / 5);
}, 300_000);
