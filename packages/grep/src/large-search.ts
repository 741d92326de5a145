/**
 * One file too large to hold, searched a stretch at a time (`stretches.ts`): each stretch
 * of whole lines goes through the same runner and scan as a whole file, its line numbers
 * moved to the file's, and the caller is told of its results as a part of the file
 * (`FoundFile.continues`) once the next stretch is scanned, so context lines reach across
 * the cut. The one rule: the parts, told in order, are what one `FoundFile` of the whole
 * file would say — the same results, lines, context and character indexes — with memory
 * bounded by three stretches, never by the file; where they cannot be (a line too long to
 * hold, the file changing, the deadline), the outcome says so.
 */
import { type LineEnds, type LargeText, type StretchSizes, stretchesOf } from './stretches.ts';
import { LineIndex } from './line-index.ts';
import { type Matcher, type PatternOptions, firstMatchIn } from './matcher.ts';
import type { FoundFile, MatchRunner, SearchSink } from './search.ts';

/** What searching one large file needs from the search around it. */
export interface LargeSearch {
  readonly pattern: string;
  readonly options: PatternOptions;
  readonly matcher: Matcher;
  readonly run: MatchRunner;
  readonly now: () => number;
  readonly before: number;
  readonly after: number;
  /** The pattern names a CR or a BOM: every stretch is scanned, none skipped by its bytes. */
  readonly noted: boolean;
  readonly sizes: StretchSizes;
  /** Milliseconds of matching left. */
  left(): number;
  /** Counts milliseconds spent matching. */
  spend(ms: number): void;
}

/** What searching one large file came to. */
export type LargeOutcome =
  | { readonly kind: 'binary' }
  | {
      readonly kind: 'searched';
      /** Results (matching lines) and matching lines told, in all parts. */
      readonly results: number;
      readonly lines: number;
      readonly bom: boolean;
      /** The line ends seen, where the whole file was read. */
      readonly lineEndings?: 'CRLF' | 'mixed';
      readonly gaveUp: readonly number[];
      /** Lines too long to hold, not searched. */
      readonly unsearched: readonly number[];
      /** The file changed before this line was read: it and the rest were not searched. */
      readonly changedAt?: number;
      /** The deadline stopped the search at this line (`lost`: that stretch's matches are not known). */
      readonly stopped?: { readonly line: number; readonly lost: boolean };
    };

/** A stretch held for showing lines: its text, where it lies in the file, and its results once scanned. */
interface Held {
  readonly text: string;
  readonly firstLine: number;
  readonly firstChar: number;
  readonly lines: number;
  readonly bom: boolean;
  index?: LineIndex;
  hits: Uint32Array;
}

const lastLine = (h: Held) => h.firstLine + h.lines - 1;

function endingOf(ends: LineEnds): 'CRLF' | 'mixed' | undefined {
  return ends.crlf ? (ends.lf ? 'mixed' : 'CRLF') : undefined;
}

/**
 * The part of the file `cur` holds, as a `FoundFile`: its lines shown from `prev`, `cur`
 * and `next` (each a stretch, or absent where none is held), context merged with the
 * result before it (`prevEnd`, 0 for none) and stopped before `nextHit`.
 */
function partOf(
  path: string,
  version: string | undefined,
  held: readonly Held[],
  cur: Held,
  prevEnd: number,
  nextHit: number | undefined,
  search: LargeSearch,
  lineEndings: 'CRLF' | 'mixed' | undefined,
  continues: boolean,
): FoundFile {
  const { hits } = cur;
  const { before, after, matcher } = search;
  const heldFirst = held.length > 0 ? held[0].firstLine : cur.firstLine;
  const heldLast = held.length > 0 ? lastLine(held[held.length - 1]) : lastLine(cur);
  const at = (n: number): { index: LineIndex; local: number; h: Held } => {
    const h = held.find((s) => n >= s.firstLine && n <= lastLine(s));
    if (h === undefined) throw new RangeError(`line ${n} is not held`);
    h.index ??= new LineIndex(h.text, h.bom);
    return { index: h.index, local: n - h.firstLine + 1, h };
  };
  const line = (n: number) => {
    const { index, local } = at(n);
    return index.line(local);
  };
  return {
    path,
    ...(version === undefined ? {} : { version }),
    ...(lineEndings === undefined ? {} : { lineEndings }),
    ...(continues ? { continues: true } : {}),
    results: hits.length,
    lines: hits.length,
    result: (k) => ({ line: hits[k], endLine: hits[k] }),
    shown(k) {
      const prior = k === 0 ? prevEnd : hits[k - 1];
      const shownBefore = prior === 0 ? 0 : Math.max(prior, Math.min(prior + after, hits[k] - 1));
      const next = k + 1 < hits.length ? hits[k + 1] : (nextHit ?? Number.POSITIVE_INFINITY);
      return {
        from: Math.max(shownBefore + 1, hits[k] - before, heldFirst),
        to: Math.max(hits[k], Math.min(hits[k] + after, next - 1, heldLast)),
      };
    },
    line,
    lineStart(n) {
      const { index, local, h } = at(n);
      return h.firstChar + index.start(local);
    },
    firstMatch: (n) => firstMatchIn(matcher, line(n)),
  };
}

