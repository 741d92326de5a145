/**
 * The review page's HTTP side, on `ws serve`'s port: the sign-in exchange, the static page,
 * a JSON API over the store-backed mounts' review verbs, and a server-sent event stream
 * that keeps the page's list current. The one rule: nothing but the sign-in page, its
 * script and its style is answered without a signed-in cookie (401), every change is a
 * POST carrying `X-WS-Review: 1` (which no other site's page can send without asking),
 * and every answer is one sentence on failure — never a stack.
 */
import { type Mount, type Workspace, handleToolCall, locate } from '@ws/tools';
import type { StoreMount } from '../mounts/store-backed/mount.ts';
import type { Shown } from '../mounts/store-backed/review.ts';
import { readPage } from './page-files.ts';
import { SignIn, sessionCookie } from './sign-in.ts';

/** Where the page lives. */
export const REVIEW_PATH = '/review';

/** How often the list is looked at while a page listens. */
export const TICK_MS = 1000;

/** True for `/review` and everything beneath it. */
export function isReviewPath(pathname: string): boolean {
  return pathname === REVIEW_PATH || pathname.startsWith(`${REVIEW_PATH}/`);
}

/** What the review server needs from `ws serve`. */
export interface ReviewOptions {
  readonly workspace: Workspace;
  /** False with `--no-auth`: the page needs no sign-in. */
  readonly signInRequired: boolean;
  /** Admits a request's `Authorization` header (for `POST /review/link`): its owner, or why not. */
  readonly admitBearer: (header: string | null) => { ok: true; owner: Buffer } | { ok: false; status: number; message: string };
  readonly log: (line: string) => void;
}

/** The review page's server. */
export interface ReviewServer {
  answer(req: Request, url: URL): Promise<Response>;
  /** A sign-in link for `base` (`http://127.0.0.1:PORT`), with a new one-time code for `owner`. */
  signInLink(base: string, owner: Buffer): string;
  /** The token file changed: sessions of tokens no longer accepted end. */
  keepOwners(accepted: readonly Buffer[]): void;
  /** Ends every event stream. */
  close(): void;
}

const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { ...SECURITY_HEADERS, ...headers } });
}

function refusal(message: string, status = 400, extra: Record<string, unknown> = {}): Response {
  return json({ ok: false, message, ...extra }, status);
}

/** The API's changes. */
const POST_ROUTES = new Set(['hunks', 'whole', 'settle', 'restore', 'sign-out']);

/** The public files: what a browser needs before it is signed in. */
const PUBLIC = new Set(['sign-in.js', 'style.css']);

/** The store-backed mounts: the ones with drafts to review. */
function storeMounts(workspace: Workspace): StoreMount[] {
  return workspace.mounts.filter((m): m is StoreMount => m.backend === 'store' && 'review' in m);
}

/** A request body as JSON, or undefined. */
async function body(req: Request): Promise<Record<string, unknown> | undefined> {
  try {
    const value = (await req.json()) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function shownOf(value: unknown): Shown | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { disk, draft } = value as Record<string, unknown>;
  return typeof disk === 'string' && typeof draft === 'string' ? { disk, draft } : undefined;
}

function indices(value: unknown): number[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 100_000 || !value.every((v) => Number.isInteger(v))) return undefined;
  return value as number[];
}

