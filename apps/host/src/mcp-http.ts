/**
 * One HTTP request's way through `ws serve`: the checks every request passes (its Host
 * and Origin name this machine, its token is accepted), then the review page, or the MCP
 * session it belongs to, or a new session. The one rule: a request that names another
 * host, comes from another origin's page or carries no accepted token reaches no file —
 * so a page in a browser cannot reach the files through a DNS name that points at 127.0.0.1.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Workspace } from '@ws/tools';
import type { TokenGate } from './auth.ts';
import type { CallTracker } from './calls.ts';
import { createMcpServer } from './mcp.ts';
import { type ReviewServer, REVIEW_PATH, isReviewPath } from './review/server.ts';
import type { SessionTable } from './sessions.ts';

/** The path the HTTP server answers MCP on. */
export const MCP_PATH = '/mcp';

/** The owner of every session where the server asks for no token. */
export const NO_OWNER: Buffer = Buffer.alloc(0);

/** How many closed sessions call for a full garbage collection. */
const SESSIONS_PER_COLLECTION = 200;

/** What every request of one HTTP server shares. */
export interface HttpContext {
  readonly workspace: Workspace;
  readonly resultMaxChars: number;
  readonly maxRequestBodySize: number;
  readonly sessions: SessionTable<WebStandardStreamableHTTPServerTransport>;
  /** The token file's gate; none with `--no-auth`. */
  readonly gate: TokenGate | undefined;
  readonly review: ReviewServer;
  readonly calls: CallTracker;
  readonly log: (line: string) => void;
  /** The Host headers that name this server (`127.0.0.1:PORT`, `localhost:PORT`), known once it listens. */
  local: ReadonlySet<string>;
  closedSessions: number;
}

/** A JSON-RPC error answer, as the Streamable HTTP transport gives its own. */
export function rpcError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status, headers });
}

/** Answers one request to the HTTP server. */
export async function answer(ctx: HttpContext, req: Request): Promise<Response> {
  const url = new URL(req.url);
  const reviewing = isReviewPath(url.pathname);
  if (url.pathname !== MCP_PATH && !reviewing) return new Response(`ws: the MCP endpoint is ${MCP_PATH}; the review page is ${REVIEW_PATH}\n`, { status: 404 });
  const hostHeader = req.headers.get('host') ?? '';
  const origin = req.headers.get('origin');
  if (!ctx.local.has(hostHeader) || (origin !== null && !ctx.local.has(origin.replace(/^http:\/\//, '')))) {
    return new Response('ws: only clients on this machine that name 127.0.0.1 or localhost may connect\n', { status: 403 });
  }
  // The page has its own sign-in (a cookie from a one-time link); its API changes files only by POST.
  if (reviewing) return ctx.review.answer(req, url);
  let owner = NO_OWNER;
  if (ctx.gate !== undefined) {
    const admitted = ctx.gate.admit(req.headers.get('authorization'));
    if (!admitted.ok) {
      return rpcError(admitted.status, admitted.message, admitted.challenge === undefined ? {} : { 'WWW-Authenticate': admitted.challenge });
    }
    owner = admitted.owner;
  }
  const id = req.headers.get('mcp-session-id');
  if (id !== null) return answerInSession(ctx, req, id, owner);
  if (req.method !== 'POST') return rpcError(400, 'No MCP session; start one with an initialize request (POST).');
  return startSession(ctx, req, owner);
}

/** A request in a session: only the token that made the session may use it. */
async function answerInSession(ctx: HttpContext, req: Request, id: string, owner: Buffer): Promise<Response> {
  const known = ctx.sessions.find(id, owner);
  if (!known) return rpcError(404, 'Unknown or closed MCP session; start a new one with an initialize request.');
  // A POST's answer streams until its call is done; a GET is a client listening, not a call.
  if (req.method !== 'POST') {
    ctx.sessions.touch(known);
    return known.transport.handleRequest(req);
  }
  const settled = ctx.sessions.begin(known);
  try {
    return whenSent(await known.transport.handleRequest(req), settled);
  } catch (err) {
    settled();
    throw err;
  }
}

/** A request outside any session: its own protocol server, kept as a session if the request initializes one. */
async function startSession(ctx: HttpContext, req: Request, owner: Buffer): Promise<Response> {
  const server = createMcpServer(ctx.workspace, ctx.resultMaxChars, ctx.calls);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    maxRequestBodySize: ctx.maxRequestBodySize,
    onsessioninitialized: (sid) => {
      ctx.sessions.add(sid, owner, transport, async () => {
        await server.close();
        // Sessions leave much garbage behind; where many close, a full collection now
        // and then hands it back, so RSS stays near an idle server's, not just bounded.
        if (++ctx.closedSessions % SESSIONS_PER_COLLECTION === 0) Bun.gc(true);
      });
    },
    onsessionclosed: (sid) => {
      ctx.sessions.forget(sid);
      void server.close().catch(() => {});
    },
  });
  server.onerror = (err) => ctx.log(`MCP: ${err.message}`);
  await server.connect(transport);
  const response = await transport.handleRequest(req);
  // Anything but an initialize request leaves no session behind: drop its server.
  if (transport.sessionId === undefined) await server.close();
  return response;
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
