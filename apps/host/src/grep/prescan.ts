/**
 * Searching ahead: a mount hands grep's Workers its files a batch at a time, several
 * batches at once, so every core decodes and tests files while the search goes on in
 * path order — and most files, which have no match, reach the search as `noMatch`,
 * unread there. The one rule: a prescan only ever speeds a search up — a file is
 * `'none'` only where `@ws/grep`'s `holdsNoMatch` said so; anything else (its bytes
 * back, or nothing: out of time, a Worker ended, a failure) leaves the file to the
 * search itself, which then decides as it would have without the prescan.
 */
import type { MatchJobResult, PatternOptions } from '@ws/grep';
import type { Reading } from '@ws/reconcile';
import type { SearchQuery } from '@ws/tools';
import type { ReaderSpec } from '../disk/disk-port.ts';
import type { WalkRulesSpec } from '../disk/rules.ts';
import type { PartAnswer } from './part-search.ts';

/** One file of a batch: its bytes as read, or as the store keeps them (unpacked in the Worker). */
export type PrescanItem = { readonly bytes: Uint8Array } | { readonly codec: string; readonly packed: Uint8Array };

/** A batch as a Worker takes it: the files' bytes (`items`), or the paths to read them from first (`read`). */
export interface PrescanJob {
  readonly pattern: string;
  readonly options: PatternOptions;
  readonly items: readonly PrescanItem[];
  /** Files to read first, through the mount's disk (`diskReader`), as its `readMany` reads them; `items` is then empty. */
  readonly read?: { readonly spec: ReaderSpec; readonly paths: readonly string[]; readonly maxBytes: number };
  /**
   * Blobs to read first, by hash, from the store's file (`blob-file.ts`); `items` is then
   * empty. `ids`: each hash's row id there where the caller knows it (null where not).
   */
  readonly blobs?: { readonly file: string; readonly hashes: readonly string[]; readonly ids?: readonly (number | null)[] };
  /**
   * A part of a direct mount's tree, walked whole, each file read and searched as it is
   * met (`part-search.ts`; a one-shot grep's, `mounts/direct.ts`); `items` is then empty.
   * `walk` names the search's walk (the rules are made once a walk from `rules`), `cap`
   * is the disk's walk cap, `maxBytes` its largest file. With `files`, only those names
   * in `dir` are read and searched (files a listing above the parts found), not walked.
   * `full` (shared with the caller, a SharedArrayBuffer): flags both threads read as they
   * scan — the search's page is full, so every file scanned from then on comes back
   * `counted`, as `counting` has it; a file's scan ran past its limit, so none is scanned
   * again (`part-search.ts`'s `FULL` and `SLOW`). `claims[at]` (shared too): the part's
   * claim, which the Worker takes before it begins the part and skips the part where the
   * caller took it first (`part-search.ts`'s `claimPart`).
   */
  readonly part?: { readonly root: string; readonly rules: WalkRulesSpec; readonly walk: number; readonly dir: string; readonly cap: number; readonly maxBytes: number; readonly files?: readonly string[]; readonly full?: Int32Array; readonly claim?: { readonly claims: Int32Array; readonly at: number } };
  /** The least one file's scan may take before it is left to the search (`itemLimitMs` gives more to a large file). */
  readonly itemMs: number;
  /** How long the Worker may go without a word (it tells of its progress now and then) before it is taken to be stuck, and ended. */
  readonly stallMs: number;
  /** The search's page is full (`SearchQuery.pageFull`): a file scanned with certainty comes back as its scan alone, `counted`. */
  readonly counting?: true;
}

/** A file scanned ahead for a full page: its size and its scan, its bytes left behind (`@ws/grep`'s `counted`). */
export type Counted = { readonly counted: { readonly size: number; readonly scan: MatchJobResult } };

/** What the prescan found for one file: no line matches, its bytes (search it), its scan alone (`counting`), or null (not looked at). */
export type PrescanVerdict = 'none' | Uint8Array | Counted | null;

