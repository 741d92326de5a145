/**
 * The Worker a grep's scans run in. A message is one `MatchJob`, answered with its
 * `MatchJobResult` (the hit lists moved, not copied), and now and then with the line the
 * scan has reached, so a runner that ends this Worker past its deadline can say where;
 * or a batch of files to search ahead (`PrescanJob`): each answered `'none'` where
 * `holdsNoMatch` says no line matches, else with its bytes (unpacked from the store's
 * codec here, off the caller's thread), or `null` where the batch ran out of time first;
 * a batch of paths is read here first, through the mount's disk (`diskReader`).
 * The one rule: nothing here decides anything — `@ws/grep` does.
 */
import { type MatchJob, holdsNoMatch, runMatchJob } from '@ws/grep';
import { unpackBlob } from '../store/blob-codec.ts';
import type { Reading } from '@ws/reconcile';
import { type DiskReader, diskReader } from '../disk/disk-port.ts';
import type { PrescanJob, PrescanVerdict, ReadVerdict } from './prescan.ts';

declare const self: Worker;

function prescan(job: PrescanJob): { verdicts: PrescanVerdict[]; moved: ArrayBuffer[] } {
  const now = () => performance.now();
  const until = now() + job.batchMs;
  const verdicts: PrescanVerdict[] = [];
  const moved: ArrayBuffer[] = [];
  const give = (bytes: Uint8Array) => {
    verdicts.push(bytes);
    if (!moved.includes(bytes.buffer as ArrayBuffer)) moved.push(bytes.buffer as ArrayBuffer);
  };
  for (const item of job.items) {
    if (now() >= until) {
      // Out of time: the caller searches the rest itself (bytes it moved here go back).
      if ('bytes' in item) give(item.bytes);
      else verdicts.push(null);
      continue;
    }
    const bytes = 'bytes' in item ? item.bytes : unpackBlob(item.codec, item.packed);
    if (holdsNoMatch(job.pattern, job.options, bytes, Math.max(1, Math.min(job.itemMs, until - now())), now)) verdicts.push('none');
    else give(bytes);
  }
  return { verdicts, moved };
}

/** The mounts' readers this Worker has made, by spec. */
const readers = new Map<string, DiskReader>();

/** A batch of paths: read as the mount's disk reads them, then each file searched ahead. */
async function readAndPrescan(id: number, job: PrescanJob & { read: NonNullable<PrescanJob['read']> }): Promise<{ verdicts: ReadVerdict[]; moved: ArrayBuffer[] }> {
  const key = JSON.stringify(job.read.spec);
  let reader = readers.get(key);
  if (reader === undefined) {
    reader = diskReader(job.read.spec);
    readers.set(key, reader);
  }
  const readings = await reader.readMany(job.read.paths, job.read.maxBytes);
  // Read: the search's time starts now.
  self.postMessage({ id, progress: 0 });
  const k: number[] = [];
  readings.forEach((r, i) => {
    if (r.kind === 'file' && r.bytes !== null && r.bytes.length > 0) k.push(i);
  });
  const { verdicts: found } = prescan({ ...job, items: k.map((i) => ({ bytes: (readings[i] as { bytes: Uint8Array }).bytes })) });
  const verdicts: ReadVerdict[] = readings.map((reading) => ({ reading }));
  const moved: ArrayBuffer[] = [];
  k.forEach((i, n) => {
    const reading = readings[i] as Reading & { kind: 'file'; bytes: Uint8Array };
    if (found[n] === 'none') verdicts[i] = { none: reading.meta.size };
    else moved.push(reading.bytes.buffer as ArrayBuffer);
  });
  return { verdicts, moved };
}

self.onmessage = async (event: MessageEvent<{ id: number; job?: MatchJob; prescan?: PrescanJob }>) => {
  const { id, job } = event.data;
  try {
    const batch = event.data.prescan;
    if (batch !== undefined) {
      const { verdicts, moved } = batch.read === undefined ? prescan(batch) : await readAndPrescan(id, { ...batch, read: batch.read });
      self.postMessage({ id, verdicts }, [...new Set(moved)]);
      return;
    }
    if (job === undefined) throw new Error('a grep Worker was sent neither a scan nor a batch');
    // The text stays here: the caller decodes its own copy only where it shows lines.
    const { text: _, ...result } = runMatchJob(job, () => performance.now(), (line) => self.postMessage({ id, progress: line }));
    const moved = [result.hits.buffer, result.gaveUp.buffer, ...(result.ends ? [result.ends.buffer] : [])];
    self.postMessage({ id, result }, [...new Set(moved)] as ArrayBuffer[]);
  } catch (err) {
    self.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
