/**
 * A person's save is never overwritten unseen, end to end. Two person processes save
 * files on a direct and on a store-backed mount, each appending its own numbered line
 * and pausing 1–5 ms between saves: one saves by rename, the other in place (truncate,
 * then write). Meanwhile an agent on each mount, through its own long-running `ws mcp`, edits the first
 * line of the same files and, on the store-backed mount, materializes them — never with
 * force — in a loop. At the end every line a person saved is on disk. Where ws reported
 * a conflict, the person's text at that moment was in the store (the conflict's disk side
 * is stored; a sync keeps disk's copy, and the store's history holds it). Prints
 * collisions, conflicts and plans again.
 */
import { afterAll, expect, test } from 'bun:test';
import { skipReason } from '@ws/reconcile';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openConfigured, TEST_ENGINE } from './engine.ts';
import { connectStdio, makeWorkspace, mcpCall, type StdioSession } from './ws-process.ts';

/** ws writes per mount: edits stored on the direct mount, files materialized on the store-backed one. */
// On the PostgreSQL run 600: each write and each watcher pass there costs several times
// SQLite's (the host README, "Both store engines"), and 2,500 would take over six minutes.
const WRITES = Number(process.env.WS_SAVE_WRITES ?? (TEST_ENGINE === 'postgres' ? 600 : 2500));
/**
 * How long the agents write before the check, whatever they reached: on the PostgreSQL run
 * a store-backed agent that meets conflict after conflict (each one a sync and a reread,
 * while the person saves on) took from 10 s to over 200 s for the same writes, run to run.
 * The check needs a person's saves to race many ws writes, not a count reached by chance.
 */
const AGENT_MS = 90_000;
/** The fewest writes each agent must have made by then (a stalled agent fails). */
const FLOOR = Math.min(WRITES, 100);
/** Files per way of saving, per mount. */
const FILES = 6;
const MOUNTS = ['d', 's'] as const;
const WAYS = ['rename', 'place'] as const;

const sessions: StdioSession[] = [];
const people: Bun.Subprocess[] = [];
afterAll(async () => {
  for (const p of people) p.kill();
  for (const s of sessions) await s.close();
});

/** A person saving `files` in turn; `saved()` is the number of its last finished save. */
function person(how: (typeof WAYS)[number], files: readonly string[]): { saved: () => number; stop: () => Promise<number> } {
  const proc = Bun.spawn(['bun', join(import.meta.dir, 'person-appender.ts'), how, ...files], { stdout: 'pipe' });
  people.push(proc);
  let last = -1;
  const counting = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stdout) {
      const lines = dec.decode(chunk).trim().split('\n');
      last = Number(lines[lines.length - 1]);
    }
  })();
  return {
    saved: () => last,
    async stop() {
      proc.kill();
      await proc.exited;
      await counting;
      return last;
    },
  };
}

/** The person's line numbers in `text`. */
function personLines(text: string): Set<number> {
  return new Set(
    text
      .split('\n')
      .filter((l) => l.startsWith('person '))
      .map((l) => Number(l.slice(7))),
  );
}

/** The save numbers ≤ `upTo` that went to file `index` of `count` and are missing from `have`. */
function missing(have: Set<number>, index: number, count: number, upTo: number): number[] {
  const out: number[] = [];
  for (let n = index; n <= upTo; n += count) if (!have.has(n)) out.push(n);
  return out;
}

interface Tally {
  writes: number;
  collisions: number;
  replanned: number;
  conflicts: number;
  /** Pushes refused at the point of effect (disk changed while materialize ran): the only writes that may have been exchanged in, checked, and put back. */
  skipped: number;
  unverified: number;
  refused: number;
}

/** A conflict the agent saw: the person's last save before it, and when the sync that kept disk's copy ended. */
interface SeenConflict {
  readonly path: string;
  readonly savedBefore: number;
  readonly syncedAt: number;
}

