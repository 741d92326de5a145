/**
 * Progress and cancellation over MCP, through the real `ws mcp`: a long sync sends
 * `notifications/progress` to a call that carries a progress token, and a materialize the
 * client cancels stops between two files — every file on disk is whole (old or new),
 * every draft not written is still a draft, and the server says what it did.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { TEST_ENGINE } from './engine.ts';
import { CLI, connectStdio, makeWorkspace, mcpCall, type StdioSession, within, type Workspace, wsCall } from './ws-process.ts';

setDefaultTimeout(120_000);

const name = (i: number) => `d${i % 40}/f${i}.txt`;

describe('a long sync reports progress', () => {
  let w: Workspace;
  let session: StdioSession;
  beforeAll(async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20_000; i++) files[name(i)] = `file ${i}\n`;
    w = makeWorkspace([{ name: 'work', backend: 'store', files }]);
    session = await connectStdio(w.config, w.dir);
  });
  afterAll(async () => {
    await session?.close();
  });

  test('a sync of 20,000 files with a progress token gets progress notifications, counting up to the total', async () => {
    const seen: Progress[] = [];
    const answer = await session.client.callTool({ name: 'sync', arguments: { mount: 'work' } }, undefined, {
      onprogress: (p) => seen.push(p),
      timeout: 110_000,
    });
    expect(answer.isError).toBeFalsy();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThanOrEqual(seen[i - 1].progress);
    expect(seen.every((p) => p.total === undefined || p.total === 20_000)).toBe(true);
  });
});

describe('a grep and a recursive ls report progress', () => {
  let w: Workspace;
  let session: StdioSession;
  beforeAll(async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 8_000; i++) files[name(i)] = `file ${i}\n${'filler line\n'.repeat(40)}`;
    w = makeWorkspace([{ name: 'work', backend: 'direct', files }]);
    session = await connectStdio(w.config, w.dir);
  });
  afterAll(async () => {
    await session?.close();
  });

  test('a grep over 8,000 files sends progress as files are searched; a recursive ls sends its count', async () => {
    // What the server sends, read off the wire: the SDK's client runs a notification's
    // handler a microtask late, so one that arrives in the same read as its call's answer
    // finds its handler gone (a fast grep's last progress would be lost there, not here).
    const wire = await rawCall(w, 'grep', { pattern: 'file 7999$', path: 'work' });
    expect(wire.answer.result?.isError).toBeFalsy();
    const seen = wire.progress;
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThan(seen[i - 1].progress);
    expect(seen[0]).toMatchObject({ progress: 1 });
    expect(seen.at(-1)).toMatchObject({ progress: 8_000, total: 8_000 });
    const listed: Progress[] = [];
    const ls = await session.client.callTool({ name: 'ls', arguments: { path: 'work', recursive: true } }, undefined, { onprogress: (p) => listed.push(p), timeout: 110_000 });
    expect(ls.isError).toBeFalsy();
    expect(listed.at(-1)).toMatchObject({ progress: 8_040, total: 8_040 });
  });
});

/** One tool call with a progress token over a raw stdio `ws mcp`: the progress notifications sent before its answer, in order, and the answer. */
async function rawCall(w: Workspace, tool: string, args: Record<string, unknown>): Promise<{ progress: Progress[]; answer: { result?: { isError?: boolean } } }> {
  const proc = Bun.spawn(['bun', CLI, '--config', w.config, 'mcp'], { cwd: w.dir, stdin: 'pipe', stdout: 'pipe', stderr: 'ignore' });
  const send = (msg: unknown) => proc.stdin.write(`${JSON.stringify(msg)}\n`);
  const lines: Record<string, unknown>[] = [];
  let rest = '';
  const decoder = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of proc.stdout) {
      rest += decoder.decode(chunk, { stream: true });
      const cut = rest.lastIndexOf('\n');
      if (cut < 0) continue;
      for (const l of rest.slice(0, cut).split('\n')) if (l !== '') lines.push(JSON.parse(l));
      rest = rest.slice(cut + 1);
    }
  })();
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool, arguments: args, _meta: { progressToken: 'p' } } });
  const answer = await within(110_000, async () => lines.find((m) => m.id === 2));
  await proc.stdin.end();
  await proc.exited;
  await reading;
  if (answer === undefined) throw new Error(`no answer to ${tool} within 110 s`);
  const before = lines.slice(0, lines.indexOf(answer));
  const progress = before.filter((m) => m.method === 'notifications/progress').map((m) => {
    const { progressToken: _, ...p } = m.params as Progress & { progressToken: string };
    return p as Progress;
  });
  return { progress, answer: answer as { result?: { isError?: boolean } } };
}

describe('a cancelled materialize stops between files', () => {
  let w: Workspace;
  let session: StdioSession;
  // Enough files that the cancel lands while most are still drafts. On PostgreSQL each file
  // drafted or written costs round trips (about a dozen in an edit_many), so fewer do there.
  const COUNT = TEST_ENGINE === 'postgres' ? 1000 : 3000;
  beforeAll(async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < COUNT; i++) files[name(i)] = `old ${i}\n`;
    w = makeWorkspace([{ name: 'work', backend: 'store', files }]);
    session = await connectStdio(w.config, w.dir);
    const edits = Array.from({ length: COUNT }, (_, i) => ({ path: `work/${name(i)}`, oldString: `old ${i}`, newString: `new ${i}` }));
    // On a loaded machine this may take longer than the SDK's 60 s.
    const drafted = await mcpCall(session.client, 'edit_many', { edits }, 110_000);
    expect(drafted.isError).toBe(false);
  });
  afterAll(async () => {
    await session?.close();
  });

  test('every file is old or new, every file not written is still a draft, and the server says what it did', async () => {
    const controller = new AbortController();
    let last = 0;
    const call = session.client.callTool({ name: 'materialize', arguments: { mount: 'work' } }, undefined, {
      signal: controller.signal,
      timeout: 110_000,
      onprogress: (p) => {
        last = p.progress;
        if (p.progress >= 50) controller.abort();
      },
    });
    await expect(call).rejects.toThrow();
    expect(last).toBeGreaterThanOrEqual(50);
    // The server stops at its next safe point and logs what it did.
    const said = await within(30_000, async () => (session.stderr().includes('materialize was cancelled') ? session.stderr() : undefined));
    expect(said).toContain('still drafts, untouched on disk');

    // The whole status, with no budget to cut its list of drafts.
    const status = await wsCall(w.dir, 'status', { mount: 'work' }, ['--config', w.config]);
    expect(status.result.success).toBe(true);
    const report = status.result.success ? (status.result.data as { mounts: { drafts: string[] }[] }) : { mounts: [] };
    const drafts = new Set<string>(report.mounts[0].drafts);
    let written = 0;
    for (let i = 0; i < COUNT; i++) {
      const onDisk = readFileSync(w.disk(`work/${name(i)}`), 'utf8');
      expect([`old ${i}\n`, `new ${i}\n`]).toContain(onDisk);
      if (onDisk === `new ${i}\n`) written++;
      expect(drafts.has(`work/${name(i)}`)).toBe(onDisk === `old ${i}\n`);
    }
    expect(written).toBeGreaterThanOrEqual(50);
    expect(written).toBeLessThan(COUNT);
  });
});