/**
 * Searches `file` a stretch at a time, telling `sink` of its results part by part (each
 * part but the last `continues`; a last part may have no results, closing a file whose
 * earlier parts had some).
 */
export async function searchLarge(path: string, version: string | undefined, file: LargeText, search: LargeSearch, sink: SearchSink): Promise<LargeOutcome> {
  const { matcher } = search;
  const gaveUp: number[] = [];
  const unsearched: number[] = [];
  const seen = { crlf: false, lf: false };
  let bom = false;
  let results = 0;
  let changedAt: number | undefined;
  let stopped: { line: number; lost: boolean } | undefined;
  // The stretch before the one waiting (kept for context), and the one waiting to be told.
  let prev: Held | undefined;
  let cur: Held | undefined;
  let prevEnd = 0;
  let told = false;

  const see = (ends: LineEnds) => {
    seen.crlf ||= ends.crlf;
    seen.lf ||= ends.lf;
  };
  const tell = async (next: Held | undefined, last: boolean) => {
    if (cur === undefined && !(last && told)) return;
    // A file whose last part has no stretch of its own is closed by an empty one.
    const waiting = cur ?? { text: '', firstLine: 1, firstChar: 0, lines: 0, bom: false, hits: new Uint32Array(0) };
    if (waiting.hits.length > 0 || (last && told)) {
      const held = [prev, waiting, next].filter((h): h is Held => h !== undefined);
      const nextHit = next !== undefined && next.hits.length > 0 ? next.hits[0] : undefined;
      await sink.found?.(partOf(path, version, held, waiting, prevEnd, nextHit, search, endingOf(seen), !last));
      told = true;
      if (waiting.hits.length > 0) prevEnd = waiting.hits[waiting.hits.length - 1];
    }
    prev = waiting;
    cur = undefined;
  };

  for await (const event of stretchesOf(file, search.sizes)) {
    if (event.kind === 'binary') return { kind: 'binary' };
    if (event.kind === 'changed') {
      changedAt = event.line;
      break;
    }
    if (event.kind === 'long') {
      // No context reaches across a line that is not held.
      see(event.ends);
      unsearched.push(event.line);
      await tell(undefined, false);
      prev = undefined;
      continue;
    }
    const left = search.left();
    if (left <= 0) {
      stopped = { line: event.firstLine, lost: false };
      break;
    }
    see(event.ends);
    if (event.first && event.bytes[0] === 0xef && event.bytes[1] === 0xbb && event.bytes[2] === 0xbf) bom = true;
    const held: Held = { text: event.text, firstLine: event.firstLine, firstChar: event.firstChar, lines: event.lines, bom: event.first && bom, hits: new Uint32Array(0) };
    if (search.noted || matcher.prefilter === undefined || matcher.prefilter.mayMatch(event.bytes)) {
      const started = search.now();
      const scan = await search.run({
        pattern: search.pattern,
        options: search.options,
        bytes: event.bytes,
        lineEnds: false,
        timeLimitMs: Math.min(left, 2 ** 31 - 1),
        ...(event.first ? {} : { continued: true }),
      });
      search.spend(search.now() - started);
      const base = event.firstLine - 1;
      held.hits = scan.hits.map((n) => n + base);
      for (const n of scan.gaveUp) gaveUp.push(n + base);
      results += held.hits.length;
      if (scan.stoppedAt !== undefined) stopped = { line: scan.stoppedAt + base, lost: scan.lost === true };
    }
    await tell(held, false);
    cur = held;
    if (stopped !== undefined) break;
  }
  await tell(undefined, true);
  const whole = changedAt === undefined && stopped === undefined;
  const lineEndings = whole ? endingOf(seen) : undefined;
  return {
    kind: 'searched',
    results,
    lines: results,
    bom,
    ...(lineEndings === undefined ? {} : { lineEndings }),
    gaveUp,
    unsearched,
    ...(changedAt === undefined ? {} : { changedAt }),
    ...(stopped === undefined ? {} : { stopped }),
  };
}
