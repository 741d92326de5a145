/**
 * `ws mcp` and `ws serve` end to end, with the SDK's own client: what an agent does
 * first (list the tools, read a CRLF file with a BOM, grep it, edit lines copied from
 * the read, materialize) leaves exactly the bytes a person expects on disk.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openConfigured } from './engine.ts';
import { tempDir } from './fixtures.ts';
import {
  CLI,
  connectHttp,
  connectStdio,
  makeWorkspace,
  mcpCall,
  type Serving,
  type StdioSession,
  startServe,
  within,
  type Workspace,
  wsCall,
} from './ws-process.ts';

// Each test starts real `ws` processes, which takes seconds on a busy machine; as the package's test script allows, even when a file is run alone.
setDefaultTimeout(120_000);

const BOM = '\uFEFF';
const WIN = `${BOM}one\r\ntwo\r\nthree\r\n`;
const TOOLS = ['read', 'grep', 'glob', 'ls', 'diff', 'history', 'write', 'edit', 'edit_many', 'move', 'delete', 'restore', 'discard', 'sync', 'materialize', 'status'];

/** A store-backed and a direct mount, each holding the same CRLF file with a BOM. */
function twoMounts(): Workspace {
  return makeWorkspace([
    { name: 'work', backend: 'store', files: { 'win.txt': WIN } },
    { name: 'plain', backend: 'direct', files: { 'win.txt': WIN } },
  ]);
}

/** The text of a page's lines without their numbers, as an agent copies it into an edit. */
function copied(content: string, from: number, to: number): string {
  return content
    .split('\n')
    .slice(from - 1, to)
    .map((l) => l.slice(l.indexOf('\t') + 1))
    .join('\n');
}

/** Everything the issue asks of a client, on both mounts; returns nothing, expects along the way. */
async function agentRoundTrip(client: Client, w: Workspace): Promise<void> {
  const listed = await client.listTools();
  expect(listed.tools.map((t) => t.name)).toEqual(TOOLS);
  for (const t of listed.tools) expect(t.inputSchema.type).toBe('object');

  const pages: Record<string, string> = {};
  for (const mount of ['work', 'plain']) {
    const read = await mcpCall(client, 'read', { path: `${mount}/win.txt` });
    expect(read.isError).toBe(false);
    expect(read.data.content).toBe('1\tone\n2\ttwo\n3\tthree');
    expect(read.data.content).not.toContain('\r');
    expect(read.data.note).toContain('CRLF line ends; lines are shown without their CR');
    expect(read.data.note).toContain('BOM');
    pages[mount] = read.data.content;
  }

  const found = await mcpCall(client, 'grep', { pattern: 'two$' });
  expect(found.isError).toBe(false);
  const files = found.data.results as { path: string; lineEndings?: string; matches: { line: number; text: string }[] }[];
  expect(files.map((f) => [f.path, f.lineEndings, f.matches.map((m) => [m.line, m.text])])).toEqual([
    ['work/win.txt', 'CRLF', [[2, 'two']]],
    ['plain/win.txt', 'CRLF', [[2, 'two']]],
  ]);

  for (const mount of ['work', 'plain']) {
    const edit = await mcpCall(client, 'edit', { path: `${mount}/win.txt`, oldString: copied(pages[mount], 1, 2), newString: 'uno\ndos' });
    expect(edit.isError).toBe(false);
  }

  // The store-backed mount holds a draft until materialized; the direct one wrote disk at once.
  const expected = Buffer.from(`${BOM}uno\r\ndos\r\nthree\r\n`);
  expect(readFileSync(w.disk('plain/win.txt'))).toEqual(expected);
  expect(readFileSync(w.disk('work/win.txt'))).toEqual(Buffer.from(WIN));
  const pushed = await mcpCall(client, 'materialize', { mount: 'work' });
  expect(pushed.isError).toBe(false);
  expect(readFileSync(w.disk('work/win.txt'))).toEqual(expected);
}

