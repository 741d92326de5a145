/**
 * Where the host's greps run: scans in Workers, off the event loop, so one pattern that
 * backtracks for ever holds no other call, and a Worker past its deadline is ended (and
 * replaced) rather than waited for; and the batches mounts search ahead (`prescan.ts`) on
 * the same Workers, whose scans then answer the search's jobs for those very bytes. The
 * one rule: a scan's answer comes back by its deadline plus a short grace — its own when
 * the scan stopped itself in time, or one that says where it was when the Worker was
 * ended (`lost`: its matches are not known). A Worker that cannot start (its file missing
 * from a broken install, say) fails no grep: its scans run on the calling thread, and the
 * batches fall back to the search's own reading.
 */
import { fullGC, heapSize } from 'bun:jsc';
import type { MatchJob, MatchJobResult, MatchRunner, PatternOptions } from '@ws/grep';
import { CALLER_HEAP_BYTES, HEAP_CHECK_PACE, HeapBound, SEARCHED_COLLECT, WORKER_HEAP_BYTES, UNREAD_PACE, type PrescanAnswer, type Prescanner, type PrescanJob, type PrescanVerdict, type QuietJob, READ_BATCH, READ_MS, type ReadVerdict, type ScannedAhead, type WorkerReadVerdict, type WorkerVerdict } from './prescan.ts';
import { type SentVerdict, takeVerdicts } from './verdict-wire.ts';
import { type PartAnswer, type PartFound, type PartJob, searchPart } from './part-search.ts';
import { workerUrl } from '../worker-file.ts';

/** How long past a job's time limit a Worker may take to answer before it is ended. */
const GRACE_MS = 250;
/**
 * How long past its `stallMs` a Worker searching ahead may go quiet (it is only ahead of
 * the search: ending it early costs time, not answers — but much time on a loaded
 * machine, where a thread may wait for a core for a few hundred milliseconds: the batch
 * is then read and searched again on the caller's thread; yet a Worker stuck in one
 * pattern's backtracking must be ended well before the search's deadline).
 */
const STALL_GRACE_MS = 250;
/** At most this many Workers at once (fewer for a one-shot on few cores: `maxWorkers`); more jobs wait for one. */
const MAX_WORKERS = 4;
/**
 * How many batches of paths (a direct mount's, read in the Worker) a one-shot's lone Worker
 * holds at once: one read and searched, the rest waiting in its queue. A batch of 64
 * small files is under a millisecond of the Worker's time, and the caller's thread pauses
 * longer than two of them — a directory's part of the walk, a collection — so with two
 * the Worker waited for it (busy some 580 ms of the 800 a direct grep of the bench tree
 * took). Waiting, a batch is only its paths; the bytes that come back are the matching
 * files' alone, and a full page's come back counted.
 */
export const ONE_WORKER_READS = 8;
/**
 * How many Workers a prescan keeps searching ahead on `cores` cores: one a core (at most
 * the Workers there are) — but one on two cores or fewer for a one-shot command, where the
 * caller's thread (the walk, the search) keeps one core busy itself: a second Worker
 * there bought a tenth of the time and cost some 30 MiB of a one-shot grep's peak (the
 * README's "Memory"); that one Worker holds two batches instead (`QUEUED`). A
 * long-running host (`ws serve`, `ws mcp`) keeps one a core on two as well: it makes its
 * Workers once and keeps them, and a warm grep's caller mostly waits for them (a store's
 * blobs are read in the Workers), so there the second Worker took a third off a selective
 * regex and more off a common word.
 */
export function prescanParallel(cores: number, longRunning = false): number {
  if (cores <= 2) return longRunning ? Math.max(1, cores) : 1;
  return Math.min(MAX_WORKERS, cores);
}

type Reply = { id: number; progress?: number; result?: MatchJobResult; verdicts?: SentVerdict<WorkerVerdict | WorkerReadVerdict>[]; tallies?: Float64Array; slow?: boolean; found?: PartFound; error?: string; collections?: number; released?: true; keeps?: number | null; quiet?: boolean };

/** How long a search (and a pool that closes) waits for its Workers to say they let the store's file go. */
const RELEASE_MS = 100;