/** Starts the review server over a workspace. */
export function reviewServer(options: ReviewOptions): ReviewServer {
  const signIn = new SignIn();
  const mounts = storeMounts(options.workspace);
  const listeners = new Set<(event: string) => void>();
  const closers = new Set<() => void>();
  let ticker: ReturnType<typeof setInterval> | undefined;
  let ticking = false;
  let lastList = '';
  /** A look that took long (a large mount's pass) waits three times as long before the next, so the agent's calls keep the lock. */
  let notBefore = 0;

  /** Every store-backed mount's list, as the page shows it. */
  async function listing(pass: boolean): Promise<{ mounts: unknown[] }> {
    const out: unknown[] = [];
    for (const m of mounts) {
      // A mount whose watcher keeps the store current needs no pass; `never` asks for none.
      const listed = await m.review.list(pass && m.config.watch === 'on-tool-call');
      out.push({ name: m.name, readOnly: m.readOnly, ...(listed.ok ? { entries: listed.entries } : { entries: [], problem: listed.message }) });
    }
    return { mounts: out };
  }

  async function tick(): Promise<void> {
    if (ticking || listeners.size === 0 || performance.now() < notBefore) return;
    ticking = true;
    const started = performance.now();
    try {
      const now = JSON.stringify(await listing(true));
      if (now !== lastList) {
        lastList = now;
        for (const send of listeners) send(`event: drafts\ndata: ${now}\n\n`);
      }
    } catch (err) {
      options.log(`review: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      ticking = false;
      notBefore = performance.now() + 3 * (performance.now() - started);
    }
  }

  function events(): Response {
    let send: ((event: string) => void) | undefined;
    let beat: ReturnType<typeof setInterval> | undefined;
    let end: (() => void) | undefined;
    const stop = () => {
      if (send) listeners.delete(send);
      if (end) closers.delete(end);
      if (beat) clearInterval(beat);
      if (listeners.size === 0 && ticker) {
        clearInterval(ticker);
        ticker = undefined;
      }
    };
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const encoder = new TextEncoder();
        send = (event) => {
          try {
            controller.enqueue(encoder.encode(event));
          } catch {
            stop();
          }
        };
        listeners.add(send);
        end = () => {
          stop();
          try {
            controller.close();
          } catch {
            // already closed
          }
        };
        closers.add(end);
        lastList = ''; // the new listener hears the list at once
        beat = setInterval(() => send?.(': still here\n\n'), 15_000);
        if (ticker === undefined) ticker = setInterval(() => void tick(), TICK_MS);
        void tick();
      },
      cancel: stop,
    });
    return new Response(stream, {
      headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' },
    });
  }

  /** The mount and mount-relative path a page's `path` (mount-prefixed) names. */
  function located(raw: unknown): { ok: true; mount: StoreMount; rel: string; path: string } | { ok: false; message: string } {
    if (typeof raw !== 'string' || raw === '') return { ok: false, message: 'Name the file, as mount/path.' };
    const at = locate(options.workspace, raw);
    if (!at.ok) return at;
    const mount = mounts.find((m) => m.name === at.mount.name);
    if (mount === undefined) return { ok: false, message: `${at.mount.name} is a direct mount: its changes are on disk already, with nothing to review.` };
    if (at.rel === '') return { ok: false, message: `${raw} is a mount; name a file in it.` };
    return { ok: true, mount, rel: at.rel, path: at.path };
  }

  async function api(req: Request, route: string, url: URL): Promise<Response> {
    if (req.method === 'GET') {
      switch (route) {
        case 'drafts':
          return json({ ok: true, ...(await listing(true)) });
        case 'events':
          return events();
        case 'file': {
          const at = located(url.searchParams.get('path'));
          if (!at.ok) return refusal(at.message);
          const found = await at.mount.review.file(at.rel);
          return found.ok ? json({ ok: true, mount: at.mount.name, path: at.path, file: found.file }) : refusal(found.message, 200);
        }
        case 'history': {
          const at = located(url.searchParams.get('path'));
          if (!at.ok) return refusal(at.message);
          const mount: Mount = at.mount;
          if (mount.history === undefined) return refusal(`Mount ${mount.name} keeps no history.`, 200);
          const found = await mount.history(at.rel);
          return found.ok ? json({ ok: true, path: at.path, versions: found.versions }) : refusal(found.message, 200);
        }
        case 'version': {
          const at = located(url.searchParams.get('path'));
          const version = url.searchParams.get('version');
          if (!at.ok) return refusal(at.message);
          if (version === null || version === '') return refusal('Name the version to show.');
          const mount: Mount = at.mount;
          if (mount.readVersion === undefined) return refusal(`Mount ${mount.name} keeps no versions.`, 200);
          const found = await mount.readVersion(at.rel, version);
          if (found.kind === 'file') return json({ ok: true, path: at.path, version, text: new TextDecoder().decode(found.bytes) });
          if (found.kind === 'missing') return json({ ok: true, path: at.path, version, text: null });
          return refusal(found.kind === 'answer' ? found.message : `That version of ${at.path} is not text.`, 200);
        }
      }
      return refusal(`No such review API: GET ${route}.`, 404);
    }
    if (req.method !== 'POST') return refusal('The review API answers GET and POST only.', 405);
    if (!POST_ROUTES.has(route)) return refusal(`No such review API: POST ${route}.`, 404);
    if (req.headers.get('x-ws-review') !== '1') return refusal('A change needs the header "X-WS-Review: 1".', 403);
    const input = await body(req);
    if (input === undefined) return refusal('The request body must be a JSON object.');
    if (route === 'sign-out') {
      signIn.signOut(req.headers.get('cookie'));
      return json({ ok: true }, 200, { 'Set-Cookie': sessionCookie(undefined) });
    }
    const at = located(input.path);
    if (!at.ok) return refusal(at.message);
    const shown = shownOf(input.shown);
    const outcome = async () => {
      switch (route) {
        case 'hunks': {
          const accept = indices(input.accept);
          const reject = indices(input.reject);
          if (shown === undefined || accept === undefined || reject === undefined) return undefined;
          return at.mount.review.hunks(at.rel, shown, accept, reject);
        }
        case 'whole':
          if (shown === undefined || (input.choice !== 'accept' && input.choice !== 'reject')) return undefined;
          return at.mount.review.whole(at.rel, shown, input.choice);
        case 'settle': {
          const choice = input.choice;
          if (shown === undefined || (choice !== 'disk' && choice !== 'draft' && choice !== 'merge')) return undefined;
          if (choice === 'merge' && typeof input.merged !== 'string') return undefined;
          const merged = typeof input.merged === 'string' ? new TextEncoder().encode(input.merged) : undefined;
          return at.mount.review.settle(at.rel, shown, choice, choice === 'merge' ? merged : undefined);
        }
        case 'restore': {
          if (typeof input.version !== 'string') return undefined;
          const result = await handleToolCall(options.workspace, { name: 'restore', input: { path: at.path, version: input.version } });
          return result.success ? { ok: true as const, message: `${at.path}: version ${input.version} is the draft again; disk is untouched until it is accepted.` } : { ok: false as const, message: result.error };
        }
      }
      return undefined;
    };
    const done = await outcome();
    if (done === undefined) return refusal(`The request for ${route} is missing a field or has one of the wrong kind.`);
    void tick();
    if (done.ok) return json({ ok: true, message: done.message });
    // A refusal by rule is an answer, not a failed request: 200, so the page's console stays clean.
    return refusal(done.message, 200, 'stale' in done && done.stale ? { stale: true } : {});
  }

  function signInLink(base: string, owner: Buffer): string {
    return `${base}${REVIEW_PATH}/sign-in#code=${signIn.newCode(owner)}`;
  }

  function page(name: string, status = 200): Response {
    const file = readPage(name);
    if (file === undefined) return new Response('ws: no such file\n', { status: 404, headers: SECURITY_HEADERS });
    return new Response(file.text, { status, headers: { ...SECURITY_HEADERS, 'Content-Type': file.type } });
  }

  return {
    async answer(req, url) {
      const route = url.pathname.slice(REVIEW_PATH.length).replace(/^\/+/, '');
      if (route === 'sign-in' && req.method === 'GET') return page('sign-in.html');
      if (route === 'sign-in' && req.method === 'POST') {
        if (req.headers.get('x-ws-review') !== '1') return refusal('A sign-in needs the header "X-WS-Review: 1".', 403);
        const input = await body(req);
        const id = signIn.exchange(input?.code);
        if (id === undefined) {
          return refusal('That sign-in code is unknown, used already or expired; open a new link (ws serve prints one; `POST /review/link` with the token makes another).', 401);
        }
        return json({ ok: true }, 200, { 'Set-Cookie': sessionCookie(id) });
      }
      if (route === 'link' && req.method === 'POST') {
        const admitted = options.admitBearer(req.headers.get('authorization'));
        if (!admitted.ok) return refusal(admitted.message, admitted.status);
        return json({ ok: true, link: signInLink(`${url.protocol}//${url.host}`, admitted.owner) });
      }
      if (route.startsWith('static/') && PUBLIC.has(route.slice('static/'.length))) return page(route.slice('static/'.length));
      const signedIn = !options.signInRequired || signIn.admits(req.headers.get('cookie'));
      if (!signedIn) {
        if (route === '' && req.method === 'GET') return page('sign-in.html', 401);
        return refusal('Sign in first: open the link ws serve printed.', 401);
      }
      if (route === '' && req.method === 'GET') return page('index.html');
      if (route.startsWith('static/') && req.method === 'GET') return page(route.slice('static/'.length));
      if (route.startsWith('api/')) {
        try {
          return await api(req, route.slice('api/'.length), url);
        } catch (err) {
          options.log(`review: ${err instanceof Error ? err.message : String(err)}`);
          return refusal('ws could not answer this request; the server log says why.', 500);
        }
      }
      return refusal(`No such review page: ${url.pathname}.`, 404);
    },
    signInLink,
    keepOwners: (accepted) => signIn.keepOwners(accepted),
    close() {
      if (ticker) clearInterval(ticker);
      ticker = undefined;
      for (const end of [...closers]) end();
      listeners.clear();
    },
  };
}