test(`a person saving every 1–5 ms, by rename and in place, loses nothing to up to ${WRITES} ws writes on each kind of mount`, async () => {
  const files: Record<string, string> = {};
  for (const way of WAYS) for (let i = 0; i < FILES; i++) files[`${way}${i}.txt`] = 'ws 0\n';
  const ws = makeWorkspace(MOUNTS.map((name) => ({ name, backend: name === 'd' ? 'direct' : 'store', files })));
  // One long-running `ws mcp` per agent, so the two agents run side by side.
  const clients = Object.fromEntries(
    await Promise.all(
      MOUNTS.map(async (m) => {
        const session = await connectStdio(ws.config, ws.dir);
        sessions.push(session);
        return [m, session.client] as const;
      }),
    ),
  );
  // Each person saves its files of both mounts in turn: file k of its list gets the saves N with N % list === k.
  const lists = Object.fromEntries(WAYS.map((way) => [way, MOUNTS.flatMap((m) => Array.from({ length: FILES }, (_, i) => `${m}/${way}${i}.txt`))]));
  const persons = Object.fromEntries(WAYS.map((way) => [way, person(way, lists[way].map((p) => ws.disk(p)))]));
  while (WAYS.some((w) => persons[w].saved() < 0)) await Bun.sleep(5);

  const tallies: Record<string, Tally> = {};
  const conflicts: SeenConflict[] = [];
  const counters = new Map<string, number>();
  const wayOf = (path: string) => (path.includes('/rename') ? 'rename' : 'place');

  /** Reads the first line of `path` and takes its counter (a person's save of an older copy can undo an edit). */
  async function recount(path: string): Promise<void> {
    const page = await mcpCall(clients[path[0]], 'read', { path, limit: 1 });
    const at = /\tws (\d+)$/.exec(String(page.data?.content ?? ''));
    if (at) counters.set(path, Number(at[1]));
  }

  /** The agent on one mount: edit each file's first line in turn, materialize it (store-backed), keep disk's copy on a conflict. */
  async function agent(mount: (typeof MOUNTS)[number]): Promise<void> {
    const t: Tally = { writes: 0, collisions: 0, replanned: 0, conflicts: 0, skipped: 0, unverified: 0, refused: 0 };
    tallies[mount] = t;
    const client = clients[mount];
    const paths = WAYS.flatMap((way) => Array.from({ length: FILES }, (_, i) => `${mount}/${way}${i}.txt`));
    const until = performance.now() + AGENT_MS;
    for (let i = 0; t.writes < WRITES && performance.now() < until; i++) {
      const path = paths[i % paths.length];
      const n = counters.get(path) ?? 0;
      const edited = await mcpCall(client, 'edit', { path, oldString: `ws ${n}\n`, newString: `ws ${n + 1}\n` });
      if (edited.isError) {
        t.refused++;
        await recount(path);
        continue;
      }
      counters.set(path, n + 1);
      if (edited.data.replanned) t.replanned++;
      t.collisions += Number(edited.data.reports?.[mount]?.collisions ?? 0);
      if (mount === 'd') {
        t.writes++;
        continue;
      }
      const savedBefore = persons[wayOf(path)].saved();
      const pushed = await mcpCall(client, 'materialize', { path });
      expect(pushed.text).toStartWith('{');
      const report = pushed.data.mounts[0];
      t.writes += (report.written as string[]).length;
      t.unverified += (report.unverified as unknown[]).length;
      t.skipped += (report.skipped as { reason: string }[]).filter((s) => s.reason === skipReason.changedAtEffect).length;
      if ((report.conflicts as unknown[]).length === 0 && (report.skipped as unknown[]).length === 0) continue;
      // The person saved after the edit's read: a conflict, whose disk side is stored. Keep disk's copy.
      t.conflicts++;
      for (const c of report.conflicts as { diskSide: string }[]) expect(c.diskSide).toBe('stored');
      const synced = await mcpCall(client, 'sync', { path });
      expect(synced.text).toStartWith('{');
      conflicts.push({ path, savedBefore, syncedAt: Date.now() });
      await recount(path);
    }
  }

  await Promise.all(MOUNTS.map((m) => agent(m)));
  const last = Object.fromEntries(await Promise.all(WAYS.map(async (w) => [w, await persons[w].stop()] as const)));
  for (const s of sessions.splice(0)) await s.close();

  const lost: Record<string, number[]> = {};
  for (const way of WAYS) {
    lists[way].forEach((path, k) => {
      // The last save may have been cut by the kill; every earlier one must be on disk.
      const gone = missing(personLines(readFileSync(ws.disk(path), 'utf8')), k, lists[way].length, last[way] - 1);
      if (gone.length > 0) lost[path] = gone;
    });
  }
  /** How many person saves are missing on mount `m`. */
  const lostOn = (m: string) => Object.entries(lost).reduce((n, [p, gone]) => (p.startsWith(`${m}/`) ? n + gone.length : n), 0);
  // Each conflict's person text was in the store by the time the sync that kept disk's copy answered.
  // Read through the store itself (its blobs are compressed), the server having stopped.
  const opened = await openConfigured(ws.dir, ws.config);
  const store = opened.store;
  const notInStore: string[] = [];
  for (const c of conflicts) {
    const rel = c.path.slice(2);
    const list = lists[wayOf(c.path)];
    const texts = store
      .history('s', rel)
      .filter((v) => v.hash !== null && Date.parse(v.at) <= c.syncedAt)
      .map((v) => store.getBlob(v.hash as string))
      .filter((bytes): bytes is Uint8Array => bytes !== null);
    const held = texts.some((bytes) => missing(personLines(new TextDecoder().decode(bytes)), list.indexOf(c.path), list.length, c.savedBefore).length === 0);
    if (!held) notInStore.push(`${c.path} (saves up to ${c.savedBefore})`);
  }
  opened.close();
  for (const m of MOUNTS) {
    const t = tallies[m];
    const saves = WAYS.map((w) => `${last[w] + 1} by ${w}`).join(', ');
    console.log(
      `person's save (${m === 'd' ? 'direct' : 'store-backed'}): ${t.writes} ws writes; ${t.collisions} collisions looked again after, ${t.replanned} edits planned again, ${t.conflicts} conflicts, ${t.skipped} pushes refused at the point of effect, ${t.unverified} unverified, ${t.refused} edits refused; person saves over both mounts ${saves}; ${lostOn(m)} saves lost ${JSON.stringify(Object.fromEntries(Object.entries(lost).filter(([p]) => p.startsWith(`${m}/`))))}`,
    );
  }
  // A save can be lost only in the window the README names ("What remains, measured"): a
  // write exchanged in, found changed by its check and put back, while the person read the
  // file — so never more lost saves than writes refused after their exchange (a direct
  // mount's collisions looked again after, a store-backed mount's pushes refused as disk
  // changed while materialize ran), and none where no write was refused so (as
  // replace-window.test.ts holds).
  expect(lostOn('d')).toBeLessThanOrEqual(tallies.d.collisions);
  expect(lostOn('s')).toBeLessThanOrEqual(tallies.s.skipped);
  expect(notInStore).toEqual([]);
  expect(tallies.d.writes).toBeGreaterThanOrEqual(FLOOR);
  expect(tallies.s.writes).toBeGreaterThanOrEqual(FLOOR);
}, 240_000);
