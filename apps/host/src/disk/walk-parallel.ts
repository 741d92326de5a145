/**
 * A whole walk with its subtrees walked in Workers (issue 15, target 3: `git status`
 * stats on several threads too). This thread lists the top of the tree itself — the
 * directory walked and up to two levels beneath it ({@link LIST_DEPTH} in all), until
 * there are {@link TASKS} subtrees — and hands every batch of subtrees to the Workers at once:
 * each Worker claims the next batch nobody has claimed, through a counter they share, so
 * they go on while the calling thread is busy (a pass scans the store meanwhile; a
 * Worker that waited for this thread to hand it its next batch sat idle until the scan
 * ended, 0.15 s into a 0.4 s sync with nothing changed). The one
 * rule: the result is the one {@link visitTree} gives on one thread, entry for entry and
 * in the same order — every directory listed by the same code under the same rules, the
 * parts put back in path order, what was passed over in the order one walk meets it. A
 * walk past the cap answers null (the caller walks on one thread, so the cap cuts the
 * walk where it always did); a Worker that fails has its subtrees walked here.
 */
import type { FileMeta } from '@ws/reconcile';
import { availableParallelism } from 'node:os';
import { isLeftover } from './boundary.ts';
import type { TimeKeeping } from './fingerprint.ts';
import type { StatInfo } from './libc.ts';
import { openDirectory } from './resolve.ts';
import type { WalkRules, WalkRulesSpec } from './rules.ts';
import { newTally, visitTree } from './walk.ts';
import { workerUrl } from '../worker-file.ts';

/** A walk's work, given to each of its Workers: batches of subtrees, each walked from its root down by the Worker that claims it. */
export interface WalkTask {
  readonly id: number;
  /**
   * The walk this task is a part of (unique in the process): a Worker makes its rules once
   * a walk — each ignore file read once, as one thread's walk reads it — and afresh for
   * the next walk, so an ignore file edited between walks counts from the next.
   */
  readonly walk: number;
  readonly root: string;
  /** The batches: each a list of subtrees, walked in this order. */
  readonly batches: readonly (readonly string[])[];
  /**
   * Shared by the walk's Workers (a SharedArrayBuffer): `[0]` is the next batch to claim.
   * A Worker claims one by adding 1 and walks it where the old count is a batch.
   */
  readonly claims: Int32Array;
  readonly rules: WalkRulesSpec;
  readonly granularityMs: number;
  readonly coarseMs: number | null;
  readonly cap: number;
}

/** One subtree as a Worker walked it: files as joined strings and numbers, so a message carries few objects. */
export interface WalkedPart {
  readonly files: number;
  /** The files' paths, joined by NUL. */
  readonly paths: string;
  /** Their fingerprints, joined by NUL. */
  readonly fingerprints: string;
  /** Size, mtime, ctime and mode (-1: none) of each file, four numbers a file. */
  readonly numbers: Float64Array;
  readonly directories: readonly string[];
  readonly passedOver: readonly (readonly [string, string, boolean])[];
  readonly unreadable: readonly { path: string; reason: string }[];
  /** ws temporary files met, with their mtimes: this thread removes the leftovers. */
  readonly temporary: readonly (readonly [string, number])[];
  /** Entries visited (files and directories), as a cap counts them. */
  readonly seen: number;
  readonly incomplete: string | null;
}

/**
 * What a Worker tells of a {@link WalkTask}: a batch it walked (its parts, a subtree each,
 * in the batch's order), a batch it could not walk (this thread walks it), and at last
 * that it claims no more.
 */
export type WalkReply =
  | { readonly id: number; readonly batch: number; readonly parts: WalkedPart[] }
  | { readonly id: number; readonly batch: number; readonly error: string }
  | { readonly id: number; readonly done: true };

/** A walk's result, as `HostDisk.walk` gives it. */
export interface ParallelWalk {
  readonly files: { path: string; meta: FileMeta }[];
  readonly directories: string[];
  readonly passedOver: { path: string; reason: string; directory: boolean }[];
  readonly unreadable: { path: string; reason: string }[];
}

/** Subtrees Workers have walked in this process (tests check the Workers did walk). */
export const walkedInWorkers = { parts: 0 };