/** A scan a Worker made ahead, for the job the search will make of the same bytes (`lineEnds`: that job's). */
export interface ScannedAhead {
  readonly result: MatchJobResult;
  readonly lineEnds: boolean;
}

/**
 * A file's verdict as it crosses back from a Worker: none, its bytes with the scan made of
 * them (where certain), the scan alone (`counting`), or null. `aheadMs`: the file whose
 * scan ran past its limit (the batch is `slow`) carries the time spent on it, which its
 * search counts against the deadline (`MatchJobResult.aheadMs`).
 */
export type WorkerVerdict = 'none' | { readonly bytes: Uint8Array; readonly scan?: ScannedAhead; readonly aheadMs?: number } | Counted | null;

/**
 * A read file's verdict as it crosses back: none (its size), its reading — or where the
 * file was read whole as a search reads it (`DiskReader.readForSearch`), its bytes
 * alone — with the scan made of it (where certain), or the scan alone (`counting`).
 */
export type WorkerReadVerdict =
  | { readonly none: number }
  | { readonly reading: Reading; readonly scan?: ScannedAhead; readonly aheadMs?: number }
  | { readonly bytes: Uint8Array; readonly scan?: ScannedAhead; readonly aheadMs?: number }
  | Counted;

/** What a read batch found for one path: no line matches (the file's size), the reading or the bytes (search it), or the scan alone. */
export type ReadVerdict = { readonly none: number } | { readonly reading: Reading } | { readonly bytes: Uint8Array } | Counted;

/**
 * A batch's answer: a verdict per file, and `slow` where one file's scan ran past its
 * limit (the files after it were not looked at: the search takes them itself, under its
 * deadline). Undefined where the Worker failed or was ended.
 */
export type PrescanAnswer<V> = { readonly verdicts: readonly V[]; readonly slow: boolean } | undefined;

/** A quiet record's stats to check against the tree under `root` ({@link Prescanner.stillQuiet}). */
export interface QuietJob {
  readonly root: string;
  /** Unpacked, in a SharedArrayBuffer: the caller and the Worker read the one copy. */
  readonly stats: Uint8Array;
  /** The check shared with the caller (`disk/quiet.ts`, `quietShare`): the Worker checks the chunks it takes. */
  readonly share: Int32Array;
}

/** How grep's Workers search ahead for a mount. */
export interface Prescanner {
  /** One batch of bytes. */
  run(job: PrescanJob): Promise<PrescanAnswer<PrescanVerdict>>;
  /** One batch of paths, read in the Worker. */
  read(job: PrescanJob): Promise<PrescanAnswer<ReadVerdict>>;
  /** One batch of blobs, read from the store's file in the Worker: a verdict per hash of `job.blobs` (null: not found there, or not looked at). */
  blobs(job: PrescanJob): Promise<PrescanAnswer<PrescanVerdict>>;
  /** The search that sent `blobs` batches ended: the Workers let the store's file go (they keep it open from one batch to the next). */
  release(): Promise<void>;
  /**
   * A Worker's part of checking a quiet record's stats (`disk/quiet.ts`'s `stillQuiet` of
   * `job.stats` under `job.root`, sharing `job.share` with the caller): whether
   * the chunks it took held; null where no Worker is free now (it took none), undefined
   * where one took part and did not answer (it failed or was ended: its chunks are unchecked).
   */
  stillQuiet(job: QuietJob): Promise<boolean | null | undefined>;
  /**
   * A one-shot's search of a direct mount in parts (`part-search.ts`), on two threads:
   * `part` walks, reads and searches one part in the Worker (undefined where it failed or
   * was ended: the caller takes the part itself), `here` the same on the calling thread;
   * `ahead` is how many parts the Worker holds at once; `warm` starts the Worker, `ready`
   * says it is up. Absent for a long-running host,
   * whose calling thread serves other calls and must not walk a part at a time.
   */
  readonly parts?: {
    part(job: PrescanJob): Promise<PartAnswer | undefined>;
    here(job: PrescanJob): Promise<PartAnswer>;
    /** Starts a Worker (where none is) without giving it anything to do yet. */
    warm?(): void;
    /** Whether a Worker has answered anything, so is up: a part given it now is not waiting for it to start. */
    ready?(): boolean;
    readonly ahead: number;
  };
  /** How many batches are worth having in flight at once: one a core, or two in a one-shot's one Worker. */
  readonly parallel: number;
  /** How many batches of paths (`read`) are worth having in flight at once, where not {@link parallel}: eight in a one-shot's one Worker. */
  readonly readParallel?: number;
  /**
   * The Workers serve a long-running host (`ws serve`, `ws mcp`): a search keeps two
   * batches in flight a Worker, so each finds its next one waiting in its queue while the
   * caller's thread takes the last one's answers.
   */
  readonly longRunning?: boolean;
}

