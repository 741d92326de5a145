/**
 * Serving the MCP server: on stdio for clients that spawn it, and over Streamable HTTP
 * on 127.0.0.1 for clients that connect with a token. The one rule: on stdio nothing but
 * protocol goes to stdout — every log line goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { TokenGate, tokenDigest } from './auth.ts';
import type { HostConfig } from './config.ts';
import { tokenPath } from './disk/token-file.ts';
import { openHost } from './host.ts';
import { createMcpServer } from './mcp.ts';
import { type HttpContext, MCP_PATH, NO_OWNER, answer, rpcError } from './mcp-http.ts';
import { type ReviewServer, REVIEW_PATH, reviewServer } from './review/server.ts';
import { SessionTable } from './sessions.ts';

/** The port `ws serve` uses when none is given. */
export const DEFAULT_PORT = 7357;

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
  const calls = host.calls;
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

/** How `ws serve` lets clients in. */
export type HttpAuth = { readonly kind: 'token' } | { readonly kind: 'none' };

/** What `startMcpHttp` needs besides the config. */
export interface HttpOptions {
  /** 0: any free port. */
  readonly port: number;
  /** Tokens from the token file (the default), or none at all (`--no-auth`). */
  readonly auth?: HttpAuth;
}

/** A running HTTP server. */
export interface HttpServing {
  readonly url: string;
  /** The first token of the token file (what the printed client config carries); none with `--no-auth`. */
  readonly token: string | undefined;
  /** The token file, where tokens are asked for. */
  readonly tokenFile: string | undefined;
  /** The review page's link: it signs a browser in once (the host README, "The review page"). */
  readonly reviewLink: string;
  /** Live sessions, for tests and logs. */
  sessionCount(): number;
  stop(): Promise<void>;
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

/** How often idle sessions are looked for: a quarter of the idle time, between 0.1 s and 30 s. */
function sweepEvery(idleMs: number): number {
  return Math.min(30_000, Math.max(100, Math.floor(idleMs / 4)));
}

/**
 * Starts MCP over Streamable HTTP on 127.0.0.1. Each client session gets its own
 * protocol server over the one shared workspace, and belongs to the token that made it.
 * Requests without an accepted token are refused (unless `auth` is `none`), and so are
 * requests naming another host or coming from a web page of another origin (`mcp-http.ts`).
 */
export async function startMcpHttp(config: HostConfig, options: HttpOptions): Promise<HttpServing> {
  const sessions = new SessionTable<WebStandardStreamableHTTPServerTransport>({
    idleMs: config.sessionIdleSeconds * 1000,
    max: config.maxSessions,
  });
  let review: ReviewServer | undefined;
  const opened =
    (options.auth ?? { kind: 'token' }).kind === 'token'
      ? openGate(config, (accepted) => {
          sessions.keepOwners(accepted);
          review?.keepOwners(accepted);
        })
      : undefined;
  const gate = opened?.gate;
  const host = await openHost(config, { watch: true });
  review = reviewServer({
    workspace: host.workspace,
    signInRequired: gate !== undefined,
    admitBearer: (header) => (gate === undefined ? { ok: true, owner: NO_OWNER } : gate.admit(header)),
    log,
  });
  const ctx: HttpContext = {
    workspace: host.workspace,
    resultMaxChars: config.resultMaxChars,
    maxRequestBodySize: bodyLimit(config),
    sessions,
    gate,
    review,
    calls: host.calls,
    log,
    local: new Set(),
    closedSessions: 0,
  };
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = listen(ctx, options.port);
  } catch (err) {
    host.close();
    throw err;
  }
  const sweeper = setInterval(() => {
    const closed = sessions.sweep();
    if (closed > 0) log(`closed ${closed === 1 ? 'a session' : `${closed} sessions`} unused for ${config.sessionIdleSeconds} s (${sessions.size} live)`);
  }, sweepEvery(config.sessionIdleSeconds * 1000));
  sweeper.unref();
  const base = `http://127.0.0.1:${server.port}`;
  ctx.local = new Set([`127.0.0.1:${server.port}`, `localhost:${server.port}`]);
  const token = opened?.token;
  return {
    url: `${base}${MCP_PATH}`,
    token,
    reviewLink: gate === undefined ? `${base}${REVIEW_PATH}` : review.signInLink(base, token === undefined ? NO_OWNER : tokenDigest(token)),
    tokenFile: gate?.path,
    sessionCount: () => sessions.size,
    async stop() {
      clearInterval(sweeper);
      ctx.review.close();
      const closing = server.stop();
      await ctx.calls.settled(DRAIN_MS);
      await sessions.closeAll();
      await server.stop(true);
      await closing;
      host.close();
    },
  };
}

