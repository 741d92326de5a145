/**
 * Serving the MCP server: on stdio for clients that spawn it, and over Streamable HTTP
 * on 127.0.0.1 for clients that connect. The one rule: on stdio nothing but protocol
 * goes to stdout — every log line goes to stderr.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { HostConfig } from './config.ts';
import { openHost } from './host.ts';
import { CallTracker, createMcpServer } from './mcp.ts';

/** The port `ws serve` uses when none is given. */
export const DEFAULT_PORT = 7357;

/** The path the HTTP server answers MCP on. */
export const MCP_PATH = '/mcp';

/** How long a stopping server lets calls in flight finish before it closes the store anyway. */
const DRAIN_MS = 10_000;

/** One log line on stderr. */
function log(line: string): void {
  process.stderr.write(`ws: ${line}\n`);
}

function describeMounts(config: HostConfig): string {
  return config.mounts
    .map((m) => `${m.name} = ${m.root} (${m.backend}${m.readOnly ? ', read-only' : ''}, watch ${m.watch})`)
    .join('; ');
}

/** Resolves with the name of the first SIGINT or SIGTERM. */
function signalled(): Promise<string> {
  return new Promise((done) => {
    process.once('SIGINT', () => done('SIGINT'));
    process.once('SIGTERM', () => done('SIGTERM'));
  });
}

/**
 * A long-running server logs what it could not do and keeps serving: a tool call's
 * effects are transactions in the store, so a fault leaves no half-made change behind.
 */
function logFaults(): void {
  const why = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0];
  process.on('uncaughtException', (err) => log(`unexpected fault: ${why(err)}`));
  process.on('unhandledRejection', (err) => log(`unexpected fault: ${why(err)}`));
}

/**
 * Keeps stdout for the protocol: a stray `console.log` from any module goes to stderr,
 * and a client that closed its end of the pipe is not a crash.
 */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  process.stdout.on('error', () => {});
}

/** Serves MCP on stdio until stdin closes or a signal stops it; resolves then. */
export async function serveMcpStdio(config: HostConfig): Promise<void> {
  keepStdoutForProtocol();
  logFaults();
  const host = await openHost(config, { watch: true });
  const calls = new CallTracker();
  const server = createMcpServer(host.workspace, config.resultMaxChars, calls);
  server.onerror = (err) => log(`MCP: ${err.message}`);
  const stopped = Promise.race([
    signalled(),
    new Promise<string>((done) => {
      process.stdin.once('end', () => done('stdin closed'));
      server.onclose = () => done('transport closed');
    }),
  ]);
  // The SDK's default (10 MiB) would close the transport on a large `write`; allow what HTTP allows.
  await server.connect(new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: bodyLimit(config) }));
  log(`MCP on stdio; mounts: ${describeMounts(config)}`);
  const why = await stopped;
  // Calls already made finish, so their answers (and their drafts) are not cut off.
  await calls.settled(DRAIN_MS);
  await server.close();
  host.close();
  log(`stopped (${why})`);
}

/** A running HTTP server. */
export interface HttpServing {
  readonly url: string;
  stop(): Promise<void>;
}

/** A JSON-RPC error answer, as the Streamable HTTP transport gives its own. */
function rpcError(status: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status });
}

/**
 * The largest message the server reads (an HTTP body, a line on stdin): room for a
 * `write` of the largest file a mount stores, even where JSON escapes every byte
 * (`\u0001` is six characters).
 */
function bodyLimit(config: HostConfig): number {
  const largest = Math.max(0, ...config.mounts.map((m) => m.maxFileSize));
  return Math.max(4 * 1024 * 1024, 6 * largest + 1024 * 1024);
}

/**
 * Starts MCP over Streamable HTTP on 127.0.0.1 (`port` 0: any free port). Each client
 * session gets its own protocol server over the one shared workspace. Requests naming
 * another host or coming from a web page of another origin are refused, so a page in a
 * browser cannot reach the files through a DNS name that points at 127.0.0.1.
 */
