/**
 * ws as users meet it, on a tree shaped like a real repository (`real-tree.ts`: at least
 * 40,000 files of real source text), against the commands people compare it with, each
 * pair timed in turn in this run:
 * - grep: `ws call grep` (a whole process) and a call over MCP to a warm `ws mcp`, on a
 *   direct and on a store-backed mount, against `rg -n --crlf` as a whole process — the
 *   warm store-backed server as it meets a pattern the first time (it remembers no
 *   search: `WS_GREP_REMEMBER=0`), and beside it one that ran the search before, timing
 *   the same grep again and the next page it said to continue with;
 * - sync with nothing changed against `git status`; the first sync against
 *   `git hash-object --stdin-paths` over the same files;
 * - the store's size against the tree's text; peak RSS of a grep and of a first sync;
 * - start-up: a `ws call` against `bun -e 0`, from the bin as installed and from the
 *   compiled executable (`bun run build`), the two ways ws is installed.
 * Figures are ratios; a missing reference (ripgrep, git) fails the benchmark. A one-shot
 * (`ws call grep`, a sync) runs the built bin, as an installed `ws` does; a warm server
 * runs the sources (its start is not timed).
 * - memory: peak RSS of a first sync of 100,000 real-sized files (a tree of its own, made
 *   once and kept like the first).
 * `WS_BENCH_ONLY=sync,startup` (any of first-sync, sync, store, startup, grep, memory) runs
 * only those parts. Syncs run the built bin (`dist/cli.js`, as installed), each first sync
 * into a fresh store, `WS_BENCH_ROUNDS` pairs (at most 3 for a first sync); every ratio is
 * printed with the range of its pairs.
 */
import { Database } from 'bun:sqlite';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { lines } from './lines.ts';
import { realTree, reference } from './real-tree.ts';

const CLI = resolve(import.meta.dir, '../src/cli.ts');
/** The bin as installed (`bun run build:bin`): start-up is timed on it. */
const BIN = resolve(import.meta.dir, '../dist/cli.js');
/** The compiled executable (`bun run build`): start-up is timed on it too. */
const EXE = resolve(import.meta.dir, '../dist/ws');
const ONLY = process.env.WS_BENCH_ONLY?.split(',');
const part = (name: 'first-sync' | 'sync' | 'store' | 'startup' | 'grep' | 'memory') =>
  ONLY === undefined || ONLY.includes(name) || (name === 'first-sync' && ONLY.includes('sync'));
const ROUNDS = Number(process.env.WS_BENCH_ROUNDS ?? 5);
const BUDGET = '24000';
const PATTERNS = [
  { name: 'selective identifier', pattern: 'createReconciler' },
  { name: 'selective regex', pattern: 'function\\s+\\w+Error' },
  { name: 'common word', pattern: 'return' },
] as const;
/**
 * A working session's greps, none of them a pattern timed, which each warm server answers
 * before any is timed: JavaScriptCore's top tier compiles a search's code over its first
 * few tens of calls (some 15 ms of CPU a call on the compiler's thread through the
 * fortieth grep of one pattern, beside the two Workers on two cores), so a server is warm
 * once it has served a session. Each pattern timed is still new to the server that times
 * it (which remembers no search: `WS_GREP_REMEMBER=0`).
 */
const SESSION = [
  'useState', 'import\\s+\\w+', 'TODO', 'async function', 'createElement', 'const\\s+\\w+Map', 'throw new', 'Promise\\.all',
  'module\\.exports', 'export default', 'require\\(\\w+', 'useEffect', 'getElementById', 'JSON\\.parse', 'typeof\\s+\\w+', 'console\\.log',
  'new Map', 'Symbol\\.iterator', 'Object\\.keys', 'addEventListener', 'setTimeout', 'Buffer\\.from', 'process\\.env', 'hasOwnProperty',
];

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

// Every command runs through the spawner (`spawner.ts`), started now while this process
// is small: a child's peak RSS is then its own, not this benchmark's high-water mark; the
// spawner times each command alike, from its spawn to its exit.
const spawner = Bun.spawn(['bun', resolve(import.meta.dir, 'spawner.ts')], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' });
const answers = (async function* () {
  for await (const line of lines(spawner.stdout)) yield JSON.parse(line) as { ms: number; maxRss: number; code: number };
})();
process.on('exit', () => spawner.kill());

/** A whole process, run to its exit with its output drained (by the spawner): ms and peak RSS (bytes). */
async function run(argv: readonly string[], stdin?: string): Promise<{ ms: number; maxRss: number; code: number }> {
  spawner.stdin.write(`${JSON.stringify({ argv, cwd: tree.root, ...(stdin === undefined ? {} : { stdin }) })}\n`);
  spawner.stdin.flush();
  const next = await answers.next();
  if (next.done) throw new Error('the benchmark\'s spawner ended');
  return next.value;
}
/** The least peak RSS the spawner can report (a command that does nothing): any figure is at least this. */
const floorRss = (await run(['true'])).maxRss;
console.log(`spawner: a command that does nothing peaks at ${(floorRss / 2 ** 20).toFixed(1)} MiB`);

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
/** ` (a–b over n pairs)`: the range of per-pair figures, for a label. */
const spread = (xs: readonly number[], unit = '×') =>
  xs.length < 2 ? '' : ` (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}${unit} over ${xs.length} pairs; median)`;

/** Builds the bin as installed (`bun run build:bin`), and with `executable` the compiled executable too (`bun run build`). */
function buildBin(executable = false): void {
  const script = executable ? 'build' : 'build:bin';
  const build = Bun.spawnSync(['bun', 'run', script], { cwd: resolve(import.meta.dir, '..'), stdout: 'ignore', stderr: 'ignore' });
  if (build.exitCode !== 0) throw new Error(`bun run ${script} failed`);
}
function target(label: string, value: number, max: number, unit = '×'): void {
  console.log(`  ${label}: ${value.toFixed(2)}${unit} (target ≤ ${max}${unit}) ${value <= max ? 'met' : 'NOT MET'}`);
}

/** A warm `ws mcp` on `configFile`; `env` beside the environment a client gives a server by default. */
async function warmClient(configFile: string, env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: 'bun', args: [CLI, '--config', configFile, 'mcp'], stderr: 'ignore', env: { ...getDefaultEnvironment(), ...env } }));
  return client;
}