/**
 * The least one file's scan may take in a prescan, and the pace below which a larger one
 * is slow (bytes a millisecond). A slow file leaves only the rest of its batch to the
 * search; the limit also decides how soon a Worker stuck in one pattern's backtracking
 * is ended, well inside the search's deadline.
 */
export const ITEM_MS = 50;
const SLOWEST_BYTES_PER_MS = 10_000;
/** How often a busy Worker tells of its progress. */
export const PROGRESS_MS = 50;
/** The longest a Worker may take to read one batch's files before its search starts. */
export const READ_MS = 5_000;
/** A batch holds at most this many files, or this many bytes. */
export const BATCH_FILES = 128;
export const BATCH_BYTES = 4 << 20;
/**
 * The files of a store batch in a one-shot command: its lone Worker holds two batches
 * (one searched, one waiting) and the caller the answers of those in flight, so fewer
 * files a batch is fewer bytes held at once — a one-shot grep's peak is a bound (a common
 * word's peak, 12 runs: 116.5 MiB on average at 128, 114.6 at 64, for 5% more time); a
 * long-running host keeps {@link BATCH_FILES}, its warm greps' speed being what counts.
 */
export const ONE_SHOT_BATCH_FILES = 64;

/** How many entries and bytes one batch may hold (a single file over `bytes` goes alone). */
export interface BatchLimits {
  readonly files: number;
  readonly bytes: number;
}

/**
 * The batches of files a Worker reads from disk itself (a direct mount): smaller than
 * {@link BATCH_FILES}, so fewer files' bytes are held at once — in the Worker while it
 * reads and scans, and on the caller's thread, where the matching files' bytes of every
 * batch in flight wait for the search (a common word matches in most files). A store
 * batch keeps the larger size: each opens the store's file once (`blob-file.ts`).
 * Mutable for tests only (an answer must not change with the sizes).
 */
export const READ_BATCH: { files: number; bytes: number } = { files: 64, bytes: 4 << 20 };

/**
 * A thread's heap, collected in full once it passes a bound: JavaScriptCore lets a small
 * heap grow by tens of MiB between its own collections, and a grep's Workers (and the
 * thread that takes their batches) make a file's worth of garbage per file — its bytes,
 * its text. Checked after each batch (the check costs some 50 µs, a collection 5–20 ms
 * on a loaded machine: about ten a grep of 42,000 files); after one, the bound becomes
 * twice what is still live, so a thread that holds much (a long walk's lists) is not
 * collected batch after batch.
 *
 * Measuring the heap walks all of it: 50 µs in a one-shot grep, but 0.2–5 ms in a
 * long-running server holding a store's records (a warm grep of 42,000 files spent
 * some 30 ms a call measuring). So a bound given a `pace` (a server's caller:
 * {@link HEAP_CHECK_PACE}) passes over a check that comes sooner than `pace` times the
 * last measurement's cost after it: measuring then never takes more than about 2% of the
 * thread's time. Without one (a one-shot's small heaps) every check measures.
 *
 * Bytes a Worker transferred to this thread are not in this heap's size, so they never
 * prompt its collector, and those it has passed wait, garbage, for a collection made for
 * other reasons; nor does the size show what a walk's garbage holds of the process's
 * memory. A bound given `searched` collects in full once Workers have searched that many
 * bytes for this thread since its last collection ({@link BoundOptions}).
 */
