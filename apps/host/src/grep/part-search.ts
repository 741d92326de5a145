/**
 * A part of a direct mount's tree walked, read and searched in one go (a one-shot grep's
 * parts: `mounts/direct.ts`), on whichever thread takes it — grep's Worker or the calling
 * thread — as ripgrep's threads each walk, read and search. Each file is read from the
 * directory the walk holds while it lists it (`HeldDir.readWhole`: never through a link,
 * nothing but a regular file opened), so no path is resolved again for the read; each is
 * searched ahead as a Worker searches a batch (`scanAhead`). The one rule: the part's
 * files, their order and their verdicts are those the search would get from walking the
 * part whole (`walkNames`) and reading and searching it in batches: the same walk, under
 * the same rules made from the same spec, the same guarded read, the same scan. A file
 * the quick read finds anything unusual about (empty, too large, changing, not a plain
 * file now) is left to the search to read the careful way (its verdict null), as are
 * the files after one whose scan ran past its limit (the pattern is slow here).
 */
import type { scanAhead } from '@ws/grep';
import { rulesOfWalk } from '../disk/rules.ts';
import type { HeldDir } from '../disk/held.ts';
import { openDirectory } from '../disk/resolve.ts';
import { newTally, visitTree } from '../disk/walk.ts';
import { itemLimitMs, PROGRESS_MS, type PrescanJob, type ReadVerdict, type WorkerReadVerdict } from './prescan.ts';

/** A part as a job names it (`PrescanJob.part`). */
export type PartJob = NonNullable<PrescanJob['part']>;

/**
 * Where a search's shared flags (`PartJob.full`) say the page is full (every file scanned
 * from then on comes back counted), and that a file's scan ran past its limit (the pattern
 * is slow: neither thread scans another, the search takes the rest under its deadline —
 * a pattern that backtracks for ever costs a thread's memory and time while it runs).
 */
export const FULL = 0;
export const SLOW = 1;

/**
 * A part's claim (`PartJob.claim`), taken by one thread only: a part sent to the Worker
 * waits in its queue, and the calling thread may take it first (the Worker then skips
 * it). Free, the calling thread's, the Worker's.
 */
export const CLAIM_FREE = 0;
export const CLAIM_HERE = 1;
export const CLAIM_WORKER = 2;

/** Takes the claim `claims[at]` for `who`: false where a thread has it already. */
export function claimPart(claims: Int32Array, at: number, who: typeof CLAIM_HERE | typeof CLAIM_WORKER): boolean {
  return Atomics.compareExchange(claims, at, CLAIM_FREE, who) === CLAIM_FREE;
}

/** What searching a part found, as it crosses from the thread that searched it. */
export interface PartFound {
  /** The files met, in walk order, their paths joined by NUL. */
  readonly paths: string;
  /** Each file's place among the part's entries, files and directories (1 for the first), as a walk's cap counts them. */
  readonly ordinals: Int32Array;
  /** Entries visited, files and directories. */
  readonly seen: number;
  /** Nothing in the part was unreadable, and its walk did not stop at the cap. */
  readonly whole: boolean;
  /** ws temporary files met (path, mtime) where the walk did not remove leftovers itself: the calling thread does. */
  readonly temporary: readonly (readonly [string, number])[];
}

/** A part's verdicts, one a file of {@link PartFound.paths}: null where the search reads the file itself, the careful way. */
export interface PartSearched extends PartFound {
  readonly verdicts: (WorkerReadVerdict | null)[];
  /** Buffers the verdicts hold (moved with them from a Worker). */
  readonly moved: ArrayBuffer[];
  /** Whether a file's scan ran past its limit (the files after it are left to the search). */
  readonly slow: boolean;
}

/** A part's answer as the search takes it: a verdict a file (null: the search reads it itself), each scan made ahead remembered by the pool. */
export interface PartAnswer extends PartFound {
  readonly verdicts: readonly (ReadVerdict | null)[];
  readonly slow: boolean;
}

/**
 * Walks `job.part.dir` whole, reading each file into `arena` and searching it ahead under
 * `job`'s pattern with `scan` (`@ws/grep`'s `scanAhead`, which the calling thread loads
 * only once it greps). `keepTemporary`: tell back the ws temporary files met rather than remove
 * the leftovers here (a Worker cannot know which ones its process is writing).
 * `progress` is called now and then (a Worker tells its caller it is not stuck).
 */
