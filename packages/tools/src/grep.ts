/**
 * `grep`: `@ws/grep`'s search over one path, one mount or every mount, store-backed and
 * direct alike, with optional glob and type filters, in three modes (`content`, `files`,
 * `count`), paged by `offset` within the call's budget. The one rule: the files searched
 * are what each mount offers (`searchFiles`: the workspace copy and a conflict's disk
 * version, or disk as it is), named mount-prefixed, in mount order and path order, so
 * following the notes from offset 0 shows every result exactly once — the tools decide
 * nothing about what a match is; they word the facts @ws/grep reports.
 */
import type { FoundFile, GrepFile, SearchFacts, SkippedFile } from '@ws/grep';
import { LONG_LINE_CHARS, lineWindow } from '@ws/paging';
import { jsonLength } from '@ws/text';
import {
  BINARY_SKIP,
  LARGE_MULTILINE_SKIP,
  SKIPPED_NAMES_MAX,
  contextLeftOut,
  grepBomNote,
  grepCrNote,
  grepChanged,
  grepGaveUp,
  grepStopped,
  grepUnsearched,
  inDiskVersion,
  missing,
  overSize,
  pageNote,
} from './errors.ts';
import { suggestions } from './close-paths.ts';
import { globMatcher } from './glob-match.ts';
import { StreamPage } from './hold.ts';
import { locate, prefixed } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';
import { type InputOf, defineInput, outputOf } from './schemas.ts';
import { type CallContext, defineTool } from './tool.ts';
import type { Mount, SearchQuery, Workspace } from './workspace.ts';

const schema = defineInput((z, { scope, wholeFromZero }) => z.strictObject({
  pattern: z.string().min(1).describe('A JavaScript regex.'),
  path: scope.optional(),
  glob: z.string().optional(),
  type: z.string().optional(),
  output: z.enum(['content', 'files', 'count']).optional(),
  fixedStrings: z.boolean().optional(),
  multiline: z.boolean().optional(),
  caseInsensitive: z.boolean().optional(),
  contextBefore: wholeFromZero.optional(),
  contextAfter: wholeFromZero.optional(),
  offset: wholeFromZero.optional(),
}));

type Input = InputOf<typeof schema>;

/** How long a search may run where the workspace does not say (`grepTimeoutMs`). */
export const DEFAULT_GREP_TIMEOUT_MS = 10_000;

/** A path filter: a glob without `/` matches a file's name at any depth; one with `/` the mount-prefixed path. */
function pathFilter(workspace: Workspace, glob: string | undefined, within: string | undefined): (path: string) => boolean {
  if (glob === undefined) return () => true;
  if (!glob.includes('/')) {
    const byName = globMatcher(glob);
    return (path) => byName.match(path.slice(path.lastIndexOf('/') + 1));
  }
  const first = glob.split('/')[0];
  const full = within !== undefined && !workspace.mounts.some((m) => m.name === first) ? `${within}/${glob}` : glob;
  const matcher = globMatcher(full);
  return (path) => matcher.match(path);
}

/** The files grep searches, mount by mount, until the call is cancelled. */
async function* filesOf(
  scopes: readonly { mount: Mount; rel: string }[],
  keep: (path: string) => boolean,
  query: SearchQuery,
  call: CallContext,
  count: { offered: number },
): AsyncIterable<GrepFile> {
  for (const { mount, rel } of scopes) {
    for await (const file of mount.searchFiles(rel, query)) {
      // A cancelled call searches no further; a call that asked for progress hears of each file.
      if (call.signal?.aborted) return;
      if ('noMatches' in file) {
        // Each as a `noMatch` file below; the ones over the mount's limit go as skipped, in their place.
        let paths: string[] = [];
        let sizes: number[] = [];
        for (let k = 0; k < file.noMatches.paths.length; k++) {
          const path = prefixed(mount.name, file.noMatches.paths[k]);
          if (!keep(path)) continue;
          call.progress?.({ done: ++count.offered, message: 'files offered to the search' });
          const size = file.noMatches.sizes[k];
          if (size <= mount.maxFileSize) {
            paths.push(path);
            sizes.push(size);
            continue;
          }
          if (paths.length > 0) yield { noMatches: { paths, sizes } };
          paths = [];
          sizes = [];
          yield { path, skipped: overSize(mount.maxFileSize) };
        }
        if (paths.length > 0) yield { noMatches: { paths, sizes } };
        continue;
      }
      const path = prefixed(mount.name, file.path);
      if (!keep(path)) continue;
      call.progress?.({ done: ++count.offered, message: 'files offered to the search' });
      const version = 'version' in file && file.version ? { version: file.version } : {};
      if ('large' in file) yield { path, large: file.large };
      else if ('skipped' in file) yield { path, skipped: file.skipped };
      else if ('noMatch' in file) yield file.size > mount.maxFileSize ? { path, skipped: overSize(mount.maxFileSize), ...version } : { path, noMatch: true, size: file.size, ...version };
      else if ('counted' in file) yield file.counted.size > mount.maxFileSize ? { path, skipped: overSize(mount.maxFileSize), ...version } : { path, counted: file.counted, ...version };
      else if (file.bytes.length > mount.maxFileSize) yield { path, skipped: overSize(mount.maxFileSize), ...version };
      else yield { path, bytes: file.bytes, ...version };
    }
  }
}