describe('ws mcp on stdio', () => {
  let w: Workspace;
  let session: StdioSession;
  beforeAll(async () => {
    w = twoMounts();
    session = await connectStdio(w.config, w.dir);
  });
  afterAll(async () => {
    await session?.close();
  });

  test('an agent reads a CRLF file with a BOM, greps it, edits lines copied from the read and materializes the exact bytes', async () => {
    await agentRoundTrip(session.client, w);
  });

  test('a tool error comes back as an isError result holding the sentence', async () => {
    const missing = await mcpCall(session.client, 'read', { path: 'work/nope.txt' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain('work/nope.txt');
    const bad = await mcpCall(session.client, 'read', { path: 'work/win.txt', offset: 0 });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('offset');
  });

  test('the server’s instructions name the mounts every path begins with', () => {
    expect(session.client.getInstructions()).toBe(
      'File tools over named mounts (the mounts are work, plain): every path starts with its mount name (e.g. work/src/a.ts), never an absolute path. Pages and answers that stop early say in their note how to read on.',
    );
  });

  test('an absolute path inside a mount’s directory is answered with the mount path, which reads the file, on either kind of mount', async () => {
    for (const mount of ['work', 'plain']) {
      const absolute = w.disk(`${mount}/win.txt`);
      const refused = await mcpCall(session.client, 'read', { path: absolute });
      expect(refused.isError).toBe(true);
      expect(refused.text).toBe(`The path ${JSON.stringify(absolute)} is absolute; paths begin with a mount name: did you mean ${mount}/win.txt?`);
      const read = await mcpCall(session.client, 'read', { path: `${mount}/win.txt` });
      expect([read.isError, read.data?.path]).toEqual([false, `${mount}/win.txt`]);
    }
  });

  test('calls carry resultMaxChars from the config: a long file reads in pages that fit 24,000 characters', async () => {
    const long = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} ${'x'.repeat(20)}`).join('\n');
    expect((await mcpCall(session.client, 'write', { path: 'plain/long.txt', content: long })).isError).toBe(false);
    const page = await mcpCall(session.client, 'read', { path: 'plain/long.txt' });
    expect(page.text.length).toBeLessThanOrEqual(24_000);
    expect(page.data.toLine).toBeLessThan(3000);
    expect(page.data.note).toContain(`offset=${page.data.toLine + 1}`);
  });

  test("a write whose message is larger than the SDK's 10 MiB default still fits through stdio", async () => {
    // 2,000,000 control characters: a 2 MB file, a 12 MB message.
    const content = '\u0001'.repeat(2_000_000);
    const written = await mcpCall(session.client, 'write', { path: 'plain/controls.txt', content });
    expect(written.isError).toBe(false);
    expect(readFileSync(w.disk('plain/controls.txt'), 'utf8')).toBe(content);
  });

  test('every result carries structuredContent equal to its text JSON, and a listed outputSchema', async () => {
    const listed = await session.client.listTools();
    for (const t of listed.tools) expect([typeof t.title, t.outputSchema?.type, t.annotations?.openWorldHint]).toEqual(['string', 'object', false]);
    for (const [name, args] of [['read', { path: 'work/win.txt' }], ['ls', { path: 'work' }], ['status', {}]] as const) {
      const answer = await session.client.callTool({ name, arguments: args });
      const text = (answer.content as { type: string; text: string }[])[0].text;
      expect(answer.structuredContent).toEqual(JSON.parse(text));
    }
  });

  test('read of a PNG answers an image content block beside its data; another binary file is refused', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, ...new Array(64).fill(9)]);
    writeFileSync(w.disk('work/shot.png'), png);
    writeFileSync(w.disk('work/blob.bin'), new Uint8Array([1, 0, 2, 0]));
    const answer = await session.client.callTool({ name: 'read', arguments: { path: 'work/shot.png' } });
    const content = answer.content as { type: string; text?: string; data?: string; mimeType?: string }[];
    expect(content.map((c) => c.type)).toEqual(['text', 'image']);
    expect(content[1]).toEqual({ type: 'image', data: Buffer.from(png).toString('base64'), mimeType: 'image/png' });
    expect(answer.structuredContent).toEqual({ path: 'work/shot.png', mimeType: 'image/png', size: png.length });
    const other = await mcpCall(session.client, 'read', { path: 'work/blob.bin' });
    expect([other.isError, other.text]).toEqual([true, 'work/blob.bin is a binary file (4 bytes); read shows text only.']);
  });

  test('the server logs on stderr', () => {
    expect(session.stderr()).toContain('ws: MCP on stdio; mounts: work = ');
  });
});

describe('ws mcp keeps stdout for the protocol', () => {
  test('every line on stdout is a JSON-RPC message, logs go to stderr, and closing stdin stops it after answering', async () => {
    const w = twoMounts();
    const proc = Bun.spawn(['bun', CLI, '--config', w.config, 'mcp'], { cwd: w.dir, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' });
    const send = (msg: unknown) => proc.stdin.write(`${JSON.stringify(msg)}\n`);
    let stdout = '';
    const decoder = new TextDecoder();
    const reading = (async () => {
      for await (const chunk of proc.stdout) stdout += decoder.decode(chunk, { stream: true });
    })();
    const stderr = new Response(proc.stderr).text();
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'read', arguments: { path: 'work/win.txt' } } });
    await within(60_000, async () => (stdout.includes('"id":3') ? true : undefined));

    // Another process holds the store (as a `ws call` beside the server would), so the
    // write waits; stdin closes meanwhile. The write must still finish and answer.
    const holder = await openConfigured(w.dir, w.config);
    let letGo = () => {};
    const held = new Promise<void>((r) => {
      letGo = r;
    });
    await new Promise<void>((taken) => {
      void holder.lock.run(async () => {
        taken();
        await held;
      });
    });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'write', arguments: { path: 'work/late.txt', content: 'written as stdin closed\n' } } });
    await proc.stdin.end();
    await Promise.race([proc.exited, Bun.sleep(300)]);
    letGo();
    holder.close();
    const code = await proc.exited;
    await reading;

    expect(code).toBe(0);
    const messages = stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { jsonrpc: string; id: number; result?: { content?: { text: string }[] } });
    expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    expect(JSON.parse(messages[2].result!.content![0].text).content).toBe('1\tone\n2\ttwo\n3\tthree');
    expect(messages[3].result!.content![0].text).toContain('late.txt');
    expect(await stderr).toContain('ws: MCP on stdio');
    expect(await stderr).toContain('ws: stopped (stdin closed)');
    const after = await wsCall(w.dir, 'read', { path: 'work/late.txt' }, ['--config', w.config]);
    expect(after.result).toMatchObject({ success: true, data: { content: '1\twritten as stdin closed' } });
  });
});

describe('ws mcp stops on a signal', () => {
  test('SIGTERM stops it cleanly with exit code 0, saying so on stderr', async () => {
    const w = twoMounts();
    const proc = Bun.spawn(['bun', CLI, '--config', w.config, 'mcp'], { cwd: w.dir, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' });
    let stderr = '';
    const decoder = new TextDecoder();
    const reading = (async () => {
      for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true });
    })();
    expect(await within(60_000, async () => (stderr.includes('ws: MCP on stdio') ? true : undefined))).toBe(true);
    proc.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    await reading;
    expect(stderr).toContain('ws: stopped (SIGTERM)');
    expect(await new Response(proc.stdout).text()).toBe('');
  });
});

describe('ws serve over Streamable HTTP', () => {
  let w: Workspace;
  let serving: Serving;
  beforeAll(async () => {
    w = twoMounts();
    serving = await startServe(w.config, w.dir);
  });
  afterAll(async () => {
    await serving?.stop();
  });

  test('prints its URL and the lines that connect a client over HTTP (with the token) or stdio', () => {
    const out = serving.stdout();
    expect(out).toContain(`ws: MCP (Streamable HTTP) at ${serving.url}`);
    expect(serving.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const headers = { Authorization: `Bearer ${serving.token}` };
    expect(out).toContain(JSON.stringify({ mcpServers: { ws: { type: 'http', url: serving.url, headers } } }));
    expect(out).toContain(JSON.stringify({ mcpServers: { ws: { command: 'bun', args: [CLI, '--config', w.config, 'mcp'] } } }));
    expect(out).toContain(`the token is in ${w.tokenFile} (ws token prints it)`);
    expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  test('a second client over HTTP does the same round trip', async () => {
    const client = await connectHttp(serving);
    try {
      await agentRoundTrip(client, w);
    } finally {
      await client.close();
    }
  });

  test("a write whose body is larger than the SDK's 4 MiB default still fits through HTTP", async () => {
    const client = await connectHttp(serving);
    try {
      const content = '\u0001'.repeat(2_000_000);
      expect((await mcpCall(client, 'write', { path: 'plain/controls.txt', content })).isError).toBe(false);
      expect(readFileSync(w.disk('plain/controls.txt'), 'utf8')).toBe(content);
    } finally {
      await client.close();
    }
  });

  test('two clients at once share one workspace', async () => {
    const [a, b] = await Promise.all([connectHttp(serving), connectHttp(serving)]);
    try {
      expect((await mcpCall(a, 'write', { path: 'work/shared.txt', content: 'from a\n' })).isError).toBe(false);
      expect((await mcpCall(b, 'read', { path: 'work/shared.txt' })).data.content).toBe('1\tfrom a');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('requests naming another host, or sent from a web page of another origin, are refused', async () => {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${serving.token}` };
    const rebound = await fetch(serving.url, { method: 'POST', headers: { ...headers, host: 'attacker.example:80' }, body: init });
    expect(rebound.status).toBe(403);
    const page = await fetch(serving.url, { method: 'POST', headers: { ...headers, origin: 'http://attacker.example' }, body: init });
    expect(page.status).toBe(403);
    const own = await fetch(serving.url, { method: 'POST', headers, body: init });
    expect(own.status).toBe(200);
    await own.body?.cancel();
  });

  test('a request without a session that is not an initialize is answered 400, and other paths 404', async () => {
    const authorization = `Bearer ${serving.token}`;
    const list = await fetch(serving.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(list.status).toBe(400);
    expect((await fetch(serving.url.replace('/mcp', '/other'))).status).toBe(404);
    expect((await fetch(serving.url, { headers: { 'mcp-session-id': 'no-such-session', authorization } })).status).toBe(404);
  });
});

describe('ws serve on the embedded default', () => {
  test('with no config it serves the working directory as work, and the stdio line it prints starts a server a client reads through', async () => {
    const dir = tempDir('ws-default-');
    writeFileSync(join(dir, 'hello.txt'), 'hello from the default\n');
    const serving = await startServe(undefined, dir);
    try {
      expect(serving.stdout()).toContain(`mounts: work = ${dir} (store, watch always)`);
      const client = await connectHttp(serving);
      expect((await mcpCall(client, 'read', { path: 'work/hello.txt' })).data.content).toBe('1\thello from the default');
      await client.close();

      const line = serving.stdout().split('\n').find((l) => l.startsWith('or let the client start it on stdio: '));
      const spawned = JSON.parse(line!.slice(line!.indexOf('{'))).mcpServers.ws as { command: string; args: string[] };
      expect(spawned).toEqual({ command: 'bun', args: [CLI, '--cwd', dir, 'mcp'] });
      // A client starts it from anywhere: --cwd is what makes it mount the right directory.
      const transport = new StdioClientTransport({ command: spawned.command, args: spawned.args, cwd: tempDir(), stderr: 'ignore' });
      const other = new Client({ name: 'ws-test', version: '1.0.0' });
      await other.connect(transport);
      expect((await mcpCall(other, 'read', { path: 'work/hello.txt' })).data.content).toBe('1\thello from the default');
      await other.close();
    } finally {
      await serving.stop();
    }
    expect(existsSync(join(dir, '.ws/store.sqlite'))).toBe(true);
  });
});

describe('ws serve refuses a port in use', () => {
  test('a second ws serve on the same port says so in one line and exits 1', async () => {
    const w = twoMounts();
    const serving = await startServe(w.config, w.dir);
    try {
      const port = new URL(serving.url).port;
      const second = Bun.spawn(['bun', CLI, '--config', w.config, 'serve', '--port', port], { cwd: w.dir, stdout: 'pipe', stderr: 'pipe' });
      // Its first output ends the wait: printing a URL means it serves too (and must stop).
      const printed = await second.stdout.getReader().read();
      if (!printed.done) second.kill();
      expect(printed.done).toBe(true);
      expect(await second.exited).toBe(1);
      expect(await new Response(second.stderr).text()).toBe(`ws: port ${port} on 127.0.0.1 is in use; choose another with --port N (0 picks a free one).\n`);
    } finally {
      await serving.stop();
    }
  });
});

describe('ws serve stops', () => {
  test('on SIGINT it stops cleanly with exit code 0', async () => {
    const w = twoMounts();
    const serving = await startServe(w.config, w.dir);
    const client = await connectHttp(serving);
    expect((await mcpCall(client, 'read', { path: 'plain/win.txt' })).isError).toBe(false);
    expect(await serving.stop('SIGINT')).toBe(0);
    expect(serving.stderr()).toContain('ws: stopping (SIGINT)');
    expect(serving.stderr()).toContain('ws: stopped');
  });
});
