/**
 * `ws serve`'s door: a request without the token, with a wrong one, or with another
 * token's session is refused; with the token it works; `ws token` prints what the server
 * accepts; sessions close when idle and no more than `maxSessions` live. Every request
 * here goes to a real `ws serve` child on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './fixtures.ts';
import { connectHttp, makeWorkspace, mcpCall, type Serving, startServe, within, type Workspace, ws } from './ws-process.ts';

setDefaultTimeout(120_000);

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

/** One raw MCP request: the status, the headers and the body's text. */
async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, headers: r.headers, text: await r.text() };
}

const bearer = (token: string | undefined) => ({ authorization: `Bearer ${token}` });

/** Starts a session with `token`; its id. */
async function initialize(url: string, token: string | undefined): Promise<string> {
  const r = await post(url, INIT, bearer(token));
  expect(r.status).toBe(200);
  const id = r.headers.get('mcp-session-id');
  expect(id).toBeString();
  const done = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...bearer(token), 'mcp-session-id': id! });
  expect(done.status).toBe(202);
  return id!;
}

/** tools/list on a session: the status, and whether the answer lists the tools. */
async function listOn(url: string, token: string | undefined, session: string): Promise<{ status: number; listed: boolean }> {
  const r = await post(url, LIST, { ...bearer(token), 'mcp-session-id': session });
  return { status: r.status, listed: r.text.includes('"name":"read"') };
}

/** The one sentence of a refusal, checked to be one. */
function sentence(text: string): string {
  const message = (JSON.parse(text) as { error: { message: string } }).error.message;
  expect(message.split('. ').length).toBe(1);
  expect(message).toEndWith('.');
  return message;
}

function oneMount(settings = ''): Workspace {
  const w = makeWorkspace([{ name: 'work', backend: 'store', files: { 'a.txt': 'alpha\n' } }]);
  if (settings !== '') writeFileSync(w.config, `${settings}\n${readFileSync(w.config, 'utf8')}`);
  return w;
}

describe('ws serve asks for the token', () => {
  let w: Workspace;
  let serving: Serving;
  beforeAll(async () => {
    w = oneMount();
    serving = await startServe(w.config, w.dir);
  });
  afterAll(async () => {
    await serving?.stop();
  });

  test('the token file is made on first serve, beside the store, readable by its owner alone', () => {
    const file = w.tokenFile;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`${serving.token}\n`);
    expect(serving.stderr()).toContain(`ws: made a new token in ${file}`);
  });

  test('without a token: 401, WWW-Authenticate: Bearer, and one sentence that says how to get it', async () => {
    const r = await post(serving.url, INIT);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(sentence(r.text)).toContain('ws token');
    // Other schemes are no token either.
    const basic = await post(serving.url, INIT, { authorization: `Basic ${btoa(`x:${serving.token}`)}` });
    expect(basic.status).toBe(401);
  });

  test('with a wrong token: 401 with invalid_token, whatever its length or how near it is', async () => {
    const near = `${serving.token!.slice(0, -1)}${serving.token!.endsWith('A') ? 'B' : 'A'}`;
    for (const wrong of [near, 'x'.repeat(43), 'short', `${serving.token}x`]) {
      const r = await post(serving.url, INIT, bearer(wrong));
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect(sentence(r.text)).toContain('not one this server accepts');
    }
    // A session id is no way past the door.
    const id = await initialize(serving.url, serving.token);
    expect((await listOn(serving.url, near, id)).status).toBe(401);
    expect((await listOn(serving.url, undefined, id)).status).toBe(401);
  });

  test('with the token an SDK client works, and the scheme may be in any case', async () => {
    const client = await connectHttp(serving);
    try {
      expect((await mcpCall(client, 'read', { path: 'work/a.txt' })).data.content).toBe('1\talpha');
    } finally {
      await client.close();
    }
    const lower = await post(serving.url, INIT, { authorization: `bearer ${serving.token}` });
    expect(lower.status).toBe(200);
  });

  test('ws token prints, alone on stdout, the token the server accepts', async () => {
    const printed = await ws(w.dir, ['--config', w.config, 'token']);
    expect(printed).toEqual({ code: 0, stdout: `${serving.token}\n`, stderr: '' });
    const id = await initialize(serving.url, printed.stdout.trim());
    expect(await listOn(serving.url, printed.stdout.trim(), id)).toEqual({ status: 200, listed: true });
  });

  test("another token's session is refused, and is left as it was for its own token", async () => {
    const added = await ws(w.dir, ['--config', w.config, 'token', '--new']);
    expect(added.code).toBe(0);
    const second = added.stdout.trim();
    expect(second).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(serving.token);
    // ws token still prints the first; the file holds both.
    expect((await ws(w.dir, ['--config', w.config, 'token'])).stdout).toBe(`${serving.token}\n`);

    const mine = await initialize(serving.url, serving.token);
    const theirs = await initialize(serving.url, second);
    expect(await listOn(serving.url, second, mine)).toEqual({ status: 404, listed: false });
    expect(await listOn(serving.url, serving.token, theirs)).toEqual({ status: 404, listed: false });
    const del = await fetch(serving.url, { method: 'DELETE', headers: { ...bearer(second), 'mcp-session-id': mine } });
    expect(del.status).toBe(404);
    expect(await listOn(serving.url, serving.token, mine)).toEqual({ status: 200, listed: true });
    expect(await listOn(serving.url, second, theirs)).toEqual({ status: 200, listed: true });

    // A line taken out of the file stops its token, and its sessions with it.
    writeFileSync(w.tokenFile, `${serving.token}\n`);
    expect((await listOn(serving.url, second, theirs)).status).toBe(401);
    expect((await post(serving.url, INIT, bearer(second))).status).toBe(401);
    expect(await listOn(serving.url, serving.token, mine)).toEqual({ status: 200, listed: true });
  });

  test('a DELETE by its own token ends a session; it is answered 404 after', async () => {
    const id = await initialize(serving.url, serving.token);
    const del = await fetch(serving.url, { method: 'DELETE', headers: { ...bearer(serving.token), 'mcp-session-id': id } });
    expect(del.status).toBe(200);
    expect((await listOn(serving.url, serving.token, id)).status).toBe(404);
  });
});

