/**
 * Serving the MCP server: on stdio for clients that spawn it, and over Streamable HTTP
 * on 127.0.0.1 for clients that connect with a token. The one rule: on stdio nothing but
 * protocol goes to stdout — every log line goes to stderr.
 */
import { randomUUID } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { TokenGate, tokenDigest } from './auth.ts';
import type { HostConfig } from './config.ts';
import { tokenPath } from './disk/token-file.ts';
import { openHost } from './host.ts';
import { CallTracker, createMcpServer } from './mcp.ts';
import { type ReviewServer, REVIEW_PATH, isReviewPath, reviewServer } from './review/server.ts';
import { SessionTable } from './sessions.ts';

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

/** A JSON-RPC error answer, as the Streamable HTTP transport gives its own. */
function rpcError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status, headers });
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

/** `response` with `done` called once its body has been sent whole, failed or been dropped. */
function whenSent(response: Response, done: () => void): Response {
  if (response.body === null) {
    done();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          done();
          controller.close();
        } else {
          controller.enqueue(next.value);
        }
      } catch (err) {
        done();
        controller.error(err);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** How often idle sessions are looked for: a quarter of the idle time, between 0.1 s and 30 s. */
function sweepEvery(idleMs: number): number {
  return Math.min(30_000, Math.max(100, Math.floor(idleMs / 4)));
}

const NO_OWNER: Buffer = Buffer.alloc(0);

/** How many closed sessions call for a full garbage collection. */
const SESSIONS_PER_COLLECTION = 200;

/**
 * Starts MCP over Streamable HTTP on 127.0.0.1. Each client session gets its own
 * protocol server over the one shared workspace, and belongs to the token that made it.
 * Requests without an accepted token are refused (unless `auth` is `none`), and so are
 * requests naming another host or coming from a web page of another origin, so a page in
 * a browser cannot reach the files through a DNS name that points at 127.0.0.1.
 */
export async function startMcpHttp(config: HostConfig, options: HttpOptions): Promise<HttpServing> {
  const sessions = new SessionTable<WebStandardStreamableHTTPServerTransport>({
    idleMs: config.sessionIdleSeconds * 1000,
    max: config.maxSessions,
  });
  let gate: TokenGate | undefined;
  let token: string | undefined;
  let review: ReviewServer | undefined;
  if ((options.auth ?? { kind: 'token' }).kind === 'token') {
    gate = new TokenGate(
      tokenPath(config.storePath),
      (accepted) => {
        sessions.keepOwners(accepted);
        review?.keepOwners(accepted);
      },
      log,
    );
    const opened = gate.open();
    if (!opened.ok) throw new Error(opened.message);
    if (opened.made) log(`made a new token in ${gate.path}`);
    token = opened.tokens[0];
  }
  const host = await openHost(config, { watch: true });
  const tokens = gate;
  review = reviewServer({
    workspace: host.workspace,
    signInRequired: tokens !== undefined,
    admitBearer: (header) => (tokens === undefined ? { ok: true, owner: NO_OWNER } : tokens.admit(header)),
    log,
  });
  const calls = new CallTracker();
  const maxRequestBodySize = bodyLimit(config);
  let local: ReadonlySet<string> = new Set();
  let closedSessions = 0;

  async function answer(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const reviewing = isReviewPath(url.pathname);
    if (url.pathname !== MCP_PATH && !reviewing) return new Response(`ws: the MCP endpoint is ${MCP_PATH}; the review page is ${REVIEW_PATH}\n`, { status: 404 });
    const hostHeader = req.headers.get('host') ?? '';
    const origin = req.headers.get('origin');
    if (!local.has(hostHeader) || (origin !== null && !local.has(origin.replace(/^http:\/\//, '')))) {
      return new Response('ws: only clients on this machine that name 127.0.0.1 or localhost may connect\n', { status: 403 });
    }
    // The page has its own sign-in (a cookie from a one-time link); its API changes files only by POST.
    if (reviewing && review !== undefined) return review.answer(req, url);
    let owner = NO_OWNER;
    if (gate !== undefined) {
      const admitted = gate.admit(req.headers.get('authorization'));
      if (!admitted.ok) {
        return rpcError(admitted.status, admitted.message, admitted.challenge === undefined ? {} : { 'WWW-Authenticate': admitted.challenge });
      }
      owner = admitted.owner;
    }
    const id = req.headers.get('mcp-session-id');
    if (id !== null) {
      const known = sessions.find(id, owner);
      if (!known) return rpcError(404, 'Unknown or closed MCP session; start a new one with an initialize request.');
      // A POST's answer streams until its call is done; a GET is a client listening, not a call.
      if (req.method !== 'POST') {
        sessions.touch(known);
        return known.transport.handleRequest(req);
      }
      const settled = sessions.begin(known);
      try {
        return whenSent(await known.transport.handleRequest(req), settled);
      } catch (err) {
        settled();
        throw err;
      }
    }
    if (req.method !== 'POST') return rpcError(400, 'No MCP session; start one with an initialize request (POST).');
    const server = createMcpServer(host.workspace, config.resultMaxChars, calls);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize,
      onsessioninitialized: (sid) => {
        sessions.add(sid, owner, transport, async () => {
          await server.close();
          // Sessions leave much garbage behind; where many close, a full collection now
          // and then hands it back, so RSS stays near an idle server's, not just bounded.
          if (++closedSessions % SESSIONS_PER_COLLECTION === 0) Bun.gc(true);
        });
      },
      onsessionclosed: (sid) => {
        sessions.forget(sid);
        void server.close().catch(() => {});
      },
    });
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
      port: options.port,
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
      throw new Error(`port ${options.port} on 127.0.0.1 is in use; choose another with --port N (0 picks a free one).`);
    }
    throw err;
  }
  const sweeper = setInterval(() => {
    const closed = sessions.sweep();
    if (closed > 0) log(`closed ${closed === 1 ? 'a session' : `${closed} sessions`} unused for ${config.sessionIdleSeconds} s (${sessions.size} live)`);
  }, sweepEvery(config.sessionIdleSeconds * 1000));
  sweeper.unref();
  local = new Set([`127.0.0.1:${server.port}`, `localhost:${server.port}`]);
  const url = `http://127.0.0.1:${server.port}${MCP_PATH}`;
  const reviewLink = review.signInLink(`http://127.0.0.1:${server.port}`, token === undefined ? NO_OWNER : tokenDigest(token));
  const reviewing = review;
  return {
    url,
    token,
    reviewLink: gate === undefined ? `http://127.0.0.1:${server.port}${REVIEW_PATH}` : reviewLink,
    tokenFile: gate?.path,
    sessionCount: () => sessions.size,
    async stop() {
      clearInterval(sweeper);
      reviewing.close();
      const closing = server.stop();
      await calls.settled(DRAIN_MS);
      await sessions.closeAll();
      await server.stop(true);
      await closing;
      host.close();
    },
  };
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