/** Skipped files counted by reason, each reason naming its first few files. */
class SkippedTally {
  private readonly byReason = new Map<string, { count: number; paths: string[] }>();

  add(file: SkippedFile): void {
    const { reason: why } = file;
    const reason =
      why.kind === 'binary' ? BINARY_SKIP : why.kind === 'over-size' ? overSize(why.limit) : why.kind === 'large-multiline' ? LARGE_MULTILINE_SKIP : why.why;
    let entry = this.byReason.get(reason);
    if (entry === undefined) {
      entry = { count: 0, paths: [] };
      this.byReason.set(reason, entry);
    }
    entry.count++;
    if (entry.paths.length < SKIPPED_NAMES_MAX) entry.paths.push(file.version ? `${file.path} (${file.version})` : file.path);
  }

  /** `[{ reason, count, paths, more? }]`, reasons in first-seen order. */
  list(): { reason: string; count: number; paths: string[]; more?: number }[] {
    return [...this.byReason].map(([reason, { count, paths }]) => ({ reason, count, paths, ...(count > paths.length ? { more: count - paths.length } : {}) }));
  }
}

/** What a file adds to a page, and its head (path, version, line ends). */
function fileHead(file: FoundFile): { path: string; version?: string; lineEndings?: 'CRLF' | 'mixed' } {
  return { path: file.path, ...(file.version ? { version: file.version } : {}), ...(file.lineEndings ? { lineEndings: file.lineEndings } : {}) };
}

/** One content result as a page shows it: long lines as windows, context where it fits. */
interface ShownMatch {
  readonly line: number;
  readonly endLine?: number;
  readonly text: string;
  readonly before?: readonly string[];
  readonly after?: readonly string[];
}

/** Line `n` as shown: whole, or with a budget, a window around `at` (its first match) when long. */
function shownLine(file: FoundFile, n: number, at: number, cut: boolean, size = LONG_LINE_CHARS): string {
  const text = file.line(n);
  if (!cut || text.length <= size) return text;
  return lineWindow(text, file.lineStart(n), Math.max(0, at), size).text;
}

function matchOf(file: FoundFile, k: number, cut: boolean, withContext: boolean, size = LONG_LINE_CHARS): ShownMatch {
  const { line, endLine } = file.result(k);
  const { from, to } = file.shown(k);
  const texts: string[] = [];
  for (let n = line; n <= endLine; n++) texts.push(shownLine(file, n, n === line ? file.firstMatch(n) : 0, cut, size));
  const before: string[] = [];
  const after: string[] = [];
  if (withContext) {
    for (let n = from; n < line; n++) before.push(shownLine(file, n, 0, cut, size));
    for (let n = endLine + 1; n <= to; n++) after.push(shownLine(file, n, 0, cut, size));
  }
  return {
    line,
    ...(endLine === line ? {} : { endLine }),
    text: texts.join('\n'),
    ...(before.length > 0 ? { before } : {}),
    ...(after.length > 0 ? { after } : {}),
  };
}

type Mode = 'content' | 'files' | 'count';
const WHAT: Record<Mode, (multiline: boolean) => string> = {
  content: (multiline) => (multiline ? 'match groups' : 'matching lines'),
  files: () => 'files',
  count: () => 'files',
};