/**
 * Whether the calling thread claims batches of subtrees too, once its caller has let it
 * go on (a pass scans the store first), and subtrees it walked so (tests check it did).
 * `joins` is mutable for tests only: false leaves every batch to the Workers.
 */
export const callerWalks: { joins: boolean; parts: number } = { joins: true, parts: 0 };

/** How many subtrees this thread lists its way down to before handing them out. */
const TASKS = 8;
/** How many levels this thread lists at most, the walked directory's own included. */
const LIST_DEPTH = 3;
/** Batches a Worker's share is cut into: enough for few messages, few enough to share the work out evenly. */
const BATCHES_PER_WORKER = 4;
/** Tasks given in this process: a reply names its task. */
let tasksGiven = 0;

// The built bin and the compiled executable take the Worker as an entry of their own and
// name its file as it lies beside them (see `grep/runner.ts`); the sources name it here.
declare const WS_WALK_WORKER: string | undefined;
const WORKER = typeof WS_WALK_WORKER === 'string' ? WS_WALK_WORKER : './walk-worker.ts';

/**
 * How many Workers a large walk uses: `WS_WALK_WORKERS` where set (0: none, every
 * subtree walked on the calling thread), else one a core, at most 4 — and one on two
 * cores or fewer. The calling thread walks beside them once its caller lets it
 * ({@link callerWalks}): a pass scans the store while the Worker walks, then both walk.
 * Before this thread joined, Workers made a two-core walk no sooner (a sync with nothing
 * changed took 572 ms on one thread and 580 ms with two Workers, the thread waiting on
 * them); with it, one Worker took that sync from 430 to 370 ms (medians of 12 pairs), for
 * 17 MiB more at its peak (the host README, "A walk's Worker on two cores").
 */
export function walkWorkers(cores: number = availableParallelism()): number {
  const set = process.env.WS_WALK_WORKERS;
  if (set !== undefined && /^\d+$/.test(set)) return Math.min(Number(set), 8);
  return cores <= 2 ? 1 : Math.min(4, cores);
}

/** Options for one walk in parallel. */
export interface ParallelOptions {
  readonly root: string;
  readonly from: string;
  readonly rules: WalkRules & { readonly spec: WalkRulesSpec };
  readonly time: TimeKeeping;
  readonly cap: number;
  /** Which walk this is (see {@link WalkTask.walk}). */
  readonly walk: number;
  readonly workers: number;
  /** Use Workers only where the top of the tree shows at least this many entries or {@link TASKS}/2 subtrees (tests: 0). */
  readonly minEntries: number;
  readonly metaOf: (info: StatInfo) => FileMeta;
}

type Item = { kind: 'file'; path: string; meta: FileMeta } | { kind: 'directory'; path: string; listed?: Listed; part?: Part };

/** A directory this thread listed: its entries in walk order, and what its listing passed over or could not read. */
interface Listed {
  readonly items: Item[];
  readonly passedOver: { path: string; reason: string; directory: boolean }[];
  readonly unreadable: { path: string; reason: string }[];
}

/** A subtree walked here, or by a Worker (decoded when the whole is put together). */
type Part = { readonly here: ParallelWalk & { seen: number; incomplete: string | null } } | { readonly there: WalkedPart };

