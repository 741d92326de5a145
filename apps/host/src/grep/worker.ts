/**
 * The Worker a grep's scans run in. A message is one `MatchJob`, answered with its
 * `MatchJobResult` (the hit lists moved, not copied), and now and then with the line the
 * scan has reached, so a runner that ends this Worker past its deadline can say where;
 * or a batch of files to search ahead (`PrescanJob`): each answered `'none'` where
 * `scanAhead` says no line matches, else with its bytes (unpacked from the store's
 * codec here, off the caller's thread) and the scan made of them, or `null` where a
 * file before it ran past its limit (the pattern is slow);
 * a batch of paths is read here first, through the mount's disk (`diskReader`).
 * The one rule: nothing here decides anything — `@ws/grep` does.
 */
import { fullGC, heapSize } from 'bun:jsc';
import { type MatchJob, runMatchJob, scanAhead } from '@ws/grep';
import { UnpackArena } from '../store/unpack-arena.ts';
import type { Reading } from '@ws/reconcile';
import { type DiskReader, diskReader, type SearchReading } from '../disk/disk-port.ts';
import { stillQuiet } from '../disk/quiet.ts';
import { keptConnection, mapStoreFile, readPackedBlobs, releasePackedBlobs } from './blob-file.ts';
import { HeapBound, itemLimitMs, PROGRESS_MS, type QuietJob, READ_BATCH, type PrescanItem, type PrescanJob, type ScannedAhead, type WorkerReadVerdict, type WorkerVerdict } from './prescan.ts';
import { sendVerdicts } from './verdict-wire.ts';
import { CLAIM_WORKER, claimPart, type PartFound, type PartJob, scanBuffers, searchPart } from './part-search.ts';

declare const self: Worker;

/** Where this Worker unpacks the store's blobs: most are searched and dropped, so one buffer serves them all. */
const unpacking = new UnpackArena();

/** This Worker's heap, collected after a batch once past its bound (the caller may set it: `heapBytes`). */
let bound: HeapBound | undefined;

function prescan(id: number, job: PrescanJob, move = true): { verdicts: WorkerVerdict[]; moved: ArrayBuffer[]; slow: boolean } {
  const now = () => performance.now();
  let told = now();
  let slow = false;
  const verdicts: WorkerVerdict[] = [];
  const moved: ArrayBuffer[] = [];
  const give = (unpacked: Uint8Array, scan?: ScannedAhead, aheadMs?: number) => {
    // A full page's search only counts: the scan goes back, the bytes stay (garbage here).
    const counted = scan !== undefined && job.counting === true;
    // Bytes that go back are their own, not a view of the buffer the next blob is unpacked into.
    const bytes = !counted && unpacking.holds(unpacked) ? unpacked.slice() : unpacked;
    verdicts.push(counted ? { counted: { size: bytes.length, scan: scan.result } } : { bytes, ...madeOf(scan, aheadMs) });
    if (!move) return;
    for (const b of [...(counted ? [] : [bytes.buffer as ArrayBuffer]), ...(scan ? scanBuffers(scan.result) : [])]) {
      if (!moved.includes(b)) moved.push(b);
    }
  };
  for (const item of job.items) {
    if (slow) {
      // A file ran past its limit: the pattern is slow, the caller searches the rest itself (bytes it moved here go back).
      if ('bytes' in item) give(item.bytes);
      else verdicts.push(null);
      continue;
    }
    const started = now();
    if (started - told >= PROGRESS_MS) {
      self.postMessage({ id, progress: 0 });
      told = started;
    }
    const bytes = 'bytes' in item ? item.bytes : unpacking.unpack(item.codec, item.packed);
    const limit = itemLimitMs(job.itemMs, bytes.length);
    // A full page's search only counts: a file's lines need no numbers (`scanAhead`'s `countOnly`).
    const ahead = scanAhead(job.pattern, job.options, bytes, limit, now, job.counting === true);
    // A file whose scan ran past its limit makes the pattern slow here; the time it took is
    // matching time, and goes back with it to count against the search's deadline.
    const took = now() - started;
    if (ahead.kind === 'unsure' && took >= limit) slow = true;
    if (ahead.kind === 'none') verdicts.push('none');
    else give(bytes, ahead.kind === 'scanned' ? { result: ahead.result, lineEnds: ahead.lineEnds } : undefined, slow ? took : undefined);
  }
  return { verdicts, moved, slow };
}

/** What a verdict says it made of a file beside its bytes: the scan, or the time a scan past its limit took (only those set). */
function madeOf(scan: ScannedAhead | undefined, aheadMs: number | undefined): { scan?: ScannedAhead; aheadMs?: number } {
  return { ...(scan !== undefined ? { scan } : {}), ...(aheadMs !== undefined ? { aheadMs } : {}) };
}

