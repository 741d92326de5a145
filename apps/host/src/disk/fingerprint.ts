/**
 * Fingerprints, and when one is evidence. A fingerprint is inode, size, mtime and ctime;
 * equal fingerprints promise equal bytes. The one rule (git's "racily clean"): a stat
 * taken within the file system's timestamp granularity of the file's last change (or of
 * a change time in the future) cannot promise that — a same-size save in the same tick
 * would keep every field — so its fingerprint gets a unique suffix that no later stat
 * can equal, and the next check compares content instead. Point-of-effect checks compare
 * the fingerprints without the suffix ({@link sameFile}).
 */
import type { FileMeta } from '@ws/reconcile';
import type { StatInfo } from './libc.ts';
import { belowFtl } from './one-shot.ts';

/** How a mount's file system keeps time. */
export interface TimeKeeping {
  /** How far apart two changes must be for their timestamps to differ, in ms. */
  readonly granularityMs: number;
  /** Times as a coarse file system would keep them (truncated to this many ms); tests simulate one so. */
  readonly coarseMs: number | null;
  /** The clock stats are compared with (ms since the epoch). */
  readonly now: () => number;
}

/** Where the granularity is unknown: FAT's 2 s covers every common file system. */
export const UNKNOWN_GRANULARITY_MS = 2000;
/**
 * Where a file system keeps nanoseconds, its times still come from the kernel's coarse
 * clock, one tick apart (1–10 ms): a safe bound for the tick.
 */
export const FINE_GRANULARITY_MS = 20;

/**
 * The granularity a directory's own times show: sub-second parts mean a file system that
 * keeps them; whole seconds everywhere mean one that may keep 1 s or 2 s.
 */
export function probeGranularity(root: StatInfo | null): number {
  if (root === null) return UNKNOWN_GRANULARITY_MS;
  return root.mtimeNsec !== 0 || root.ctimeNsec !== 0 ? FINE_GRANULARITY_MS : UNKNOWN_GRANULARITY_MS;
}

/**
 * File times come from the kernel's coarse clock, which lags the process's clock by up to
 * a tick: a file written at 11.998 by the kernel's clock may be stated at 12.003 by ours.
 * A stat is racy within the granularity plus this much, so a save in that same tick is
 * never vouched for.
 */
export const CLOCK_SLACK_MS = 20;

let issued = 0;
/** A Worker's racy suffixes carry its thread, so two threads' counters never make the same one. */
// node:worker_threads is about 4 ms of a one-shot command's start: the main thread, which
// has no id to add, never loads it.
const thread = Bun.isMainThread ? '' : `w${(require('node:worker_threads') as typeof import('node:worker_threads')).threadId}`;

/** A time as a coarse file system keeps it: truncated to `coarseMs`. */
function coarseTime(sec: number, nsec: number, coarseMs: number): number {
  return Math.floor((sec * 1000 + nsec / 1e6) / coarseMs) * coarseMs;
}

/** A stat's metadata, its fingerprint marked racy where it cannot vouch for the bytes. */
export function fileMeta(time: TimeKeeping, st: StatInfo): FileMeta {
  // Called for every file of a walk: numbers and one string. The string is joined, not
  // concatenated: JavaScriptCore keeps a template's result as a rope of its parts (some
  // 220 bytes a fingerprint held, against 72 flat) until something reads it whole.
  const coarseMs = time.coarseMs;
  let mtimeMs: number;
  let ctimeMs: number;
  let base: string;
  if (coarseMs === null) {
    mtimeMs = st.mtimeSec * 1000 + st.mtimeNsec / 1e6;
    ctimeMs = st.ctimeSec * 1000 + st.ctimeNsec / 1e6;
    // A file written and not touched since has one time for both: written out once.
    const mtime = `${st.mtimeSec}.${st.mtimeNsec}`;
    base = [st.ino, st.size, mtime, st.ctimeSec === st.mtimeSec && st.ctimeNsec === st.mtimeNsec ? mtime : `${st.ctimeSec}.${st.ctimeNsec}`].join(':');
  } else {
    mtimeMs = coarseTime(st.mtimeSec, st.mtimeNsec, coarseMs);
    ctimeMs = coarseTime(st.ctimeSec, st.ctimeNsec, coarseMs);
    base = [st.ino, st.size, mtimeMs, ctimeMs].join(':');
  }
  const racy = time.now() - (mtimeMs > ctimeMs ? mtimeMs : ctimeMs) < time.granularityMs + CLOCK_SLACK_MS;
  return {
    size: st.size,
    mtimeMs,
    ctimeMs,
    mode: st.mode,
    fingerprint: racy ? `${base}~${Date.now().toString(36)}.${process.pid}${thread}.${++issued}` : base,
  };
}

belowFtl(fileMeta);

/** Two fingerprints name the same file as it was then (racy suffixes aside): for point-of-effect checks. */
export function sameFile(a: string, b: string): boolean {
  const i = a.indexOf('~');
  const j = b.indexOf('~');
  return (i < 0 ? a : a.slice(0, i)) === (j < 0 ? b : b.slice(0, j));
}

/**
 * The file that came out of an exchange is the one a fingerprint named: the same inode,
 * size and mtime (a rename sets the moved file's ctime, so ctime cannot be compared).
 */
export function sameFileMoved(out: string, expected: string): boolean {
  const fields = (fp: string) => fp.split('~')[0].split(':').slice(0, 3).join(':');
  return fields(out) === fields(expected);
}

/** Two stats of one open file show no change between them (exact times, whatever the granularity). */
export function sameStat(a: StatInfo, b: StatInfo): boolean {
  return (
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeSec === b.mtimeSec &&
    a.mtimeNsec === b.mtimeNsec &&
    a.ctimeSec === b.ctimeSec &&
    a.ctimeNsec === b.ctimeNsec
  );
}