/** Walks `from` with its subtrees in Workers; null where the walk goes past the cap. */
export async function walkInParallel(options: ParallelOptions): Promise<ParallelWalk | null> {
  const { root, rules, cap } = options;
  let seen = 0;
  const list = (dir: string, fromListed: boolean): Listed => {
    const listed: Listed = { items: [], passedOver: [], unreadable: [] };
    const tally = newTally();
    visitTree(
      {
        root,
        from: dir,
        rules,
        followSymlinks: false,
        cap: Number.POSITIVE_INFINITY,
        shallow: true,
        fromListed,
        onPassOver: (path, reason, directory) => listed.passedOver.push({ path, reason, directory }),
      },
      tally,
      (path, kind, info) => {
        seen++;
        listed.items.push(kind === 'file' && info !== null ? { kind: 'file', path, meta: options.metaOf(info) } : { kind: 'directory', path });
      },
    );
    listed.unreadable.push(...tally.unreadable);
    return listed;
  };
  const subdirectories = (l: Listed) => l.items.filter((i): i is Item & { kind: 'directory' } => i.kind === 'directory');

  const top = list(options.from, false);
  let frontier = subdirectories(top);
  for (let depth = 1; depth < LIST_DEPTH && frontier.length > 0 && frontier.length < TASKS; depth++) {
    const next: (Item & { kind: 'directory' })[] = [];
    for (const d of frontier) {
      d.listed = list(d.path, true);
      next.push(...subdirectories(d.listed));
    }
    frontier = next;
    if (seen > cap) return null;
  }

  const here = (dir: Item & { kind: 'directory' }) => {
    dir.part = { here: walkHere(options, dir.path) };
  };
  const useWorkers = options.workers > 0 && frontier.length >= 2 && (frontier.length >= TASKS / 2 || seen >= options.minEntries);
  if (useWorkers) await inWorkers(options, frontier, here);
  for (const d of frontier) if (d.part === undefined) here(d);

  const out: ParallelWalk = { files: [], directories: [], passedOver: [], unreadable: [] };
  const temporary: (readonly [string, number])[] = [];
  let over = false;
  const putPart = (part: Part) => {
    if ('here' in part) {
      const p = part.here;
      for (const f of p.files) out.files.push(f);
      for (const d of p.directories) out.directories.push(d);
      for (const o of p.passedOver) out.passedOver.push(o);
      for (const u of p.unreadable) out.unreadable.push(u);
      seen += p.seen;
      if (p.incomplete !== null) over = true;
      return;
    }
    const p = part.there;
    walkedInWorkers.parts++;
    if (p.files > 0) {
      const paths = p.paths.split('\u0000');
      const fingerprints = p.fingerprints.split('\u0000');
      const n = p.numbers;
      for (let i = 0; i < p.files; i++) {
        const mode = n[4 * i + 3];
        out.files.push({
          path: paths[i],
          meta: { size: n[4 * i], mtimeMs: n[4 * i + 1], ctimeMs: n[4 * i + 2], mode: mode === -1 ? null : mode, fingerprint: fingerprints[i] },
        });
      }
    }
    for (const d of p.directories) out.directories.push(d);
    for (const [path, reason, directory] of p.passedOver) out.passedOver.push({ path, reason, directory });
    for (const u of p.unreadable) out.unreadable.push(u);
    for (const t of p.temporary) temporary.push(t);
    seen += p.seen;
    if (p.incomplete !== null) over = true;
  };
  const put = (l: Listed) => {
    for (const o of l.passedOver) out.passedOver.push(o);
    for (const u of l.unreadable) out.unreadable.push(u);
    for (const item of l.items) {
      if (item.kind === 'file') {
        out.files.push({ path: item.path, meta: item.meta });
        continue;
      }
      out.directories.push(item.path);
      if (item.listed !== undefined) put(item.listed);
      else if (item.part !== undefined) putPart(item.part);
    }
  };
  put(top);
  if (over || seen > cap) return null;
  removeLeftovers(root, temporary);
  return out;
}

/** A subtree walked on this thread, as a Worker would have walked it. */
function walkHere(options: ParallelOptions, from: string): ParallelWalk & { seen: number; incomplete: string | null } {
  const out = { files: [] as { path: string; meta: FileMeta }[], directories: [] as string[], passedOver: [] as ParallelWalk['passedOver'], unreadable: [] as ParallelWalk['unreadable'], seen: 0, incomplete: null as string | null };
  const tally = newTally();
  visitTree(
    {
      root: options.root,
      from,
      rules: options.rules,
      followSymlinks: false,
      cap: options.cap,
      fromListed: true,
      onPassOver: (path, reason, directory) => out.passedOver.push({ path, reason, directory }),
    },
    tally,
    (path, kind, info) => {
      out.seen++;
      if (kind === 'directory') out.directories.push(path);
      else if (info !== null) out.files.push({ path, meta: options.metaOf(info) });
    },
  );
  out.unreadable.push(...tally.unreadable);
  out.incomplete = tally.incomplete ?? null;
  return out;
}

