/**
 * ws as someone without this repository gets it: each package built and packed with
 * `bun pm pack`, the tarballs added with `bun add` in an empty directory elsewhere, and
 * `node_modules/.bin/ws` serving an SDK client; and the executable `bun run build`
 * compiles, copied away from the repository, doing the same. What runs is the built JS
 * (the installed packages hold no sources) or the one compiled file.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tempDir } from './fixtures.ts';
import { freshDatabase } from './pg-fixtures.ts';
import { connectHttp, makeWorkspace, mcpCall, startServe, type Workspace } from './ws-process.ts';

setDefaultTimeout(300_000);

const REPO = resolve(import.meta.dir, '../../..');
/** Every package the host needs, in build order, and the host last. */
const PACKAGES = ['packages/text', 'packages/paging', 'packages/grep', 'packages/reconcile', 'packages/tools', 'apps/host'];
const BOM = '\uFEFF';

/** Runs a command to the end; throws with its output when it fails. */
async function run(cmd: readonly string[], cwd: string): Promise<string> {
  const proc = Bun.spawn([...cmd], { cwd, stdout: 'pipe', stderr: 'pipe', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${cmd.join(' ')} in ${cwd} exited ${code}: ${err}${out}`);
  return out;
}

/** A store-backed mount with a CRLF file that has a BOM; on the SQLite store, or on a PostgreSQL database at `url`. */
function project(url?: string): Workspace {
  return makeWorkspace([{ name: 'work', backend: 'store', files: { 'win.txt': `${BOM}one\r\ntwo\r\n` } }], url === undefined ? undefined : { url });
}

/** What the issue asks of a client: tools/list, a read, a grep, an edit, a materialize — the exact bytes on disk after. */
async function roundTrip(client: Client, w: Workspace): Promise<void> {
  const listed = await client.listTools();
  expect(listed.tools.map((t) => t.name)).toContain('materialize');
  const read = await mcpCall(client, 'read', { path: 'work/win.txt' });
  expect(read.data.content).toBe('1\tone\n2\ttwo');
  // A grep runs in a Worker: the built bin and the executable must carry its file.
  const found = await mcpCall(client, 'grep', { pattern: 'tw[o]', path: 'work' });
  expect({ total: found.data.totalMatches, note: found.data.note }).toEqual({ total: 1, note: undefined });
  expect((await mcpCall(client, 'edit', { path: 'work/win.txt', oldString: 'two', newString: 'deux' })).isError).toBe(false);
  expect(readFileSync(w.disk('work/win.txt'), 'utf8')).toBe(`${BOM}one\r\ntwo\r\n`);
  expect((await mcpCall(client, 'materialize', {})).isError).toBe(false);
  expect(readFileSync(w.disk('work/win.txt'), 'utf8')).toBe(`${BOM}one\r\ndeux\r\n`);
}

/**
 * An SDK client over stdio to `...command --config CONFIG mcp`, started in a directory of
 * its own; the server says nothing of a Worker that could not start (grep would still
 * answer, from its calling thread, so only its word shows that the Worker's file is missing).
 */
async function overStdio(command: readonly string[], w: Workspace): Promise<void> {
  const [program, ...args] = command;
  const transport = new StdioClientTransport({ command: program, args: [...args, '--config', w.config, 'mcp'], cwd: tempDir(), stderr: 'pipe' });
  let said = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    said += chunk.toString();
  });
  const client = new Client({ name: 'ws-package-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    await roundTrip(client, w);
  } finally {
    await client.close();
  }
  expect(said).not.toContain('could not start');
}

/**
 * How the compiled executable is run here: where the tests run as root (as CI does), in a
 * mount namespace of its own with an empty file system over this repository, so it leans
 * on nothing of the build's sources. Bun fixes a bytecode module's `import.meta.url` to its
 * source file's, and a Worker named from that would load the file from this checkout and
 * pass; hidden, it cannot. Elsewhere the executable runs as it is.
 */
function isolated(exe: string): readonly string[] {
  if (process.getuid?.() !== 0) return [exe];
  return ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs tmpfs "$0" && exec "$@"', REPO, exe];
}

beforeAll(async () => {
  // Each package's own build (tsc, and for the host the compiled executable), in order.
  for (const dir of PACKAGES) await run(['bun', 'run', 'build'], join(REPO, dir));
});

describe('the packed packages, installed with bun add', () => {
  let installed: string;
  beforeAll(async () => {
    const tarballs = tempDir('ws-tarballs-');
    for (const dir of PACKAGES) await run(['bun', 'pm', 'pack', '--destination', tarballs, '--quiet'], join(REPO, dir));
    const names = readdirSync(tarballs).sort();
    expect(names).toEqual(['ws-grep-0.0.0.tgz', 'ws-host-0.0.0.tgz', 'ws-paging-0.0.0.tgz', 'ws-reconcile-0.0.0.tgz', 'ws-text-0.0.0.tgz', 'ws-tools-0.0.0.tgz']);
    installed = tempDir('ws-installed-');
    // Until the packages are on a registry, the host's @ws dependencies are the tarballs beside it.
    const overrides = Object.fromEntries(
      names.filter((n) => n !== 'ws-host-0.0.0.tgz').map((n) => [`@ws/${n.replace(/^ws-|-0\.0\.0\.tgz$/g, '')}`, join(tarballs, n)]),
    );
    writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'someone-else', private: true, overrides }));
    await run(['bun', 'add', join(tarballs, 'ws-host-0.0.0.tgz')], installed);
  });

  test('node_modules/.bin/ws is the built JS, over packages that hold no sources', () => {
    const bin = join(installed, 'node_modules/.bin/ws');
    expect(existsSync(bin)).toBe(true);
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env bun\n')).toBe(true);
    for (const name of ['text', 'paging', 'grep', 'reconcile', 'tools', 'host']) {
      const pkg = join(installed, 'node_modules/@ws', name);
      expect(existsSync(join(pkg, 'dist'))).toBe(true);
      expect({ name, src: existsSync(join(pkg, 'src')) }).toEqual({ name, src: false });
    }
    // The bin's bytecode cache travels with it: without it every command parses the bundle
    // (and every grep's Worker its own, as it starts).
    for (const file of ['cli.js', 'ws-command.js', 'ws-server.js', 'grep-engine.js', 'grep/worker.js', 'disk/walk-worker.js', 'store/postgres/worker.js']) {
      const dist = join(installed, 'node_modules/@ws/host/dist');
      const head = readFileSync(join(dist, file), 'utf8').slice(0, 200);
      expect({ file, cached: existsSync(join(dist, `${file}.jsc`)), marked: head.includes('// @bun @bytecode') }).toEqual({ file, cached: true, marked: true });
    }
  });

  test('it serves an SDK client over stdio: tools/list, a read, an edit, a materialize', async () => {
    await overStdio([join(installed, 'node_modules/.bin/ws')], project());
  });

  test('bunx ws runs the installed command', async () => {
    expect(await run(['bunx', 'ws', '--help'], installed)).toContain('usage: ws');
  });
});

describe('the compiled executable', () => {
  let exe: string;
  beforeAll(() => {
    exe = join(tempDir('ws-exe-'), 'ws');
    copyFileSync(join(REPO, 'apps/host/dist/ws'), exe);
    Bun.spawnSync(['chmod', '755', exe]);
  });

  test('it serves an SDK client over stdio: tools/list, a read, an edit, a materialize', async () => {
    await overStdio(isolated(exe), project());
  });

  test('on a PostgreSQL store it does the same: its store Worker travels inside it too', async () => {
    await overStdio(isolated(exe), project(await freshDatabase()));
  });

  test('ws serve from it prints itself as the stdio command, and serves HTTP with the token', async () => {
    const w = project();
    const serving = await startServe(w.config, w.dir, [], isolated(exe));
    try {
      expect(serving.stdout()).toContain(JSON.stringify({ mcpServers: { ws: { command: exe, args: ['--config', w.config, 'mcp'] } } }));
      // The review page's files travel inside the one executable.
      const signIn = await fetch(new URL('/review/sign-in', serving.url));
      expect({ status: signIn.status, page: (await signIn.text()).includes('<title>ws review') }).toEqual({ status: 200, page: true });
      const client = await connectHttp(serving);
      try {
        await roundTrip(client, w);
      } finally {
        await client.close();
      }
      expect(serving.stderr()).not.toContain('could not start');
    } finally {
      await serving.stop();
    }
  });
});
