/**
 * What a one-shot command loads (README "Performance", target 7): a `ws call` on a direct
 * mount parses none of what it never needs — grep's engine and its regex engines, the
 * store-backed mount, PostgreSQL's client, the watchers, the indexer, the MCP SDK, zod —
 * and the command that needs one loads it. Run from the sources under a preload that
 * records every module that imported another (the bin is one bundle, which hides that).
 * And the built bin is that bundle with its bytecode cache, beside the Worker files it
 * starts.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { cpSync, existsSync, readFileSync } from 'node:fs';
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
  test('is one CommonJS bundle with its bytecode cache, and copied elsewhere it still starts its grep Workers', () => {
    const built = Bun.spawnSync(['bun', 'run', 'build:bin'], { cwd: join(REPO, 'apps/host'), stdout: 'ignore', stderr: 'pipe' });
    expect({ code: built.exitCode, stderr: built.exitCode === 0 ? '' : built.stderr.toString() }).toEqual({ code: 0, stderr: '' });
    const dist = join(tempDir('ws-bin-'), 'dist');
    cpSync(join(REPO, 'apps/host/dist'), dist, { recursive: true });
    expect(readFileSync(join(dist, 'cli.js'), 'utf8').split('\n').slice(0, 2)).toEqual(['#!/usr/bin/env bun', '// @bun @bytecode @bun-cjs']);
    expect(existsSync(join(dist, 'cli.js.jsc'))).toBe(true);
    const w = makeWorkspace([{ name: 'plain', backend: 'direct', files: { 'a.txt': 'one\ntwo\n' } }]);
    // A grep runs in a Worker: where the bundle could not find the Worker's file, it ran into its deadline.
    const ran = Bun.spawnSync(['bun', join(dist, 'cli.js'), '--config', w.config, 'call', 'grep', JSON.stringify({ pattern: 'tw[o]' })], { stdout: 'pipe', stderr: 'pipe' });
    expect({ code: ran.exitCode, stderr: ran.stderr.toString() }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(ran.stdout.toString())).toEqual({
      success: true,
      data: { results: [{ path: 'plain/a.txt', matches: [{ line: 2, text: 'two' }] }], totalMatches: 1, filesSearched: 1, skipped: [] },
    });
  });
});
