/**
 * ws as users meet it, on a tree shaped like a real repository (`real-tree.ts`: at least
 * 40,000 files of real source text), against the commands people compare it with, each
 * pair timed in turn in this run:
 * - grep: `ws call grep` (a whole process) and a call over MCP to a warm `ws mcp`, on a
 *   direct and on a store-backed mount, against `rg -n --crlf` as a whole process;
 * - sync with nothing changed against `git status`; the first sync against
 *   `git hash-object --stdin-paths` over the same files;
 * - the store's size against the tree's text; peak RSS of a grep and of a first sync;
 * - start-up: a `ws call` against `bun -e 0`.
 * Figures are ratios; a missing reference (ripgrep, git) fails the benchmark.
 * `WS_BENCH_ONLY=sync,startup` (any of first-sync, sync, startup, grep) runs only those parts.
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { realTree, reference } from './real-tree.ts';

const CLI = resolve(import.meta.dir, '../src/cli.ts');
/** The bin as installed (`bun run build:bin`): start-up is timed on it. */
const BIN = resolve(import.meta.dir, '../dist/cli.js');
const ONLY = process.env.WS_BENCH_ONLY?.split(',');
const part = (name: 'first-sync' | 'sync' | 'startup' | 'grep') => ONLY === undefined || ONLY.includes(name) || (name === 'first-sync' && ONLY.includes('sync'));
const ROUNDS = Number(process.env.WS_BENCH_ROUNDS ?? 5);
const BUDGET = '24000';
const PATTERNS = [
  { name: 'selective identifier', pattern: 'createReconciler' },
  { name: 'selective regex', pattern: 'function\\s+\\w+Error' },
  { name: 'common word', pattern: 'return' },
] as const;

const rg = reference('rg', 'ripgrep');
const git = reference('git', 'git');
const tree = realTree();
console.log(`tree: ${tree.files} files, ${(tree.textBytes / 1e6).toFixed(1)} MB of text at ${tree.root}`);

const work = mkdtempSync(join(tmpdir(), 'ws-bench-real-'));
function config(name: string, backend: 'store' | 'direct', extra = ''): string {
  const file = join(work, `${name}.toml`);
  writeFileSync(file, `[store]\npath = "${join(work, `${name}.sqlite`)}"\n\n[[mount]]\nname = "work"\npath = "${tree.root}"\nbackend = "${backend}"\n${extra}`);
  return file;
}
const direct = config('direct', 'direct');
const store = config('store', 'store');
// The warm server watches, as `ws serve` and `ws mcp` do by default: its greps read the store without a pass.
const watched = config('store', 'store', 'watch = "always"\n');

/** Waits until the store's search index covers every blob (a warm server builds it in the background); ms taken. */
async function indexBuilt(storePath: string): Promise<number> {
  const t = performance.now();
  for (;;) {
    const db = new Database(storePath, { readonly: true });
    const { left, all } = db.query('SELECT COUNT(*) FILTER (WHERE indexed = 0) AS left, COUNT(*) AS "all" FROM blob').get() as { left: number; all: number };
    db.close();
    // An empty store is not an indexed one: the tree is in it before the index can cover it.
    if (left === 0 && all > 0) return performance.now() - t;
    await Bun.sleep(500);
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** A whole process, run to its exit with its output drained: ms and peak RSS (bytes). */
async function run(argv: readonly string[], stdin?: string): Promise<{ ms: number; maxRss: number; code: number }> {
  const t = performance.now();
  const child = Bun.spawn([...argv], { cwd: tree.root, stdout: 'pipe', stderr: 'ignore', stdin: stdin === undefined ? 'ignore' : new Blob([stdin]) });
  await new Response(child.stdout).arrayBuffer();
  const code = await child.exited;
  const ms = performance.now() - t;
  return { ms, maxRss: child.resourceUsage()?.maxRSS ?? 0, code };
}

/** Medians of measures taken in turn, the order rotating each round. */
async function paired(measures: readonly (() => Promise<number>)[], rounds = ROUNDS): Promise<number[]> {
  const times: number[][] = measures.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < measures.length; k++) {
      const i = (k + round) % measures.length;
      times[i].push(await measures[i]());
    }
  }
  return times.map(median);
}

const ratio = (x: number, ref: number) => (x / ref).toFixed(2);
function target(label: string, value: number, max: number, unit = '×'): void {
  console.log(`  ${label}: ${value.toFixed(2)}${unit} (target ≤ ${max}${unit}) ${value <= max ? 'met' : 'NOT MET'}`);
}

async function warmClient(configFile: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: 'bun', args: [CLI, '--config', configFile, 'mcp'], stderr: 'ignore' }));
  return client;
}

async function mcpGrep(client: Client, pattern: string): Promise<number> {
  const t = performance.now();
  await client.callTool({ name: 'grep', arguments: { pattern } });
  return performance.now() - t;
}

function sizeOf(path: string): number {
  let total = 0;
  for (const name of readdirSync(work)) if (join(work, name).startsWith(path)) total += statSync(join(work, name)).size;
  return total;
}

