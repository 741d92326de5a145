/**
 * One version of a file on a store-backed mount, read-only: disk's file as it is now,
 * the last agreed version, or a version from history. The one rule: nothing here looks
 * at disk beyond reading the one file for `"disk"`, and nothing is taken in or changed —
 * a version's bytes come back exactly as recorded.
 */
import { looksBinary } from '@ws/reconcile';
import { type ReadOutcome, type VersionName, noAgreedVersion, noSuchVersion } from '@ws/tools';
import { ECHO_MAX } from '../words.ts';
import type { StoreMountContext } from './context.ts';

/** Reads `version` of `path` (contained already). Not under the lock: it writes nothing. */
export async function readVersionOf(ctx: StoreMountContext, path: string, version: VersionName): Promise<ReadOutcome> {
  if (version === 'disk') return readDisk(ctx, path);
  if (version === 'agreed') return readAgreed(ctx, path);
  const seq = /^[1-9][0-9]{0,14}$/.test(version) ? Number(version) : null;
  const found = seq === null ? null : ctx.store.version(ctx.config.name, path, seq);
  if (found === null) {
    const echoed = version.length <= ECHO_MAX ? version : `${version.slice(0, ECHO_MAX)}…`; // hostile input is named, not repeated whole
    return { kind: 'answer', message: noSuchVersion(ctx.words.shown(path), echoed) };
  }
  if (found.hash === null) return { kind: 'missing' };
  const bytes = ctx.store.getBlob(found.hash);
  return bytes === null ? { kind: 'answer', message: ctx.words.versionMissingBlob(path, version) } : { kind: 'file', bytes, notes: [] };
}

/** Disk's file as it is now, through the disk port. */
async function readDisk(ctx: StoreMountContext, path: string): Promise<ReadOutcome> {
  const { config, words } = ctx;
  if (path === '' || (await ctx.isDirectory(path))) return { kind: 'directory' };
  const reading = await ctx.disk.read(path, config.maxFileSize);
  if (reading.kind === 'absent') return { kind: 'missing' };
  if (reading.kind === 'unobservable') return { kind: 'answer', message: words.unreadable(path, reading.reason) };
  // Over the limit: paged straight from disk, as a plain read pages it.
  if (reading.bytes === null) return ctx.readLarge(path);
  if (looksBinary(reading.bytes)) return { kind: 'binary', size: reading.bytes.length, bytes: reading.bytes };
  return { kind: 'file', bytes: reading.bytes, notes: [] };
}

/** The last version disk and the workspace agreed on (the evidence, P). */
function readAgreed(ctx: StoreMountContext, path: string): ReadOutcome {
  const { store, config, words } = ctx;
  const p = store.read(store.selectedBranch(), config.name, path).evidence;
  if (p === null) return { kind: 'answer', message: noAgreedVersion(words.shown(path)) };
  if (p.kind === 'absent') return { kind: 'missing' };
  if (p.kind === 'opaque') {
    return p.why === 'binary' ? { kind: 'binary', size: p.size } : { kind: 'answer', message: words.tooLarge(path, p.size, config.maxFileSize) };
  }
  const bytes = store.getBlob(p.hash);
  return bytes === null ? { kind: 'answer', message: noAgreedVersion(words.shown(path)) } : { kind: 'file', bytes, notes: [] };
}