/** The mounts' readers this Worker has made, by spec. */
const readers = new Map<string, DiskReader>();

/**
 * Buffers a batch of paths is read into, one a batch in hand ({@link READ_BATCH}'s bytes):
 * a file no line of which can match leaves nothing behind to collect, and only the
 * files that go back to the caller are copied out. Read into bytes of their own, every
 * file of a 243 MB tree was garbage this Worker's collector had to catch up with.
 */
const arenas: Uint8Array[] = [];

/** A batch of paths: read as the mount's disk reads them, then each file searched ahead. */
async function readAndPrescan(id: number, job: PrescanJob & { read: NonNullable<PrescanJob['read']> }): Promise<{ verdicts: WorkerReadVerdict[]; moved: ArrayBuffer[]; slow: boolean }> {
  const key = JSON.stringify(job.read.spec);
  let reader = readers.get(key);
  if (reader === undefined) {
    reader = diskReader(job.read.spec);
    readers.set(key, reader);
  }
  const arena = arenas.pop() ?? new Uint8Array(READ_BATCH.bytes);
  try {
    const verdicts: WorkerReadVerdict[] = [];
    const moved: ArrayBuffer[] = [];
    // What goes back holds bytes of its own: the arena is this Worker's, for the next files.
    const ownBytes = (bytes: Uint8Array): Uint8Array => {
      if (bytes.buffer !== arena.buffer) return bytes;
      const own = bytes.slice();
      moved.push(own.buffer);
      return own;
    };
    const own = (reading: Reading): Reading => (reading.kind !== 'file' || reading.bytes === null ? reading : { ...reading, bytes: ownBytes(reading.bytes) });
    const back = (reading: SearchReading, scan?: ScannedAhead, aheadMs?: number): WorkerReadVerdict =>
      reading.kind === 'read' ? { bytes: ownBytes(reading.bytes), ...madeOf(scan, aheadMs) } : { reading: own(reading), ...madeOf(scan, aheadMs) };
    let slow = false;
    // As many files at a time as the arena holds: each searched before the next are read into it.
    for (let from = 0; from < job.read.paths.length; ) {
      const readings = await reader.readForSearch(from === 0 ? job.read.paths : job.read.paths.slice(from), job.read.maxBytes, arena);
      from += readings.length;
      // Read: the search's time starts now.
      self.postMessage({ id, progress: 0 });
      const k: number[] = [];
      readings.forEach((r, i) => {
        if (bytesOf(r) !== undefined) k.push(i);
      });
      // A file past its limit made the pattern slow: the caller searches the rest itself.
      let found: WorkerVerdict[] = k.map(() => null);
      if (!slow) {
        const scanned = prescan(id, { ...job, items: k.map((i) => ({ bytes: bytesOf(readings[i]) as Uint8Array })) }, false);
        found = scanned.verdicts;
        slow = scanned.slow;
      }
      let n = 0;
      readings.forEach((reading, i) => {
        if (k[n] !== i) {
          verdicts.push(back(reading));
          return;
        }
        const v = found[n++];
        if (v === 'none') verdicts.push({ none: (bytesOf(reading) as Uint8Array).length });
        else if (v !== null && 'counted' in v) {
          verdicts.push(v);
          moved.push(...scanBuffers(v.counted.scan));
        } else if (v !== null && v.scan !== undefined) {
          verdicts.push(back(reading, v.scan));
          moved.push(...scanBuffers(v.scan.result));
        } else verdicts.push(back(reading, undefined, v === null ? undefined : v.aheadMs));
      });
    }
    return { verdicts, moved, slow };
  } finally {
    arenas.push(arena);
  }
}

/** A part of a direct mount's tree: walked, each file read and searched as it is met (`part-search.ts`). */
function partAndPrescan(id: number, job: PrescanJob & { part: PartJob }): void {
  // Taken meanwhile by the calling thread: nothing to do here (answered with no verdicts).
  const { claim } = job.part;
  if (claim !== undefined && !claimPart(claim.claims, claim.at, CLAIM_WORKER)) {
    self.postMessage({ id, taken: true });
    return;
  }
  const arena = arenas.pop() ?? new Uint8Array(READ_BATCH.bytes);
  try {
    const { verdicts, moved, slow, paths, ordinals, seen, whole, temporary } = searchPart(job, arena, scanAhead, true, () => self.postMessage({ id, progress: 0 }));
    const wire = sendVerdicts(verdicts as WorkerReadVerdict[], moved);
    const found: PartFound = { paths, ordinals, seen, whole, temporary };
    self.postMessage({ id, ...wire.sent, slow, found }, [...new Set([...wire.moved, ordinals.buffer as ArrayBuffer])]);
  } finally {
    arenas.push(arena);
  }
}