export class HeapBound {
  private limit: number;
  /** No measuring before this (`now()`'s clock). */
  private quietUntil = -Infinity;
  /** Bytes Workers searched for this thread since the last collection. */
  private searchedSince = 0;
  private readonly pace: number;
  private readonly searchedLimit: number;
  private readonly now: () => number;
  /** Collections made (for tests). */
  collections = 0;
  /** Checks passed over because the last measurement was too recent (for tests). */
  passed = 0;
  constructor(
    private readonly least: number,
    private readonly size: () => number,
    private readonly collect: () => void,
    options: BoundOptions = {},
  ) {
    this.limit = least;
    this.pace = options.pace ?? 0;
    this.searchedLimit = options.searched ?? Number.POSITIVE_INFINITY;
    this.now = options.now ?? (() => performance.now());
  }
  /** Counts `bytes` a Worker searched for this thread (come back or not); collects where enough have been (true where it did). */
  searched(bytes: number): boolean {
    this.searchedSince += bytes;
    if (this.searchedSince < this.searchedLimit) return false;
    this.collect();
    this.collections++;
    this.searchedSince = 0;
    return true;
  }
  /** Collects where the heap is past the bound; true where it did. */
  check(): boolean {
    const start = this.pace === 0 ? 0 : this.now();
    if (start < this.quietUntil) {
      this.passed++;
      return false;
    }
    const over = this.size() > this.limit;
    if (over) {
      this.collect();
      this.collections++;
      this.searchedSince = 0;
      this.limit = Math.max(this.least, 2 * this.size());
    }
    if (this.pace > 0) {
      const end = this.now();
      // The collection's own time is not the measuring's: only a measurement paces the next.
      this.quietUntil = over ? end : end + (end - start) * this.pace;
    }
    return over;
  }
}

/** How many times its own cost a long-running host's caller waits after a heap measurement before the next ({@link HeapBound}). */
export const HEAP_CHECK_PACE = 50;

/** How a {@link HeapBound} measures and when it collects, beyond its bound. */
export interface BoundOptions {
  /** Measure no sooner than this many times the last measurement's cost after it (0: every check). */
  readonly pace?: number;
  /** Collect once Workers have searched this many bytes for this thread since the last collection (default: never for that). */
  readonly searched?: number;
  readonly now?: () => number;
}

/**
 * How many bytes the Workers search for a one-shot grep's caller (read there, matching or
 * not, their bytes come back or not) before it collects in full: two read batches' worth,
 * some 30 collections over the bench's 243 MB tree. The caller's heap size does not show
 * what the search made it hold — bytes moved from a Worker are not counted there, and a
 * walk's garbage grows its memory long before its collector runs — so a collection paced
 * by the search's progress holds its peak (the host README's "Grep's memory, paced by
 * the bytes searched" gives the figures). A long-running host does not: its full
 * collections walk a store's records, tens of ms each.
 */
export const SEARCHED_COLLECT = 8 << 20;

/**
 * How much of a file's size counts toward {@link SEARCHED_COLLECT} where a Worker searched
 * the file and its bytes did not come back to the caller: a file of a direct mount's part
 * (`part-search.ts`) with no match or counted, and a store's blob counted for a full page
 * (a store's `'none'` carries no size). The caller's garbage from such a file is its
 * verdict and its path, not its bytes. So too a file with no match in a part the
 * caller's thread searched itself: it was read into that thread's one buffer, used again
 * for the next file; a file with a match there counts every byte (its bytes are copied
 * out, and its scan's garbage is that thread's own). Counted whole, full collections were most of
 * the caller's time in a grep of the bench tree (a CPU profile: 400 of 740 ms on a direct
 * mount; a one-shot store-backed grep of a common word took 891 ms against 791 at a
 * quarter, its user time 1,066 against 884 ms); not counted at all, the common word peaked
 * at 127 MiB (direct) and 137 MiB (store-backed), against 111–114 at a quarter.
 */
export const UNREAD_PACE = 0.25;

/** The bound of a grep Worker's heap ({@link HeapBound}). */
export const WORKER_HEAP_BYTES = 8 << 20;
/** The bound of the heap of the thread the search runs on, checked as each batch comes back. */
export const CALLER_HEAP_BYTES = 24 << 20;

