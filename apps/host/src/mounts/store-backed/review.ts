/**
 * The review page's verbs on a store-backed mount: list what differs, show one file by
 * hunk, accept and reject hunks, settle a conflict, and the notes that tell the agent
 * what a person did. The one rule: each runs under the store lock (the caller's
 * `lock.run`), checks first that disk and the draft still hold the bytes the page showed
 * (by hash), and writes disk only through `@ws/reconcile`'s guarded push — never forced —
 * so a file changed on disk since the page showed it is refused, not overwritten.
 */
import { type PathReport, looksBinary, storedState } from '@ws/reconcile';
import type { Change, ReadOutcome, Refusal, Report } from '@ws/tools';
import { type ReviewHunk, applyHunks, reviewHunks } from '../../review/hunks.ts';
import type { ReviewNote } from '../../store/store.ts';
import { type StoreMountContext, compare } from './context.ts';

/** A path whose workspace copy differs from disk's, as the page lists it. */
export interface ReviewEntry {
  readonly path: string;
  readonly kind: 'draft' | 'deletion' | 'conflict';
  /** For a conflict: its kind (`@ws/reconcile`'s README, "Conflicts"). */
  readonly conflict?: string;
  /** Other hosts whose agents drafted this path too (a shared store), where any did. */
  readonly alsoOn?: readonly string[];
  /** Changes whenever the path's records change (the draft, what disk was last seen to hold): the page reloads the file then. */
  readonly stamp: string;
}

/** The name of bytes the page shows and sends back: their SHA-256, or `absent`. */
export type Seen = string;

/** One side of a file as the page shows it. */
export interface Side {
  /** SHA-256 of the bytes, or `absent`. */
  readonly hash: Seen;
  /** The text (UTF-8; invalid bytes as U+FFFD), or null where absent or not text. */
  readonly text: string | null;
  /** Set where disk's file is not one the store keeps as text (binary, too large, unreadable): why. */
  readonly notText?: string;
}

/** One file as the page shows it. */
export interface ReviewFile {
  readonly path: string;
  /** `none`: disk and the workspace agree now (nothing to review). */
  readonly kind: ReviewEntry['kind'] | 'none';
  readonly disk: Side;
  readonly draft: Side;
  /** For a conflict: the version disk and the workspace last agreed on, where the store has it. */
  readonly agreed?: Side;
  /** Disk → draft, by hunk (empty for a deletion and where a side is not text). */
  readonly hunks: readonly ReviewHunk[];
}

/** What the page saw when the person chose: the hashes it showed. */
export interface Shown {
  readonly disk: Seen;
  readonly draft: Seen;
}

/** A refusal the page answers by showing the file again: it changed since the page showed it. */
export interface Stale extends Refusal {
  readonly stale: true;
}

export type ReviewOutcome = { readonly ok: true; readonly message: string } | Refusal | Stale;

const ABSENT = 'absent';

function decode(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
}