/** A reading's bytes where there are some to search (a file read whole, not empty); else undefined. */
function bytesOf(reading: SearchReading): Uint8Array | undefined {
  if (reading.kind === 'read') return reading.bytes;
  return reading.kind === 'file' && reading.bytes !== null && reading.bytes.length > 0 ? reading.bytes : undefined;
}

/** A batch of blobs: read from the store's file here, each searched ahead; null for a hash the file lacks. */
function readBlobsAndPrescan(id: number, job: PrescanJob & { blobs: NonNullable<PrescanJob['blobs']> }): { verdicts: WorkerVerdict[]; moved: ArrayBuffer[]; slow: boolean } {
  const { file, hashes, ids } = job.blobs;
  const packed = readPackedBlobs(file, hashes, ids);
  // Read: the search's time starts now.
  self.postMessage({ id, progress: 0 });
  const k: number[] = [];
  const items: PrescanItem[] = [];
  hashes.forEach((h, i) => {
    const p = packed.get(h);
    if (p === undefined) return;
    k.push(i);
    items.push({ codec: p.codec, packed: p.bytes });
  });
  const { verdicts: found, moved, slow } = prescan(id, { ...job, items });
  const verdicts: WorkerVerdict[] = hashes.map(() => null);
  k.forEach((i, n) => {
    verdicts[i] = found[n];
  });
  return { verdicts, moved, slow };
}

self.onmessage = async (event: MessageEvent<{ id: number; job?: MatchJob; prescan?: PrescanJob; heapBytes?: number; mapStore?: boolean; collections?: true; release?: true; done?: Int32Array; keeps?: true; quiet?: QuietJob }>) => {
  const { id, job, heapBytes } = event.data;
  if (event.data.quiet !== undefined) {
    const { root, stats, share } = event.data.quiet;
    try {
      self.postMessage({ id, quiet: stillQuiet(root, stats, share) });
    } catch (err) {
      self.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
    }
    return;
  }
  if (event.data.mapStore !== undefined) mapStoreFile(event.data.mapStore);
  if (event.data.release) {
    // A search ended, or the pool closes: the store's file it read is let go (`blob-file.ts`).
    releasePackedBlobs();
    const done = event.data.done;
    if (done !== undefined) {
      // The pool waits on this, not on a message: it closes without going back to its event loop.
      Atomics.store(done, 0, 1);
      Atomics.notify(done, 0);
    } else self.postMessage({ id, released: true });
    return;
  }
  if (event.data.keeps) {
    self.postMessage({ id, keeps: keptConnection() });
    return;
  }
  if (heapBytes !== undefined) {
    bound = new HeapBound(heapBytes, heapSize, fullGC);
    return;
  }
  if (event.data.collections) {
    self.postMessage({ id, collections: bound?.collections ?? 0 });
    return;
  }
  try {
    const batch = event.data.prescan;
    if (batch?.part !== undefined) {
      partAndPrescan(id, { ...batch, part: batch.part });
      bound?.check();
      return;
    }
    if (batch !== undefined) {
      const { verdicts, moved, slow } =
        batch.blobs !== undefined
          ? readBlobsAndPrescan(id, { ...batch, blobs: batch.blobs })
          : batch.read === undefined
            ? prescan(id, batch)
            : await readAndPrescan(id, { ...batch, read: batch.read });
      // Most verdicts cross as numbers (`verdict-wire.ts`): an object apiece cost more to send than the rest of a batch.
      const wire = sendVerdicts<WorkerVerdict | WorkerReadVerdict>(verdicts, moved);
      self.postMessage({ id, ...wire.sent, slow }, [...new Set(wire.moved)]);
      // The batch's bytes and texts are garbage now (what matched has moved to the caller).
      bound?.check();
      return;
    }
    if (job === undefined) throw new Error('a grep Worker was sent neither a scan nor a batch');
    // The text stays here: the caller decodes its own copy only where it shows lines.
    const { text: _, ...result } = runMatchJob(job, () => performance.now(), (line) => self.postMessage({ id, progress: line }));
    const moved = [result.hits.buffer, result.gaveUp.buffer, ...(result.ends ? [result.ends.buffer] : [])];
    self.postMessage({ id, result }, [...new Set(moved)] as ArrayBuffer[]);
    // The job's bytes and text are garbage now: a large file's stretches come one job
    // after another, and without this the Worker's heap grew by tens of MiB before its
    // collector ran (the host README, "A large file's stretches, collected as they pass").
    bound?.check();
  } catch (err) {
    self.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
