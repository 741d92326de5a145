/**
 * A first sync killed mid-flight keeps all of its records or none (the host README, "The
 * store on disk": a pass's record writes are held and written many rows to a statement,
 * all inside the one transaction its barrier commits). `ws sync` into a fresh store is
 * killed with SIGKILL at seeded random moments of its run; after each kill the store
 * opens, and its tree, history and evidence hold every path of the mount or none of them,
 * each tree entry's blob with it. (The root's identity is recorded when the mount is first
 * looked at, before the walk: it is no part of the pass's records.)
 */
import { expect, test } from 'bun:test';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../src/host.ts';
import { openStore } from '../src/store/open-store.ts';
import { enc, seededRandom, tempDir } from './fixtures.ts';
import { writeFiles } from './host-fixtures.ts';
import { CLI } from './ws-process.ts';

/** Enough paths that the held rows are written many times before the barrier. */
const FILES = 6_000;
/** Distinct texts, each its own blob. */
const TEXTS = Array.from({ length: FILES }, (_, i) => `file ${i}\n${'x'.repeat(i % 200)}\n`);
const TRIALS = 12;
const seed = Number(process.env.WS_SEED ?? Date.now() % 1_000_000);

/** What a store holds of the mount's records (and whether every tree entry's blob is there). */
async function holdings(storePath: string): Promise<{ tree: number; history: number; evidence: number; blobless: number; blobs: number }> {
  const store = await openStore(storePath);
  try {
    const files = store.treeFiles(store.selectedBranch(), 'work', '');
    let history = 0;
    let blobless = 0;
    for (const f of files) {
      history += store.history('work', f.path).length;
      if (store.getBlob(f.entry.hash) === null) blobless++;
    }
    let evidence = 0;
    for (const s of store.scan(store.selectedBranch(), 'work', '')) if (s.evidence !== null) evidence++;
    // Blobs are committed before the records that name them: any number may be there without them.
    const blobs = store.getBlobs(TEXTS.map((t) => sha256(enc(t)))).size;
    return { tree: files.length, history, evidence, blobless, blobs };
  } finally {
    store.close();
  }
}

test(`a first sync killed mid-flight keeps all of its records or none (${TRIALS} trials, seed ${seed})`, async () => {
  const rand = seededRandom(seed);
  const root = tempDir('ws-first-crash-');
  const storeDir = tempDir('ws-first-crash-store-');
  const storePath = join(storeDir, 'store.sqlite');
  const configFile = join(storeDir, 'ws.toml');
  writeFileSync(configFile, `[store]\npath = "${storePath}"\n\n[[mount]]\nname = "work"\npath = "${root}"\nbackend = "store"\n`);
  writeFiles(root, Object.fromEntries(TEXTS.map((text, i) => [`d${i % 13}/e${i % 5}/f${i}.txt`, text])));
  const fresh = () => {
    for (const name of readdirSync(storeDir)) if (name.startsWith('store.sqlite')) rmSync(join(storeDir, name), { force: true });
  };
  const sync = () => Bun.spawn(['bun', CLI, '--config', configFile, 'sync'], { cwd: root, stdout: 'pipe', stderr: 'pipe' });

  // One whole first sync: how long it takes here, to aim the kills inside it.
  fresh();
  const t = performance.now();
  const whole = sync();
  expect(await whole.exited).toBe(0);
  const wholeMs = performance.now() - t;
  const all = { tree: FILES, history: FILES, evidence: FILES, blobless: 0, blobs: FILES };
  expect(await holdings(storePath)).toEqual(all);

  // Kept none (before or after the blobs' commit), or all.
  const seen = { none: 0, blobsOnly: 0, all: 0 };
  for (let trial = 0; trial < TRIALS; trial++) {
    fresh();
    const child = sync();
    // Kills spread over the later part of the run, where the blobs and the records are written.
    await Bun.sleep(Math.round(wholeMs * (0.5 + (0.6 * rand(1000)) / 1000)));
    child.kill('SIGKILL');
    await child.exited;
    const held = await holdings(storePath);
    const context = `trial ${trial} (seed ${seed}): ${JSON.stringify(held)}`;
    const { blobs, ...records } = held;
    if (JSON.stringify(held) === JSON.stringify(all)) seen.all++;
    else if (records.tree + records.history + records.evidence + records.blobless === 0) {
      if (blobs === 0) seen.none++;
      else seen.blobsOnly++;
    } else throw new Error(`${context}: the store kept part of a first sync's records`);
    // Whatever the kill kept, the next sync finishes the job.
    const again = sync();
    expect(`${context}: ${await again.exited}`).toBe(`${context}: 0`);
    expect(await holdings(storePath)).toEqual(all);
  }
  console.log(`first-sync crash test: ${seen.none} kills kept nothing, ${seen.blobsOnly} the blobs alone, ${seen.all} all`);
}, 300_000);