function hashOf(bytes: Uint8Array | null): Seen {
  return bytes === null ? ABSENT : new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/** The sentence the agent is told for a review note (`work/a.ts`: the mount's name and the path). */
export function reviewSentence(mount: string, note: ReviewNote): string {
  const where = `${mount}/${note.path}`;
  const did: string[] = [];
  if (note.accepted > 0) did.push(`accepted ${plural(note.accepted, 'hunk')} (now on disk)`);
  if (note.rejected > 0) did.push(`rejected ${plural(note.rejected, 'hunk')}`);
  if (note.merged > 0) did.push('settled the conflict with a merge (now on disk)');
  return `a person ${did.join(' and ')} of your draft of ${where}; see history`;
}

/**
 * The sentences for what a person did to the drafts at `path` (undefined: the whole
 * mount) since the agent was last told, and forgets them: they are told once.
 */
export function tellReviews(ctx: StoreMountContext, path?: string): string[] {
  const branch = ctx.store.selectedBranch();
  return ctx.store.takeReviewNotes(branch, ctx.config.name, path).map((n) => reviewSentence(ctx.config.name, n));
}

/**
 * Where the agent is told (each under the lock, after the verb itself): a read of the
 * path carries the sentence among its notes, a commit touching the path carries it in its
 * report's `reviewed`, and `status` lists every path's in `reviewed`.
 */
export const withReviewNotes = {
  read(ctx: StoreMountContext, path: string, outcome: ReadOutcome): ReadOutcome {
    if (outcome.kind !== 'file') return outcome;
    const told = tellReviews(ctx, path);
    return told.length === 0 ? outcome : { ...outcome, notes: [...told, ...outcome.notes] };
  },
  commit<T extends { readonly ok: true; readonly report: Report } | Refusal>(ctx: StoreMountContext, changes: readonly Change[], outcome: T): T {
    if (!outcome.ok) return outcome;
    const told = [...new Set(changes.map((c) => c.path))].flatMap((p) => tellReviews(ctx, p));
    return told.length === 0 ? outcome : { ...outcome, report: { ...outcome.report, reviewed: told } };
  },
  status(ctx: StoreMountContext, report: Report): Report {
    if ('failed' in report) return report;
    const told = tellReviews(ctx);
    return told.length === 0 ? report : { ...report, reviewed: told };
  },
};

/** The review verbs of one mount, each under the store lock. */
export interface ReviewVerbs {
  list(pass: boolean): Promise<{ ok: true; entries: ReviewEntry[] } | Refusal>;
  file(path: string): Promise<{ ok: true; file: ReviewFile } | Refusal>;
  hunks(path: string, shown: Shown, accept: readonly number[], reject: readonly number[]): Promise<ReviewOutcome>;
  /** A deletion, or a draft over a disk file that isn't text: accepted or rejected whole. */
  whole(path: string, shown: Shown, choice: 'accept' | 'reject'): Promise<ReviewOutcome>;
  settle(path: string, shown: Shown, choice: 'disk' | 'draft' | 'merge', merged?: Uint8Array): Promise<ReviewOutcome>;
}

/** Sentences for a fault inside a verb: the store's own sentence, never a stack. */
async function safely<T>(op: () => Promise<T>, fallback: (message: string) => T): Promise<T> {
  try {
    return await op();
  } catch (err) {
    return fallback((err instanceof Error ? err.message : String(err)).split('\n')[0]);
  }
}

export function reviewVerbs(ctx: StoreMountContext): ReviewVerbs {
  const refuse = (message: string): Refusal => ({ ok: false, message });
  const contained = (path: string, purpose: 'read' | 'change'): Refusal | null => {
    const where = ctx.contain(path, purpose);
    return where.ok ? null : refuse(where.message);
  };
  const run = <T>(op: () => Promise<T>, fallback: (message: string) => T) => safely(() => ctx.lock.run(op), fallback);
  return {
    list: (pass) => run(() => reviewList(ctx, pass), refuse),
    file: async (path) => contained(path, 'read') ?? run(() => reviewFile(ctx, path), refuse),
    hunks: async (path, shown, accept, reject) => contained(path, 'change') ?? run(() => reviewHunkChoice(ctx, path, shown, accept, reject), refuse),
    whole: async (path, shown, choice) => contained(path, 'change') ?? run(() => reviewWhole(ctx, path, shown, choice), refuse),
    settle: async (path, shown, choice, merged) => contained(path, 'change') ?? run(() => reviewSettle(ctx, path, shown, choice, merged), refuse),
  };
}

/** Every draft, deletion and conflict of the mount, in path order, from the store (after a pass where asked). */
export async function reviewList(ctx: StoreMountContext, pass: boolean): Promise<{ ok: true; entries: ReviewEntry[] } | Refusal> {
  if (pass) {
    const result = await ctx.pass({ kind: 'directory', path: '' });
    if (result.kind === 'gave-up') return { ok: false, message: ctx.words.gaveUp(result.reason) };
  }
  const branch = ctx.store.selectedBranch();
  const entries: ReviewEntry[] = [];
  for (const rec of ctx.store.scan(branch, ctx.config.name, '')) {
    const state = storedState(rec);
    const conflict = rec.mark?.conflict;
    const kind = state === 'conflict' ? 'conflict' : state === 'workspace-deleted' ? 'deletion' : state === 'workspace-draft' ? 'draft' : undefined;
    if (kind === undefined) continue;
    const stamp = hashOf(new TextEncoder().encode(JSON.stringify([rec.tree, rec.evidence, rec.mark]))).slice(0, 16);
    entries.push({ path: rec.path, kind, ...(conflict && kind === 'conflict' ? { conflict: conflict.kind } : {}), stamp });
  }
  const elsewhere = ctx.store.draftedElsewhere(branch, ctx.config.name, entries.map((e) => e.path));
  const shown = entries.map((e) => (elsewhere.has(e.path) ? { ...e, alsoOn: elsewhere.get(e.path) } : e));
  return { ok: true, entries: shown.sort((a, b) => compare(a.path, b.path)) };
}

/** What a path holds now: the pass's report, disk's bytes and the draft's. */
interface Now {
  readonly report: PathReport | undefined;
  readonly kind: ReviewFile['kind'];
  readonly disk: Uint8Array | null;
  readonly diskNotText?: string;
  readonly draft: Uint8Array | null;
}

async function now(ctx: StoreMountContext, path: string): Promise<Now | Refusal> {
  const result = await ctx.pass({ kind: 'paths', paths: [path] });
  if (result.kind === 'gave-up') return { ok: false, message: ctx.words.gaveUp(result.reason) };
  const report = result.paths.find((p) => p.path === path);
  const branch = result.branch;
  const rec = ctx.store.read(branch, ctx.config.name, path);
  const state = storedState(rec);
  const kind: Now['kind'] =
    state === 'conflict' ? 'conflict' : state === 'workspace-deleted' ? 'deletion' : state === 'workspace-draft' ? 'draft' : 'none';
  const draft = rec.tree === null ? null : ctx.store.getBlob(rec.tree.hash);
  const reading = await ctx.disk.read(path, ctx.config.maxFileSize);
  if (reading.kind === 'absent') return { report, kind, disk: null, draft };
  if (reading.kind === 'unobservable') return { report, kind, disk: null, diskNotText: reading.reason, draft };
  if (reading.bytes === null) return { report, kind, disk: null, diskNotText: ctx.words.contentTooLarge(path, reading.meta.size, ctx.config.maxFileSize), draft };
  if (looksBinary(reading.bytes)) return { report, kind, disk: reading.bytes, diskNotText: `disk's ${path} is a binary file`, draft };
  return { report, kind, disk: reading.bytes, draft };
}

function side(bytes: Uint8Array | null, notText?: string): Side {
  return { hash: hashOf(bytes), text: bytes === null || notText !== undefined ? null : decode(bytes), ...(notText ? { notText } : {}) };
}

/** One file as the page shows it, after the read's disk check. */
export async function reviewFile(ctx: StoreMountContext, path: string): Promise<{ ok: true; file: ReviewFile } | Refusal> {
  const at = await now(ctx, path);
  if ('ok' in at) return at;
  const text = at.diskNotText === undefined;
  const hunks = at.kind === 'deletion' || at.kind === 'none' || !text ? [] : reviewHunks(at.disk, at.draft);
  let agreed: Side | undefined;
  if (at.kind === 'conflict') {
    const evidence = ctx.store.read(ctx.store.selectedBranch(), ctx.config.name, path).evidence;
    if (evidence?.kind === 'absent') agreed = side(null);
    else if (evidence?.kind === 'text') {
      const bytes = ctx.store.getBlob(evidence.hash);
      if (bytes !== null) agreed = side(bytes);
    }
  }
  return {
    ok: true,
    file: { path, kind: at.kind, disk: side(at.disk, at.diskNotText), draft: side(at.draft), ...(agreed ? { agreed } : {}), hunks },
  };
}

function stale(path: string, why: string): Stale {
  return { ok: false, stale: true, message: `${path} ${why} since the page showed it; nothing was changed, and it is shown again.` };
}

/** The path now, after the read's disk check; refused as stale where disk or the draft no longer holds what the page showed. */
async function nowAsShown(ctx: StoreMountContext, path: string, shown: Shown): Promise<Now | Refusal | Stale> {
  const at = await now(ctx, path);
  if ('ok' in at) return at;
  if (hashOf(at.disk) !== shown.disk) return stale(path, 'changed on disk');
  if (hashOf(at.draft) !== shown.draft) return stale(path, "changed in the agent's workspace");
  return at;
}

/** Pushes `path` with the guard (never forced); null when disk now holds the workspace's copy, else why not. */
async function guardedPush(ctx: StoreMountContext, path: string): Promise<string | null> {
  const pushed = await ctx.reconciler.push({ scope: { kind: 'paths', paths: [path] } });
  if (pushed.kind === 'gave-up') return ctx.words.gaveUp(pushed.reason);
  if (pushed.written.includes(path) || pushed.deleted.includes(path) || pushed.unchanged.includes(path)) return null;
  const skipped = pushed.skipped.find((s) => s.path === path);
  return skipped?.reason ?? `${path} was not written.`;
}

/**
 * Accepts and rejects hunks of a draft (indices into `reviewFile`'s hunks): disk gets
 * exactly the accepted hunks, through the guarded push; the draft keeps every hunk not
 * rejected. Under the lock.
 */
export async function reviewHunkChoice(
  ctx: StoreMountContext,
  path: string,
  shown: Shown,
  accept: readonly number[],
  reject: readonly number[],
): Promise<ReviewOutcome> {
  if (ctx.config.readOnly) return { ok: false, message: ctx.words.readOnly() };
  const at = await nowAsShown(ctx, path, shown);
  if ('ok' in at) return at;
  if (at.kind === 'conflict') return stale(path, 'became a conflict');
  if (at.kind !== 'draft') return stale(path, at.kind === 'none' ? 'no longer has a draft' : 'is a deletion now');
  if (at.diskNotText !== undefined) return { ok: false, message: `${at.diskNotText}; accept or reject the whole file.` };
  const hunks = reviewHunks(at.disk, at.draft);
  const accepted = new Set(accept);
  const rejected = new Set(reject);
  for (const i of [...accepted, ...rejected]) {
    if (!Number.isInteger(i) || i < 0 || i >= hunks.length) return stale(path, `has ${plural(hunks.length, 'hunk')}, not a hunk ${i}`);
    if (accepted.has(i) && rejected.has(i)) return { ok: false, message: `Hunk ${i + 1} of ${path} can't be both accepted and rejected.` };
  }
  if (accepted.size + rejected.size === 0) return { ok: false, message: 'Choose at least one hunk to accept or reject.' };
  const kept = new Set(hunks.map((h) => h.index).filter((i) => !rejected.has(i)));
  const noneKept = kept.size === 0 && at.disk === null;
  const remaining = noneKept ? null : applyHunks(at.disk, at.draft, hunks, kept);
  const branch = ctx.store.selectedBranch();
  if (accepted.size > 0) {
    const target = applyHunks(at.disk, at.draft, hunks, accepted);
    ctx.reconciler.recordDrafts([{ path, bytes: target, source: 'review' }]);
    const refused = await guardedPush(ctx, path);
    if (refused !== null) {
      // Put the draft back as it was: nothing the person chose was done.
      ctx.reconciler.recordDrafts([{ path, bytes: at.draft, source: 'review' }]);
      return { ok: false, stale: true, message: `${refused} Nothing was changed; ${path} is shown again.` };
    }
    if (remaining === null || Buffer.compare(remaining, target) !== 0) ctx.reconciler.recordDrafts([{ path, bytes: remaining, source: 'review' }]);
  } else {
    ctx.reconciler.recordDrafts([{ path, bytes: remaining, source: 'review' }]);
  }
  ctx.store.addReviewNote(branch, ctx.config.name, { path, accepted: accepted.size, rejected: rejected.size, merged: 0 });
  const left = hunks.length - accepted.size - rejected.size;
  const parts = [
    ...(accepted.size > 0 ? [`${plural(accepted.size, 'hunk')} written to disk`] : []),
    ...(rejected.size > 0 ? [`${plural(rejected.size, 'hunk')} taken out of the draft`] : []),
  ];
  return { ok: true, message: `${path}: ${parts.join(', ')}; ${left === 0 ? 'nothing is left to review' : `${plural(left, 'hunk')} left`}.` };
}

/**
 * Accepts or rejects a change that has no hunks, whole: a pending deletion, or a draft over
 * a disk file that isn't text (binary, too large, unreadable). Accepted, it is pushed with
 * the guard; rejected, it is dropped as `discard` drops it (the workspace reads disk's
 * copy again).
 */
export async function reviewWhole(ctx: StoreMountContext, path: string, shown: Shown, choice: 'accept' | 'reject'): Promise<ReviewOutcome> {
  if (ctx.config.readOnly) return { ok: false, message: ctx.words.readOnly() };
  const at = await nowAsShown(ctx, path, shown);
  if ('ok' in at) return at;
  const whole = at.kind === 'deletion' || (at.kind === 'draft' && at.diskNotText !== undefined);
  if (!whole) return stale(path, at.kind === 'draft' ? 'has hunks to choose from' : `is ${at.kind === 'none' ? 'no longer a draft' : 'a conflict now'}`);
  const branch = ctx.store.selectedBranch();
  if (choice === 'accept') {
    const refused = await guardedPush(ctx, path);
    if (refused !== null) return { ok: false, stale: true, message: `${refused} Nothing was changed; ${path} is shown again.` };
    ctx.store.addReviewNote(branch, ctx.config.name, { path, accepted: 1, rejected: 0, merged: 0 });
    return { ok: true, message: at.kind === 'deletion' ? `${path} was deleted on disk.` : `The draft of ${path} is on disk.` };
  }
  const taken = await ctx.reconciler.discard({ scope: { kind: 'paths', paths: [path] } });
  if (taken.kind === 'gave-up') return { ok: false, message: ctx.words.gaveUp(taken.reason) };
  ctx.store.addReviewNote(branch, ctx.config.name, { path, accepted: 0, rejected: 1, merged: 0 });
  return { ok: true, message: `The ${at.kind === 'deletion' ? 'deletion' : 'draft'} of ${path} was taken out of the workspace; it reads disk's copy again.` };
}

/**
 * Settles a conflict: take disk's copy, take the draft, or a merge the person edited. A
 * draft or a merge becomes the draft over disk's copy as the page showed it, then is
 * pushed with the guard — so a disk change made since the page showed it is refused.
 */
export async function reviewSettle(
  ctx: StoreMountContext,
  path: string,
  shown: Shown,
  choice: 'disk' | 'draft' | 'merge',
  merged?: Uint8Array,
): Promise<ReviewOutcome> {
  if (ctx.config.readOnly) return { ok: false, message: ctx.words.readOnly() };
  if (choice === 'merge' && merged === undefined) return { ok: false, message: 'A merge needs its text.' };
  if (merged !== undefined && merged.length > ctx.config.maxFileSize) {
    return { ok: false, message: ctx.words.contentTooLarge(path, merged.length, ctx.config.maxFileSize) };
  }
  const at = await nowAsShown(ctx, path, shown);
  if ('ok' in at) return at;
  if (at.kind !== 'conflict') return stale(path, 'is no longer a conflict');
  // Disk's copy as shown becomes the agreed version (a discard: the draft stays in history).
  const taken = await ctx.reconciler.discard({ scope: { kind: 'paths', paths: [path] } });
  if (taken.kind === 'gave-up') return { ok: false, message: ctx.words.gaveUp(taken.reason) };
  const tree = ctx.store.read(taken.branch, ctx.config.name, path).tree;
  const branch = taken.branch;
  if ((tree === null ? ABSENT : tree.hash) !== shown.disk) {
    // Disk changed between the check and taking it in: keep the draft, refuse.
    ctx.reconciler.recordDrafts([{ path, bytes: at.draft, source: 'review' }]);
    return stale(path, 'changed on disk');
  }
  if (choice === 'disk') {
    ctx.store.addReviewNote(branch, ctx.config.name, { path, accepted: 0, rejected: 1, merged: 0 });
    return { ok: true, message: `${path}: disk's copy kept; the draft is in history.` };
  }
  const bytes = choice === 'merge' ? (merged as Uint8Array) : at.draft;
  ctx.reconciler.recordDrafts([{ path, bytes, source: 'review' }]);
  const refused = await guardedPush(ctx, path);
  if (refused !== null) return { ok: false, stale: true, message: `${refused} The ${choice} is kept as the draft; ${path} is shown again.` };
  ctx.store.addReviewNote(branch, ctx.config.name, { path, accepted: choice === 'draft' ? 1 : 0, rejected: 0, merged: choice === 'merge' ? 1 : 0 });
  return { ok: true, message: `${path}: ${choice === 'merge' ? 'the merge' : "the agent's draft"} is on disk.` };
}
