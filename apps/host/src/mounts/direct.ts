/**
 * A direct mount: disk as it is, over the same host disk port as a store-backed mount.
 * Reads, listings and searches look at disk; writes, edits and deletions change disk at
 * once, each file atomically. It keeps nothing of its own. The one rule: a commit checks
 * every change before it writes any, and writes each as a compare-and-swap on the bytes
 * it read (the disk port exchanges the new file in and compares the one that came out,
 * byte for byte), so a save made meanwhile is never overwritten; it puts back what it
 * wrote if a later write fails, so a batch lands whole or not at all.
 */
import { type FileMeta, looksBinary, type Reading, type UnlinkResult, type WriteResult } from '@ws/reconcile';
import { type Change, type Entry, type ListOptions, type ListOutcome, type Mount, type ReadOutcome, type Refusal, type Report, type SearchFile, type SearchQuery, largeFileChange } from '@ws/tools';
import type { MountConfig } from '../config.ts';
import { diskPort, type HostDisk, type NameWalk } from '../disk/disk-port.ts';
import { aheadOf, batches, type Prescanner, prescanJob, READ_BATCH } from '../grep/prescan.ts';
import { CLAIM_FREE, CLAIM_HERE, claimPart, FULL, type PartAnswer } from '../grep/part-search.ts';
import { removeLeftovers } from '../disk/walk-parallel.ts';
import { walkRules } from '../disk/rules.ts';
import { largeFile, largeSearchFile } from './large-file.ts';
import { NoMatchRun } from './no-match-run.ts';
import { mountWords } from './words.ts';

/** Most entries one listing or search walks before it says it is incomplete. */
export const WALK_CAP = 200_000;

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/**
 * How many times a commit looks again when a save lands between its look and its effect
 * (the change still holds against what disk holds now): a person saving every few
 * milliseconds collides now and then, never for long.
 */
export const COMMIT_ATTEMPTS = 8;

/** One change of a commit, checked: what disk held, as bytes and as the expectation to write against. */
interface Planned {
  readonly path: string;
  readonly bytes: Uint8Array | null;
  readonly before: Uint8Array | null;
  readonly meta: FileMeta | null;
}

type Words = ReturnType<typeof mountWords>;

function refuse(message: string): Refusal {
  return { ok: false, message };
}

async function read(disk: HostDisk, config: MountConfig, words: Words, path: string): Promise<ReadOutcome> {
  const where = disk.contain(path, 'read');
  if (!where.ok) return { kind: 'answer', message: where.message };
  const kind = disk.kindOf(path);
  if (kind.kind === 'directory') return { kind: 'directory' };
  if (kind.kind === 'absent') return { kind: 'missing' };
  if (kind.kind === 'other') return { kind: 'answer', message: words.unreadable(path, kind.reason) };
  const got = await disk.read(path, config.maxFileSize);
  if (got.kind === 'absent') return { kind: 'missing' };
  if (got.kind === 'unobservable') return { kind: 'answer', message: words.unreadable(path, got.reason) };
  if (got.bytes === null) return largeFile(disk, words, path);
  if (looksBinary(got.bytes)) return { kind: 'binary', size: got.bytes.length, bytes: got.bytes };
  return { kind: 'file', bytes: got.bytes, notes: [] };
}

