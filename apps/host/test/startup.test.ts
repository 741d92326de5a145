/**
 * What a one-shot command loads (README "Performance", target 7): a `ws call` on a direct
 * mount parses none of what it never needs — grep's engine and its regex engines, the
 * store-backed mount, PostgreSQL's client, the watchers, the indexer, the MCP SDK, zod —
 * and the command that needs one loads it. Run from the sources under a preload that
 * records every module that imported another (the bin is one bundle, which hides that).
 * And the built bin is bundles with their bytecode caches, beside the Worker files they
 * start: a one-shot command loads its own bundle, `ws mcp` the server's, a grep the engine's.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { racyFingerprint } from './fingerprint-worker.ts';
import { tempDir } from './fixtures.ts';
import { CLI, makeWorkspace } from './ws-process.ts';

setDefaultTimeout(120_000);

const REPO = resolve(import.meta.dir, '../../..');
const RECORDER = join(import.meta.dir, 'load-recorder.ts');

/** What loads only where a command needs it, by the module that shows it loaded. */
const LAZY = {
  "grep's engine": join(REPO, 'packages/grep/src/index.ts'),
  'the store-backed mount': join(REPO, 'apps/host/src/mounts/store-backed/mount.ts'),
  "PostgreSQL's store": join(REPO, 'apps/host/src/store/postgres/open.ts'),
  'the watchers': join(REPO, 'apps/host/src/watch.ts'),
  'the indexer': join(REPO, 'apps/host/src/index/indexer.ts'),
  'the MCP server': join(REPO, 'apps/host/src/serve.ts'),
} as const;