async function mcpGrep(client: Client, pattern: string, offset?: number): Promise<number> {
  const t = performance.now();
  await client.callTool({ name: 'grep', arguments: { pattern, ...(offset === undefined ? {} : { offset }) } });
  return performance.now() - t;
}

/** Where the first page of `pattern`'s grep says to go on (`continue with offset=N`), or undefined where it is whole. */
async function nextOffset(client: Client, pattern: string): Promise<number | undefined> {
  const answer = JSON.stringify(await client.callTool({ name: 'grep', arguments: { pattern } }));
  const at = /continue with offset=(\d+)/.exec(answer);
  return at === null ? undefined : Number(at[1]);
}

function sizeOf(path: string): number {
  let total = 0;
  for (const name of readdirSync(work)) if (join(work, name).startsWith(path)) total += statSync(join(work, name)).size;
  return total;
}

try {
  // The store the grep and store parts time is filled by the built bin too (without it, a grep run alone waited for ever on an empty store).
  if (part('first-sync') || part('sync') || part('startup') || part('memory') || part('store') || part('grep')) buildBin(part('startup'));
  // The first sync fills the store; git hashes the same files and writes nothing.
  let warmStore: Client | undefined;
  if (part('first-sync')) {
    const paths = Bun.spawnSync([git, 'ls-files', '-z'], { cwd: tree.root }).stdout.toString().split('\0').filter(Boolean).join('\n');
    const ratios: number[] = [];
    const rss: number[] = [];
    let wsMs = 0;
    let gitMs = 0;
    for (let round = 0; round < Math.min(ROUNDS, 3); round++) {
      // Each round into a fresh store; the last one stays for what follows.
      for (const name of readdirSync(work)) if (name.startsWith('store.sqlite')) rmSync(join(work, name), { force: true });
      const hash = await run([git, 'hash-object', '--stdin-paths'], paths);
      const first = await run(['bun', BIN, '--config', store, 'sync']);
      if (first.code !== 0) throw new Error(`ws sync exited ${first.code}`);
      ratios.push(first.ms / hash.ms);
      rss.push(first.maxRss / 2 ** 20);
      wsMs = first.ms;
      gitMs = hash.ms;
    }
    console.log('first sync, against git hash-object --stdin-paths over the same files');
    target(`ratio${spread(ratios)}`, median(ratios), 3);
    console.log(`  ws ${wsMs.toFixed(0)} ms; git ${gitMs.toFixed(0)} ms (the last pair)`);
    target(`peak RSS of a first sync${spread(rss, ' MiB')}`, median(rss), 150, ' MiB');
  }

  if (part('store') || part('grep')) {
    if (!part('first-sync')) await run(['bun', BIN, '--config', store, 'sync']);
    // A warm server builds the index while idle; the greps below are timed once it is current.
    // Target 1 times a pattern as a server meets it the first time: this server remembers
    // no search (`WS_GREP_REMEMBER=0`); another one, which does, times a search again.
    warmStore = await warmClient(watched, { WS_GREP_REMEMBER: '0' });
    const indexMs = await indexBuilt(join(work, 'store.sqlite'));
    console.log(`the index, built in the background by a warm server: ${(indexMs / 1000).toFixed(1)} s`);
    const storeBytes = sizeOf(join(work, 'store.sqlite'));
    console.log('store size (blobs and index), against the tree\'s text');
    target('ratio', storeBytes / tree.textBytes, 1.2);
  }

  if (part('sync')) {
    if (!existsSync(join(work, 'store.sqlite'))) await run(['bun', BIN, '--config', store, 'sync']);
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // In turn, the order changing each round.
      const gitStatus = async () => (await run([git, 'status', '--porcelain'])).ms;
      const wsSync = async () => (await run(['bun', BIN, '--config', store, 'sync'])).ms;
      if (round % 2 === 0) {
        const g = await gitStatus();
        ratios.push((await wsSync()) / g);
      } else {
        const w = await wsSync();
        ratios.push(w / (await gitStatus()));
      }
    }
    console.log('sync with nothing changed, against git status');
    target(`ratio${spread(ratios)}`, median(ratios), 1.2);
  }

  if (part('memory')) {
    // 100,000 files of the same real text, a tree of its own: only the peak RSS of its first sync is asked of it.
    const big = realTree(100_000);
    const bigStore = join(work, 'big.toml');
    writeFileSync(bigStore, `[store]\npath = "${join(work, 'big.sqlite')}"\n\n[[mount]]\nname = "work"\npath = "${big.root}"\nbackend = "store"\n`);
    const first = await run(['bun', BIN, '--config', bigStore, 'sync']);
    if (first.code !== 0) throw new Error(`ws sync exited ${first.code} on the 100,000-file tree`);
    console.log(`first sync of ${big.files} files (${(big.textBytes / 1e6).toFixed(0)} MB): ${(first.ms / 1000).toFixed(1)} s`);
    target('peak RSS of a first sync, 100,000 files', first.maxRss / 2 ** 20, 300, ' MiB');
    for (const name of readdirSync(work)) if (name.startsWith('big.sqlite')) rmSync(join(work, name), { force: true });
  }

  if (part('startup')) {

  // A call that failed is no start-up figure.
  const answered = async (argv: string[]) => {
    const r = await run(argv);
    if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}`);
    return r.ms;
  };
  const [bare, call, compiled] = await paired([
    () => answered(['bun', '-e', '0']),
    () => answered(['bun', BIN, '--config', direct, 'call', 'ls', '{}']),
    () => answered([EXE, '--config', direct, 'call', 'ls', '{}']),
  ], Math.max(ROUNDS, 15));
  console.log(`start-up: ws call ${call.toFixed(0)} ms from the bin as installed (bun dist/cli.js), ${compiled.toFixed(0)} ms from the compiled executable (dist/ws); bun -e 0 ${bare.toFixed(0)} ms`);
  target('the bin, above bun -e 0', call - bare, 25, ' ms');
  target('the compiled executable, above bun -e 0', compiled - bare, 25, ' ms');
  }

  if (part('grep')) {
  if (warmStore === undefined) {
    // Run alone: the store is filled first (as the first-sync part does), so the index the
    // warm server builds covers the tree before any grep is timed.
    const filled = await run(['bun', CLI, '--config', store, 'sync']);
    if (filled.code !== 0) throw new Error(`ws sync exited ${filled.code}`);
  }
  const warmStoreReady = warmStore ?? (await warmClient(watched, { WS_GREP_REMEMBER: '0' }));
  if (warmStore === undefined) await indexBuilt(join(work, 'store.sqlite'));
  const warmDirect = await warmClient(direct);
  const remembering = await warmClient(watched);
  try {
    // A session first (`SESSION`): the first call settles the tree, the rest warm the servers' code and caches.
    for (const pattern of SESSION) for (const client of [warmStoreReady, warmDirect, remembering]) await mcpGrep(client, pattern);
    for (const { name, pattern } of PATTERNS) {
      // And the pattern a few times, as a working session would ask it.
      for (let k = 0; k < 3; k++) {
        await mcpGrep(warmStoreReady, pattern);
        await mcpGrep(warmDirect, pattern);
      }
      let peak = 0;
      let storePeak = 0;
      const [ref, oneDirect, oneStore, mcpStore, mcpDirect] = await paired([
        async () => (await run([rg, '-n', '--crlf', pattern, '.'])).ms,
        async () => {
          const r = await run(['bun', BIN, '--config', direct, 'call', 'grep', JSON.stringify({ pattern }), '--result-max-chars', BUDGET]);
          peak = Math.max(peak, r.maxRss);
          return r.ms;
        },
        async () => {
          const r = await run(['bun', BIN, '--config', store, 'call', 'grep', JSON.stringify({ pattern }), '--result-max-chars', BUDGET]);
          storePeak = Math.max(storePeak, r.maxRss);
          return r.ms;
        },
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
      // The embedded default's mount is store-backed: its one-shot grep is held to the same bound.
      target('peak RSS of a store-backed grep', storePeak / 2 ** 20, 120, ' MiB');
      if (name === 'common word') continue;
      // A server that ran this search before (its first page, as a working session would):
      // the same grep again, and the page it said to continue with.
      const offset = await nextOffset(remembering, pattern);
      await mcpGrep(remembering, pattern);
      const [ref2, again, next] = await paired([
        async () => (await run([rg, '-n', '--crlf', pattern, '.'])).ms,
        () => mcpGrep(remembering, pattern),
        () => mcpGrep(remembering, pattern, offset),
      ]);
      console.log(`  over MCP, warm, store-backed, the search again: ${ratio(again, ref2)}×; ${offset === undefined ? 'the same page' : `its next page (offset=${offset})`}: ${ratio(next, ref2)}× (rg ${ref2.toFixed(0)} ms)`);
    }
  } finally {
    await warmStoreReady.close();
    await warmDirect.close();
    await remembering.close();
  }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
  spawner.stdin.end();
  spawner.kill();
}