/** A pattern with its options, as one string. */
const jobKey = (pattern: string, o: PatternOptions) => `${o.caseInsensitive ? 'i' : ''}${o.fixedStrings ? 'F' : ''}${o.multiline ? 'U' : ''}\0${pattern}`;

interface Slot {
  worker: Worker;
  busy: boolean;
  /** Whether the Worker has answered anything: one that closes before it has, never started. */
  answered: boolean;
  /** What the job or batches in hand do if the Worker closes under them. */
  lost?: () => void;
  /**
   * The batches sent to this Worker and not yet answered, in the order sent: the first is
   * timed (`begin` arms its stall timer), the next waits in the Worker's queue untimed
   * until the first is answered ({@link QUEUED}); `drop` answers one undefined where its
   * Worker is gone.
   */
  batches: { begin(): void; drop(): void }[];
}

/** A pool of grep Workers, and the runner that uses it. */
export interface GrepWorkers {
  readonly runner: MatchRunner;
  /** Batches searched ahead for a mount (`prescan.ts`), on the same Workers. */
  readonly prescanner: Prescanner;
  /** Ends every Worker (the host is closing). */
  close(): void;
  /** How many Workers the pool holds now (for tests). */
  size(): number;
  /** How many heap collections the bounds made, on the caller's thread and in the Workers (for tests; ask while no job runs). */
  collections(): Promise<{ caller: number; workers: number }>;
  /** For each Worker, null where it keeps no connection to the store's file, else how many bytes of it that connection maps (`blob-file.ts`; for tests). */
  keepConnections(): Promise<(number | null)[]>;
}

/** How tightly the pool bounds heaps ({@link HeapBound}); tests make them tiny. */
export interface HeapBounds {
  /** A Worker's heap, checked after each batch; default {@link WORKER_HEAP_BYTES}. */
  readonly workerHeapBytes?: number;
  /** The caller's heap, checked as each batch comes back; default {@link CALLER_HEAP_BYTES}. */
  readonly callerHeapBytes?: number;
  /** The cores the pool plans for ({@link prescanParallel}); default: the machine's. */
  readonly cores?: number;
  /** For a long-running host, which keeps a batch in flight a core even on two ({@link prescanParallel}) and paces its caller's heap checks. */
  readonly longRunning?: boolean;
  /** A one-shot caller's collection after the Workers searched this many bytes for it; default {@link SEARCHED_COLLECT}. */
  readonly searchedBytes?: number;
  /** The Workers' file, relative to this module; default: the build's. Tests name one that cannot start. */
  readonly workerFile?: string;
}

const EMPTY = new Uint32Array(0);

// The built bin (`bun run build:bin`) and the compiled executable (`bun run build`) take
// the Worker as a second entry and name its file as it lies beside them (without that,
// neither could start a Worker, and every grep ran into its deadline); the sources name
// it here.
declare const WS_GREP_WORKER: string | undefined;
const WORKER = typeof WS_GREP_WORKER === 'string' ? WS_GREP_WORKER : './worker.ts';

/** A job whose packed items are views of one buffer (moved with the job), so they cross at once. */
function packedTogether(job: PrescanJob): PrescanJob {
  let total = 0;
  for (const item of job.items) if ('packed' in item) total += item.packed.length;
  if (total === 0) return job;
  const all = new Uint8Array(total);
  let at = 0;
  const items = job.items.map((item) => {
    if (!('packed' in item)) return item;
    all.set(item.packed, at);
    const view = all.subarray(at, at + item.packed.length);
    at += item.packed.length;
    return { codec: item.codec, packed: view };
  });
  return { ...job, items };
}

