/**
 * The review page's HTTP side, on `ws serve`'s port: the sign-in exchange, the static page,
 * a JSON API over the store-backed mounts' review verbs, and a server-sent event stream
 * that keeps the page's list current. The one rule: nothing but the sign-in page, its
 * script and its style is answered without a signed-in cookie (401), every change is a
 * POST carrying `X-WS-Review: 1` (which no other site's page can send without asking),
 * and every answer is one sentence on failure — never a stack.
 */
import type { Workspace } from '@ws/tools';
import type { StoreMount } from '../mounts/store-backed/mount.ts';
import { body, json, page, refusal } from './answers.ts';
import { type ReviewContext, answerApi } from './api.ts';
import { DraftFeed } from './feed.ts';
import { SignIn, sessionCookie } from './sign-in.ts';

/** Where the page lives. */
export const REVIEW_PATH = '/review';

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

/** The public files: what a browser needs before it is signed in. */
const PUBLIC = new Set(['sign-in.js', 'style.css']);

/** The store-backed mounts: the ones with drafts to review. */
function storeMounts(workspace: Workspace): StoreMount[] {
  return workspace.mounts.filter((m): m is StoreMount => m.backend === 'store' && 'review' in m);
}

/** Starts the review server over a workspace. */
export function reviewServer(options: ReviewOptions): ReviewServer {
  const signIn = new SignIn();
  const mounts = storeMounts(options.workspace);
  const ctx: ReviewContext = { workspace: options.workspace, mounts, signIn, feed: new DraftFeed(mounts, options.log) };
  return {
    answer: (req, url) => answer(ctx, options, req, url),
    signInLink: (base, owner) => signInLink(signIn, base, owner),
    keepOwners: (accepted) => signIn.keepOwners(accepted),
    close: () => ctx.feed.close(),
  };
}

/** Answers a request beneath `/review`: sign-in and the public files first, everything else only signed in. */
async function answer(ctx: ReviewContext, options: ReviewOptions, req: Request, url: URL): Promise<Response> {
  const route = url.pathname.slice(REVIEW_PATH.length).replace(/^\/+/, '');
  if (route === 'sign-in' && req.method === 'GET') return page('sign-in.html');
  if (route === 'sign-in' && req.method === 'POST') return exchange(ctx.signIn, req);
  if (route === 'link' && req.method === 'POST') {
    const admitted = options.admitBearer(req.headers.get('authorization'));
    if (!admitted.ok) return refusal(admitted.message, admitted.status);
    return json({ ok: true, link: signInLink(ctx.signIn, `${url.protocol}//${url.host}`, admitted.owner) });
  }
  if (route.startsWith('static/') && PUBLIC.has(route.slice('static/'.length))) return page(route.slice('static/'.length));
  const signedIn = !options.signInRequired || ctx.signIn.admits(req.headers.get('cookie'));
  if (!signedIn) {
    if (route === '' && req.method === 'GET') return page('sign-in.html', 401);
    return refusal('Sign in first: open the link ws serve printed.', 401);
  }
  if (route === '' && req.method === 'GET') return page('index.html');
  if (route.startsWith('static/') && req.method === 'GET') return page(route.slice('static/'.length));
  if (route.startsWith('api/')) {
    try {
      return await answerApi(ctx, req, route.slice('api/'.length), url);
    } catch (err) {
      options.log(`review: ${err instanceof Error ? err.message : String(err)}`);
      return refusal('ws could not answer this request; the server log says why.', 500);
    }
  }
  return refusal(`No such review page: ${url.pathname}.`, 404);
}

/** A sign-in link for `base`, with a new one-time code for `owner`. */
function signInLink(signIn: SignIn, base: string, owner: Buffer): string {
  return `${base}${REVIEW_PATH}/sign-in#code=${signIn.newCode(owner)}`;
}

/** A sign-in: a one-time code from a link exchanged for a session cookie. */
async function exchange(signIn: SignIn, req: Request): Promise<Response> {
  if (req.headers.get('x-ws-review') !== '1') return refusal('A sign-in needs the header "X-WS-Review: 1".', 403);
  const input = await body(req);
  const id = signIn.exchange(input?.code);
  if (id === undefined) {
    return refusal('That sign-in code is unknown, used already or expired; open a new link (ws serve prints one; `POST /review/link` with the token makes another).', 401);
  }
  return json({ ok: true }, 200, { 'Set-Cookie': sessionCookie(id) });
}
