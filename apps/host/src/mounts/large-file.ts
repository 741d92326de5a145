/**
 * A file over the mount's `maxFileSize`, offered to `read` as pages straight from disk
 * (the tools README's "Large files"). The one rule: every stretch comes from the file the
 * first look saw — once its fingerprint changes, `range` answers null, never bytes of
 * another version.
 */
import { BINARY_SNIFF_BYTES, looksBinary } from '@ws/text';
import type { ReadOutcome, SearchFile } from '@ws/tools';
import type { HostDisk } from '../disk/disk-port.ts';
import { sameFile } from '../disk/fingerprint.ts';
import type { mountWords } from './words.ts';

type Words = ReturnType<typeof mountWords>;

/** The first look at a file over the limit: its first 8 KB, and ranges of the file that look saw. */
type Look =
  | { readonly kind: 'look'; readonly head: Uint8Array; readonly size: number; range(start: number, length: number): Promise<Uint8Array | null> }
  | { readonly kind: 'missing' }
  | { readonly kind: 'answer'; readonly message: string };

async function look(disk: HostDisk, words: Words, path: string): Promise<Look> {
  const head = await disk.readRange(path, 0, BINARY_SNIFF_BYTES);
  if (head.kind === 'absent') return { kind: 'missing' };
  if (head.kind === 'unobservable') return { kind: 'answer', message: words.unreadable(path, head.reason) };
  const { fingerprint, size } = head.meta;
  // One buffer per look: each stretch is used before the next is asked for.
  let buffer = new Uint8Array(0);
  return {
    kind: 'look',
    head: head.bytes,
    size,
    async range(start, length) {
      if (buffer.length < length) buffer = new Uint8Array(length);
      const got = await disk.readRange(path, start, length, buffer);
      return got.kind === 'file' && sameFile(got.meta.fingerprint, fingerprint) ? got.bytes : null;
    },
  };
}

/** `path` (over the limit on disk) as a large file, or binary, missing or unreadable as the first look finds it. */
export async function largeFile(disk: HostDisk, words: Words, path: string): Promise<ReadOutcome> {
  const first = await look(disk, words, path);
  if (first.kind !== 'look') return first;
  if (looksBinary(first.head)) return { kind: 'binary', size: first.size };
  return { kind: 'large', size: first.size, notes: [], range: first.range };
}

/**
 * `path` (over the limit on disk) as grep searches it: straight from disk a stretch at a
 * time (`@ws/grep` tells a binary one by its first 8 KB, as for any file), skipped where
 * it can't be read, nothing where it went.
 */
export async function largeSearchFile(disk: HostDisk, words: Words, path: string): Promise<SearchFile | undefined> {
  const first = await look(disk, words, path);
  if (first.kind === 'missing') return undefined;
  if (first.kind === 'answer') return { path, skipped: first.message };
  return { path, large: { size: first.size, range: first.range } };
}
