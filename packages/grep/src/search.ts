/**
 * Search over files: each file's lines as read shows them (`fileText`), tested against a
 * JavaScript regular expression (or a literal); binary and over-size files reported as
 * skipped; facts a caller words for its readers (which files have CRLF ends or a BOM,
 * where the engine gave up, where a deadline stopped the search). Results stream: a
 * file's matches are line numbers until the caller asks for their text, so memory grows
 * with the largest file, not with the number of matches. The one rule: a line matches
 * exactly when the pattern, compiled without `g`/`m`, tests true against it alone —
 * however the search gets there — and a count is never short of what was searched.
 */
import { BINARY_SNIFF_BYTES, hasBom, looksBinary } from '@ws/text';
import { fileTypeFilter } from './file-types.ts';
import { GrepError } from './grep-error.ts';
import { searchLarge } from './large-search.ts';
import { ByteLines, LineIndex } from './line-index.ts';
import { scanBytes } from './line-scan.ts';
import type { RunElement } from './literal-prefilter.ts';
import { type Matcher, type PatternOptions, compileMatcher, firstMatchIn } from './matcher.ts';
import { EXPECTED, badOptionMessage, patternNotStringMessage } from './notes.ts';
import { type ScanResult, scanText } from './scan.ts';
import { type LargeText, STRETCH_SIZES, type StretchSizes } from './stretches.ts';

/** A file offered to search: its bytes, or why the caller did not read it — or many files the caller knows hold no match. */
export type GrepFile =
  | {
      /**
       * Files in a row the caller knows hold no line that matches, each exactly as the
       * `noMatch` file of its path and size would be (`paths[k]` of `sizes[k]` bytes): one
       * step of the search for many, where a walk finds thousands at a time.
       */
      readonly noMatches: { readonly paths: readonly string[]; readonly sizes: readonly number[] };
      readonly version?: string;
    }
  | {
      /** Passed through as given (the tools pass mount-prefixed paths, `work/src/a.ts`). */
      readonly path: string;
      readonly bytes: Uint8Array;
      /** A label the caller gives a second version of one path (passed through). */
      readonly version?: string;
    }
  | {
      readonly path: string;
      /** Why the caller did not read it; reported as given. */
      readonly skipped: string;
      readonly version?: string;
    }
  | {
      readonly path: string;
      /**
       * A file too large to hold (over the caller's `maxFileSize`): searched a stretch of
       * whole lines at a time through `range`, memory bounded by a few stretches (the
       * README's "Large files"). Never checked against `maxFileSize`.
       */
      readonly large: LargeText;
      readonly version?: string;
    }
  | {
      readonly path: string;
      /**
       * The caller knows no line of it matches: an index said it holds none of
       * `indexTerms(pattern, options)` (only where those gave terms), or `scanAhead`
       * said so of its bytes. It counts as searched, unread. Only for a file whose bytes
       * would not look binary.
       */
      readonly noMatch: true;
      /** Its size in bytes (checked against `maxFileSize`). */
      readonly size: number;
      readonly version?: string;
    }
  | {
      readonly path: string;
      /**
       * The caller searched it ahead and kept the scan, not the bytes: `scanAhead` of
       * this pattern and these options answered `'scanned'` (so the bytes are not
       * binary). It counts as searched and its results as found, but none of its lines
       * can be shown: `found`'s `shown`, `line`, `lineStart` and `firstMatch` throw. For
       * a caller whose page is full, which only counts what comes after it.
       */
      readonly counted: { readonly size: number; readonly scan: MatchJobResult };
      readonly version?: string;
    };

/** Why a file was not searched. */
export type SkipReason =
  | { readonly kind: 'binary' }
  | { readonly kind: 'over-size'; readonly size: number; readonly limit: number }
  | { readonly kind: 'not-read'; readonly why: string }
  /** A large file (`GrepFile.large`) with `multiline`: a match may span any number of lines, so the file would have to be held whole. */
  | { readonly kind: 'large-multiline'; readonly size: number };

/** A file that was not searched, and why. */
export interface SkippedFile {
  readonly path: string;
  readonly version?: string;
  readonly reason: SkipReason;
}