describe('the token file', () => {
  test('ws token makes it before any serve, and a server started later accepts that token', async () => {
    const w = oneMount();
    const printed = await ws(w.dir, ['--config', w.config, 'token']);
    expect(printed.code).toBe(0);
    expect(printed.stderr).toBe(`ws: made a new token in ${w.tokenFile}\n`);
    const serving = await startServe(w.config, w.dir);
    try {
      expect(serving.token).toBe(printed.stdout.trim());
      expect(serving.stderr()).not.toContain('made a new token');
    } finally {
      await serving.stop();
    }
  });

  test('ws token follows the --config rules: ws.toml here, --config, or the embedded default (also through --cwd)', async () => {
    const dir = tempDir('ws-token-default-');
    const here = await ws(dir, ['token']);
    expect(here.code).toBe(0);
    expect(readFileSync(join(dir, '.ws/store.sqlite.token'), 'utf8')).toBe(here.stdout);
    expect((await ws(tempDir(), ['--cwd', dir, 'token'])).stdout).toBe(here.stdout);
    const w = oneMount();
    const viaConfig = await ws(tempDir(), ['--config', w.config, 'token']);
    const viaToml = await ws(w.dir, ['token']);
    expect(viaConfig.stdout).not.toBe(here.stdout);
    expect(viaToml.stdout).toBe(viaConfig.stdout);
  });

  test('eight ws token at once on a store with no token file agree on one token, and the file holds it once', async () => {
    const w = oneMount();
    const all = await Promise.all(Array.from({ length: 8 }, () => ws(w.dir, ['--config', w.config, 'token'])));
    expect(all.every((r) => r.code === 0)).toBe(true);
    expect(new Set(all.map((r) => r.stdout)).size).toBe(1);
    expect(all.filter((r) => r.stderr.includes('made a new token')).length).toBe(1);
    expect(readFileSync(w.tokenFile, 'utf8')).toBe(all[0].stdout);
    expect(statSync(w.tokenFile).mode & 0o777).toBe(0o600);
    expect(readdirSync(w.disk('.ws')).filter((n) => n.startsWith('.ws-tmp-'))).toEqual([]);
  });

  test('one others can read, a link, or one holding no usable token is refused in one line, and nothing is served', async () => {
    const w = oneMount();
    const file = w.tokenFile;
    expect((await ws(w.dir, ['--config', w.config, 'token'])).code).toBe(0);
    const good = readFileSync(file, 'utf8');
    const cases: [string, () => void, string][] = [
      ['mode 0644', () => chmodSync(file, 0o644), `can be read by other users (mode 0644); run chmod 600 ${file}`],
      ['a link', () => {
        const real = join(tempDir(), 'elsewhere');
        writeFileSync(real, good, { mode: 0o600 });
        rmSync(file);
        symlinkSync(real, file);
      }, 'is a symbolic link'],
      ['a short token', () => {
        rmSync(file);
        writeFileSync(file, 'hunter2\n', { mode: 0o600 });
      }, 'line 1 of'],
      ['no token', () => {
        rmSync(file);
        writeFileSync(file, '\n\n', { mode: 0o600 });
      }, 'holds no token'],
    ];
    for (const [what, spoil, says] of cases) {
      spoil();
      for (const args of [['token'], ['serve', '--port', '0']]) {
        const ran = await ws(w.dir, ['--config', w.config, ...args]);
        expect({ what, code: ran.code, stdout: ran.stdout }).toEqual({ what, code: 1, stdout: '' });
        const lines = ran.stderr.split('\n').filter((l) => l !== '');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(says);
      }
      rmSync(file);
      writeFileSync(file, good, { mode: 0o600 });
    }
  });

  test('a running server that finds its token file unusable refuses every request until it is fixed', async () => {
    const w = oneMount();
    const serving = await startServe(w.config, w.dir);
    try {
      const file = w.tokenFile;
      chmodSync(file, 0o640);
      const r = await post(serving.url, INIT, bearer(serving.token));
      expect(r.status).toBe(503);
      expect(sentence(r.text)).toContain('token file is missing or unusable');
      expect(serving.stderr()).toContain('refusing every request');
      chmodSync(file, 0o600);
      expect((await post(serving.url, INIT, bearer(serving.token))).status).toBe(200);
      // Removed: refused until `ws token` makes a new one, which then works.
      rmSync(file);
      expect((await post(serving.url, INIT, bearer(serving.token))).status).toBe(503);
      const fresh = (await ws(w.dir, ['--config', w.config, 'token'])).stdout.trim();
      expect(fresh).not.toBe(serving.token);
      expect((await post(serving.url, INIT, bearer(serving.token))).status).toBe(401);
      expect((await post(serving.url, INIT, bearer(fresh))).status).toBe(200);
    } finally {
      await serving.stop();
    }
  });
});

