/**
 * The `ws` command as a person or an MCP client runs it: a real process per command,
 * `ws serve` started once per test file, MCP clients over stdio and HTTP. Tests that use
 * this prove what a user sees, so nothing here reaches into the host's modules.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { storeToml, TEST_ENGINE } from './engine.ts';
import { tempDir } from './fixtures.ts';

/** The `ws` entry point. */
export const CLI = resolve(import.meta.dir, '../src/cli.ts');

/** What one `ws` command did. */
export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `ws ARGS` in `cwd` to the end. */
export async function ws(cwd: string, args: readonly string[], stdin?: string): Promise<Ran> {
  const proc = Bun.spawn(['bun', CLI, ...args], {
    cwd,
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** A tool result as `ws call` prints it. */
export type CallResult = { success: true; data: Record<string, unknown> } | { success: false; error: string };

/** `ws call TOOL JSON` in `cwd`; the printed result and the exit code. */
export async function wsCall(cwd: string, tool: string, input: unknown, extra: readonly string[] = []): Promise<{ code: number; result: CallResult; stderr: string }> {
  const ran = await ws(cwd, ['call', tool, JSON.stringify(input), ...extra]);
  return { code: ran.code, result: JSON.parse(ran.stdout) as CallResult, stderr: ran.stderr };
}

/** The two-mount workspace the end-to-end tests share: files under `dir`, the config at `dir/ws.toml`. */
export interface Workspace {
  readonly dir: string;
  readonly config: string;
  /** Absolute path of a mount-prefixed path, for looking at disk. */
  disk(path: string): string;
  /** Where the HTTP token file goes: beside the SQLite store, or at the shared store's local path. */
  readonly tokenFile: string;
}

/** One mount in a test config. */
export interface MountSpec {
  readonly name: string;
  readonly backend: 'store' | 'direct';
  readonly watch?: 'on-tool-call' | 'always' | 'never';
  /** Files to put on disk first, by mount-relative path. */
  readonly files?: Readonly<Record<string, string | Uint8Array>>;
}

/** A shared store in a test config: a PostgreSQL URL, and this host's id on it. */
export interface SharedStore {
  readonly url: string;
  readonly host?: string;
}

/**
 * A temporary directory with a `ws.toml` that mounts each spec's directory (`dir/<name>`).
 * A store named by path is the SQLite file there, or on the PostgreSQL run (`engine.ts`)
 * a fresh database standing for it.
 */
export function makeWorkspace(mounts: readonly MountSpec[], store: string | SharedStore = '.ws/store.sqlite'): Workspace {
  const dir = tempDir('ws-cli-');
  const lines =
    typeof store === 'string'
      ? [storeToml(store, dir).trimEnd()]
      : [`[store]`, `url = ${JSON.stringify(store.url)}`, `host = ${JSON.stringify(store.host ?? 'test-host')}`];
  for (const m of mounts) {
    mkdirSync(join(dir, m.name), { recursive: true });
    for (const [rel, content] of Object.entries(m.files ?? {})) {
      mkdirSync(join(dir, m.name, rel, '..'), { recursive: true });
      writeFileSync(join(dir, m.name, rel), content);
    }
    lines.push('[[mount]]', `name = "${m.name}"`, `path = "${m.name}"`, `backend = "${m.backend}"`);
    if (m.watch) lines.push(`watch = "${m.watch}"`);
  }
  const config = join(dir, 'ws.toml');
  writeFileSync(config, `${lines.join('\n')}\n`);
  const local = typeof store === 'string' && TEST_ENGINE === 'sqlite' ? join(dir, store) : join(dir, '.ws/shared-store');
  return { dir, config, disk: (path) => join(dir, path), tokenFile: `${local}.token` };
}

/** An MCP client connected to `ws mcp` over stdio, with the server's stderr gathered. */
export interface StdioSession {
  readonly client: Client;
  readonly pid: number;
  stderr(): string;
  close(): Promise<void>;
}

/** Spawns `ws --config CONFIG mcp` through the SDK's stdio transport and connects. */
export async function connectStdio(config: string, cwd: string): Promise<StdioSession> {
  const transport = new StdioClientTransport({ command: 'bun', args: [CLI, '--config', config, 'mcp'], cwd, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'ws-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid ?? -1,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** A running `ws serve`. */
export interface Serving {
  readonly url: string;
  /** The token its printed HTTP client config carries (undefined with --no-auth). */
  readonly token: string | undefined;
  readonly pid: number;
  /** Everything it printed on stdout before the URL line and after. */
  stdout(): string;
  stderr(): string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: 'SIGINT' | 'SIGTERM'): Promise<number>;
}

async function gather(stream: ReadableStream<Uint8Array>, into: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) into(decoder.decode(chunk, { stream: true }));
}

/** The client config `ws serve` printed for HTTP: its URL and the token in its headers. */
export function printedHttpConfig(stdout: string): { url: string; token: string | undefined } | undefined {
  const line = stdout.split('\n').find((l) => l.startsWith('connect a client over HTTP: '));
  if (line === undefined) return undefined;
  const ws = JSON.parse(line.slice(line.indexOf('{'))).mcpServers.ws as { url: string; headers?: { Authorization: string } };
  return { url: ws.url, token: ws.headers?.Authorization.replace(/^Bearer /, '') };
}

/**
 * Starts `ws --config CONFIG serve --port 0` (no config: the embedded default) and waits
 * for the client config it prints; `extra` flags go after `serve`; `env` is its
 * environment (else this process's).
 */
export async function startServe(
  config: string | undefined,
  cwd: string,
  extra: readonly string[] = [],
  command: readonly string[] = ['bun', CLI],
  env?: Record<string, string | undefined>,
): Promise<Serving> {
  const configArgs = config === undefined ? [] : ['--config', config];
  const proc = Bun.spawn([...command, ...configArgs, 'serve', '--port', '0', ...extra], { cwd, env, stdout: 'pipe', stderr: 'pipe' });
  let out = '';
  let err = '';
  let announced!: (found: { url: string; token: string | undefined }) => void;
  const printed = new Promise<{ url: string; token: string | undefined }>((done) => {
    announced = done;
  });
  const outDone = gather(proc.stdout, (t) => {
    out += t;
    // The mounts line comes last: everything before it is printed whole.
    if (out.includes('\nmounts: ')) {
      const found = printedHttpConfig(out);
      if (found) announced(found);
    }
  });
  const errDone = gather(proc.stderr, (t) => {
    err += t;
  });
  const exited = proc.exited.then(async (code) => {
    await Promise.all([outDone, errDone]);
    throw new Error(`ws serve exited (${code}) before printing its URL: ${err}`);
  });
  const found = await Promise.race([printed, exited]);
  return {
    url: found.url,
    token: found.token,
    pid: proc.pid,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = 'SIGTERM') {
      proc.kill(signal);
      const code = await proc.exited;
      await Promise.all([outDone, errDone]);
      return code;
    },
  };
}

/** An MCP client connected over Streamable HTTP, sending the server's token where it asks for one. */
export async function connectHttp(serving: Pick<Serving, 'url' | 'token'>): Promise<Client> {
  const client = new Client({ name: 'ws-test', version: '1.0.0' });
  const requestInit = serving.token === undefined ? {} : { requestInit: { headers: { Authorization: `Bearer ${serving.token}` } } };
  await client.connect(new StreamableHTTPClientTransport(new URL(serving.url), requestInit));
  return client;
}

/**
 * A tool call's answer over MCP: the data parsed from the JSON text, or the error sentence.
 * `timeoutMs`: how long the client waits for the answer (the SDK's default is 60 s).
 */
export async function mcpCall(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  timeoutMs?: number,
  // biome-ignore lint/suspicious/noExplicitAny: each tool's data has its own shape
): Promise<{ isError: boolean; data: any; text: string }> {
  const answer = await client.callTool({ name, arguments: args }, undefined, timeoutMs === undefined ? undefined : { timeout: timeoutMs });
  const content = answer.content as { type: string; text: string }[];
  const text = content[0]?.text ?? '';
  const isError = answer.isError === true;
  return { isError, data: isError ? undefined : JSON.parse(text), text };
}

/** Polls `check` until it returns a value or `ms` pass; the value, or undefined at the deadline. */
export async function within<T>(ms: number, check: () => Promise<T | undefined>): Promise<T | undefined> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) return undefined;
    await Bun.sleep(25);
  }
}
