/**
 * The shared store against the embedded one, in one run: a first sync of 1,000 files and
 * a sync with nothing changed, a read's disk check on a held, unchanged file, one edit,
 * and a materialize of 1,000 drafts — on PostgreSQL over a local
 * Unix socket (a throwaway cluster) and on SQLite, as ratios. It also counts the
 * statements (round trips to the server) each takes, so the cost of a network between
 * host and database is that count times the network's round trip (the host README, "A
 * shared store on PostgreSQL"). Without PostgreSQL installed it says so and passes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handleToolCall } from '@ws/tools';
import { checkConfig } from '../src/config.ts';
import { openHost } from '../src/host.ts';
import type { PgStore } from '../src/store/postgres/pg-store.ts';
import { freshDatabase, startCluster } from '../test/pg-fixtures.ts';

const FILES = 1000;
const READS = 400;
const EDITS = 100;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const name = (i: number) => `d${i % 20}/f${i}.txt`;

interface Measured {
  firstSyncMs: number;
  syncMs: number;
  readMs: number;
  editMs: number;
  materializeMs: number;
  trips?: { read: number; edit: number; materialize: number };
}

async function measure(store: Record<string, string>): Promise<Measured> {
  const base = mkdtempSync(join(tmpdir(), 'ws-pg-bench-'));
  const root = join(base, 'root');
  for (let i = 0; i < FILES; i++) {
    mkdirSync(join(root, `d${i % 20}`), { recursive: true });
    writeFileSync(join(root, name(i)), `file ${i}\nEND\n`);
  }
  const config = checkConfig({ store: store.url ? { url: store.url, host: 'bench' } : { path: join(base, 'store.sqlite') }, mount: [{ name: 'work', path: root }] }, 'bench', root);
  const host = await openHost(config, { watch: false });
  const trips = () => (store.url ? (host.store as PgStore).roundTrips : 0);
  try {
    const mount = host.workspace.mounts[0];
    const s0 = performance.now();
    await mount.sync(undefined);
    const firstSyncMs = performance.now() - s0;
    const syncs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await mount.sync(undefined);
      syncs.push(performance.now() - t);
    }
    const reads: number[] = [];
    const t0 = trips();
    for (let i = 0; i < READS; i++) {
      const t = performance.now();
      const r = await mount.read(name(7));
      reads.push(performance.now() - t);
      if (r.kind !== 'file') throw new Error(`read: ${r.kind}`);
    }
    const readTrips = (trips() - t0) / READS;
    const edits: number[] = [];
    const t1 = trips();
    for (let i = 0; i < EDITS; i++) {
      const t = performance.now();
      const r = await handleToolCall(host.workspace, { name: 'edit', input: { path: `work/${name(i)}`, oldString: 'END\n', newString: `edit ${i}\nEND\n` } });
      edits.push(performance.now() - t);
      if (!r.success) throw new Error(`edit: ${r.error}`);
    }
    const editTrips = (trips() - t1) / EDITS;
    const drafts = Array.from({ length: FILES }, (_, i) => ({ path: name(i), bytes: new TextEncoder().encode(`draft ${i}\n`) }));
    const committed = await mount.commit(drafts);
    if (!committed.ok) throw new Error(committed.message);
    const t2 = trips();
    const t = performance.now();
    const pushed = await mount.materialize({ force: false });
    const materializeMs = performance.now() - t;
    if (!pushed.ok) throw new Error(pushed.message);
    const materializeTrips = (trips() - t2) / FILES;
    return {
      firstSyncMs,
      syncMs: median(syncs),
      readMs: median(reads.slice(READS / 10)),
      editMs: median(edits.slice(EDITS / 10)),
      materializeMs,
      ...(store.url ? { trips: { read: readTrips, edit: editTrips, materialize: materializeTrips } } : {}),
    };
  } finally {
    host.close();
    rmSync(base, { recursive: true, force: true });
  }
}

let cluster: ReturnType<typeof startCluster>;
try {
  cluster = startCluster();
} catch (err) {
  console.log(`pg: skipped — no PostgreSQL to start (${(err as Error).message.split('\n')[0]})`);
  process.exit(0);
}
const url = await freshDatabase(cluster.url);
const sqlite = await measure({});
const pg = await measure({ url });
const round = (x: number, d = 2) => Number(x.toFixed(d));
console.log(
  JSON.stringify({
    files: FILES,
    sqlite: { firstSyncMs: Math.round(sqlite.firstSyncMs), syncMs: round(sqlite.syncMs, 1), readMs: round(sqlite.readMs, 3), editMs: round(sqlite.editMs), materializeMs: Math.round(sqlite.materializeMs) },
    postgres: { firstSyncMs: Math.round(pg.firstSyncMs), syncMs: round(pg.syncMs, 1), readMs: round(pg.readMs, 3), editMs: round(pg.editMs), materializeMs: Math.round(pg.materializeMs) },
    ratios: {
      firstSync: round(pg.firstSyncMs / sqlite.firstSyncMs),
      sync: round(pg.syncMs / sqlite.syncMs),
      read: round(pg.readMs / sqlite.readMs),
      edit: round(pg.editMs / sqlite.editMs),
      materialize: round(pg.materializeMs / sqlite.materializeMs),
    },
    roundTripsPer: { read: round(pg.trips!.read, 1), edit: round(pg.trips!.edit, 1), materializedFile: round(pg.trips!.materialize, 1) },
  }),
);
cluster.stop();