describe('ws serve --no-auth', () => {
  test('says what it opens, asks for no token, makes no token file, and still checks Host', async () => {
    const w = oneMount();
    const serving = await startServe(w.config, w.dir, ['--no-auth']);
    try {
      expect(serving.token).toBeUndefined();
      expect(serving.stdout()).toContain('--no-auth: no token is asked for, so any process on this machine, run by any user, can read, change and materialize every file on these mounts');
      expect(serving.stderr()).toContain('ws: --no-auth: any process on this machine can use');
      expect(serving.stdout()).toContain(JSON.stringify({ mcpServers: { ws: { type: 'http', url: serving.url } } }));
      const client = await connectHttp(serving);
      expect((await mcpCall(client, 'read', { path: 'work/a.txt' })).data.content).toBe('1\talpha');
      await client.close();
      expect(existsSync(w.tokenFile)).toBe(false);
      expect((await post(serving.url, INIT, { host: 'attacker.example' })).status).toBe(403);
    } finally {
      await serving.stop();
    }
  });
});

describe('sessions are reclaimed', () => {
  test('past maxSessions the longest idle session is closed and answered 404; the others go on', async () => {
    const w = oneMount('maxSessions = 3');
    const serving = await startServe(w.config, w.dir);
    try {
      const [a, b, c] = [await initialize(serving.url, serving.token), await initialize(serving.url, serving.token), await initialize(serving.url, serving.token)];
      expect((await listOn(serving.url, serving.token, a)).status).toBe(200); // a is now the most recently used
      const d = await initialize(serving.url, serving.token);
      expect((await listOn(serving.url, serving.token, b)).status).toBe(404);
      for (const id of [a, c, d]) expect(await listOn(serving.url, serving.token, id)).toEqual({ status: 200, listed: true });
    } finally {
      await serving.stop();
    }
  });

  test('a session unused for sessionIdleSeconds is closed: 404, and a new initialize works', async () => {
    const w = oneMount('sessionIdleSeconds = 1');
    const serving = await startServe(w.config, w.dir);
    try {
      const id = await initialize(serving.url, serving.token);
      // Asking would use the session; the server's log says when it closed it.
      const logged = await within(30_000, async () => (serving.stderr().includes('ws: closed a session unused for 1 s (0 live)') ? true : undefined));
      expect(logged).toBe(true);
      expect((await listOn(serving.url, serving.token, id)).status).toBe(404);
      const again = await initialize(serving.url, serving.token);
      expect((await listOn(serving.url, serving.token, again)).status).toBe(200);
    } finally {
      await serving.stop();
    }
  });

  test('bad values of the keys are refused with the key named', async () => {
    for (const [line, says] of [
      ['maxSessions = 0', 'maxSessions must be a whole number above 0'],
      ['sessionIdleSeconds = "10m"', 'sessionIdleSeconds must be a whole number above 0'],
    ]) {
      const w = oneMount(line);
      const ran = await ws(w.dir, ['--config', w.config, 'serve', '--port', '0']);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(says);
    }
  });
});