export async function startMcpHttp(config: HostConfig, port: number): Promise<HttpServing> {
  const host = await openHost(config, { watch: true });
  const calls = new CallTracker();
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const maxRequestBodySize = bodyLimit(config);
  let local: ReadonlySet<string> = new Set();

  async function answer(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (url.pathname !== MCP_PATH) return new Response(`ws: the MCP endpoint is ${MCP_PATH}\n`, { status: 404 });
    const hostHeader = req.headers.get('host') ?? '';
    const origin = req.headers.get('origin');
    if (!local.has(hostHeader) || (origin !== null && !local.has(origin.replace(/^http:\/\//, '')))) {
      return new Response('ws: only clients on this machine that name 127.0.0.1 or localhost may connect\n', { status: 403 });
    }
    const id = req.headers.get('mcp-session-id');
    if (id !== null) {
      const known = sessions.get(id);
      if (!known) return rpcError(404, 'Unknown or closed MCP session; start a new one with an initialize request.');
      return known.handleRequest(req);
    }
    if (req.method !== 'POST') return rpcError(400, 'No MCP session; start one with an initialize request (POST).');
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize,
      onsessioninitialized: (sid) => {
        sessions.set(sid, transport);
      },
      onsessionclosed: (sid) => {
        sessions.delete(sid);
      },
    });
    const server = createMcpServer(host.workspace, config.resultMaxChars, calls);
    server.onerror = (err) => log(`MCP: ${err.message}`);
    await server.connect(transport);
    const response = await transport.handleRequest(req);
    // Anything but an initialize request leaves no session behind: drop its server.
    if (transport.sessionId === undefined) await server.close();
    return response;
  }

  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: '127.0.0.1',
      port,
      // Server-sent event streams stay open between messages.
      idleTimeout: 0,
      development: false,
      // Bun shares the port among processes unless told not to: a second `ws serve` on
      // the same port would split clients' sessions between two servers.
      reusePort: false,
      async fetch(req) {
        try {
          return await answer(req);
        } catch (err) {
          log(`HTTP: ${err instanceof Error ? err.message : String(err)}`);
          return rpcError(500, 'ws could not answer this request; the server log says why.');
        }
      },
    });
  } catch (err) {
    host.close();
    if ((err as { code?: string }).code === 'EADDRINUSE') {
      throw new Error(`port ${port} on 127.0.0.1 is in use; choose another with --port N (0 picks a free one).`);
    }
    throw err;
  }
  local = new Set([`127.0.0.1:${server.port}`, `localhost:${server.port}`]);
  const url = `http://127.0.0.1:${server.port}${MCP_PATH}`;
  return {
    url,
    async stop() {
      const closing = server.stop();
      await calls.settled(DRAIN_MS);
      for (const t of [...sessions.values()]) await t.close();
      sessions.clear();
      await server.stop(true);
      await closing;
      host.close();
    },
  };
}

/**
 * The lines `ws serve` prints: where it listens and how to connect a client, over HTTP
 * or by letting the client spawn `ws mcp` (from `cwd` for the embedded default, which
 * mounts the working directory).
 */
export function connectLines(url: string, config: HostConfig, cwd: string): string {
  const cli = resolve(import.meta.dir, 'cli.ts');
  const args = config.source === 'embedded default' ? ['--cwd', cwd, cli, 'mcp'] : [cli, '--config', config.source, 'mcp'];
  const http = JSON.stringify({ mcpServers: { ws: { type: 'http', url } } });
  const stdio = JSON.stringify({ mcpServers: { ws: { command: 'bun', args } } });
  return [
    `ws: MCP (Streamable HTTP) at ${url}`,
    `connect a client over HTTP: ${http}`,
    `or let the client start it on stdio: ${stdio}`,
    `mounts: ${describeMounts(config)}`,
  ].join('\n');
}

/**
 * `ws serve`: starts, hands the URL and connection lines to `announce` (stdout), and runs
 * until a signal stops it.
 */
export async function serveMcpHttp(config: HostConfig, port: number, announce: (lines: string) => Promise<void>): Promise<void> {
  const stopped = signalled();
  logFaults();
  const serving = await startMcpHttp(config, port);
  await announce(`${connectLines(serving.url, config, process.cwd())}\n`);
  const why = await stopped;
  log(`stopping (${why})`);
  await serving.stop();
  log('stopped');
}
