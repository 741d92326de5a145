/**
 * Search over files: each file's lines as read shows them (`fileText`), tested against a
 * JavaScript regular expression; binary and over-size files listed as skipped; the
 * answer's note saying where CRs and BOMs went when the pattern names one. The one
 * rule: a line matches exactly when the pattern, compiled without `g`/`m`, tests true
 * against it alone — however the search gets there.
 */
import { fileText, hasBom } from '@ws/text';
import { type LineMatch, withContext } from './context.ts';
import { looksBinary } from './file-kind.ts';
import { GrepError } from './grep-error.ts';
import { compileMatcher } from './matcher.ts';
import { matchingLines } from './matching-lines.ts';
import {
  BINARY_REASON,
  EXPECTED,
  type NoteFacts,
  answerNote,
  badOptionMessage,
  overSizeReason,
  patternNotStringMessage,
} from './notes.ts';

/** The label of a conflict's disk version, searched beside the workspace copy (SPEC §4). */
export type FileVersion = 'conflicting-disk';

/** A file offered to search: its bytes, or why the caller did not read it. */
export type GrepFile =
  | {
      /** Passed through as given (the tools pass mount-prefixed paths, `work/src/a.ts`). */
      readonly path: string;
      readonly bytes: Uint8Array;
      /** `'conflicting-disk'` for a conflict's disk version. */
      readonly version?: FileVersion;
    }
  | {
      readonly path: string;
      /** Why it was not read (e.g. over the mount's size limit); listed in `skipped` as given. */
      readonly skipped: string;
      readonly version?: FileVersion;
    };

/** How to search. */
export interface SearchOptions {
  /** Adds the `i` flag. Default false. */
  readonly caseInsensitive?: boolean;
  /** Lines to show before each match (whole number, default 0). */
  readonly contextBefore?: number;
  /** Lines to show after each match (whole number, default 0). */
  readonly contextAfter?: number;
  /** Files with more bytes are skipped, with why. Default: no limit. */
  readonly maxFileSize?: number;
  /** The host has a direct mount: the CR and BOM notes say a character read shows disk's file there. */
  readonly onDirectMountHost?: boolean;
}

/** One file's matching lines. */
export interface FileMatches {
  readonly path: string;
  /** Present for a conflict's disk version. */
  readonly version?: FileVersion;
  /** Present when the file has CRLF line ends: all of them (`'CRLF'`) or some (`'mixed'`). */
  readonly lineEndings?: 'CRLF' | 'mixed';
  /** In line order. */
  readonly matches: readonly LineMatch[];
}

/** A file that was not searched, and why. */
export interface SkippedFile {
  readonly path: string;
  readonly version?: FileVersion;
  readonly reason: string;
}

/** What a search found. */
export interface SearchAnswer {
  /** Files with at least one matching line, in the order given. */
  readonly results: readonly FileMatches[];
  /** Matching lines in all (a line with several matches counts once). */
  readonly totalMatches: number;
  /** Files searched (each version counts), skipped ones not included. */
  readonly filesSearched: number;
  /** Files not searched, in the order given, with why. */
  readonly skipped: readonly SkippedFile[];
  /** Where the pattern names a CR or U+FEFF and searched files have one: what to know. */
  readonly note?: string;
}

function wholeNumber(field: string, value: unknown, expected: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new GrepError(badOptionMessage(field, value, expected));
  }
  return value;
}

function flag(field: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new GrepError(badOptionMessage(field, value, EXPECTED.flag));
  return value;
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Searches files for lines matching `pattern`, a JavaScript regular expression tested
 * against each line as read shows it (`fileText`: no CRLF end's CR, no BOM on line 1),
 * without flags but `i` where `caseInsensitive`. Files come from a sync or async
 * iterable and are read one at a time. Throws `GrepError` (before reading any file) for
 * a bad pattern or option.
 */
export async function search(
  pattern: string,
  files: Iterable<GrepFile> | AsyncIterable<GrepFile>,
  options: SearchOptions = {},
): Promise<SearchAnswer> {
  if (typeof pattern !== 'string') throw new GrepError(patternNotStringMessage(pattern));
  const caseInsensitive = flag('caseInsensitive', options.caseInsensitive);
  const onDirectMountHost = flag('onDirectMountHost', options.onDirectMountHost);
  const before = wholeNumber('contextBefore', options.contextBefore, EXPECTED.lines) ?? 0;
  const after = wholeNumber('contextAfter', options.contextAfter, EXPECTED.lines) ?? 0;
  const maxFileSize = wholeNumber('maxFileSize', options.maxFileSize, EXPECTED.bytes);
  const matcher = compileMatcher(pattern, caseInsensitive);
  const noted = matcher.namesCr || matcher.namesBom;

  const results: FileMatches[] = [];
  const skipped: SkippedFile[] = [];
  const facts: NoteFacts[] = [];
  let totalMatches = 0;
  let filesSearched = 0;

  for await (const file of files) {
    const version = file.version === 'conflicting-disk' ? { version: file.version } : {};
    if (!('bytes' in file)) {
      skipped.push({ path: file.path, ...version, reason: file.skipped });
      continue;
    }
    const { path, bytes } = file;
    if (maxFileSize !== undefined && bytes.length > maxFileSize) {
      skipped.push({ path, ...version, reason: overSizeReason(bytes.length, maxFileSize) });
      continue;
    }
    if (looksBinary(bytes)) {
      skipped.push({ path, ...version, reason: BINARY_REASON });
      continue;
    }
    filesSearched++;
    // A note needs every searched file's line ends, so then no file is passed over unread.
    if (!noted && matcher.prefilter !== undefined && !matcher.prefilter.mayMatch(bytes)) continue;

    const text = decoder.decode(bytes);
    const bom = hasBom(bytes);
    const { hits, crlfEnds: ends } = matchingLines(text, bom, matcher, noted);
    if (noted) facts.push({ path, ...version, ...(ends === undefined ? {} : { crlfEnds: ends }), bom });
    if (hits.length === 0) continue;
    const matches = before + after > 0 ? withContext(hits, fileText(text).lines, before, after) : hits;
    results.push({ path, ...version, ...(ends === undefined ? {} : { lineEndings: ends }), matches });
    totalMatches += hits.length;
  }

  const note = answerNote(facts, { namesCr: matcher.namesCr, namesBom: matcher.namesBom, onDirectMountHost });
  return { results, totalMatches, filesSearched, skipped, ...(note === undefined ? {} : { note }) };
}