/** The notes a grep answer carries: what the facts mean for a mount's reader, then where the page stopped. */
function notesOf(facts: SearchFacts, workspace: Workspace, timeoutMs: number, page: string | undefined, extra: readonly string[], longestLine: number): string | undefined {
  const notes: string[] = [];
  const direct = workspace.hasDirectMount;
  // Each path once: its own copy's fact, else its conflicting-disk version's.
  function byPath<F extends { path: string; version?: string }>(list: readonly F[], word: (f: F) => string): string[] {
    const seen = new Map<string, string>();
    for (const f of list) if (!f.version || !seen.has(f.path)) seen.set(f.path, word(f));
    return [...seen.values()];
  }
  if (facts.crlfFiles.length > 0) {
    notes.push(grepCrNote(byPath(facts.crlfFiles, (f) => (f.version ? inDiskVersion(f.path, f.lineEndings) : `${f.path} (${f.lineEndings})`)), direct));
  }
  if (facts.bomFiles.length > 0) notes.push(grepBomNote(byPath(facts.bomFiles, (f) => (f.version ? inDiskVersion(f.path, 'BOM') : f.path)), direct));
  if (facts.gaveUp.length > 0) {
    const all = facts.gaveUp.flatMap((f) => f.lines.map((l) => `${f.path}:${l}`));
    notes.push(grepGaveUp(all.length, all.slice(0, SKIPPED_NAMES_MAX)));
  }
  const named = (f: { path: string; version?: string }) => (f.version ? `${f.path} (${f.version})` : f.path);
  if (facts.unsearched.length > 0) {
    const all = facts.unsearched.flatMap((f) => f.lines.map((l) => `${named(f)}:${l}`));
    notes.push(grepUnsearched(all.length, all.slice(0, SKIPPED_NAMES_MAX), longestLine / (1 << 20)));
  }
  if (facts.changed.length > 0) notes.push(grepChanged(facts.changed.map((f) => ({ path: named(f), line: f.line }))));
  if (facts.stopped) notes.push(grepStopped(timeoutMs / 1000, facts.stopped.path, facts.stopped.line, facts.stopped.lost, facts.stopped.large === true));
  notes.push(...extra);
  if (page !== undefined) notes.push(page);
  return notes.length > 0 ? notes.join(' ') : undefined;
}

