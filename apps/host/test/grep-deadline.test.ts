/**
 * A pattern that backtracks for ever holds no one else: through a real `ws serve`, a
 * grep whose pattern (with a lookaround, so no linear-time engine can take it) blows up
 * on every line answers by its deadline plus a second, saying where it stopped and which
 * lines the engine gave up on, while reads on another connection answer in under a second.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { tempDir } from './fixtures.ts';
import { type Serving, connectHttp, mcpCall, startServe } from './ws-process.ts';

const DEADLINE_MS = 2000;
let serving: Serving;
let a: Client;
let b: Client;

beforeAll(async () => {
  const dir = tempDir('ws-deadline-');
  mkdirSync(join(dir, 'w'));
  writeFileSync(join(dir, 'w', 'evil.txt'), `${'a'.repeat(40)}b\n`.repeat(40));
  writeFileSync(join(dir, 'w', 'small.txt'), 'hello\n');
  writeFileSync(join(dir, 'ws.toml'), `grepTimeoutMs = ${DEADLINE_MS}\n[store]\npath = ".ws/store.sqlite"\n[[mount]]\nname = "w"\npath = "w"\nbackend = "direct"\n`);
  serving = await startServe(join(dir, 'ws.toml'), dir);
  a = await connectHttp(serving);
  b = await connectHttp(serving);
}, 30_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await serving?.stop();
});

test('a catastrophic pattern answers within its deadline + 1 s, with its note, while another connection’s reads answer in under 1 s', async () => {
  const started = performance.now();
  const grep = mcpCall(a, 'grep', { pattern: '(a+)+(?=$)', path: 'w' }).then((r) => ({ ...r, ms: performance.now() - started }));
  const reads: number[] = [];
  let done = false;
  grep.finally(() => {
    done = true;
  });
  while (!done && performance.now() - started < DEADLINE_MS + 5000) {
    const t0 = performance.now();
    const read = await mcpCall(b, 'read', { path: 'w/small.txt' });
    reads.push(performance.now() - t0);
    expect(read.data.content).toBe('1\thello');
    await Bun.sleep(100);
  }
  const answered = await grep;
  expect(answered.isError).toBe(false);
  expect(answered.ms).toBeLessThan(DEADLINE_MS + 1000);
  expect(reads.length).toBeGreaterThan(3);
  expect(Math.max(...reads)).toBeLessThan(1000);
  const note: string = answered.data.note;
  expect(note).toMatch(/The search stopped at its 2 s deadline at line \d+ of w\/evil\.txt/);
  expect(answered.data.totalMatches).toBe(0);
  console.log(`grep answered in ${Math.round(answered.ms)} ms (deadline ${DEADLINE_MS}); ${reads.length} reads, slowest ${Math.round(Math.max(...reads))} ms`);
}, 30_000);
