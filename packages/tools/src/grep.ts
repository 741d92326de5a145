/**
 * `grep`: `@ws/grep`'s search over one path, one mount or every mount, store-backed and
 * direct alike, with an optional glob filter, held to the call's budget. The one rule:
 * the files searched are what each mount offers (`searchFiles`: the workspace copy and a
 * conflict's disk version, or disk as it is), named mount-prefixed, in mount order —
 * the tools decide nothing about what a match is.
 */
import { safeCut } from '@ws/text';
import { type FileMatches, type GrepFile, type LineMatch, type SearchAnswer, type SkippedFile, GrepError, search } from '@ws/grep';
import { z } from 'zod';
import { outputOf, path, wholeFromZero } from './schemas.ts';
import { type CallContext, defineTool } from './tool.ts';
import type { Mount, Workspace } from './workspace.ts';
import { grepCut, grepLineCut, narrow, overSize } from './errors.ts';
import { globMatcher } from './glob-match.ts';
import { holdList } from './hold.ts';
import { locate, prefixed } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';

const schema = z.strictObject({
  pattern: z.string().min(1).describe('A JavaScript regular expression.'),
  path: path.optional(),
  glob: z.string().min(1).optional().describe('e.g. *.ts'),
  contextBefore: wholeFromZero.optional(),
  contextAfter: wholeFromZero.optional(),
  caseInsensitive: z.boolean().optional(),
});

/** With a budget, a matching or context line longer than this is cut, saying how to read it whole. */
export const LONG_MATCH_LINE = 2000;

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

async function* filesOf(scopes: readonly { mount: Mount; rel: string }[], keep: (path: string) => boolean): AsyncIterable<GrepFile> {
  for (const { mount, rel } of scopes) {
    for await (const file of mount.searchFiles(rel)) {
      const path = prefixed(mount.name, file.path);
      if (!keep(path)) continue;
      if ('skipped' in file) yield { path, skipped: file.skipped };
      else if (file.bytes.length > mount.maxFileSize) yield { path, skipped: overSize(file.bytes.length, mount.maxFileSize), ...(file.version ? { version: file.version } : {}) };
      else yield { path, bytes: file.bytes, ...(file.version ? { version: file.version } : {}) };
    }
  }
}

function cutLine(text: string, line: number): string {
  if (text.length <= LONG_MATCH_LINE) return text;
  return text.slice(0, safeCut(text, LONG_MATCH_LINE)) + grepLineCut(text.length, line);
}

/** A match with every long line cut (a budget is stated). */
function cutMatch(m: LineMatch): LineMatch {
  const before = m.before?.map((t, i) => cutLine(t, m.line - m.before!.length + i));
  const after = m.after?.map((t, i) => cutLine(t, m.line + 1 + i));
  return { line: m.line, text: cutLine(m.text, m.line), ...(before ? { before } : {}), ...(after ? { after } : {}) };
}

type Item = { readonly kind: 'match'; readonly file: FileMatches; readonly match: LineMatch } | { readonly kind: 'skipped'; readonly skipped: SkippedFile };

/** The answer, held to `budget`: the first matching lines that fit (then skipped files), and a note of the rest. */
function held(found: SearchAnswer, budget: number | undefined): object {
  if (budget === undefined) return { ...found };
  const items: Item[] = [];
  for (const file of found.results) for (const match of file.matches) items.push({ kind: 'match', file, match: cutMatch(match) });
  for (const skipped of found.skipped) items.push({ kind: 'skipped', skipped });
  const matchCount = items.length - found.skipped.length;
  return holdList(
    items,
    (shown) => {
      const results: FileMatches[] = [];
      const skipped: SkippedFile[] = [];
      let last: { source: FileMatches; matches: LineMatch[] } | undefined;
      for (const item of shown) {
        if (item.kind === 'skipped') {
          skipped.push(item.skipped);
          continue;
        }
        if (last?.source !== item.file) {
          last = { source: item.file, matches: [] };
          const { matches: _, ...rest } = item.file;
          results.push({ ...rest, matches: last.matches });
        }
        last.matches.push(item.match);
      }
      const shownMatches = shown.length - skipped.length;
      const notes = [
        found.note,
        shown.length < items.length ? grepCut(shownMatches, matchCount, skipped.length, found.skipped.length, narrow.grep) : undefined,
      ].filter((n): n is string => n !== undefined);
      return {
        results,
        totalMatches: found.totalMatches,
        filesSearched: found.filesSearched,
        skipped,
        ...(notes.length ? { note: notes.join(' ') } : {}),
      };
    },
    budget,
  );
}

/** Searches every mount (or the path's) for `pattern`, answering `@ws/grep`'s answer with mount-prefixed paths. */
async function grep(workspace: Workspace, input: z.infer<typeof schema>, { budget }: CallContext): Promise<Answer> {
  let scopes: { mount: Mount; rel: string }[] = workspace.mounts.map((mount) => ({ mount, rel: '' }));
  let within: string | undefined;
  if (input.path !== undefined) {
    const at = locate(workspace, input.path);
    if (!at.ok) return refuse(at.message);
    scopes = [{ mount: at.mount, rel: at.rel }];
    within = at.path;
  }
  try {
    const found = await search(input.pattern, filesOf(scopes, pathFilter(workspace, input.glob, within)), {
      caseInsensitive: input.caseInsensitive ?? false,
      contextBefore: input.contextBefore ?? 0,
      contextAfter: input.contextAfter ?? 0,
      onDirectMountHost: workspace.hasDirectMount,
    });
    return answer(held(found, budget));
  } catch (err) {
    if (err instanceof GrepError) return refuse(err.message);
    throw err;
  }
}

/** The `grep` tool. */
export const grepTool = defineTool({
  name: 'grep',
  title: 'Search files',
  description: 'Search files line by line, as read shows them: every mount, or one path.',
  input: schema,
  output: outputOf({ results: 'array', totalMatches: 'integer', note: 'string' }),
  hints: { readOnly: true, destructive: false, idempotent: true },
  run: grep,
});
