/**
 * A file over the mount's `maxFileSize`, offered to `read` as pages straight from disk
 * (the tools README's "Large files"). The one rule: every stretch comes from the file the
 * first look saw — once its fingerprint changes, `range` answers null, never bytes of
 * another version.
 */
import { BINARY_SNIFF_BYTES, looksBinary } from '@ws/text';
import type { ReadOutcome } from '@ws/tools';
import type { HostDisk } from '../disk/disk-port.ts';
import { sameFile } from '../disk/fingerprint.ts';
import type { mountWords } from './words.ts';

/** `path` (over the limit on disk) as a large file, or binary, missing or unreadable as the first look finds it. */
export async function largeFile(disk: HostDisk, words: ReturnType<typeof mountWords>, path: string): Promise<ReadOutcome> {
  const head = await disk.readRange(path, 0, BINARY_SNIFF_BYTES);
  if (head.kind === 'absent') return { kind: 'missing' };
  if (head.kind === 'unobservable') return { kind: 'answer', message: words.unreadable(path, head.reason) };
  if (looksBinary(head.bytes)) return { kind: 'binary', size: head.meta.size };
  const { fingerprint, size } = head.meta;
  // One buffer per outcome: each stretch is decoded before the next is asked for.
  let buffer = new Uint8Array(0);
  return {
    kind: 'large',
    size,
    notes: [],
    async range(start, length) {
      if (buffer.length < length) buffer = new Uint8Array(length);
      const got = await disk.readRange(path, start, length, buffer);
      return got.kind === 'file' && sameFile(got.meta.fingerprint, fingerprint) ? got.bytes : null;
    },
  };
}