/** One scanning of one file's bytes, as a runner takes it (plain data: it can cross to a Worker). */
export interface MatchJob {
  readonly pattern: string;
  readonly options: PatternOptions;
  readonly bytes: Uint8Array;
  /** Find the line ends even without a matching line (a CR or BOM fact needs them). */
  readonly lineEnds: boolean;
  /** How long the scan may run, in milliseconds. */
  readonly timeLimitMs: number;
  /** The bytes continue a file (a later stretch of a large one): a leading U+FEFF is text, not a BOM. */
  readonly continued?: boolean;
}

/** What a runner answers for a job: the scan, and whether the file starts with a BOM. */
export type MatchJobResult = ScanResult & {
  readonly bom: boolean;
  /** Set by a runner that ended the scan by force (past its deadline): its matches are not known. */
  readonly lost?: boolean;
  /** The decoded text, where the scan ran in this thread (so it is not decoded twice). */
  readonly text?: string;
  /**
   * Milliseconds the runner spent matching these very bytes before this job (a host that
   * searches ahead, and gave the file back when one of its lines ran past the time it
   * had there): matching time, counted against the deadline with the job's own.
   */
  readonly aheadMs?: number;
};

/**
 * Where scans run. The default runs each in this thread (a deadline is checked between
 * lines, so one line the engine is stuck on cannot be cut short); a host passes one that
 * runs them in a Worker it can end (`@ws/grep`'s README, "Never hangs").
 */
export type MatchRunner = (job: MatchJob) => Promise<MatchJobResult>;

/** How to search. */
export interface SearchOptions {
  /** Adds the `i` flag. Default false. */
  readonly caseInsensitive?: boolean;
  /** The pattern is a literal string. Default false. */
  readonly fixedStrings?: boolean;
  /** A match may span lines (the whole text at once, flags `gm`). Default false. */
  readonly multiline?: boolean;
  /** Lines to show before each match (whole number, default 0). */
  readonly contextBefore?: number;
  /** Lines to show after each match (whole number, default 0). */
  readonly contextAfter?: number;
  /** Files with more bytes are skipped, with why. Default: no limit. */
  readonly maxFileSize?: number;
  /** Only files of this type (`FILE_TYPES`: `ts`, `py`, …), by name. */
  readonly type?: string;
  /** The search stops after this many milliseconds of matching (the time its files take to arrive does not count), answering what it found. Default: no limit. */
  readonly timeoutMs?: number;
  /** Where scans run; default: this thread. */
  readonly runner?: MatchRunner;
  /** The clock (milliseconds), for tests; default `performance.now`. */
  readonly now?: () => number;
  /** How a large file is read (`GrepFile.large`); default {@link STRETCH_SIZES}. Tests make them small. */
  readonly stretch?: StretchSizes;
}

/** One searched file with matches, read on demand. */
export interface FoundFile {
  readonly path: string;
  readonly version?: string;
  /** Present when the file has CRLF line ends: all of them (`'CRLF'`) or some (`'mixed'`). */
  readonly lineEndings?: 'CRLF' | 'mixed';
  /** Results in the file: matching lines, or with `multiline`, groups of touching matched lines. */
  readonly results: number;
  /** Matching lines in the file. */
  readonly lines: number;
  /**
   * Set on each part of a large file (`GrepFile.large`) but its last: the file's results
   * come in several calls of `found`, in order, and `results`, `lines` and `lineEndings`
   * (the line ends seen so far) are this part's; a part holds the lines its results show.
   * The last part (without `continues`) may have no results: it closes the file and
   * carries the whole file's `lineEndings`.
   */
  readonly continues?: true;
  /** Result `k` (0-based): its first and last line (the same line without `multiline`). */
  result(k: number): { readonly line: number; readonly endLine: number };
  /** The lines to show around result `k`: from `from` to `to`, each line shown once (context merged as ripgrep does). */
  shown(k: number): { readonly from: number; readonly to: number };
  /** Line `n` (1-based) as read shows it. */
  line(n: number): string;
  /** Where line `n` starts in the file's text (BOM and CRs counted), for a character page. */
  lineStart(n: number): number;
  /** Where in line `n` the pattern first matches (-1 where no match starts in it). */
  firstMatch(n: number): number;
}

