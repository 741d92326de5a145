/**
 * What MCP costs on top of the tools. Start-up: spawn to the first `tools/list` answer of
 * `ws mcp` as installed (the built bin, `bun run build:bin`, and the compiled executable,
 * `bun run build`), against
 * `@modelcontextprotocol/server-filesystem` on Node spawned the same way in this run
 * (target ≤ 0.5×; the benchmark fails where Node or that server is missing), beside a
 * bare `bun` start, a bare SDK server and `ws mcp` from the sources. Calls: a read and a grep through the SDK's client,
 * over stdio and over Streamable HTTP, against the same call in process
 * (`handleToolCall` on an `openHost` workspace); the overhead is printed as a ratio.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { handleToolCall } from '@ws/tools';
import { loadConfig } from '../src/config.ts';
import { openHost } from '../src/host.ts';
import { startMcpHttp } from '../src/serve.ts';

const CLI = resolve(import.meta.dir, '../src/cli.ts');
const BIN = resolve(import.meta.dir, '../dist/cli.js');
const EXE = resolve(import.meta.dir, '../dist/ws');
// The bin and the compiled executable (`build` makes both).
const build = Bun.spawnSync(['bun', 'run', 'build'], { cwd: resolve(import.meta.dir, '..'), stdout: 'ignore', stderr: 'inherit' });
if (build.exitCode !== 0) throw new Error('bun run build failed');
const NODE = Bun.which('node');
if (NODE === null) throw new Error('node is missing: the reference server (@modelcontextprotocol/server-filesystem) runs on it');
const FILESYSTEM_SERVER = (() => {
  const manifest = Bun.resolveSync('@modelcontextprotocol/server-filesystem/package.json', import.meta.dir);
  const bin = (require(manifest) as { bin: Record<string, string> }).bin['mcp-server-filesystem'];
  return resolve(manifest, '..', bin);
})();
const BARE_SERVER = resolve(import.meta.dir, 'bare-mcp-server.ts');
const SPAWNS = 12;
const CALLS = 60;
const BUDGET = 24_000;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;

/** A workspace worth searching: 300 source-like files and one 5,000-line file to read. */
function makeWorkspace(): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ws-bench-mcp-'));
  for (let f = 0; f < 300; f++) {
    mkdirSync(join(dir, 'work', `pkg${f % 10}`), { recursive: true });
    const lines = Array.from({ length: 120 }, (_, i) => `export const value${i} = compute(${f}, ${i}); // item ${f * 120 + i}`);
    if (f % 25 === 0) lines.push('// TODO: needle here');
    writeFileSync(join(dir, 'work', `pkg${f % 10}`, `file${f}.ts`), `${lines.join('\r\n')}\r\n`);
  }
  const big = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}: ${'lorem ipsum dolor sit amet '.repeat(2)}`);
  writeFileSync(join(dir, 'work', 'big.txt'), `${big.join('\n')}\n`);
  const config = join(dir, 'ws.toml');
  writeFileSync(config, '[[mount]]\nname = "work"\npath = "work"\n');
  return { dir, config };
}

/** Spawn to the first `tools/list` answer, in ms. */
async function spawnToList(command: string, args: readonly string[], cwd: string): Promise<number> {
  const t = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args: [...args], cwd, stderr: 'ignore' }));
  await client.listTools();
  const took = performance.now() - t;
  await client.close();
  return took;
}

/** A bare `bun` start: spawn to exit of a one-expression script, in ms. */
async function bareBun(cwd: string): Promise<number> {
  const t = performance.now();
  await Bun.spawn(['bun', '-e', '0'], { cwd, stdout: 'ignore', stderr: 'ignore' }).exited;
  return performance.now() - t;
}

/**
 * Medians of several measurements taken in turn, `rounds` rounds of `block` runs each,
 * the order rotating each round, so drift in a busy machine hits every one alike. The
 * first `warm` runs of each block are not kept: they pay for switching (the store's lock
 * file passes between the processes and hosts being measured).
 */
async function interleaved(rounds: number, block: number, warm: number, measures: readonly (() => Promise<number>)[]): Promise<number[]> {
  const times: number[][] = measures.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < measures.length; k++) {
      const i = (k + round) % measures.length;
      for (let run = 0; run < warm + block; run++) {
        const took = await measures[i]();
        if (run >= warm) times[i].push(took);
      }
    }
  }
  return times.map(median);
}

/** One timed call, in ms. */
const timed = (call: () => Promise<unknown>) => async () => {
  const t = performance.now();
  await call();
  return performance.now() - t;
};

const ws = makeWorkspace();
try {
  const [bun, bare, fromSources, first, compiled, filesystem] = await interleaved(SPAWNS, 1, 0, [
    () => bareBun(ws.dir),
    () => spawnToList('bun', [BARE_SERVER], ws.dir),
    () => spawnToList('bun', [CLI, '--config', ws.config, 'mcp'], ws.dir),
    () => spawnToList('bun', [BIN, '--config', ws.config, 'mcp'], ws.dir),
    () => spawnToList(EXE, ['--config', ws.config, 'mcp'], ws.dir),
    () => spawnToList(NODE, [FILESYSTEM_SERVER, join(ws.dir, 'work')], ws.dir),
  ]);
  const r = first / filesystem;
  const rc = compiled / filesystem;
  console.log(`mcp: spawn → first tools/list, against @modelcontextprotocol/server-filesystem on Node (${ms(filesystem)}), median of ${SPAWNS} spawns each`);
  console.log(`  ratio, the bin: ${r.toFixed(2)}× (target ≤ 0.5×) ${r <= 0.5 ? 'met' : 'NOT MET'}`);
  console.log(`  ratio, the compiled executable: ${rc.toFixed(2)}× (target ≤ 0.5×) ${rc <= 0.5 ? 'met' : 'NOT MET'}`);
  console.log(
    `  ws mcp (built bin) ${ms(first)}; the compiled executable ${ms(compiled)}; from the sources ${ms(fromSources)}; ` +
      `${(first / bare).toFixed(2)}× a bare SDK server (${ms(bare)}), ${(first / bun).toFixed(1)}× a bare bun start (${ms(bun)})`,
  );
  if (process.env.WS_BENCH_ONLY === 'startup') {
    rmSync(ws.dir, { recursive: true, force: true });
    process.exit(0);
  }

  const read = { name: 'read', arguments: { path: 'work/big.txt', offset: 1000, limit: 200 } };
  const grep = { name: 'grep', arguments: { pattern: 'needle', path: 'work' } };

  const config = await loadConfig(ws.dir, ws.config);
  const host = await openHost(config, { watch: false });
  const inProcess = (c: { name: string; arguments: Record<string, unknown> }) => async () => {
    const r = await handleToolCall(host.workspace, { name: c.name, input: c.arguments, resultMaxChars: BUDGET });
    if (!r.success) throw new Error(`${c.name}: ${r.error}`);
  };
  const through = (client: Client, c: { name: string; arguments: Record<string, unknown> }) => async () => {
    const r = await client.callTool(c);
    if (r.isError) throw new Error(`${c.name}: ${JSON.stringify(r.content)}`);
  };

  const stdio = new Client({ name: 'bench', version: '1' });
  await stdio.connect(new StdioClientTransport({ command: 'bun', args: [CLI, '--config', ws.config, 'mcp'], cwd: ws.dir, stderr: 'ignore' }));
  const serving = await startMcpHttp(config, { port: 0 });
  const http = new Client({ name: 'bench', version: '1' });
  const requestInit = { headers: { Authorization: `Bearer ${serving.token}` } };
  await http.connect(new StreamableHTTPClientTransport(new URL(serving.url), { requestInit }));

  for (const [label, call] of [
    ['read (a 200-line page)', read],
    ['grep (300 files)', grep],
  ] as const) {
    const [local, overStdio, overHttp] = await interleaved(CALLS / 10, 10, 3, [timed(inProcess(call)), timed(through(stdio, call)), timed(through(http, call))]);
    console.log(
      `mcp: ${label}: in process ${ms(local)}; over stdio ${ms(overStdio)} (${(overStdio / local).toFixed(2)}×); ` +
        `over HTTP ${ms(overHttp)} (${(overHttp / local).toFixed(2)}×) — protocol overhead as a ratio of the in-process call`,
    );
  }

  await stdio.close();
  await http.close();
  await serving.stop();
  host.close();
} finally {
  rmSync(ws.dir, { recursive: true, force: true });
}