/**
 * Hands the subtrees to Workers, every batch at once, until each batch is walked or the
 * Worker that claimed it failed (those are left for this thread, as are all of them where
 * no Worker starts). Once its caller lets it go on, this thread claims batches too, from
 * the same counter, and walks them itself. Resolves when nobody claims more.
 */
async function inWorkers(options: ParallelOptions, dirs: (Item & { kind: 'directory' })[], here: (d: Item & { kind: 'directory' }) => void): Promise<void> {
  // The Workers' shares and this thread's, each cut into a few batches.
  const size = Math.max(1, Math.ceil(dirs.length / ((options.workers + 1) * BATCHES_PER_WORKER)));
  const batches: (Item & { kind: 'directory' })[][] = [];
  for (let i = 0; i < dirs.length; i += size) batches.push(dirs.slice(i, i + size));
  const claims = new Int32Array(new SharedArrayBuffer(4));
  const paths = batches.map((b) => b.map((d) => d.path));
  const one = () =>
    new Promise<void>((done) => {
      let worker: Worker;
      try {
        worker = takeWorker();
      } catch {
        done(); // no Worker here: this thread walks what is left
        return;
      }
      const task: WalkTask = {
        id: ++tasksGiven,
        walk: options.walk,
        root: options.root,
        batches: paths,
        claims,
        rules: options.rules.spec,
        granularityMs: options.time.granularityMs,
        coarseMs: options.time.coarseMs,
        cap: options.cap,
      };
      worker.onmessage = (event: MessageEvent<WalkReply>) => {
        const reply = event.data;
        if (reply.id !== task.id) return;
        if ('done' in reply) {
          putBack(worker);
          done();
        } else if ('error' in reply) {
          for (const d of batches[reply.batch]) here(d);
        } else {
          reply.parts.forEach((part, i) => {
            batches[reply.batch][i].part = { there: part };
          });
        }
      };
      worker.onerror = () => {
        // Its claimed batch, unanswered, is walked here after; the Worker takes no more.
        worker.onmessage = null;
        worker.terminate();
        done();
      };
      worker.postMessage(task);
    });
  const walked = Promise.all(Array.from({ length: Math.min(options.workers, batches.length) }, one));
  // The caller goes on first (a pass reads the store, synchronously, while the Workers walk).
  await null;
  while (callerWalks.joins) {
    const batch = Atomics.add(claims, 0, 1);
    if (batch >= batches.length) break;
    for (const d of batches[batch]) {
      here(d);
      callerWalks.parts++;
    }
  }
  await walked;
}

/**
 * Workers kept between walks, unreferenced (they never keep the process alive): a server
 * walks again and again, and ending a Worker holds up the thread that ends it (a tenth of
 * a second and more), so they are ended only after {@link IDLE_MS} unused.
 */
const idle: Worker[] = [];
let idleTimer: ReturnType<typeof setTimeout> | undefined;
const IDLE_MS = 30_000;

type Refable = Worker & { ref?: () => void; unref?: () => void };

function takeWorker(): Worker {
  const worker: Refable = idle.pop() ?? new Worker(workerUrl(WORKER, import.meta.url).href, { smol: true } as WorkerOptions);
  worker.ref?.();
  return worker;
}

function putBack(worker: Refable): void {
  worker.onmessage = null;
  worker.onerror = null;
  worker.unref?.();
  idle.push(worker);
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    for (const w of idle.splice(0)) w.terminate();
  }, IDLE_MS);
  (idleTimer as { unref?: () => void }).unref?.();
}

/** Removes the leftovers among the temporary files Workers met (as a walk on this thread does when it meets one). */
export function removeLeftovers(root: string, temporary: readonly (readonly [string, number])[]): void {
  const nowMs = Date.now();
  for (const [path, mtimeMs] of temporary) {
    const cut = path.lastIndexOf('/');
    const name = path.slice(cut + 1);
    if (!isLeftover(name, mtimeMs, nowMs)) continue;
    try {
      const opened = openDirectory(root, cut < 0 ? '' : path.slice(0, cut), false);
      if (!opened.ok) continue;
      try {
        if (opened.dir.lstat(name)?.type === 'file') opened.dir.unlink(name);
      } finally {
        opened.dir.close();
      }
    } catch {
      // Another sweep took it, or it cannot be removed: it is passed over either way.
    }
  }
}