/** What the search noted while it went: the facts a caller words. */
export interface SearchFacts {
  /** Matching lines in all (a line with several matches counts once). */
  readonly totalMatches: number;
  /** Results in all (matching lines; with `multiline`, match groups). */
  readonly totalResults: number;
  /** Files searched (each version counts), skipped ones not included. */
  readonly filesSearched: number;
  /** Files with at least one matching line. */
  readonly filesMatched: number;
  /** Where the pattern names a CR: the searched files with CRLF ends, in order. */
  readonly crlfFiles: readonly { readonly path: string; readonly version?: string; readonly lineEndings: 'CRLF' | 'mixed' }[];
  /** Where the pattern names U+FEFF: the searched files that start with a BOM, in order. */
  readonly bomFiles: readonly { readonly path: string; readonly version?: string }[];
  /** Lines on which the engine gave up (whether they match is unknown), per file, in order. */
  readonly gaveUp: readonly { readonly path: string; readonly version?: string; readonly lines: readonly number[] }[];
  /** Set when the deadline stopped the search: the file and the first line not searched; `lost` where that file's (with `large`: that stretch's) matches could not be kept; `large` where it is a large file. */
  readonly stopped?: { readonly path: string; readonly version?: string; readonly line: number; readonly lost: boolean; readonly large?: true };
  /** Large files that changed while they were searched: the first line not searched (the lines before are the version first seen). */
  readonly changed: readonly { readonly path: string; readonly version?: string; readonly line: number }[];
  /** Lines of large files too long to hold (over `stretch.longestLine` bytes), not searched: whether they match is unknown. */
  readonly unsearched: readonly { readonly path: string; readonly version?: string; readonly lines: readonly number[] }[];
  /** The engine the pattern ran on. */
  readonly engine: 'js' | 're2';
}