/** Searches every mount (or the path's) for `pattern`, one page of results from `offset`. */
async function grep(workspace: Workspace, input: Input, call: CallContext): Promise<Answer> {
  const { budget } = call;
  let scopes: { mount: Mount; rel: string }[] = workspace.mounts.map((mount) => ({ mount, rel: '' }));
  let within: string | undefined;
  if (input.path !== undefined) {
    const at = locate(workspace, input.path);
    if (!at.ok) return refuse(at.message);
    scopes = [{ mount: at.mount, rel: at.rel }];
    within = at.path;
  }
  const mode: Mode = input.output ?? 'content';
  const offset = input.offset ?? 0;
  const multiline = input.multiline ?? false;
  const timeoutMs = workspace.grep?.timeoutMs ?? DEFAULT_GREP_TIMEOUT_MS;
  const cut = budget !== undefined;
  const skipped = new SkippedTally();
  const extra: string[] = [];

  // The answer around its results.
  const skeleton = (results: unknown, facts: Pick<SearchFacts, 'totalMatches' | 'filesSearched' | 'filesMatched'>, note: string | undefined) => {
    const head = mode === 'content' ? { results } : mode === 'files' ? { files: results } : { counts: results };
    const totals = { totalMatches: facts.totalMatches, ...(mode === 'content' ? {} : { totalFiles: facts.filesMatched }), filesSearched: facts.filesSearched };
    return { ...head, ...totals, skipped: skipped.list(), ...(note ? { note } : {}) };
  };
  // The floor's narrowing leaves room for a note of a few sentences.
  const FLOOR_NOTE = 400;
  const least = jsonLength(skeleton([], { totalMatches: 0, filesSearched: 0, filesMatched: 0 }, undefined));
  const page = new StreamPage<{ head: ReturnType<typeof fileHead>; item: unknown }>(budget, offset, least);
  let lastHead: ReturnType<typeof fileHead> | undefined;

  // The engine loads here, on a grep's first call: every other tool call is spared
  // parsing it and its regex engines (about a third of a one-shot command's start).
  const { GrepError, STRETCH_SIZES, searchFiles } = await import('@ws/grep');
  let facts: SearchFacts;
  const count = { offered: 0 };
  let partLines = 0;
  try {
    facts = await searchFiles(
      input.pattern,
      filesOf(
        scopes,
        pathFilter(workspace, input.glob, within),
        // Past a full page a file's results are only counted: a mount may spare their bytes.
        { pattern: input.pattern, caseInsensitive: input.caseInsensitive ?? false, fixedStrings: input.fixedStrings ?? false, multiline, pageFull: () => page.isFull() },
        call,
        count,
      ),
      {
        caseInsensitive: input.caseInsensitive ?? false,
        fixedStrings: input.fixedStrings ?? false,
        multiline,
        contextBefore: input.contextBefore ?? 0,
        contextAfter: input.contextAfter ?? 0,
        ...(input.type === undefined ? {} : { type: input.type }),
        timeoutMs,
        ...(workspace.grep?.runner ? { runner: workspace.grep.runner } : {}),
        ...(workspace.grep?.stretch ? { stretch: workspace.grep.stretch } : {}),
      },
      {
        skipped: (file) => skipped.add(file),
        found(file) {
          const head = fileHead(file);
          if (mode !== 'content') {
            // A large file's parts are one file here: its count is their sum, told with its last.
            partLines += file.lines;
            if (file.continues) return;
            const lines = partLines;
            partLines = 0;
            if (!page.wants()) return page.skip(1);
            const item = mode === 'files' ? { ...head, matches: lines } : [file.version ? `${file.path} (${file.version})` : file.path, lines];
            const cost = mode === 'files' ? jsonLength(item) + 1 : jsonLength((item as unknown[])[0]) + jsonLength((item as unknown[])[1]) + 2;
            page.offer({ head, item }, cost);
            return page.next();
          }
          for (let k = 0; k < file.results; k++) {
            if (!page.wants()) {
              // Before offset, or past what fits: counted, not built.
              const left = page.seen < offset ? Math.min(file.results - k, offset - page.seen) : file.results - k;
              page.skip(left);
              k += left - 1;
              continue;
            }
            const withHead = lastHead === undefined || lastHead.path !== head.path || lastHead.version !== head.version;
            const headCost = withHead ? jsonLength({ ...head, matches: [] }) + 1 : 0;
            let item = matchOf(file, k, cut, true);
            let cost = jsonLength(item) + 1 + headCost;
            if (cost > page.room() - FLOOR_NOTE && page.items.length === 0) {
              // The floor: the first result is shown whatever it takes, without its context, its window narrowed to fit.
              if (item.before || item.after) extra.push(contextLeftOut(item.line));
              for (let size = LONG_LINE_CHARS; size >= 20; size = Math.floor(size / 2)) {
                item = matchOf(file, k, true, false, size);
                cost = jsonLength(item) + 1 + headCost;
                if (cost <= page.room() - FLOOR_NOTE) break;
              }
            }
            page.offer({ head, item }, cost);
            if (page.items.length > 0) lastHead = page.items[page.items.length - 1].head;
            page.next();
          }
        },
      },
    );
  } catch (err) {
    if (err instanceof GrepError) return refuse(err.message);
    throw err;
  }
  // Every file offered was searched (or skipped): the caller's progress ends at its total.
  call.progress?.({ done: count.offered, total: count.offered });
  // A path that names nothing is said so, as read says it, rather than searched to an empty answer.
  const only = scopes.length === 1 ? scopes[0] : undefined;
  if (within !== undefined && only !== undefined && only.rel !== '' && facts.filesSearched === 0 && skipped.list().length === 0) {
    if ((await only.mount.read(only.rel)).kind === 'missing') return refuse(missing(within, await suggestions(only.mount, within)));
  }

  const total = mode === 'content' ? facts.totalResults : facts.filesMatched;
  return answer(
    page.finish((shown) => {
      let results: unknown;
      if (mode === 'content') {
        const files: { head: ReturnType<typeof fileHead>; matches: unknown[] }[] = [];
        for (const { head, item } of shown) {
          const last = files[files.length - 1];
          if (last !== undefined && last.head.path === head.path && last.head.version === head.version) last.matches.push(item);
          else files.push({ head, matches: [item] });
        }
        results = files.map((f) => ({ ...f.head, matches: f.matches }));
      } else if (mode === 'files') {
        results = shown.map((s) => s.item);
      } else {
        results = Object.fromEntries(shown.map((s) => s.item as [string, number]));
      }
      const note = notesOf(facts, workspace, timeoutMs, pageNote(WHAT[mode](multiline), offset, shown.length, total), extra, STRETCH_SIZES.longestLine);
      return skeleton(results, facts, note);
    }),
  );
}

/** The `grep` tool. */
export const grepTool = defineTool({
  name: 'grep',
  title: 'Search files',
  description: 'Search lines, as read shows them.',
  input: schema,
  output: outputOf({ note: 'string' }),
  hints: { readOnly: true, destructive: false, idempotent: true },
  run: grep,
});
