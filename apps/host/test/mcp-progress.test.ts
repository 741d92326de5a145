/**
 * Progress and cancellation over MCP, through the real `ws mcp`: a long sync sends
 * `notifications/progress` to a call that carries a progress token, and a materialize the
 * client cancels stops between two files — every file on disk is whole (old or new),
 * every draft not written is still a draft, and the server says what it did.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { connectStdio, makeWorkspace, mcpCall, type StdioSession, within, type Workspace, wsCall } from './ws-process.ts';

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
    const seen: Progress[] = [];
    const found = await session.client.callTool({ name: 'grep', arguments: { pattern: 'file 7999$', path: 'work' } }, undefined, { onprogress: (p) => seen.push(p), timeout: 110_000 });
    expect(found.isError).toBeFalsy();
    // The last notification (the total) may trail the answer: a grep quicker than the 250 ms between notifications sends the first and that one.
    await within(2000, async () => (seen.some((p) => p.total !== undefined) ? true : undefined));
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)?.progress).toBeGreaterThan(seen[0].progress);
    const listed: Progress[] = [];
    const ls = await session.client.callTool({ name: 'ls', arguments: { path: 'work', recursive: true } }, undefined, { onprogress: (p) => listed.push(p), timeout: 110_000 });
    expect(ls.isError).toBeFalsy();
    expect(listed.at(-1)).toMatchObject({ progress: 8_040, total: 8_040 });
  });
});

describe('a cancelled materialize stops between files', () => {
  let w: Workspace;
  let session: StdioSession;
  const COUNT = 3000;
  beforeAll(async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < COUNT; i++) files[name(i)] = `old ${i}\n`;
    w = makeWorkspace([{ name: 'work', backend: 'store', files }]);
    session = await connectStdio(w.config, w.dir);
    const edits = Array.from({ length: COUNT }, (_, i) => ({ path: `work/${name(i)}`, oldString: `old ${i}`, newString: `new ${i}` }));
    const drafted = await mcpCall(session.client, 'edit_many', { edits });
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
      expect(drafts.has(name(i))).toBe(onDisk === `old ${i}\n`);
    }
    expect(written).toBeGreaterThanOrEqual(50);
    expect(written).toBeLessThan(COUNT);
  });
});