/** What a streaming search tells its caller, in path order. */
export interface SearchSink {
  /** A searched file with at least one match (or a part of a large one, `FoundFile.continues`); its text lives until the returned promise settles. */
  found?(file: FoundFile): void | Promise<void>;
  /** A file not searched. */
  skipped?(file: SkippedFile): void;
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
 * False only where the bytes hold no match (the prefilter's test: line by line, each
 * line must hold every run the pattern requires; with `multiline`, the whole bytes must
 * hold its chosen one).
 */
function mayHoldMatch(matcher: Matcher, bytes: Uint8Array): boolean {
  const { prefilter } = matcher;
  if (prefilter === undefined) return true;
  return matcher.options.multiline ? prefilter.mayMatch(bytes) : prefilter.mayMatchLine(bytes);
}
const clockOf = (options: SearchOptions) => options.now ?? (() => performance.now());

/**
 * Text every line a pattern matches holds, for an index to look up: a string of ASCII
 * characters, or — where the text has a `\d` or `\w` in it — its places in order, each
 * the ASCII characters that may stand there (one for a character, every digit for `\d`).
 */
export type IndexTerm = string | readonly string[];

const DIGITS = '0123456789';
const WORD_CHARACTERS = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz${DIGITS}_`;

/**
 * Text every line the pattern matches contains (with `multiline`, every match), from the
 * pattern's syntax: terms of at least three places, each with a character in it, for an
 * index to pick the files that may match. A term with places that may be several
 * characters has three places in a row with at most one such place among them, and comes
 * only where the search keeps case (folded, a word character's place with two letters
 * beside it is 252 ways of writing three characters, so there a `\d` or `\w` ends a
 * term). Undefined where no such text is certain, where the pattern is bad (the search
 * says why), or where the search needs every file's line ends (the pattern names a CR or
 * a BOM).
 */
export function indexTerms(pattern: string, options: PatternOptions): IndexTerm[] | undefined {
  let matcher: Matcher;
  try {
    matcher = compileMatcher(pattern, options);
  } catch {
    return undefined;
  }
  if (matcher.namesCr || matcher.namesBom || matcher.prefilter === undefined) return undefined;
  const terms: IndexTerm[] = [];
  let places: RunElement[] = [];
  // The strings of characters alone: a set ends one.
  const literal = () => {
    let term = '';
    const end = () => {
      if (term.length >= 3) terms.push(term);
      term = '';
    };
    for (const e of places) {
      if (typeof e === 'number') term += String.fromCharCode(e);
      else end();
    }
    end();
  };
  const close = () => {
    const sets = places.map((e) => typeof e !== 'number');
    const window = sets.some((_, k) => k + 3 <= sets.length && Number(sets[k]) + Number(sets[k + 1]) + Number(sets[k + 2]) <= 1);
    if (!sets.includes(true) || options.caseInsensitive || !window) literal();
    else terms.push(places.map((e) => (e === 'digit' ? DIGITS : e === 'word' ? WORD_CHARACTERS : String.fromCharCode(e))));
    places = [];
  };
  for (const run of matcher.prefilter.indexRuns) {
    for (const e of run) {
      // A NUL or a line end, which an index of text need not keep, ends a term.
      if (e === 0 || e === 10 || e === 13) close();
      else places.push(e);
    }
    close();
  }
  return terms.length > 0 ? terms : undefined;
}

/** Runs one job in this thread: decode, then scan under the job's time limit. */
export function runMatchJob(job: MatchJob, now: () => number = () => performance.now(), progress?: (line: number) => void): MatchJobResult {
  const matcher = compileMatcher(job.pattern, job.options);
  const text = decoder.decode(job.bytes);
  const bom = job.continued !== true && hasBom(job.bytes);
  const deadline = now() + job.timeLimitMs;
  return { ...scanText(text, bom, matcher, job.lineEnds, { deadline, now, ...(progress ? { progress } : {}) }), bom, text };
}

/**
 * What searching one file ahead found (`scanAhead`): no line matches (offer it as
 * `noMatch`); its scan, exactly what a runner answers for the job `searchFiles` makes of
 * these bytes (`lineEnds`: the job's); or nothing certain (let the search read it).
 */
export type AheadScan =
  | { readonly kind: 'none' }
  | { readonly kind: 'scanned'; readonly result: MatchJobResult; readonly lineEnds: boolean }
  | { readonly kind: 'unsure' };

/**
 * Searches one file ahead of `searchFiles`, for a caller that searches many at once (in
 * Workers): `'none'` only where no line matches, decided as `searchFiles` decides it;
 * `'unsure'` for bytes that look binary (the search reports those) and where the time
 * limit stopped the scan. A pattern that names a CR or a BOM is never `'none'` (its facts
 * need every file). With `countOnly` (the caller's page is full, so it offers the file as
 * `counted`), a pattern that is its run (`LiteralPrefilter.exact`) is answered by an
 * unnumbered scan (`ScanResult.unnumbered`): its lines counted, no line feed before them
 * counted — such a scan is for a `counted` file only. Throws `GrepError` for a bad pattern.
 */
export function scanAhead(pattern: string, options: PatternOptions, bytes: Uint8Array, timeLimitMs: number, now: () => number = () => performance.now(), countOnly = false): AheadScan {
  const matcher = compileMatcher(pattern, options);
  if (looksBinary(bytes)) return { kind: 'unsure' };
  const noted = matcher.namesCr || matcher.namesBom;
  if (!noted) {
    // Most files hold no line with the pattern's runs: told at once, nothing made for them.
    if (!mayHoldMatch(matcher, bytes)) return { kind: 'none' };
    // Line by line from the bytes where the prefilter picks the lines: no text decoded whole.
    const lines = scanBytes(matcher, bytes, now() + timeLimitMs, now, !countOnly);
    if (lines !== undefined) {
      if (lines.hits.length === 0 && lines.gaveUp.length === 0) return { kind: 'none' };
      return { kind: 'scanned', result: { ...lines, bom: hasBom(bytes) }, lineEnds: false };
    }
  }
  const { text: _, ...result } = runMatchJob({ pattern, options, bytes, lineEnds: noted, timeLimitMs }, now);
  if (result.stoppedAt !== undefined) return { kind: 'unsure' };
  if (!noted && result.hits.length === 0 && result.gaveUp.length === 0) return { kind: 'none' };
  return { kind: 'scanned', result, lineEnds: noted };
}

/** A file searched ahead whose bytes were not kept (`GrepFile.counted`): its results counted, none of its lines shown. */
function countedFile(path: string, version: string | undefined, scan: MatchJobResult): FoundFile {
  const { hits, ends } = scan;
  const unshown = (): never => {
    throw new Error(`the lines of ${path} were not kept: it was searched to be counted, not shown`);
  };
  return {
    path,
    ...(version === undefined ? {} : { version }),
    ...(scan.crlfEnds === undefined ? {} : { lineEndings: scan.crlfEnds }),
    results: hits.length,
    lines: scan.lines,
    // An unnumbered scan's lines were counted, never numbered: there is no line to tell.
    result: scan.unnumbered ? unshown : (k) => ({ line: hits[k], endLine: ends === undefined ? hits[k] : ends[k] }),
    shown: unshown,
    line: unshown,
    lineStart: unshown,
    firstMatch: unshown,
  };
}

/** The searched file's results, its text decoded (and its lines indexed) only when asked. */
function foundFile(
  path: string,
  version: string | undefined,
  bytes: Uint8Array,
  scan: MatchJobResult,
  matcher: Matcher,
  before: number,
  after: number,
): FoundFile {
  let index: LineIndex | undefined;
  const lines = () => {
    index ??= new LineIndex(scan.text ?? decoder.decode(bytes), scan.bom);
    return index;
  };
  // A file scanned from its bytes (ahead, in a Worker) has no text: the lines shown are
  // decoded each alone — a large file shown for a few matches is not decoded whole. Only
  // a line's place in the text (`lineStart`, for a long line's window) decodes it all.
  let byteLines: ByteLines | undefined;
  const shownLines = (): ByteLines | LineIndex => {
    if (scan.text !== undefined || index !== undefined) return lines();
    byteLines ??= new ByteLines(bytes, scan.bom);
    return byteLines;
  };
  const { hits, ends } = scan;
  const endOf = (k: number) => (ends === undefined ? hits[k] : ends[k]);
  // Its counts as a counted file has them; its lines shown.
  return {
    ...countedFile(path, version, scan),
    shown(k) {
      const shownBefore = k === 0 ? 0 : Math.max(endOf(k - 1), Math.min(endOf(k - 1) + after, hits[k] - 1));
      const from = Math.max(shownBefore + 1, hits[k] - before);
      // Without context after, the lines shown end at the result's own (no line count needed).
      if (after === 0) return { from, to: endOf(k) };
      const next = k + 1 < hits.length ? hits[k + 1] : shownLines().count + 1;
      return { from, to: Math.max(endOf(k), Math.min(endOf(k) + after, next - 1)) };
    },
    line: (n) => shownLines().line(n),
    lineStart: (n) => lines().start(n),
    firstMatch(n) {
      if (!matcher.options.multiline) return firstMatchIn(matcher, shownLines().line(n));
      // A multiline match starts where the whole text's search finds it, if in this line.
      const ix = lines();
      const re = new RegExp(matcher.whole.source, matcher.whole.flags);
      re.lastIndex = ix.start(n);
      const m = re.exec(ix.text);
      const start = ix.start(n);
      const end = start + ix.line(n).length;
      return m !== null && m.index <= end ? m.index - start : -1;
    },
  };
}

/**
 * Searches files for lines matching `pattern`, telling `sink` of each file with matches
 * (in the order given) and of each file skipped; answers the facts. Files come from a
 * sync or async iterable and are read one at a time. Throws `GrepError` (before reading
 * any file) for a bad pattern, option or type.
 */
export async function searchFiles(
  pattern: string,
  files: Iterable<GrepFile> | AsyncIterable<GrepFile>,
  options: SearchOptions,
  sink: SearchSink,
): Promise<SearchFacts> {
  if (typeof pattern !== 'string') throw new GrepError(patternNotStringMessage(pattern));
  const patternOptions: PatternOptions = {
    caseInsensitive: flag('caseInsensitive', options.caseInsensitive),
    fixedStrings: flag('fixedStrings', options.fixedStrings),
    multiline: flag('multiline', options.multiline),
  };
  const before = wholeNumber('contextBefore', options.contextBefore, EXPECTED.lines) ?? 0;
  const after = wholeNumber('contextAfter', options.contextAfter, EXPECTED.lines) ?? 0;
  const maxFileSize = wholeNumber('maxFileSize', options.maxFileSize, EXPECTED.bytes);
  const timeoutMs = wholeNumber('timeoutMs', options.timeoutMs, EXPECTED.milliseconds);
  const ofType = options.type === undefined ? undefined : fileTypeFilter(options.type);
  const matcher = compileMatcher(pattern, patternOptions);
  const noted = matcher.namesCr || matcher.namesBom;
  const now = clockOf(options);
  // The deadline is the pattern's: only time spent matching counts, not the time a mount
  // takes to offer its files (a first sync of a large tree is not the pattern's fault).
  const budget = timeoutMs ?? Infinity;
  let spent = 0;
  const run: MatchRunner = options.runner ?? (async (job) => runMatchJob(job, now));

  const crlfFiles: { path: string; version?: string; lineEndings: 'CRLF' | 'mixed' }[] = [];
  const bomFiles: { path: string; version?: string }[] = [];
  const gaveUp: { path: string; version?: string; lines: number[] }[] = [];
  const changed: { path: string; version?: string; line: number }[] = [];
  const unsearched: { path: string; version?: string; lines: number[] }[] = [];
  const large = {
    pattern,
    options: patternOptions,
    matcher,
    run,
    now,
    before,
    after,
    noted,
    sizes: options.stretch ?? STRETCH_SIZES,
    left: () => budget - spent,
    spend: (ms: number) => {
      spent += ms;
    },
  };
  let stopped: SearchFacts['stopped'];
  let totalMatches = 0;
  let totalResults = 0;
  let filesSearched = 0;
  let filesMatched = 0;

  /** A searched file's scan, noted and counted (its results told to `found`); true where the search stops at it. */
  const tally = async (path: string, version: string | undefined, scan: MatchJobResult, found: () => FoundFile): Promise<boolean> => {
    const labelled = version === undefined ? {} : { version };
    if (matcher.namesCr && scan.crlfEnds !== undefined) crlfFiles.push({ path, ...labelled, lineEndings: scan.crlfEnds });
    if (matcher.namesBom && scan.bom) bomFiles.push({ path, ...labelled });
    if (scan.gaveUp.length > 0) gaveUp.push({ path, ...labelled, lines: [...scan.gaveUp] });
    if (scan.hits.length > 0) {
      filesMatched++;
      totalMatches += scan.lines;
      totalResults += scan.hits.length;
      await sink.found?.(found());
    }
    if (scan.stoppedAt === undefined) return false;
    stopped = { path, ...labelled, line: scan.stoppedAt, lost: scan.lost === true };
    return true;
  };

  for await (const file of files) {
    const labelled = file.version === undefined ? {} : { version: file.version };
    if ('noMatches' in file) {
      // Each as a `noMatch` file below.
      const { paths, sizes } = file.noMatches;
      let out = false;
      for (let k = 0; k < paths.length; k++) {
        const path = paths[k];
        if (ofType !== undefined && !ofType(path.slice(path.lastIndexOf('/') + 1))) continue;
        if (maxFileSize !== undefined && sizes[k] > maxFileSize) {
          sink.skipped?.({ path, ...labelled, reason: { kind: 'over-size', size: sizes[k], limit: maxFileSize } });
          continue;
        }
        if (budget - spent <= 0) {
          stopped = { path, ...labelled, line: 1, lost: false };
          out = true;
          break;
        }
        filesSearched++;
      }
      if (out) break;
      continue;
    }
    const { path } = file;
    if (ofType !== undefined && !ofType(path.slice(path.lastIndexOf('/') + 1))) continue;
    if ('counted' in file) {
      const { size, scan } = file.counted;
      if (maxFileSize !== undefined && size > maxFileSize) {
        sink.skipped?.({ path, ...labelled, reason: { kind: 'over-size', size, limit: maxFileSize } });
        continue;
      }
      if (budget - spent <= 0) {
        stopped = { path, ...labelled, line: 1, lost: false };
        break;
      }
      filesSearched++;
      if (await tally(path, file.version, scan, () => countedFile(path, file.version, scan))) break;
      continue;
    }
    if ('noMatch' in file) {
      if (maxFileSize !== undefined && file.size > maxFileSize) {
        sink.skipped?.({ path, ...labelled, reason: { kind: 'over-size', size: file.size, limit: maxFileSize } });
        continue;
      }
      if (budget - spent <= 0) {
        stopped = { path, ...labelled, line: 1, lost: false };
        break;
      }
      filesSearched++;
      continue;
    }
    if ('large' in file) {
      if (patternOptions.multiline) {
        // Binary is told first, as for a file searched whole.
        const head = await file.large.range(0, Math.min(file.large.size, BINARY_SNIFF_BYTES));
        const reason: SkipReason = head !== null && looksBinary(head) ? { kind: 'binary' } : { kind: 'large-multiline', size: file.large.size };
        sink.skipped?.({ path, ...labelled, reason });
        continue;
      }
      if (budget - spent <= 0) {
        stopped = { path, ...labelled, line: 1, lost: false };
        break;
      }
      const outcome = await searchLarge(path, file.version, file.large, large, sink);
      if (outcome.kind === 'binary') {
        sink.skipped?.({ path, ...labelled, reason: { kind: 'binary' } });
        continue;
      }
      filesSearched++;
      if (matcher.namesCr && outcome.lineEndings !== undefined) crlfFiles.push({ path, ...labelled, lineEndings: outcome.lineEndings });
      if (matcher.namesBom && outcome.bom) bomFiles.push({ path, ...labelled });
      if (outcome.gaveUp.length > 0) gaveUp.push({ path, ...labelled, lines: [...outcome.gaveUp] });
      if (outcome.unsearched.length > 0) unsearched.push({ path, ...labelled, lines: [...outcome.unsearched] });
      if (outcome.changedAt !== undefined) changed.push({ path, ...labelled, line: outcome.changedAt });
      if (outcome.results > 0) {
        filesMatched++;
        totalMatches += outcome.lines;
        totalResults += outcome.results;
      }
      if (outcome.stopped !== undefined) {
        stopped = { path, ...labelled, ...outcome.stopped, large: true };
        break;
      }
      continue;
    }
    if (!('bytes' in file)) {
      sink.skipped?.({ path, ...labelled, reason: { kind: 'not-read', why: file.skipped } });
      continue;
    }
    const { bytes } = file;
    if (maxFileSize !== undefined && bytes.length > maxFileSize) {
      sink.skipped?.({ path, ...labelled, reason: { kind: 'over-size', size: bytes.length, limit: maxFileSize } });
      continue;
    }
    if (looksBinary(bytes)) {
      sink.skipped?.({ path, ...labelled, reason: { kind: 'binary' } });
      continue;
    }
    const left = budget - spent;
    if (left <= 0) {
      stopped = { path, ...labelled, line: 1, lost: false };
      break;
    }
    filesSearched++;
    // A fact about line ends needs every searched file's, so then no file is passed over unread.
    if (!noted && !mayHoldMatch(matcher, bytes)) continue;

    const started = now();
    const scan = await run({ pattern, options: patternOptions, bytes, lineEnds: noted, timeLimitMs: Math.min(left, 2 ** 31 - 1) });
    spent += now() - started + (scan.aheadMs ?? 0);
    if (await tally(path, file.version, scan, () => foundFile(path, file.version, bytes, scan, matcher, before, after))) break;
  }
  return {
    totalMatches,
    totalResults,
    filesSearched,
    filesMatched,
    crlfFiles,
    bomFiles,
    gaveUp,
    ...(stopped === undefined ? {} : { stopped }),
    changed,
    unsearched,
    engine: matcher.engine,
  };
}
