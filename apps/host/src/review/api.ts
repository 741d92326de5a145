/**
 * The review page's JSON API (`/review/api/…`) over the store-backed mounts' review verbs:
 * GET reads (the list, a file's hunks, its history, one version), POST changes. The one
 * rule: every change is a POST carrying `X-WS-Review: 1`, which no other site's page can
 * send without asking; a refusal by rule is an answer (200), a malformed request is not.
 */
import { type Mount, type Workspace, handleToolCall, locate } from '@ws/tools';
import type { StoreMount } from '../mounts/store-backed/mount.ts';
import type { Shown } from '../mounts/store-backed/review.ts';
import { body, json, refusal } from './answers.ts';
import type { DraftFeed } from './feed.ts';
import { type SignIn, sessionCookie } from './sign-in.ts';

/** What the API's routes share. */
export interface ReviewContext {
  readonly workspace: Workspace;
  /** The store-backed mounts: the ones with drafts to review. */
  readonly mounts: readonly StoreMount[];
  readonly signIn: SignIn;
  readonly feed: DraftFeed;
}

/** The API's changes. */
const POST_ROUTES = new Set(['hunks', 'whole', 'settle', 'restore', 'sign-out']);

/** A file a page names, found: its mount, its mount-relative path and its workspace path. */
interface Located {
  readonly mount: StoreMount;
  readonly rel: string;
  readonly path: string;
}

/** What a change came to: done, or refused by rule (`stale`: the page showed an old state). */
type Outcome = { ok: true; message: string } | { ok: false; message: string; stale?: boolean };

/** Answers one API request (`route` is the part after `api/`). */
export async function answerApi(ctx: ReviewContext, req: Request, route: string, url: URL): Promise<Response> {
  if (req.method === 'GET') return answerGet(ctx, route, url);
  if (req.method !== 'POST') return refusal('The review API answers GET and POST only.', 405);
  if (!POST_ROUTES.has(route)) return refusal(`No such review API: POST ${route}.`, 404);
  if (req.headers.get('x-ws-review') !== '1') return refusal('A change needs the header "X-WS-Review: 1".', 403);
  const input = await body(req);
  if (input === undefined) return refusal('The request body must be a JSON object.');
  if (route === 'sign-out') {
    ctx.signIn.signOut(req.headers.get('cookie'));
    return json({ ok: true }, 200, { 'Set-Cookie': sessionCookie(undefined) });
  }
  const at = located(ctx, input.path);
  if (!at.ok) return refusal(at.message);
  const done = await change(ctx, route, at, input);
  if (done === undefined) return refusal(`The request for ${route} is missing a field or has one of the wrong kind.`);
  void ctx.feed.tick();
  if (done.ok) return json({ ok: true, message: done.message });
  // A refusal by rule is an answer, not a failed request: 200, so the page's console stays clean.
  return refusal(done.message, 200, 'stale' in done && done.stale ? { stale: true } : {});
}

async function answerGet(ctx: ReviewContext, route: string, url: URL): Promise<Response> {
  switch (route) {
    case 'drafts':
      return json({ ok: true, ...(await ctx.feed.listing(true)) });
    case 'events':
      return ctx.feed.events();
    case 'file': {
      const at = located(ctx, url.searchParams.get('path'));
      if (!at.ok) return refusal(at.message);
      const found = await at.mount.review.file(at.rel);
      return found.ok ? json({ ok: true, mount: at.mount.name, path: at.path, file: found.file }) : refusal(found.message, 200);
    }
    case 'history': {
      const at = located(ctx, url.searchParams.get('path'));
      if (!at.ok) return refusal(at.message);
      const mount: Mount = at.mount;
      if (mount.history === undefined) return refusal(`Mount ${mount.name} keeps no history.`, 200);
      const found = await mount.history(at.rel);
      return found.ok ? json({ ok: true, path: at.path, versions: found.versions }) : refusal(found.message, 200);
    }
    case 'version':
      return answerVersion(ctx, url);
  }
  return refusal(`No such review API: GET ${route}.`, 404);
}

async function answerVersion(ctx: ReviewContext, url: URL): Promise<Response> {
  const at = located(ctx, url.searchParams.get('path'));
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

/** Makes one change; undefined when the request lacks a field or has one of the wrong kind. */
async function change(ctx: ReviewContext, route: string, at: Located, input: Record<string, unknown>): Promise<Outcome | undefined> {
  const shown = shownOf(input.shown);
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
      const result = await handleToolCall(ctx.workspace, { name: 'restore', input: { path: at.path, version: input.version } });
      return result.success
        ? { ok: true, message: `${at.path}: version ${input.version} is the draft again; disk is untouched until it is accepted.` }
        : { ok: false, message: result.error };
    }
  }
  return undefined;
}

/** The mount and mount-relative path a page's `path` (mount-prefixed) names. */
function located(ctx: ReviewContext, raw: unknown): ({ ok: true } & Located) | { ok: false; message: string } {
  if (typeof raw !== 'string' || raw === '') return { ok: false, message: 'Name the file, as mount/path.' };
  const at = locate(ctx.workspace, raw);
  if (!at.ok) return at;
  const mount = ctx.mounts.find((m) => m.name === at.mount.name);
  if (mount === undefined) return { ok: false, message: `${at.mount.name} is a direct mount: its changes are on disk already, with nothing to review.` };
  if (at.rel === '') return { ok: false, message: `${raw} is a mount; name a file in it.` };
  return { ok: true, mount, rel: at.rel, path: at.path };
}

/** The disk and draft text the page showed when the person chose (so a change since is noticed). */
function shownOf(value: unknown): Shown | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { disk, draft } = value as Record<string, unknown>;
  return typeof disk === 'string' && typeof draft === 'string' ? { disk, draft } : undefined;
}

/** A list of hunk indices (absent: none), or undefined when it is not one. */
function indices(value: unknown): number[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 100_000 || !value.every((v) => Number.isInteger(v))) return undefined;
  return value as number[];
}