/** The most one file of `size` bytes may take to scan ahead. */
export function itemLimitMs(itemMs: number, size: number): number {
  return Math.max(itemMs, size / SLOWEST_BYTES_PER_MS);
}

/** The job for `items` under `query`; `largest`: the size of its largest file. */
export function prescanJob(query: SearchQuery, items: readonly PrescanItem[], largest: number, read?: PrescanJob['read'], blobs?: PrescanJob['blobs']): PrescanJob {
  const { pattern, caseInsensitive, fixedStrings, multiline } = query;
  const stallMs = itemLimitMs(ITEM_MS, largest) + PROGRESS_MS;
  const counting = query.pageFull?.() === true ? ({ counting: true } as const) : {};
  return { pattern, options: { caseInsensitive, fixedStrings, multiline }, items, itemMs: ITEM_MS, stallMs, ...(read ? { read } : {}), ...(blobs ? { blobs } : {}), ...counting };
}

/**
 * `list` cut into batches of at most `limits.files` entries to read (default
 * {@link BATCH_FILES}) and at most `limits.bytes` bytes (default {@link BATCH_BYTES}; a
 * single larger entry goes alone). `size` of each; 0: nothing to read, which rides along free.
 */
export function batches<T>(list: Iterable<T>, size: (t: T) => number, limits: BatchLimits = { files: BATCH_FILES, bytes: BATCH_BYTES }): T[][] {
  return [...batchesOf(list, size, limits)];
}

/**
 * {@link batches}, each made when it is wanted: `size` is asked of an entry only as the
 * batch it joins (or the one before, which it closes) is made, so a caller can work its
 * entries out as it goes, the first batch sent before the last entry is looked at.
 */
export function* batchesOf<T>(list: Iterable<T>, size: (t: T) => number, limits: BatchLimits = { files: BATCH_FILES, bytes: BATCH_BYTES }): Generator<T[]> {
  let cur: T[] = [];
  let bytes = 0;
  let files = 0;
  for (const t of list) {
    const n = size(t);
    if (n > 0 && files > 0 && (files >= limits.files || bytes + n > limits.bytes)) {
      yield cur;
      cur = [];
      bytes = 0;
      files = 0;
    }
    cur.push(t);
    bytes += n;
    if (n > 0) files++;
  }
  if (cur.length > 0) yield cur;
}

/**
 * The results of `start` over `inputs`, in order, with up to `depth` started ahead of the
 * one being taken: the Workers work on the next batches while the caller searches this one.
 * An input is taken from `inputs` only when it is started. `start` must not reject (a
 * batch that fails answers so).
 */
export async function* ahead<T, R>(inputs: Iterable<T>, start: (input: T) => Promise<R>, depth: number): AsyncIterable<R> {
  const started: Promise<R>[] = [];
  const source = inputs[Symbol.iterator]();
  let done = false;
  const fill = () => {
    while (!done && started.length < depth) {
      const next = source.next();
      if (next.done) done = true;
      else started.push(start(next.value));
    }
  };
  fill();
  while (started.length > 0) {
    const first = started.shift() as Promise<R>;
    fill();
    yield await first;
  }
}

/**
 * {@link ahead} over inputs that come as they are made (a walk's batches): up to `depth`
 * started ahead of the one being taken, the next input made only when one is wanted.
 */
export async function* aheadOf<T, R>(inputs: AsyncIterable<T>, start: (input: T) => Promise<R>, depth: number): AsyncIterable<R> {
  const started: Promise<R>[] = [];
  const source = inputs[Symbol.asyncIterator]();
  let done = false;
  try {
    for (;;) {
      while (!done && started.length < depth) {
        const next = await source.next();
        if (next.done) done = true;
        else started.push(start(next.value));
      }
      const first = started.shift();
      if (first === undefined) return;
      yield await first;
    }
  } finally {
    // Taken no further (the search stopped): the walk is let go.
    if (!done) await source.return?.();
  }
}