/** Starts a pool (Workers are made when first needed). */
export function grepWorkers(bounds: HeapBounds = {}): GrepWorkers {
  const slots: Slot[] = [];
  const waiting: ((slot: Slot | undefined) => void)[] = [];
  let nextId = 0;
  let closed = false;
  const workerHeapBytes = bounds.workerHeapBytes ?? WORKER_HEAP_BYTES;
  const longRunning = bounds.longRunning === true;
  const PARALLEL = prescanParallel(bounds.cores ?? navigator.hardwareConcurrency ?? 2, longRunning);
  // Where one batch is searched ahead at a time (a one-shot command on two cores or fewer),
  // one Worker serves the search's own scans too: they wait for the batch in hand, where a
  // second Worker, made for the few files a batch left unsure, was some 15–30 MiB of a
  // store-backed grep's peak and bought nothing the search's one thread could use.
  const maxWorkers = PARALLEL === 1 && !longRunning ? 1 : MAX_WORKERS;
  // That one Worker holds two batches: the next waits in its queue while it searches the
  // one in hand, so it never waits for this thread between them — for the caller to take
  // an answer and send the next batch while it walks a part of the tree or collects.
  const QUEUED = maxWorkers === 1 ? 2 : 1;
  // Parts of a tree (a one-shot's direct grep): one walked, read and searched, the rest
  // waiting; enough that the Worker has work while the caller's thread walks a large part
  // itself (the caller takes back the ones the Worker has not begun, by their claims).
  const PART_QUEUED = 64;
  // And more batches of paths, which are only paths until it reads them ({@link ONE_WORKER_READS}).
  const READ_QUEUED = maxWorkers === 1 ? ONE_WORKER_READS : QUEUED;
  /** How many batches of a kind one Worker holds at once. */
  const queuedOf = (job: PrescanJob) => (job.part !== undefined ? PART_QUEUED : job.read === undefined ? QUEUED : READ_QUEUED);
  // The batches' bytes that matched wait here for the search, and are garbage once it has passed them.
  // A long-running host's heap is large, and measuring it costs: its checks are paced.
  // A one-shot's caller collects as Workers' bytes come (its heap's size does not show them).
  const callerBound = new HeapBound(
    bounds.callerHeapBytes ?? CALLER_HEAP_BYTES,
    heapSize,
    fullGC,
    longRunning ? { pace: HEAP_CHECK_PACE } : { searched: bounds.searchedBytes ?? SEARCHED_COLLECT },
  );

  // Set once a Worker closed before it answered anything: its file cannot start (a broken
  // install), and neither could the next. Jobs then run here and batches fall back.
  let cannotStart = false;
  const make = (): Slot => {
    const worker = new Worker(workerUrl(bounds.workerFile ?? WORKER, import.meta.url).href);
    // A Worker waiting for work does not keep the process alive.
    (worker as Worker & { unref?: () => void }).unref?.();
    // A long-running host's Workers map the store's file they read (`blob-file.ts`).
    worker.postMessage({ id: -1, heapBytes: workerHeapBytes, mapStore: longRunning });
    const slot: Slot = { worker, busy: false, answered: false, batches: [] };
    let why: string | undefined;
    worker.addEventListener('error', (event) => {
      why ??= (event as ErrorEvent).message;
    });
    worker.addEventListener(
      'message',
      () => {
        slot.answered = true;
      },
      { once: true },
    );
    // Closed, not by this pool: it failed to start, or died. Its slot goes, and what it had
    // in hand is answered another way.
    worker.addEventListener('close', () => {
      const at = slots.indexOf(slot);
      if (at < 0) return;
      slots.splice(at, 1);
      if (!slot.answered && !cannotStart) {
        cannotStart = true;
        // Said once, where whoever runs ws sees it: the install is broken, and greps are slower for it.
        const reason = why === undefined ? '' : ` (${why.split('\n')[0]})`;
        process.stderr.write(`ws: grep's Worker could not start${reason}; greps search on the calling thread instead.\n`);
      }
      slot.lost?.();
    });
    slots.push(slot);
    return slot;
  };
  // A slot is taken at once (busy before the caller resumes), so jobs started together
  // go to different Workers, not all to the first free one. None (undefined) where no
  // Worker can start.
  const take = (): Promise<Slot | undefined> => {
    const free = takeNow();
    if (free === undefined && !cannotStart) return new Promise((done) => waiting.push(done));
    return Promise.resolve(free);
  };
  /** A slot taken now where one is free or can be made, else undefined. */
  const takeNow = (): Slot | undefined => {
    if (cannotStart) return undefined;
    const free = slots.find((s) => !s.busy) ?? (slots.length < maxWorkers ? make() : undefined);
    if (free !== undefined) free.busy = true;
    return free;
  };
  const give = (slot: Slot) => {
    slot.lost = undefined;
    const next = waiting.shift();
    if (next) next(slot);
    else slot.busy = false;
  };
  /** A slot whose Worker closed under its job: the next waiter gets a new Worker, or none where none can start (or the pool is closed). */
  const giveUp = () => {
    if (cannotStart || closed) for (const next of waiting.splice(0)) next(undefined);
    else if (waiting.length > 0) {
      const fresh = make();
      fresh.busy = true;
      give(fresh);
    }
  };
  /** A scan on this thread, where no Worker can start. */
  const here = async (job: MatchJob): Promise<MatchJobResult> => {
    const { runMatchJob } = await import('@ws/grep');
    const { text: _, ...result } = runMatchJob(job, () => performance.now());
    return result;
  };
  /** A new Worker in place of `slot`'s, taken (busy) as `slot` was: `give` hands it on. */
  const replace = (slot: Slot): Slot => {
    slot.worker.terminate();
    const at = slots.indexOf(slot);
    if (at >= 0) slots.splice(at, 1);
    const fresh = make();
    fresh.busy = true;
    return fresh;
  };
  // Batches searched ahead run on at most `PARALLEL` Workers at once (one a core): a
  // batch started beyond them waits for one (its caller has read it meanwhile), and a
  // search's own scans still find a Worker.
  let batchesRunning = 0;
  const batchWaiting: (() => void)[] = [];
  const batchTurn = (job: PrescanJob): Promise<void> => {
    if (batchesRunning < PARALLEL * queuedOf(job)) {
      batchesRunning++;
      return Promise.resolve();
    }
    return new Promise((done) => batchWaiting.push(done));
  };
  const batchDone = () => {
    const next = batchWaiting.shift();
    if (next) next();
    else batchesRunning--;
  };

  /** One question to a Worker, and its answer (undefined: none within `waitMs`). */
  const ask = (slot: Slot, question: object, waitMs = Number.POSITIVE_INFINITY): Promise<Reply | undefined> =>
    new Promise((resolve) => {
      const id = nextId++;
      const done = (reply: Reply | undefined) => {
        clearTimeout(timer);
        slot.worker.removeEventListener('message', onMessage);
        resolve(reply);
      };
      const onMessage = (event: MessageEvent<Reply>) => {
        if (event.data.id === id) done(event.data);
      };
      const timer = Number.isFinite(waitMs) ? setTimeout(() => done(undefined), waitMs) : undefined;
      slot.worker.addEventListener('message', onMessage);
      slot.worker.postMessage({ id, ...question });
    });

  const runner: MatchRunner = async (job: MatchJob) => {
    if (closed) throw new Error('the grep Workers were closed');
    const ahead = made.get(job.bytes);
    if (ahead !== undefined && ahead.lineEnds === job.lineEnds && ahead.key === jobKey(job.pattern, job.options)) {
      made.delete(job.bytes);
      return ahead.result;
    }
    // Time already spent matching these bytes ahead (a line ran past the time it had there)
    // is taken from this scan's, and told to the search, which counts both.
    const aheadMs = spentAhead.get(job.bytes) ?? 0;
    if (aheadMs > 0) {
      spentAhead.delete(job.bytes);
      const left = job.timeLimitMs - aheadMs;
      // Nothing left: a limit already past, so the scan stops before its first line.
      const scan = await runner({ ...job, timeLimitMs: left > 0 ? left : -1 });
      return { ...scan, aheadMs };
    }
    // A scan sent here (a large file's stretch, a file a batch left unsure) paces a
    // one-shot caller's collections as a batch's bytes do: the stretch's bytes and the
    // text it keeps to show lines are garbage once it has passed.
    callerBound.searched(job.bytes.length);
    const slot = await take();
    if (slot === undefined) return here(job);
    slot.busy = true;
    const id = nextId++;
    let reached = 1;
    return new Promise<MatchJobResult>((resolve, reject) => {
      const finish = (then: () => void) => {
        clearTimeout(timer);
        slot.worker.removeEventListener('message', onMessage);
        then();
      };
      slot.lost = () => finish(() => (giveUp(), here(job).then(resolve, reject)));
      const onMessage = (event: MessageEvent<Reply>) => {
        const reply = event.data;
        if (reply.id !== id) return;
        if (reply.progress !== undefined) reached = reply.progress;
        else if (reply.result !== undefined) {
          const result = reply.result;
          finish(() => (give(slot), resolve(result)));
        }
        else finish(() => (give(slot), reject(new Error(reply.error))));
      };
      const timer = setTimeout(() => {
        // Stuck inside one search: end the Worker and say where it was.
        finish(() => {
          give(replace(slot));
          resolve({ hits: EMPTY, lines: 0, gaveUp: EMPTY, stoppedAt: reached, bom: false, lost: true });
        });
      }, job.timeLimitMs + GRACE_MS);
      slot.worker.addEventListener('message', onMessage);
      slot.worker.postMessage({ id, job });
    });
  };

  /**
   * One batch in a Worker: its answer, or undefined where it failed or went quiet for
   * longer than `stallMs` (stuck inside one file's search: the Worker is then ended). A
   * batch that reads its files first has `READ_MS` for that.
   */
  const batch = async <T>(job: PrescanJob, moved: ArrayBuffer[]): Promise<{ verdicts: T[]; slow: boolean; found?: PartFound } | undefined> => {
    if (closed) return undefined;
    await batchTurn(job);
    try {
      return await batchOnWorker<T>(job, moved);
    } finally {
      batchDone();
      callerBound.check();
    }
  };
  const batchOnWorker = async <T>(job: PrescanJob, moved: ArrayBuffer[]): Promise<{ verdicts: T[]; slow: boolean; found?: PartFound } | undefined> => {
    if (closed) return undefined;
    // A Worker with a batch in hand takes more into its queue ({@link QUEUED}). A slot
    // had at once is the batch's before this function yields, so the next batch can join it.
    const slot = slots.find((s) => s.batches.length > 0 && s.batches.length < queuedOf(job)) ?? takeNow() ?? (await take());
    // No Worker can start: the search reads and searches this batch itself.
    if (slot === undefined) return undefined;
    slot.busy = true;
    const id = nextId++;
    return new Promise<{ verdicts: T[]; slow: boolean; found?: PartFound } | undefined>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const off = () => {
        clearTimeout(timer);
        slot.worker.removeEventListener('message', onMessage);
      };
      // Stuck inside one file's search: end the Worker; the search takes the batch itself.
      const arm = (ms: number) => {
        clearTimeout(timer);
        timer = setTimeout(stalled, ms);
      };
      const mine = {
        begin: () => arm(job.read === undefined && job.blobs === undefined && job.part === undefined ? job.stallMs + STALL_GRACE_MS : READ_MS),
        drop: () => {
          off();
          resolve(undefined);
        },
      };
      // The Worker is gone (ended here, or closed by itself): every batch it held is answered
      // undefined, and its slot handed on (to a new Worker) once.
      const gone = () => {
        for (const b of slot.batches.splice(0)) b.drop();
      };
      const stalled = () => {
        gone();
        give(replace(slot));
      };
      slot.lost = () => {
        gone();
        giveUp();
      };
      const onMessage = (event: MessageEvent<Reply>) => {
        if (event.data.id !== id) return;
        const { progress, verdicts, tallies, slow, found } = event.data;
        if (progress !== undefined) {
          arm(job.stallMs + STALL_GRACE_MS);
          return;
        }
        off();
        // Answered (or failed, which the Worker said): the batch queued behind it starts its time.
        const at = slot.batches.indexOf(mine);
        if (at >= 0) slot.batches.splice(at, 1);
        if (at === 0) slot.batches[0]?.begin();
        if (slot.batches.length === 0) {
          slot.lost = undefined;
          give(slot);
        }
        let taken: T[] | undefined;
        try {
          taken = verdicts === undefined ? undefined : (takeVerdicts({ verdicts, ...(tallies === undefined ? {} : { tallies }) }) as T[]);
        } catch {
          // Verdicts that do not add up count as none: the search reads and searches the batch itself.
          taken = undefined;
        }
        resolve(taken === undefined ? undefined : { verdicts: taken, slow: slow === true, ...(found === undefined ? {} : { found }) });
      };
      slot.batches.push(mine);
      if (slot.batches.length === 1) mine.begin();
      slot.worker.addEventListener('message', onMessage);
      slot.worker.postMessage({ id, prescan: job }, moved);
    });
  };
  // The scans made ahead, by the very bytes they were made of: the search's job for those
  // bytes is answered with its scan, not sent to a Worker again.
  const made = new WeakMap<Uint8Array, ScannedAhead & { readonly key: string }>();
  // The time a Worker spent on bytes it gave back unsure, past their limit (`aheadMs`).
  const spentAhead = new WeakMap<Uint8Array, number>();
  /** What a Worker made of bytes it sent back: their scan, or the time it spent on them. */
  const remember = (job: PrescanJob, bytes: Uint8Array, v: { readonly scan?: ScannedAhead; readonly aheadMs?: number }) => {
    if (v.scan !== undefined) made.set(bytes, { ...v.scan, key: jobKey(job.pattern, job.options) });
    if (v.aheadMs !== undefined) spentAhead.set(bytes, v.aheadMs);
  };
  /** A batch's verdicts as the search takes them: each file's bytes, its scan remembered. */
  const bytesBack = (job: PrescanJob, answer: { verdicts: WorkerVerdict[]; slow: boolean } | undefined): PrescanAnswer<PrescanVerdict> => {
    if (answer === undefined) return undefined;
    // What a Worker searched paces this thread's collections (a store's `'none'` carries no size: not counted).
    const verdicts = answer.verdicts.map((v): PrescanVerdict => {
      if (v === null || v === 'none') return v;
      if ('counted' in v) {
        // Its bytes stayed in the Worker (`UNREAD_PACE`).
        callerBound.searched(v.counted.size * UNREAD_PACE);
        return v;
      }
      callerBound.searched(v.bytes.length);
      remember(job, v.bytes, v);
      return v.bytes;
    });
    return { verdicts, slow: answer.slow };
  };
  /**
   * A read file's verdict as the search takes it. Every file read paces this thread's
   * collections, its bytes come back or not (a file that did not come back counts at
   * `unread` of its size, one with no match at `none`); a scan made ahead is remembered
   * for its bytes.
   */
  const readBack = (job: PrescanJob, v: WorkerReadVerdict, unread = 1, none = unread): ReadVerdict => {
    if ('none' in v) callerBound.searched(v.none * none);
    if ('counted' in v) callerBound.searched(v.counted.size * unread);
    if ('none' in v || 'counted' in v) return v;
    const bytes = 'bytes' in v ? v.bytes : v.reading.kind === 'file' ? v.reading.bytes : null;
    if (bytes !== null) {
      callerBound.searched(bytes.length);
      remember(job, bytes, v);
    }
    return 'bytes' in v ? { bytes: v.bytes } : { reading: v.reading };
  };
  /**
   * A part's answer as the search takes it (a file the search reads itself stays null). A
   * file with no match counts at `UNREAD_PACE` on either thread: a Worker's bytes stayed
   * there, and the calling thread read its own into one buffer, used again for the next.
   */
  const partBack = (job: PrescanJob, found: PartFound, verdicts: readonly (WorkerReadVerdict | null)[], slow: boolean, unread: number): PartAnswer => ({
    ...found,
    verdicts: verdicts.map((v) => (v === null ? null : readBack(job, v, unread, UNREAD_PACE))),
    slow,
  });

  // The buffer the calling thread reads its own parts into.
  let hereArena: Uint8Array | undefined;
  const prescanner: Prescanner = {
    async run(job) {
      // The bytes of files as read move to the Worker; the store's packed bytes (which the
      // caller may need again) cross as one copy of them all, not one clone a file.
      const together = packedTogether(job);
      const moved = [...new Set(together.items.map((item) => ('bytes' in item ? item.bytes.buffer : item.packed.buffer) as ArrayBuffer))];
      return bytesBack(job, await batch<WorkerVerdict>(together, moved));
    },
    async blobs(job) {
      return bytesBack(job, await batch<WorkerVerdict>(job, []));
    },
    async release() {
      // A long-running host's Workers keep the file for the next search (`blob-file.ts`):
      // they let it go when idle, or when the pool closes.
      if (longRunning) return;
      // Asked of every Worker, busy or not: each lets go once its batch in hand is done. A
      // one-shot command waits (briefly) for that, so the store it closes next is closed
      // last and takes its WAL files with it.
      await Promise.all(slots.map((slot) => ask(slot, { release: true }, RELEASE_MS)));
    },
    async stillQuiet(job: QuietJob) {
      // Only a Worker free now (or made now): the caller checks the stats meanwhile, and
      // would otherwise wait for a busy one that has nothing left to check.
      const slot = closed ? undefined : takeNow();
      if (slot === undefined) return null;
      const id = nextId++;
      // The process waits for the answer (a Worker waiting for work does not keep it alive).
      const worker = slot.worker as Worker & { ref?: () => void; unref?: () => void };
      worker.ref?.();
      return new Promise<boolean | undefined>((resolve) => {
        const onMessage = (event: MessageEvent<Reply>) => {
          if (event.data.id !== id) return;
          worker.removeEventListener('message', onMessage);
          worker.unref?.();
          give(slot);
          resolve(event.data.quiet);
        };
        // The Worker closed under it (or the pool did): no answer; the caller checks itself.
        slot.lost = () => {
          worker.removeEventListener('message', onMessage);
          giveUp();
          resolve(undefined);
        };
        worker.addEventListener('message', onMessage);
        worker.postMessage({ id, quiet: job });
      });
    },
    async read(job) {
      const answer = await batch<WorkerReadVerdict>(job, []);
      if (answer === undefined) return undefined;
      return { verdicts: answer.verdicts.map((v) => readBack(job, v)), slow: answer.slow };
    },
    ...(longRunning
      ? {}
      : {
          parts: {
            async part(job: PrescanJob): Promise<PartAnswer | undefined> {
              const answer = await batch<WorkerReadVerdict | null>(job, []);
              if (answer?.found === undefined || answer.verdicts.length !== answer.found.ordinals.length) return undefined;
              return partBack(job, answer.found, answer.verdicts, answer.slow, UNREAD_PACE);
            },
            async here(job: PrescanJob): Promise<PartAnswer> {
              hereArena ??= new Uint8Array(READ_BATCH.bytes);
              const { scanAhead } = await import('@ws/grep');
              const { verdicts, slow, moved: _, ...found } = searchPart(job as PrescanJob & { part: PartJob }, hereArena, scanAhead, false);
              const answer = partBack(job, found, verdicts, slow, 1);
              callerBound.check();
              return answer;
            },
            warm() {
              // A Worker (started now where there is none) asked a question, so that its answer says it is up.
              if (cannotStart || closed || slots.some((slot) => slot.answered)) return;
              const slot = slots[0] ?? make();
              void ask(slot, { keeps: true });
            },
            ready: () => slots.some((slot) => slot.answered),
            ahead: PARALLEL * PART_QUEUED,
          },
        }),
    parallel: PARALLEL * QUEUED,
    readParallel: PARALLEL * READ_QUEUED,
    longRunning,
  };

  return {
    runner,
    prescanner,
    size: () => slots.length,
    async collections() {
      const counts = await Promise.all(slots.map((slot) => ask(slot, { collections: true })));
      return { caller: callerBound.collections, workers: counts.reduce((a, b) => a + (b?.collections ?? 0), 0) };
    },
    async keepConnections() {
      return (await Promise.all(slots.map((slot) => ask(slot, { keeps: true })))).map((r) => r?.keeps ?? null);
    },
    close() {
      closed = true;
      // Each Worker lets the store's file go before it is ended, and this thread waits for
      // that (at most RELEASE_MS in all): the store, closed next, is then the last
      // connection, and takes its WAL files with it. A Worker in the middle of a batch
      // answers once the batch is done, or is ended without.
      const released = slots.map((slot) => {
        const flag = new Int32Array(new SharedArrayBuffer(4));
        slot.worker.postMessage({ id: -1, release: true, done: flag });
        return flag;
      });
      const until = performance.now() + RELEASE_MS;
      for (const flag of released) {
        const left = until - performance.now();
        if (left > 0) Atomics.wait(flag, 0, 0, left);
      }
      const ending = slots.splice(0);
      for (const s of ending) s.worker.terminate();
      // What they had in hand is answered as for a Worker lost (a batch unanswered, a scan
      // made on this thread) now, its stall timer cleared: left running, it would end the
      // Worker again when it fired, and make a new one for a pool that is closed.
      for (const s of ending) s.lost?.();
      // Anyone still waiting for a Worker gets none.
      giveUp();
    },
  };
}
