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
import { createMcpServer } from './mcp.ts';

/** The port `ws serve` uses when none is given. */
export const DEFAULT_PORT = 7357;

/** Serves MCP on stdio until stdin closes; resolves then. */
export async function serveMcpStdio(config: HostConfig): Promise<void> {
  const host = await openHost(config, { watch: true });
  const server = createMcpServer(host.workspace, config.resultMaxChars);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((done) => {
    transport.onclose = () => done();
    process.stdin.once('end', () => done());
  });
  await server.connect(transport);
  process.stderr.write(`ws: MCP on stdio, ${describeMounts(config)}\n`);
  await closed;
  host.close();
}

function describeMounts(config: HostConfig): string {
  return config.mounts
    .map((m) => `${m.name} = ${m.root} (${m.backend}${m.readOnly ? ', read-only' : ''})`)
    .join('; ');
}

/** A running HTTP server. */
export interface HttpServing {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts MCP over Streamable HTTP on 127.0.0.1 (`port` 0: any free port). Each client
 * session gets its own protocol server over the one shared workspace.
 */
export async function startMcpHttp(config: HostConfig, port: number): Promise<HttpServing> {
  const host = await openHost(config, { watch: true });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname !== '/mcp') return new Response('ws: the MCP endpoint is /mcp\n', { status: 404 });
      const id = req.headers.get('mcp-session-id');
      if (id) {
        const known = sessions.get(id);
        if (!known) return new Response('ws: unknown or closed MCP session; start a new one\n', { status: 404 });
        return known.handleRequest(req);
      }
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          sessions.set(sid, transport);
        },
        onsessionclosed: (sid) => {
          sessions.delete(sid);
        },
      });
      await createMcpServer(host.workspace, config.resultMaxChars).connect(transport);
      return transport.handleRequest(req);
    },
  });
  const url = `http://127.0.0.1:${server.port}/mcp`;
  return {
    url,
    async stop() {
      for (const t of sessions.values()) await t.close();
      sessions.clear();
      await server.stop(true);
      host.close();
    },
  };
}

/** The lines `ws serve` prints: where it listens and how to connect a client. */
export function connectLines(url: string, configSource: string): string {
  const cli = resolve(import.meta.dir, 'cli.ts');
  const configArgs = configSource === 'embedded default' ? [] : ['--config', configSource];
  const http = JSON.stringify({ mcpServers: { ws: { type: 'http', url } } });
  const stdio = JSON.stringify({ mcpServers: { ws: { command: 'bun', args: [cli, ...configArgs, 'mcp'] } } });
  return [
    `ws: MCP (Streamable HTTP) at ${url}`,
    `connect a client over HTTP: ${http}`,
    `or let the client spawn it on stdio: ${stdio}`,
  ].join('\n');
}

/** `ws serve`: starts, prints the URL and connection lines, and runs until a signal stops it. */
export async function serveMcpHttp(config: HostConfig, options: { port: number; announce: boolean }): Promise<void> {
  const serving = await startMcpHttp(config, options.port);
  if (options.announce) {
    process.stdout.write(`${connectLines(serving.url, config.source)}\n`);
    process.stdout.write(`mounts: ${describeMounts(config)}\n`);
  }
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await serving.stop();
}