try {
  // The first sync fills the store; git hashes the same files and writes nothing.
  let warmStore: Client | undefined;
  if (part('first-sync')) {
  const paths = Bun.spawnSync([git, 'ls-files', '-z'], { cwd: tree.root }).stdout.toString().split('\0').filter(Boolean).join('\n');
  const hash = await run([git, 'hash-object', '--stdin-paths'], paths);
  const first = await run(['bun', CLI, '--config', store, 'sync']);
  if (first.code !== 0) throw new Error(`ws sync exited ${first.code}`);
  console.log('first sync, against git hash-object --stdin-paths over the same files');
  target('ratio', first.ms / hash.ms, 3);
  console.log(`  ws ${first.ms.toFixed(0)} ms, peak RSS ${(first.maxRss / 2 ** 20).toFixed(0)} MiB; git ${hash.ms.toFixed(0)} ms`);
  target('peak RSS of a first sync', first.maxRss / 2 ** 20, 150, ' MiB');

  // A warm server builds the index while idle; the greps below are timed once it is current.
  warmStore = await warmClient(watched);
  const indexMs = await indexBuilt(join(work, 'store.sqlite'));
  console.log(`the index, built in the background by a warm server: ${(indexMs / 1000).toFixed(1)} s`);
  const storeBytes = sizeOf(join(work, 'store.sqlite'));
  console.log('store size (blobs and index), against the tree\'s text');
  target('ratio', storeBytes / tree.textBytes, 1.2);
  }

  if (part('sync')) {

  const [gitStatus, wsSync] = await paired([
    async () => (await run([git, 'status', '--porcelain'])).ms,
    async () => (await run(['bun', CLI, '--config', store, 'sync'])).ms,
  ]);
  console.log('sync with nothing changed, against git status');
  target('ratio', wsSync / gitStatus, 1.2);
  }

  if (part('startup')) {
  const build = Bun.spawnSync(['bun', 'run', 'build:bin'], { cwd: resolve(import.meta.dir, '..'), stdout: 'ignore', stderr: 'ignore' });
  if (build.exitCode !== 0) throw new Error('bun run build:bin failed');

  const [bare, call] = await paired([
    async () => (await run(['bun', '-e', '0'])).ms,
    async () => (await run(['bun', BIN, '--config', direct, 'call', 'ls', '{}'])).ms,
  ], Math.max(ROUNDS, 15));
  console.log(`start-up: ws call (the built bin) ${call.toFixed(0)} ms, bun -e 0 ${bare.toFixed(0)} ms`);
  target('above bun -e 0', call - bare, 25, ' ms');
  }

  if (part('grep')) {
  if (warmStore === undefined) {
    // Run alone: the store is filled first (as the first-sync part does), so the index the
    // warm server builds covers the tree before any grep is timed.
    const filled = await run(['bun', CLI, '--config', store, 'sync']);
    if (filled.code !== 0) throw new Error(`ws sync exited ${filled.code}`);
  }
  const warmStoreReady = warmStore ?? (await warmClient(watched));
  if (warmStore === undefined) await indexBuilt(join(work, 'store.sqlite'));
  const warmDirect = await warmClient(direct);
  try {
    for (const { name, pattern } of PATTERNS) {
      // Warm: the server's first call settles the tree; a few more, as a working session makes, warm its code and caches.
      for (let k = 0; k < 3; k++) {
        await mcpGrep(warmStoreReady, pattern);
        await mcpGrep(warmDirect, pattern);
      }
      let peak = 0;
      const [ref, oneDirect, oneStore, mcpStore, mcpDirect] = await paired([
        async () => (await run([rg, '-n', '--crlf', pattern, '.'])).ms,
        async () => {
          const r = await run(['bun', CLI, '--config', direct, 'call', 'grep', JSON.stringify({ pattern }), '--result-max-chars', BUDGET]);
          peak = Math.max(peak, r.maxRss);
          return r.ms;
        },
        async () => (await run(['bun', CLI, '--config', store, 'call', 'grep', JSON.stringify({ pattern }), '--result-max-chars', BUDGET])).ms,
        () => mcpGrep(warmStoreReady, pattern),
        () => mcpGrep(warmDirect, pattern),
      ]);
      console.log(`grep, ${name} (${pattern}), against rg -n --crlf (${ref.toFixed(0)} ms)`);
      if (name !== 'common word') target('over MCP, warm, store-backed', mcpStore / ref, 0.5);
      else console.log(`  over MCP, warm, store-backed: ${ratio(mcpStore, ref)}×`);
      console.log(`  over MCP, warm, direct: ${ratio(mcpDirect, ref)}×`);
      target('ws call, direct', oneDirect / ref, 1.5);
      target('ws call, store-backed', oneStore / ref, 1.5);
      target('peak RSS of a direct grep', peak / 2 ** 20, 120, ' MiB');
    }
  } finally {
    await warmStoreReady.close();
    await warmDirect.close();
  }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