/** The token file's gate, opened (made with a first token where there is none), and its first token. */
function openGate(config: HostConfig, keepOwners: (accepted: readonly Buffer[]) => void): { gate: TokenGate; token: string | undefined } {
  const gate = new TokenGate(tokenPath(config.storePath), keepOwners, log);
  const opened = gate.open();
  if (!opened.ok) throw new Error(opened.message);
  if (opened.made) log(`made a new token in ${gate.path}`);
  return { gate, token: opened.tokens[0] };
}

/** Listens on 127.0.0.1:`port`; a port in use is one sentence. */
function listen(ctx: HttpContext, port: number): ReturnType<typeof Bun.serve> {
  try {
    return Bun.serve({
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
          return await answer(ctx, req);
        } catch (err) {
          log(`HTTP: ${err instanceof Error ? err.message : String(err)}`);
          return rpcError(500, 'ws could not answer this request; the server log says why.');
        }
      },
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'EADDRINUSE') {
      throw new Error(`port ${port} on 127.0.0.1 is in use; choose another with --port N (0 picks a free one).`);
    }
    throw err;
  }
}

/** How a client starts this `ws`: the compiled executable itself, or `bun` with the script that runs now. */
export function wsCommand(): { command: string; args: string[] } {
  // A compiled executable's modules live in Bun's embedded file system.
  const compiled = Bun.main.includes('$bunfs') || Bun.main.includes('~BUN');
  return compiled ? { command: process.execPath, args: [] } : { command: 'bun', args: [Bun.main] };
}

/**
 * The lines `ws serve` prints: where it listens and how to connect a client, over HTTP
 * (with the token) or by letting the client spawn `ws mcp` (in `cwd` for the embedded
 * default, which mounts the working directory).
 */
export function connectLines(serving: Pick<HttpServing, 'url' | 'token' | 'tokenFile'> & { readonly reviewLink?: string }, config: HostConfig, cwd: string): string {
  const ws = wsCommand();
  const args = [...ws.args, ...(config.source === 'embedded default' ? ['--cwd', cwd] : ['--config', config.source]), 'mcp'];
  const headers = serving.token === undefined ? {} : { headers: { Authorization: `Bearer ${serving.token}` } };
  const http = JSON.stringify({ mcpServers: { ws: { type: 'http', url: serving.url, ...headers } } });
  const stdio = JSON.stringify({ mcpServers: { ws: { command: ws.command, args } } });
  const access =
    serving.tokenFile === undefined
      ? `--no-auth: no token is asked for, so any process on this machine, run by any user, can read, change and materialize every file on these mounts through ${serving.url}`
      : `clients must send "Authorization: Bearer <token>"; the token is in ${serving.tokenFile} (ws token prints it)`;
  return [
    `ws: MCP (Streamable HTTP) at ${serving.url}`,
    access,
    `connect a client over HTTP: ${http}`,
    `or let the client start it on stdio: ${stdio}`,
    ...(serving.reviewLink === undefined
      ? []
      : [`review the agent's drafts in a browser${serving.tokenFile === undefined ? '' : ' (the link signs in once)'}: ${serving.reviewLink}`]),
    `mounts: ${describeMounts(config)}`,
  ].join('\n');
}

/**
 * `ws serve`: starts, hands the URL and connection lines to `announce` (stdout), and runs
 * until a signal stops it.
 */
export async function serveMcpHttp(
  config: HostConfig,
  options: HttpOptions & { readonly cwd: string },
  announce: (lines: string) => Promise<void>,
): Promise<void> {
  const stopped = signalled();
  logFaults();
  const serving = await startMcpHttp(config, options);
  if (serving.tokenFile === undefined) log(`--no-auth: any process on this machine can use ${serving.url}`);
  await announce(`${connectLines(serving, config, options.cwd)}\n`);
  const why = await stopped;
  log(`stopping (${why})`);
  await serving.stop();
  log('stopped');
}
