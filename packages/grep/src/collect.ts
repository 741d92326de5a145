/**
 * The whole answer at once, for callers that want every match in memory (a script, a
 * test): `searchFiles` with a sink that keeps everything. The one rule: it holds what
 * the stream told, nothing more — for a bounded answer, use `searchFiles` and keep only
 * what fits.
 */
import { type FoundFile, type GrepFile, type SearchFacts, type SearchOptions, type SkippedFile, searchFiles } from './search.ts';

/** A matching line (or with `multiline`, a group of lines), with the neighbouring lines asked for. */
export interface LineMatch {
  /** The (first) line's number, 1-based. */
  readonly line: number;
  /** With `multiline`, where the group spans lines: its last line. */
  readonly endLine?: number;
  /** The line as read shows it (with `multiline`, the group's lines joined by `\n`). */
  readonly text: string;
  /** Lines just before, in order, never one already shown. */
  readonly before?: readonly string[];
  /** Lines just after, in order, stopping before the next match. */
  readonly after?: readonly string[];
}

/** One file's matches. */
export interface FileMatches {
  readonly path: string;
  readonly version?: string;
  readonly lineEndings?: 'CRLF' | 'mixed';
  /** In line order. */
  readonly matches: readonly LineMatch[];
}

/** What a search found, whole. */
export interface SearchAnswer extends SearchFacts {
  /** Files with at least one matching line, in the order given. */
  readonly results: readonly FileMatches[];
  /** Files not searched, in the order given, with why. */
  readonly skipped: readonly SkippedFile[];
}

function lines(file: FoundFile, from: number, to: number): string[] {
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(file.line(n));
  return out;
}

/** Every result of one file, with its context. */
export function matchesOf(file: FoundFile): LineMatch[] {
  const out: LineMatch[] = [];
  for (let k = 0; k < file.results; k++) {
    const { line, endLine } = file.result(k);
    const { from, to } = file.shown(k);
    if (from === line && to === endLine && line === endLine) {
      out.push({ line, text: file.line(line) });
      continue;
    }
    const before = lines(file, from, line - 1);
    const after = lines(file, endLine + 1, to);
    out.push({
      line,
      ...(endLine === line ? {} : { endLine }),
      text: lines(file, line, endLine).join('\n'),
      ...(before.length > 0 ? { before } : {}),
      ...(after.length > 0 ? { after } : {}),
    });
  }
  return out;
}

/**
 * Searches files for lines matching `pattern` (see `searchFiles`) and answers every
 * match at once. Throws `GrepError` (before reading any file) for a bad pattern or option.
 */
export async function search(pattern: string, files: Iterable<GrepFile> | AsyncIterable<GrepFile>, options: SearchOptions = {}): Promise<SearchAnswer> {
  const results: FileMatches[] = [];
  const skipped: SkippedFile[] = [];
  let continuing = false;
  const facts = await searchFiles(pattern, files, options, {
    found(file) {
      const { path, version, lineEndings } = file;
      const matches = matchesOf(file);
      // A large file's parts make one entry, with its last part's line ends (the whole file's).
      if (continuing) {
        const last = results.pop() as FileMatches;
        const { lineEndings: _, ...rest } = last;
        results.push({ ...rest, ...(lineEndings === undefined ? {} : { lineEndings }), matches: [...last.matches, ...matches] });
      } else if (matches.length > 0) {
        results.push({ path, ...(version === undefined ? {} : { version }), ...(lineEndings === undefined ? {} : { lineEndings }), matches });
      }
      continuing = file.continues === true;
    },
    skipped: (file) => skipped.push(file),
  });
  return { results, skipped, ...facts };
}
