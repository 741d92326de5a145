/**
 * Searching ahead: a mount hands grep's Workers its files a batch at a time, several
 * batches at once, so every core decodes and tests files while the search goes on in
 * path order — and most files, which have no match, reach the search as `noMatch`,
 * unread there. The one rule: a prescan only ever speeds a search up — a file is
 * `'none'` only where `@ws/grep`'s `holdsNoMatch` said so; anything else (its bytes
 * back, or nothing: out of time, a Worker ended, a failure) leaves the file to the
 * search itself, which then decides as it would have without the prescan.
 */
import type { PatternOptions } from '@ws/grep';
import type { Reading } from '@ws/reconcile';
import type { SearchQuery } from '@ws/tools';
import type { ReaderSpec } from '../disk/disk-port.ts';

/** One file of a batch: its bytes as read, or as the store keeps them (unpacked in the Worker). */
export type PrescanItem = { readonly bytes: Uint8Array } | { readonly codec: string; readonly packed: Uint8Array };

/** A batch as a Worker takes it: the files' bytes (`items`), or the paths to read them from first (`read`). */
export interface PrescanJob {
  readonly pattern: string;
  readonly options: PatternOptions;
  readonly items: readonly PrescanItem[];
  /** Files to read first, through the mount's disk (`diskReader`), as its `readMany` reads them; `items` is then empty. */
  readonly read?: { readonly spec: ReaderSpec; readonly paths: readonly string[]; readonly maxBytes: number };
  /** The most one file's scan may take (a slower one is left to the search). */
  readonly itemMs: number;
  /** The most the batch may take; the files after are left to the search. */
  readonly batchMs: number;
}

/** What the prescan found for one file: no line matches, its bytes (search it), or null (not looked at). */
export type PrescanVerdict = 'none' | Uint8Array | null;

/** What a read batch found for one path: no line matches (the file's size), or the reading (search it). */
export type ReadVerdict = { readonly none: number } | { readonly reading: Reading };

/** How grep's Workers search ahead for a mount. */
export interface Prescanner {
  /** One batch of bytes: a verdict per item, or undefined where the Worker failed or was ended. */
  run(job: PrescanJob): Promise<PrescanVerdict[] | undefined>;
  /** One batch of paths, read in the Worker: a verdict per path, or undefined where it failed or was ended. */
  read(job: PrescanJob): Promise<ReadVerdict[] | undefined>;
  /** How many batches are worth having in flight at once (the cores). */
  readonly parallel: number;
}

/** The longest one file's scan may take in a prescan. */
export const ITEM_MS = 50;
/** The longest one batch's search may take: a pattern this slow is left to the search (and its deadline). */
export const BATCH_MS = 200;
/** The longest a Worker may take to read one batch's files before its search starts. */
export const READ_MS = 5_000;
/** A batch holds at most this many files, or this many bytes. */
export const BATCH_FILES = 128;
export const BATCH_BYTES = 4 << 20;

/** The job for `items` under `query`. */
export function prescanJob(query: SearchQuery, items: readonly PrescanItem[], read?: PrescanJob['read']): PrescanJob {
  const { pattern, caseInsensitive, fixedStrings, multiline } = query;
  return { pattern, options: { caseInsensitive, fixedStrings, multiline }, items, itemMs: ITEM_MS, batchMs: BATCH_MS, ...(read ? { read } : {}) };
}

/**
 * `list` cut into batches of at most {@link BATCH_FILES} entries to read and about
 * {@link BATCH_BYTES} bytes (`size` of each; 0: nothing to read, which rides along free).
 */
export function batches<T>(list: readonly T[], size: (t: T) => number): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let bytes = 0;
  let files = 0;
  for (const t of list) {
    const n = size(t);
    if (n > 0 && files > 0 && (files >= BATCH_FILES || bytes + n > BATCH_BYTES)) {
      out.push(cur);
      cur = [];
      bytes = 0;
      files = 0;
    }
    cur.push(t);
    bytes += n;
    if (n > 0) files++;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/**
 * The results of `start` over `inputs`, in order, with up to `depth` started ahead of the
 * one being taken: the Workers work on the next batches while the caller searches this one.
 * `start` must not reject (a batch that fails answers so).
 */
export async function* ahead<T, R>(inputs: readonly T[], start: (input: T) => Promise<R>, depth: number): AsyncIterable<R> {
  const started: Promise<R>[] = [];
  let next = 0;
  const fill = () => {
    while (next < inputs.length && started.length < depth) started.push(start(inputs[next++]));
  };
  fill();
  while (started.length > 0) {
    const first = started.shift() as Promise<R>;
    fill();
    yield await first;
  }
}