export function searchPart(job: PrescanJob & { part: PartJob }, arena: Uint8Array, scan: typeof scanAhead, keepTemporary: boolean, progress?: () => void): PartSearched {
  const { part } = job;
  const now = () => performance.now();
  let told = now();
  const paths: string[] = [];
  const ordinals: number[] = [];
  const verdicts: (WorkerReadVerdict | null)[] = [];
  const moved: ArrayBuffer[] = [];
  const temporary: [string, number][] = [];
  const tally = newTally();
  let seen = 0;
  let slow = false;
  /** One file met: read from the directory held for it (`listed`: its listing there just said it is regular), and searched ahead. */
  const file = (path: string, dir: HeldDir | null, name: string, listed: boolean) => {
    paths.push(path);
    ordinals.push(seen);
    const started = now();
    if (progress !== undefined && started - told >= PROGRESS_MS) {
      progress();
      told = started;
    }
    // A pattern found slow here or on the other thread: the search scans the rest itself, under its deadline.
    if (!slow && part.full !== undefined && Atomics.load(part.full, SLOW) === 1) slow = true;
    const n = slow || dir?.readWhole === undefined ? -1 : dir.readWhole(name, arena, 0, part.maxBytes, listed);
    if (n < 0) {
      verdicts.push(null);
      return;
    }
    const bytes = arena.subarray(0, n);
    const limit = itemLimitMs(job.itemMs, n);
    // The page may have filled since the part was sent: the caller says so in `full`.
    const counting = job.counting === true || (part.full !== undefined && Atomics.load(part.full, FULL) === 1);
    const ahead = scan(job.pattern, job.options, bytes, limit, now, counting);
    const took = now() - started;
    if (ahead.kind === 'none') {
      verdicts.push({ none: n });
      return;
    }
    if (ahead.kind === 'unsure' && took >= limit) {
      slow = true;
      if (part.full !== undefined) Atomics.store(part.full, SLOW, 1);
    }
    if (ahead.kind === 'scanned' && counting) {
      verdicts.push({ counted: { size: n, scan: ahead.result } });
      moved.push(...scanBuffers(ahead.result));
      return;
    }
    // What goes back holds bytes of its own: the arena takes the next file.
    const own = bytes.slice();
    moved.push(own.buffer as ArrayBuffer);
    if (ahead.kind === 'scanned') {
      verdicts.push({ bytes: own, scan: { result: ahead.result, lineEnds: ahead.lineEnds } });
      moved.push(...scanBuffers(ahead.result));
    } else verdicts.push(slow ? { bytes: own, aheadMs: took } : { bytes: own });
  };
  if (part.files !== undefined) {
    // Files a listing above the parts found, in one directory: held once, each read from it.
    const prefix = part.dir === '' ? '' : `${part.dir}/`;
    let held: HeldDir | null = null;
    try {
      const opened = openDirectory(part.root, part.dir, false);
      if (opened.ok && opened.rel === part.dir) held = opened.dir;
      else if (opened.ok) opened.dir.close();
    } catch {
      // Not held (gone, or not a directory now): each file is left to the careful read, which says why.
    }
    try {
      for (const name of part.files) {
        seen++;
        // Listed on the calling thread, maybe long before: each name is stated before it is opened.
        file(prefix + name, held, name, false);
      }
    } finally {
      held?.close();
    }
    return { paths: paths.join('\u0000'), ordinals: Int32Array.from(ordinals), seen, whole: true, temporary, verdicts, moved: [...new Set(moved)], slow };
  }
  visitTree(
    {
      root: part.root,
      from: part.dir,
      rules: rulesOfWalk(part.walk, part.rules),
      followSymlinks: false,
      cap: part.cap,
      namesOnly: true,
      fromListed: true,
      ...(keepTemporary ? { onTemporary: (path: string, mtimeMs: number) => temporary.push([path, mtimeMs]) } : {}),
    },
    tally,
    (path, kind, info, dir, name) => {
      seen++;
      // A file told without a stat is one this walk's listing of `dir` recorded as regular just now.
      if (kind === 'file') file(path, dir, name, info === null);
    },
  );
  const whole = tally.unreadable.length === 0 && tally.incomplete === undefined;
  return { paths: paths.join('\u0000'), ordinals: Int32Array.from(ordinals), seen, whole, temporary, verdicts, moved: [...new Set(moved)], slow };
}

/** The buffers of a scan, moved with it (from a Worker). */
export function scanBuffers(scan: { readonly hits: Uint32Array; readonly gaveUp: Uint32Array; readonly ends?: Uint32Array }): ArrayBuffer[] {
  const { hits, gaveUp, ends } = scan;
  return [hits.buffer, gaveUp.buffer, ...(ends ? [ends.buffer] : [])] as ArrayBuffer[];
}