/** The modules that imported another while `ws ARGS` ran, from the sources. */
function loadedBy(config: string, args: readonly string[]): Set<string> {
  const out = join(tempDir('ws-loads-'), 'loads.txt');
  const ran = Bun.spawnSync(['bun', '--preload', RECORDER, CLI, '--config', config, ...args], {
    env: { ...process.env, WS_LOADS_OUT: out },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  // ws mcp tells on stderr that it started and stopped; nothing else may be said there.
  const stderr = ran.stderr.toString().replace(/^ws: (MCP on stdio;|stopped) .*\n/gm, '');
  expect({ code: ran.exitCode, stderr }).toEqual({ code: 0, stderr: '' });
  return new Set(readFileSync(out, 'utf8').split('\n'));
}

/** Which of `LAZY` (and of zod's and the MCP SDK's modules) were loaded. */
function lazyLoaded(loaded: Set<string>): string[] {
  const names = Object.entries(LAZY)
    .filter(([, file]) => loaded.has(file))
    .map(([name]) => name);
  if ([...loaded].some((f) => f.includes('/zod/'))) names.push('zod');
  if ([...loaded].some((f) => f.includes('@modelcontextprotocol'))) names.push('the MCP SDK');
  return names;
}

describe('a one-shot command loads only what it needs', () => {
  const w = makeWorkspace([{ name: 'plain', backend: 'direct', files: { 'a.txt': 'one\ntwo\n', 'sub/b.txt': 'three\n' } }]);

  test('ws call ls, read and glob on a direct mount load none of it', () => {
    for (const [tool, input] of [
      ['ls', {}],
      ['ls', { path: 'plain' }],
      ['read', { path: 'plain/a.txt' }],
      ['glob', { pattern: '**/*.txt' }],
    ] as const) {
      expect({ tool, loaded: lazyLoaded(loadedBy(w.config, ['call', tool, JSON.stringify(input)])) }).toEqual({ tool, loaded: [] });
    }
  });

  test('a grep loads the engine, and ws mcp its server and watchers (so the record sees what loads late)', () => {
    expect(lazyLoaded(loadedBy(w.config, ['call', 'grep', JSON.stringify({ pattern: 'tw[o]' })]))).toEqual(["grep's engine"]);
    // stdin is closed at once, so the server ends as soon as it has started.
    expect(lazyLoaded(loadedBy(w.config, ['mcp']))).toEqual(['the watchers', 'the MCP server', 'zod', 'the MCP SDK']);
  });
});

describe('racy fingerprints name their thread (the main thread no longer loads node:worker_threads for it)', () => {
  test("the main thread's carry no thread; a Worker's carry its id, so two threads never make the same one", async () => {
    expect(racyFingerprint()).toMatch(new RegExp(`~[0-9a-z]+\\.${process.pid}\\.[0-9]+$`));
    const worker = new Worker(new URL('./fingerprint-worker.ts', import.meta.url).href);
    try {
      const { fingerprint, threadId } = await new Promise<{ fingerprint: string; threadId: number }>((done, fail) => {
        worker.onmessage = (e) => done(e.data);
        worker.onerror = (e) => fail(new Error(e.message));
      });
      expect(threadId).toBeGreaterThan(0);
      expect(fingerprint).toMatch(new RegExp(`~[0-9a-z]+\\.${process.pid}w${threadId}\\.[0-9]+$`));
    } finally {
      worker.terminate();
    }
  });
});

describe('the built bin', () => {
  const BUNDLES = ['cli.js', 'ws-command.js', 'ws-server.js', 'grep-engine.js'];
  let dist: string;
  beforeAll(() => {
    const built = Bun.spawnSync(['bun', 'run', 'build:bin'], { cwd: join(REPO, 'apps/host'), stdout: 'ignore', stderr: 'pipe' });
    expect({ code: built.exitCode, stderr: built.exitCode === 0 ? '' : built.stderr.toString() }).toEqual({ code: 0, stderr: '' });
    dist = join(tempDir('ws-bin-'), 'dist');
    cpSync(join(REPO, 'apps/host/dist'), dist, { recursive: true });
  });

  /** A copy of the built bin without `missing`, and `ws ARGS` run from it. */
  function runWithout(missing: readonly string[], args: readonly string[], stdin?: string) {
    const copy = join(tempDir('ws-bin-'), 'dist');
    cpSync(dist, copy, { recursive: true });
    for (const name of missing) for (const file of [name, `${name}.jsc`]) rmSync(join(copy, file));
    const ran = Bun.spawnSync(['bun', join(copy, 'cli.js'), ...args], { stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin), stdout: 'pipe', stderr: 'pipe' });
    return { code: ran.exitCode, stdout: ran.stdout.toString(), stderr: ran.stderr.toString() };
  }

  const w = makeWorkspace([{ name: 'plain', backend: 'direct', files: { 'a.txt': 'one\ntwo\n' } }]);
  const grep = ['--config', w.config, 'call', 'grep', JSON.stringify({ pattern: 'tw[o]' })];

  test('is CommonJS bundles with their bytecode caches, and copied elsewhere it still starts its grep Workers', () => {
    for (const name of BUNDLES) {
      expect({ name, head: readFileSync(join(dist, name), 'utf8').split('\n').find((line) => !line.startsWith('#!')) }).toEqual({ name, head: '// @bun @bytecode @bun-cjs' });
      expect({ name, cache: existsSync(join(dist, `${name}.jsc`)) }).toEqual({ name, cache: true });
    }
    expect(readFileSync(join(dist, 'cli.js'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env bun');
    // A grep runs in a Worker: where the bundle could not find the Worker's file, it ran into its deadline.
    const ran = runWithout([], grep);
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(ran.stdout)).toEqual({
      success: true,
      data: { results: [{ path: 'plain/a.txt', matches: [{ line: 2, text: 'two' }] }], totalMatches: 1, filesSearched: 1, skipped: [] },
    });
  });

  test("a one-shot command loads neither the MCP server's bundle nor, until it greps, the engine's", () => {
    // The MCP SDK's method names are in the server's bundle alone.
    const sdk = (name: string) => readFileSync(join(dist, name), 'utf8').includes('notifications/initialized');
    expect({ command: sdk('ws-command.js'), server: sdk('ws-server.js') }).toEqual({ command: false, server: true });
    const ls = runWithout(['ws-server.js', 'grep-engine.js'], ['--config', w.config, 'call', 'ls', JSON.stringify({ path: 'plain' })]);
    expect({ code: ls.code, stderr: ls.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(ls.stdout).data.entries.map((e: { path: string }) => e.path)).toEqual(['plain/a.txt']);
    expect(runWithout(['ws-server.js'], grep)).toMatchObject({ code: 0, stderr: '' });
    // The engine is where the grep finds it: without its file, the grep cannot run.
    expect(runWithout(['grep-engine.js'], grep).code).toBe(1);
    // Usage errors, --help included, come from the command bundle.
    expect(runWithout(['ws-server.js', 'grep-engine.js'], ['mcp', '--port', '1'])).toEqual({ code: 2, stdout: '', stderr: 'ws: --port does not apply to "mcp".\n' });
    expect(runWithout(['ws-server.js', 'grep-engine.js'], ['--help']).stdout).toStartWith('usage: ws ');
  });

  test('a ws call on direct mounts opens no SQLite and collects no garbage; one on a store-backed mount opens SQLite', () => {
    const recorder = join(import.meta.dir, 'load-recorder.ts');
    const stored = makeWorkspace([{ name: 'kept', backend: 'store', files: { 'a.txt': 'one\n' } }]);
    /** Bun's own modules loaded (the bundle requires them; `require.cache` holds them), and the garbage collections logged. */
    const run = (config: string) => {
      const out = join(tempDir('ws-loads-'), 'loads.txt');
      const ran = Bun.spawnSync(['bun', '--preload', recorder, join(dist, 'cli.js'), '--config', config, 'call', 'ls', '{}'], {
        // JavaScriptCore writes a line on stderr as each collection starts.
        env: { ...process.env, WS_LOADS_OUT: out, BUN_JSC_logGC: '1' },
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
      });
      expect(ran.exitCode).toBe(0);
      const loaded = readFileSync(out, 'utf8').split('\n');
      return { sqlite: loaded.includes('bun:sqlite'), collections: ran.stderr.toString().split('\n').filter((line) => line.includes(': START ')).length };
    };
    // A config read while the event loop waited on it let Bun collect at the first idle turn (4–5 ms).
    expect(run(w.config)).toEqual({ sqlite: false, collections: 0 });
    expect(run(stored.config).sqlite).toBe(true);
  });

  test("ws mcp loads the server's bundle, not the command bundle", () => {
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'grep', arguments: { pattern: 'tw[o]' } } },
    ];
    const ran = runWithout(['ws-command.js'], ['--config', w.config, 'mcp'], `${requests.map((r) => JSON.stringify(r)).join('\n')}\n`);
    expect(ran.code).toBe(0);
    const answers = ran.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(answers[1].result.structuredContent.totalMatches).toBe(1);
  });

  test('ws mcp starts itself again keeping its freed pages, a one-shot grep without the top tier, and another command not at all', () => {
    // The preload writes a line each time the process starts a script (test/exec-recorder.ts).
    const recorder = join(import.meta.dir, 'exec-recorder.ts');
    const starts = (args: readonly string[]) => {
      const out = join(tempDir('ws-exec-'), 'starts.txt');
      const ran = Bun.spawnSync(['bun', '--preload', recorder, join(dist, 'cli.js'), '--config', w.config, ...args], {
        env: { ...process.env, WS_EXEC_OUT: out, MIMALLOC_PURGE_DELAY: undefined, BUN_JSC_useFTLJIT: undefined },
        stdin: new TextEncoder().encode(''),
        stdout: 'pipe',
        stderr: 'pipe',
      });
      expect(ran.exitCode).toBe(0);
      // Each start's two options, its process id left out.
      return readFileSync(out, 'utf8').trim().split('\n').map((line) => line.split(' ').slice(1).join(' '));
    };
    expect(starts(['mcp'])).toEqual(['- -', '-1 -']);
    expect(starts(['call', 'grep', '{"pattern":"one"}'])).toEqual(['- -', '- 0']);
    expect(starts(['call', 'ls', '{}'])).toEqual(['- -']);
  });
});