/** `ls` and glob: the walk's entries; `filesOnly` (glob's, no times wanted) walks by names, no stat a file, and lists files alone, without sizes. */
async function list(disk: HostDisk, words: Words, path: string, options: ListOptions): Promise<ListOutcome> {
  const where = disk.contain(path, 'read');
  if (!where.ok) return refuse(where.message);
  const kind = disk.kindOf(path);
  if (kind.kind === 'absent') return refuse(words.missing(path));
  if (kind.kind === 'other') return refuse(words.unreadable(path, kind.reason));
  if (kind.kind !== 'directory') return refuse(words.notADirectory(path));
  const shallow = !options.recursive;
  if (options.filesOnly === true && options.modified !== true) {
    const found = await walkForSearch(disk, path, { shallow, continuing: false });
    return listed(words, found, found.files.map((f) => ({ path: f.path, kind: 'file' as const })));
  }
  const found = await disk.walk(path, { shallow });
  const entries: Entry[] = [
    ...found.directories.map((d) => ({ path: d, kind: 'directory' as const })),
    ...found.files.map((f) => ({ path: f.path, kind: 'file' as const, size: f.meta.size, modified: f.meta.mtimeMs })),
  ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return listed(words, found, entries);
}

/** A listing's outcome: its entries, what the walk passed over by reason, and why it is incomplete where it is. */
function listed(words: Words, found: Omit<NameWalk, 'files'>, entries: Entry[]): ListOutcome {
  const passedOver: Record<string, number> = {};
  for (const p of found.passedOver) passedOver[p.reason] = (passedOver[p.reason] ?? 0) + 1;
  const incomplete = found.incomplete ?? (found.unreadable.length ? words.unreadableRegions(found.unreadable) : undefined);
  return { ok: true, entries, passedOver, ...(incomplete ? { incomplete } : {}) };
}

/** What the search is offered for one file as read. */
function offered(rel: string, got: Reading): SearchFile | { readonly overLimit: string } | undefined {
  if (got.kind === 'absent') return undefined;
  if (got.kind === 'unobservable') return { path: rel, skipped: got.reason };
  if (got.bytes === null) return { overLimit: rel };
  return { path: rel, bytes: got.bytes };
}

/** What the search gets for an offer: a file over the limit is searched straight from disk, a stretch at a time. */
async function searched(disk: HostDisk, words: Words, offer: SearchFile | { readonly overLimit: string } | undefined): Promise<SearchFile | undefined> {
  if (offer === undefined || !('overLimit' in offer)) return offer;
  return largeSearchFile(disk, words, offer.overLimit);
}

/**
 * One batch of files, read and searched ahead in one of grep's Workers (through this
 * mount's disk, as its `readMany` reads them): what the search is offered for each. A
 * batch the Worker could not finish is read here, and the rest of the search too.
 */
async function readAhead(disk: HostDisk, config: MountConfig, files: readonly Walked[], query: SearchQuery, prescanner: Prescanner, on: { on: boolean }): Promise<(SearchFile | { readonly overLimit: string } | undefined)[]> {
  const paths = files.map((f) => f.path);
  // A size the walk did not take counts as the largest a file may be read at (it bounds how long the Worker may take).
  const largest = files.reduce((n, f) => Math.max(n, Math.min(f.size ?? config.maxFileSize, config.maxFileSize)), 0);
  const answer = on.on ? await prescanner.read(prescanJob(query, [], largest, { spec: disk.readerSpec, paths, maxBytes: config.maxFileSize })) : undefined;
  // A Worker ended inside a file (or failed): the search reads the rest itself.
  if (answer === undefined) on.on = false;
  if (answer === undefined) {
    const readings = await disk.readMany(paths, config.maxFileSize);
    return paths.map((rel, k) => offered(rel, readings[k]));
  }
  return paths.map((rel, k) => {
    const v = answer.verdicts[k];
    if ('none' in v) return { path: rel, noMatch: true as const, size: v.none };
    if ('bytes' in v) return { path: rel, bytes: v.bytes };
    return 'counted' in v ? { path: rel, counted: v.counted } : offered(rel, v.reading);
  });
}

async function* searchFiles(disk: HostDisk, config: MountConfig, words: Words, path: string, query: SearchQuery | undefined, prescanner: Prescanner | undefined): AsyncIterable<SearchFile> {
  if (!disk.contain(path, 'read').ok) return;
  const kind = disk.kindOf(path);
  if (kind.kind === 'absent') return;
  if (kind.kind === 'other') {
    yield { path, skipped: kind.reason };
    return;
  }
  const passedOver = kind.kind === 'directory' ? disk.passedOver(path) : undefined;
  if (passedOver !== undefined) {
    // Named, but passed over by the walk: said, not silently empty.
    yield { path, skipped: words.namedPassedOver(passedOver) };
    return;
  }
  // A one-shot's search of a directory: parts of the tree walked, read and searched whole, on two threads
  // (where the disk can walk a part on another thread: `partSpec`).
  const inParts = prescanner?.parts;
  if (kind.kind === 'directory' && query !== undefined && inParts !== undefined) {
    const spec = disk.partSpec?.();
    if (spec !== undefined) {
      yield* searchInParts(disk, config, words, path, query, inParts, spec);
      return;
    }
  }
  const parts = kind.kind === 'directory' ? walkInParts(disk, path, { followSymlinks: config.followSymlinks }) : single([{ path, size: kind.meta.size }]);
  if (query === undefined || prescanner === undefined) {
    for await (const files of parts) {
      for (const { path: rel } of files) {
        const file = await searched(disk, words, offered(rel, await disk.read(rel, config.maxFileSize)));
        if (file !== undefined) yield file;
      }
    }
    return;
  }
  // Files are read a batch at a time and searched ahead in grep's Workers, several batches
  // at once, as the walk finds them: the Workers read one part while the next is walked.
  const on = { on: true };
  // Files of unknown size count as small: a batch is then cut by its count, and its Worker reads as many at a time as its buffer holds.
  const chunks = batchesOf(parts, (f) => Math.max(1, Math.min(f.size ?? 1, config.maxFileSize)));
  for await (const batch of aheadOf(chunks, (c) => readAhead(disk, config, c, query, prescanner, on), (prescanner.readParallel ?? prescanner.parallel) + 1)) {
    for (const offer of batch) {
      const file = await searched(disk, words, offer);
      if (file !== undefined) yield file;
    }
  }
}

/**
 * What a search in parts takes in walk order: a directory entry listed above the parts'
 * depth (counted only), or a part — a directory walked whole, or (`files`) names a listing
 * above the parts found in it, each read and searched.
 */
type Unit = { readonly directory: string } | PartUnit;
type PartUnit = { readonly part: string; readonly files?: readonly string[] };

/**
 * The units of a search in parts of `dir`, in walk order: the levels above
 * {@link PART_DEPTH} listed here, one directory at a time (as {@link walkInParts} lists
 * them), their files in parts of a listing's files, and each directory that deep a part — counted as an
 * entry of its parent's listing, then walked whole by whichever thread takes it.
 * `whole.whole` turns false where a listing here was not.
 */
async function* unitsOf(disk: HostDisk, dir: string, whole: { whole: boolean }): AsyncGenerator<Unit> {
  let begun = false;
  async function* level(at: string, depth: number): AsyncGenerator<Unit> {
    const walked = await walkForSearch(disk, at, { shallow: true, continuing: begun });
    begun = true;
    if (walked.unreadable.length > 0 || walked.incomplete !== null) whole.whole = false;
    const prefix = at === '' ? 0 : at.length + 1;
    const files: string[] = [];
    for (const entry of inWalkOrder(walked)) {
      if (entry.file !== undefined) {
        files.push(entry.file.path.slice(prefix));
        if (files.length >= READ_BATCH.files) yield { part: at, files: files.splice(0) };
        continue;
      }
      if (files.length > 0) yield { part: at, files: files.splice(0) };
      yield { directory: entry.path };
      if (depth + 1 < PART_DEPTH) yield* level(entry.path, depth + 1);
      else yield { part: entry.path };
    }
    if (files.length > 0) yield { part: at, files };
  }
  yield* level(dir, 0);
}

/** A unit started: what it answers, and whether it has (`done`: its answer, undefined where a Worker's part failed). */
interface Started {
  readonly unit: Unit;
  readonly answer: Promise<PartAnswer | undefined>;
  done?: { readonly value: PartAnswer | undefined };
  /** The part is in the Worker's hands. */
  readonly inWorker: boolean;
  /** Where its claim is (a part sent to the Worker), and whether this thread took it first. */
  readonly claim?: number;
  taken?: boolean;
}

/**
 * Claims a search in parts keeps, used in turn: the Worker answers its parts in the order
 * sent, and holds fewer than this at once, so a claim is free again before it is used again.
 */
const CLAIM_RING = 1024;

/** How many parts a search in parts has started ahead of the one it takes (the Worker's and its own). */
const PARTS_AHEAD = 512;
/** What one file's verdict is taken to hold, for {@link HELD_AHEAD}: its object, its path's share. */
const VERDICT_WEIGHT = 96;
/** The matching files' bytes a search in parts holds, done ahead of the one it takes, before it stops taking parts itself. */
const HELD_AHEAD = 4 << 20;

/**
 * A directory searched in parts (a one-shot's direct grep, on two cores: `Prescanner.parts`).
 * The levels above {@link PART_DEPTH} are listed on this thread; each directory that deep
 * is a part, walked, read and searched whole (`grep/part-search.ts`) by grep's Worker —
 * which holds `parts.ahead` at once — or by this thread, which whenever the one it waits
 * for is still in the Worker's hands takes back the first part the Worker has not begun
 * (by its claim: the Worker skips it), else the next part itself. The files a listing above
 * the parts holds are parts too (at most {@link READ_BATCH}'s files each), read from their
 * directory and searched, not walked. The one rule: the files,
 * their order, where the walk's cap cuts them and what the search is offered for each
 * are those of {@link walkInParts} and batches of paths; a part a Worker could not finish
 * is searched here. `cap`: the entries the walk counts before it stops (the whole walk's
 * {@link WALK_CAP}; tests give less).
 */
export async function* searchInParts(
  disk: HostDisk,
  config: MountConfig,
  words: Words,
  dir: string,
  query: SearchQuery,
  parts: NonNullable<Prescanner['parts']>,
  spec: NonNullable<ReturnType<NonNullable<HostDisk['partSpec']>>>,
  cap = WALK_CAP,
): AsyncIterable<SearchFile> {
  const whole = { whole: true };
  const source = unitsOf(disk, dir, whole);
  const started: Started[] = [];
  // The flags both threads read as they scan: the page is full, the pattern is slow (`grep/part-search.ts`).
  const full = new Int32Array(new SharedArrayBuffer(8));
  let inWorker = 0;
  let ended = false;
  let peeked: Unit | undefined;
  // Each part sent to the Worker has a claim: whichever thread takes it first searches it.
  const claims = new Int32Array(new SharedArrayBuffer(4 * CLAIM_RING));
  let claimed = 0;
  const partJob = (unit: PartUnit, claim?: number) => ({
    ...prescanJob(query, [], config.maxFileSize),
    part: {
      root: spec.root,
      rules: spec.rules,
      walk: spec.walk,
      dir: unit.part,
      cap: spec.cap,
      maxBytes: config.maxFileSize,
      full,
      ...(unit.files === undefined ? {} : { files: unit.files }),
      ...(claim === undefined ? {} : { claim: { claims, at: claim } }),
    },
  });
  /** Tells both threads once the page is full: every file they scan from then on comes back counted. */
  const noteFull = () => {
    if (Atomics.load(full, FULL) === 0 && query.pageFull?.() === true) Atomics.store(full, FULL, 1);
  };
  // What the answers taken ahead hold (each file's verdict, a matching file's bytes), and how many parts are started.
  let held = 0;
  let partsStarted = 0;
  const weigh = (answer: PartAnswer | undefined): number => {
    if (answer === undefined) return 0;
    let n = answer.paths.length + answer.verdicts.length * VERDICT_WEIGHT;
    for (const v of answer.verdicts) if (v !== null && 'bytes' in v) n += v.bytes.length;
    return n;
  };
  const settle = (s: Started): Started => {
    void s.answer.then((value) => {
      // Taken here first: the Worker's word (it skipped the part) is not its answer.
      if (s.taken === true) return;
      s.done = { value };
      held += weigh(value);
    });
    return s;
  };
  /**
   * The first part sent to the Worker that it has not begun, taken here (its claim
   * taken first): whether there was one. The Worker skips it when it comes to it.
   */
  const takeBack = async (): Promise<boolean> => {
    for (const s of started) {
      // A part taken back already has this thread's claim, one the Worker answered its own.
      if (s.claim === undefined || s.done !== undefined || !claimPart(claims, s.claim, CLAIM_HERE)) continue;
      s.taken = true;
      s.done = { value: await searchHere(s.unit as PartUnit) };
      return true;
    }
    return false;
  };
  /** A part searched on this thread, its answer held. */
  const searchHere = async (unit: PartUnit): Promise<PartAnswer> => {
    const value = await parts.here(partJob(unit));
    held += weigh(value);
    return value;
  };
  /** A part taken here, now. */
  const here = async (unit: PartUnit): Promise<Started> => {
    const value = await searchHere(unit);
    partsStarted++;
    return { unit, answer: Promise.resolve(value), done: { value }, inWorker: false };
  };
  /** The next unit, not yet started (undefined once the walk above the parts is through). */
  const peek = async (): Promise<Unit | undefined> => {
    if (peeked === undefined && !ended) {
      const next = await source.next();
      if (next.done) ended = true;
      else peeked = next.value;
    }
    return peeked;
  };
  const take = () => {
    const unit = peeked as Unit;
    peeked = undefined;
    return unit;
  };
  // The Worker starts now; until it is up, every part is this thread's.
  parts.warm?.();
  /** Starts units while the Worker has room for parts (a part beyond that waits to be taken, here or there). */
  const fill = async () => {
    while (partsStarted < PARTS_AHEAD) {
      const unit = await peek();
      if (unit === undefined) return;
      if ('part' in unit) {
        // Never more in the Worker's hands than there are claims: a claim is used again only once its part is answered.
        if (inWorker >= Math.min(parts.ahead, CLAIM_RING) || parts.ready?.() === false) return;
        take();
        inWorker++;
        partsStarted++;
        const claim = claimed++ % CLAIM_RING;
        Atomics.store(claims, claim, CLAIM_FREE);
        const answer = parts.part(partJob(unit, claim)).finally(() => inWorker--);
        started.push(settle({ unit, answer, inWorker: true, claim }));
      } else {
        take();
        started.push({ unit, answer: Promise.resolve(undefined), done: { value: undefined }, inWorker: false });
      }
    }
  };
  // The walk's cap, counted over every entry in walk order, as a whole walk counts it.
  let seen = 0;
  let complete = true;
  try {
    for (;;) {
      noteFull();
      await fill();
      let head = started[0];
      if (head === undefined) {
        const unit = await peek();
        if (unit === undefined) break;
        // A part the Worker has no room for, and nothing before it: taken here.
        take();
        head = await here(unit as PartUnit);
        // The Worker's word that it is up (or its answers) come between parts, not inside one.
        await new Promise((go) => setImmediate(go));
        started.push(head);
      }
      if (head.done === undefined && head.inWorker) {
        // The Worker has it: this thread takes the first part the Worker has not begun, if any.
        if (await takeBack()) {
          await new Promise((go) => setImmediate(go));
          continue;
        }
        // Or the next part, if there is one and room.
        const unit = partsStarted < PARTS_AHEAD && held < HELD_AHEAD ? await peek() : undefined;
        if (unit !== undefined && 'part' in unit) {
          take();
          started.push(await here(unit));
          // The Worker's answers that came meanwhile are taken before the next look.
          await new Promise((go) => setImmediate(go));
          continue;
        }
      }
      const value = head.done !== undefined ? head.done.value : await head.answer;
      started.shift();
      const { unit } = head;
      if ('directory' in unit) {
        if (seen >= cap) {
          complete = false;
          break;
        }
        seen++;
        continue;
      }
      // A part: the Worker's answer, or (where it could not finish it) this thread's own.
      partsStarted--;
      held -= weigh(value);
      const answer = value ?? (await parts.here(partJob(unit)));
      if (!answer.whole) whole.whole = false;
      if (answer.temporary.length > 0) removeLeftovers(spec.root, answer.temporary);
      const paths = answer.paths === '' ? [] : answer.paths.split('\u0000');
      const base = seen;
      // Files with no match, in a row, go to the search as one: a step each was some 60 ms of
      // a grep of the bench tree's 42,000 files on this thread.
      const none = new NoMatchRun();
      for (let k = 0; k < paths.length; k++) {
        if (base + answer.ordinals[k] > cap) {
          complete = false;
          break;
        }
        const v = answer.verdicts[k];
        const rel = paths[k];
        if (v !== null && 'none' in v) {
          none.add(rel, v.none);
          continue;
        }
        const run = none.take();
        if (run !== undefined) yield run;
        const file =
          v === null
            ? await searched(disk, words, offered(rel, await disk.read(rel, config.maxFileSize)))
            : 'bytes' in v
              ? { path: rel, bytes: v.bytes }
              : 'counted' in v
                ? { path: rel, counted: v.counted }
                : await searched(disk, words, offered(rel, v.reading));
        if (file !== undefined) {
          yield file;
          noteFull();
        }
      }
      const run = none.take();
      if (run !== undefined) yield run;
      if (!complete) break;
      seen = base + answer.seen;
      if (seen > cap) {
        complete = false;
        break;
      }
    }
  } finally {
    // Taken no further (the search stopped): the walk above the parts is let go.
    if (!ended) await source.return(undefined);
  }
  // Every part read through: the disk's deferred sweep of leftovers is not needed, as after a whole walk.
  if (complete && whole.whole) disk.walkedWhole?.(dir);
}

/** A file the search reads, as its walk found it: its size where the walk stat'd it (a walk by names does not). */
interface Walked {
  readonly path: string;
  readonly size: number | undefined;
}

async function* single<T>(list: T): AsyncIterable<T> {
  yield list;
}

/**
 * How deep (below where it starts) a search's walk is cut into parts: each directory this deep is walked whole,
 * the ones above it listed one at a time, so grep's Workers read the files of one part
 * while the next is walked (the walk of 42,000 files takes the main thread 0.3–1 s).
 */
export const PART_DEPTH = 3;

/** A walk's entries in its order: plain string order, with a "/" after a directory's name (`visitTree`). */
function inWalkOrder(walked: NameWalk): { readonly path: string; readonly file?: Walked }[] {
  const { files, directories } = walked;
  const out: { path: string; file?: Walked }[] = [];
  let f = 0;
  let d = 0;
  while (f < files.length || d < directories.length) {
    if (d >= directories.length || (f < files.length && files[f].path < `${directories[d]}/`)) {
      const file = files[f++];
      out.push({ path: file.path, file });
    } else out.push({ path: directories[d++] });
  }
  return out;
}

/** A walk by names where the disk has one (a search reads every file anyway, with a stat of its own; glob wants names alone), else a walk. */
async function walkForSearch(disk: HostDisk, at: string, options: { readonly shallow: boolean; readonly continuing: boolean }): Promise<NameWalk> {
  if (disk.walkNames !== undefined) return disk.walkNames(at, options);
  const walked = await disk.walk(at, options);
  return { ...walked, files: walked.files.map((f) => ({ path: f.path, size: f.meta.size })) };
}

/**
 * The files a whole walk of `dir` finds, in its order and up to its cap (`cap` entries,
 * the disk's walk cap: `WALK_CAP`), a part at a time: directories down to {@link PART_DEPTH} are listed alone
 * and each one that deep walked whole. The one rule: the files, their order and where
 * the cap cuts them are the whole walk's — a mount that follows links walks whole (its
 * walk remembers every directory it entered, across parts).
 */
export async function* walkInParts(
  disk: HostDisk,
  dir: string,
  { followSymlinks, cap = WALK_CAP, depth: partDepth = PART_DEPTH }: { readonly followSymlinks: boolean; readonly cap?: number; readonly depth?: number },
): AsyncIterable<Walked[]> {
  if (followSymlinks) {
    yield (await disk.walk(dir)).files.map((f) => ({ path: f.path, size: f.meta.size }));
    return;
  }
  let seen = 0;
  let whole = true;
  // An entry of the walk, counted as the whole walk counts it; false once the cap is reached.
  const count = () => {
    if (seen >= cap) return false;
    seen++;
    return true;
  };
  let begun = false;
  async function* part(at: string, depth: number): AsyncGenerator<Walked[], boolean> {
    // One walk in parts: the ignore files are read once, as by the whole walk, not again for each part.
    const walked = await walkForSearch(disk, at, { shallow: depth < partDepth, continuing: begun });
    begun = true;
    if (walked.unreadable.length > 0 || walked.incomplete !== null) whole = false;
    const found: Walked[] = [];
    for (const entry of inWalkOrder(walked)) {
      if (!count()) {
        if (found.length > 0) yield found;
        return false;
      }
      if (entry.file !== undefined) found.push(entry.file);
      else if (depth < partDepth) {
        if (found.length > 0) yield found.splice(0);
        if (!(yield* part(entry.path, depth + 1))) return false;
      }
    }
    if (found.length > 0) yield found;
    return true;
  }
  const complete = yield* part(dir, 0);
  // Every part read through: the disk's deferred sweep of leftovers is not needed, as after a whole walk.
  if (complete && whole) disk.walkedWhole?.(dir);
}

/** `parts` cut into batches as they come (`batches`). */
async function* batchesOf<T>(parts: AsyncIterable<readonly T[]>, size: (t: T) => number): AsyncIterable<T[]> {
  let held: T[] = [];
  for await (const files of parts) {
    held.push(...files);
    const cut = batches(held, size, READ_BATCH);
    // The last batch may grow with the next part.
    held = cut.pop() ?? [];
    yield* cut;
  }
  if (held.length > 0) yield held;
}

/** Checks every change first: containment, size, and that each path still holds what the change was planned on. */
async function plan(disk: HostDisk, config: MountConfig, words: Words, changes: readonly Change[]): Promise<Planned[] | Refusal> {
  const planned: Planned[] = [];
  for (const ch of changes) {
    const where = disk.contain(ch.path, 'change');
    if (!where.ok) return refuse(where.message);
    if (ch.bytes !== null && ch.bytes.length > config.maxFileSize) {
      return refuse(words.contentTooLarge(ch.path, ch.bytes.length, config.maxFileSize));
    }
    const kind = disk.kindOf(ch.path);
    if (kind.kind === 'directory') return refuse(ch.bytes === null ? words.directoryNotDeleted(ch.path) : words.directoryInTheWay(ch.path));
    if (kind.kind === 'other') return refuse(words.unreadable(ch.path, kind.reason));
    // A file over the limit is read-only (read pages it from disk); it is never read whole to be replaced.
    if (kind.kind === 'file' && kind.meta.size > config.maxFileSize) return refuse(largeFileChange(words.shown(ch.path), kind.meta.size, config.maxFileSize));
    const got = await disk.read(ch.path, Number.MAX_SAFE_INTEGER);
    if (got.kind === 'unobservable') return refuse(words.unreadable(ch.path, got.reason));
    const before = got.kind === 'file' ? got.bytes : null;
    if (ch.expected !== undefined && !sameBytes(before, ch.expected)) return refuse(words.changedSincePlanned(ch.path));
    if (ch.bytes === null && before === null) return refuse(words.missing(ch.path));
    planned.push({ path: ch.path, bytes: ch.bytes, before, meta: got.kind === 'file' ? got.meta : null });
  }
  return planned;
}

/** What applying one change came to: done (its new fingerprint), disk changed since the look (`collided`), or why not. */
type Applied = { ok: true; meta: FileMeta | null } | { ok: 'collided' } | Refusal;

/** Writes or removes one planned change where disk still holds exactly the bytes the plan read. */
async function apply(disk: HostDisk, words: Words, p: Planned): Promise<Applied> {
  const expect = p.meta === null ? ({ kind: 'absent' } as const) : ({ kind: 'file', fingerprint: p.meta.fingerprint } as const);
  const guard = p.before === null ? { expect } : { expect, expectBytes: p.before };
  const done: WriteResult | UnlinkResult =
    p.bytes === null ? await disk.unlink(p.path, guard) : await disk.write(p.path, p.bytes, { mode: p.meta?.mode ?? null, ...guard });
  if (done.kind === 'refused') return { ok: 'collided' };
  if (done.kind === 'failed') return refuse(words.writeFailed(p.path, done.reason));
  const slash = p.path.lastIndexOf('/');
  await disk.syncDirectory(slash < 0 ? '' : p.path.slice(0, slash));
  return { ok: true, meta: 'meta' in done ? (done.meta as FileMeta) : null };
}

/** One attempt: every change checked, then applied; a collision puts back what this attempt wrote. */
async function attempt(disk: HostDisk, config: MountConfig, words: Words, changes: readonly Change[]): Promise<{ ok: true } | { ok: 'collided'; path: string } | Refusal> {
  const planned = await plan(disk, config, words, changes);
  if (!Array.isArray(planned)) return planned;
  const done: { p: Planned; meta: FileMeta | null }[] = [];
  for (const p of planned) {
    const r = await apply(disk, words, p);
    if (r.ok === true) {
      done.push({ p, meta: r.meta });
      continue;
    }
    // Put back what this batch already wrote, newest first, where disk still holds it.
    for (const { p: q, meta } of done.reverse()) {
      await apply(disk, words, { path: q.path, bytes: q.before, before: q.bytes, meta });
    }
    return r.ok === 'collided' ? { ok: 'collided', path: p.path } : r;
  }
  return { ok: true };
}

/**
 * Commits `changes` all or none. A save that lands between a look and its effect is
 * never replaced: the change is refused at the point of effect and the commit looks
 * again, up to {@link COMMIT_ATTEMPTS} times — a change planned on bytes disk no longer
 * holds (`expected`) is then refused, so the tools plan it again on the new text.
 */
async function commit(disk: HostDisk, config: MountConfig, words: Words, changes: readonly Change[]) {
  if (config.readOnly) return refuse(words.readOnly());
  for (let n = 1; ; n++) {
    const r = await attempt(disk, config, words, changes);
    if (r.ok === false) return r;
    if (r.ok === true) {
      // The receipt says what changed; a direct commit adds only the collisions it looked again after.
      const report: Report = n > 1 ? { collisions: n - 1 } : {};
      return { ok: true as const, report };
    }
    if (n >= COMMIT_ATTEMPTS) return refuse(words.keptChanging(r.path, COMMIT_ATTEMPTS));
  }
}

/**
 * A direct mount over `config.root`. `storeRel`: the store's path inside this root, if
 * it is. `over`: wraps the mount's disk port (tests put a person's save between a look
 * and an effect so). `prescanner`: grep's Workers, which search files ahead of a search.
 */
export function directMount(config: MountConfig, storeRel: string | undefined, over: (disk: HostDisk) => HostDisk = (d) => d, prescanner?: Prescanner): Mount {
  const words = mountWords(config.name);
  const disk = over(diskPort({
    root: config.root,
    rules: walkRules(config.ignore, storeRel, config.gitignore ? config.root : undefined),
    followSymlinks: config.followSymlinks,
    walkCap: WALK_CAP,
    ...(storeRel === undefined ? {} : { storeRel }),
    protect: config.protect,
    mount: config.name,
  }));
  return {
    name: config.name,
    backend: 'direct',
    readOnly: config.readOnly,
    maxFileSize: config.maxFileSize,
    root: config.root,
    read: (path) => read(disk, config, words, path),
    list: (path, options) => list(disk, words, path, options),
    searchFiles: (path, query) => searchFiles(disk, config, words, path, query, prescanner),
    commit: (changes) => commit(disk, config, words, changes),
    async sync() {
      return { ok: true as const, report: { mount: config.name, backend: 'direct', note: words.directNothingToSync() } };
    },
    async materialize() {
      return { ok: true as const, report: { mount: config.name, backend: 'direct', note: words.directNothingToMaterialize() } };
    },
    async status(): Promise<Report> {
      return { mount: config.name, backend: 'direct', root: config.root, readOnly: config.readOnly, maxFileSize: config.maxFileSize };
    },
  };
}
