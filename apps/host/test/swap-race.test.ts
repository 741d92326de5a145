/**
 * Effects stay inside the root under a concurrent swap, through one long-running
 * `ws mcp`: while another process swaps a directory of each mount with a symlink to a
 * directory outside (renameat2 RENAME_EXCHANGE, in a tight loop), thousands of writes,
 * reads and materializes on a store-backed, a direct and a link-following direct mount
 * change nothing outside, show nothing outside, and leave no temporary file outside.
 */
import { afterAll, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom, tempDir } from './fixtures.ts';
import { connectStdio, mcpCall, type StdioSession } from './ws-process.ts';
import { storeToml } from './engine.ts';

const WRITES = 2000;
const READS = 2000;
const MATERIALIZES = 500;
/** Calls in flight at once on the one session (the server takes them one after another). */
const IN_FLIGHT = 6;
const SECRET = 'outside secret';
const seed = Number(process.env.WS_SEED ?? Date.now() % 1_000_000);

const sessions: StdioSession[] = [];
afterAll(async () => {
  for (const s of sessions) await s.close();
});

/** Every file beneath `dir` with its bytes, as text. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out[join(e.parentPath, e.name).slice(dir.length + 1)] = readFileSync(join(e.parentPath, e.name), 'utf8');
    else if (!e.isDirectory()) out[join(e.parentPath, e.name).slice(dir.length + 1)] = '(not a file)';
  }
  return out;
}

/** Runs `calls` with {@link IN_FLIGHT} at a time. */
async function pool(calls: (() => Promise<void>)[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < calls.length) await calls[next++]();
    }),
  );
}

test(`a swapped-in symlink never lets an effect out of the mount (seed ${seed})`, async () => {
  const rand = seededRandom(seed);
  const dir = tempDir('ws-swap-');
  const outside = join(dir, 'outside');
  mkdirSync(join(outside, 'deeper'), { recursive: true });
  writeFileSync(join(outside, 'victim.txt'), `${SECRET}\n`);
  writeFileSync(join(outside, 'deeper/x.txt'), `${SECRET} 2\n`);
  const mounts = [
    { name: 's', backend: 'store', follow: false },
    { name: 'd', backend: 'direct', follow: false },
    { name: 'f', backend: 'direct', follow: true },
  ] as const;
  const lines = [storeToml('.ws/store.sqlite', dir).trimEnd()];
  for (const m of mounts) {
    const root = join(dir, m.name);
    mkdirSync(join(root, 'sub/deeper'), { recursive: true });
    writeFileSync(join(root, 'sub/victim.txt'), 'inside\n');
    writeFileSync(join(root, 'sub/deeper/x.txt'), 'inside 2\n');
    symlinkSync(outside, join(root, 'link'));
    lines.push('[[mount]]', `name = "${m.name}"`, `path = "${m.name}"`, `backend = "${m.backend}"`, `followSymlinks = ${m.follow}`);
  }
  const config = join(dir, 'ws.toml');
  writeFileSync(config, `${lines.join('\n')}\n`);
  const before = snapshot(outside);
  const s = await connectStdio(config, dir);
  sessions.push(s);
  expect((await mcpCall(s.client, 'sync', {})).isError).toBe(false);

  const swapper = Bun.spawn(['bun', join(import.meta.dir, 'swapper.ts'), ...mounts.map((m) => join(dir, m.name))], { stdout: 'pipe', stderr: 'pipe' });
  let swapped = '';
  const swapOut = (async () => {
    for await (const chunk of swapper.stdout) swapped = new TextDecoder().decode(chunk).trim().split('\n').pop() ?? swapped;
  })();
  const shown: string[] = [];
  const look = (where: string, text: string) => {
    if (text.includes(SECRET)) shown.push(`${where}: ${text.slice(0, 200)}`);
  };
  const counts = { writes: 0, reads: 0, materializes: 0, refused: 0 };
  try {
    for (const m of mounts) {
      const targets = ['sub/victim.txt', 'sub/deeper/x.txt', 'sub/new.txt', 'link/victim.txt'];
      const calls: (() => Promise<void>)[] = [];
      for (let i = 0; i < WRITES; i++) {
        const path = `${m.name}/${targets[rand(targets.length)]}`;
        calls.push(async () => {
          const r = await mcpCall(s.client, 'write', { path, content: `agent ${i}\n` });
          counts.writes++;
          if (r.isError) counts.refused++;
          look(`write ${path}`, r.text);
        });
      }
      for (let i = 0; i < READS; i++) {
        const path = `${m.name}/${targets[rand(targets.length)]}`;
        const tool = rand(10) === 0 ? 'grep' : 'read';
        calls.push(async () => {
          const r = await mcpCall(s.client, tool, tool === 'grep' ? { pattern: 'secret|inside|agent', path: `${m.name}/sub` } : { path });
          counts.reads++;
          look(`${tool} ${path}`, r.text);
        });
      }
      for (let i = 0; i < MATERIALIZES; i++) {
        const path = `${m.name}/${targets[rand(3)]}`;
        calls.push(async () => {
          await mcpCall(s.client, 'write', { path, content: `to materialize ${i}\n` });
          const r = await mcpCall(s.client, 'materialize', { path, force: rand(2) === 0 });
          counts.materializes++;
          look(`materialize ${path}`, r.text);
        });
      }
      // Shuffle (seeded), so writes, reads and materializes interleave with the swaps.
      for (let i = calls.length - 1; i > 0; i--) {
        const j = rand(i + 1);
        [calls[i], calls[j]] = [calls[j], calls[i]];
      }
      await pool(calls);
      const ls = await mcpCall(s.client, 'ls', { path: m.name, recursive: true });
      look(`ls ${m.name}`, ls.text);
    }
  } finally {
    swapper.kill();
    await swapper.exited;
    await swapOut;
  }
  console.log(`swap race: ${JSON.stringify(counts)}, ${swapped} swaps`);
  expect(Number(swapped)).toBeGreaterThan(1000);
  expect(counts.writes).toBe(WRITES * mounts.length);
  expect(counts.reads).toBe(READS * mounts.length);
  expect(counts.materializes).toBe(MATERIALIZES * mounts.length);
  // Nothing outside changed, no temporary file was left there, nothing outside was shown.
  expect(snapshot(outside)).toEqual(before);
  expect(shown).toEqual([]);
}, 120_000);
