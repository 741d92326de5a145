/**
 * `glob`: files whose mount-prefixed paths match a pattern, with `Bun.Glob` semantics.
 * The one rule: the pattern is matched against the whole mount-prefixed path
 * (`work/src/a.ts`), mount name included; with `path`, a pattern that does not begin
 * with a mount name is read relative to that path.
 */
import { type InputOf, defineInput, outputOf } from './schemas.ts';
import { type CallContext, defineTool } from './tool.ts';
import type { Mount, Workspace } from './workspace.ts';
import { globNone, passedOver } from './errors.ts';
import { globMatcher } from './glob-match.ts';
import { pageOf } from './ls.ts';
import { exampleMount, locate, prefixed } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';

const schema = defineInput((z, { scope, wholeFromZero }) => z.strictObject({
  pattern: z.string().min(1).describe('e.g. work/**/*.ts'),
  path: scope.optional(),
  sort: z.enum(['path', 'modified']).optional(),
  offset: wholeFromZero.optional(),
}));

const GLOB_CHARS = /[*?[\]{}!\\]/;

/** A mount to walk and the directory inside it where the pattern's literal part ends. */
interface Scan {
  readonly mount: Mount;
  readonly dir: string;
}

/** Where a pattern can match: the mounts its first part names, beneath its literal directory. */
function scansFor(workspace: Workspace, pattern: string): Scan[] {
  const parts = pattern.split('/');
  const literal: string[] = [];
  for (let i = 1; i < parts.length - 1 && !GLOB_CHARS.test(parts[i]); i++) literal.push(parts[i]);
  const first = parts[0];
  const named = GLOB_CHARS.test(first)
    ? workspace.mounts.filter((m) => globMatcher(first).match(m.name))
    : workspace.mounts.filter((m) => m.name === first);
  const dir = GLOB_CHARS.test(first) ? '' : literal.filter((p) => p !== '' && p !== '.').join('/');
  return named.map((mount) => ({ mount, dir }));
}

/** Files matching a mount-prefixed glob, in path order, held to the call's budget. */
async function glob(workspace: Workspace, input: InputOf<typeof schema>, { budget }: CallContext): Promise<Answer> {
  let pattern = input.pattern;
  let within: string | undefined;
  if (input.path !== undefined) {
    const at = locate(workspace, input.path);
    if (!at.ok) return refuse(at.message);
    const first = pattern.split('/')[0];
    if (!workspace.mounts.some((m) => m.name === first)) pattern = `${at.path}/${pattern.replace(/^\.?\/+/, '')}`;
    within = at.path;
  }
  const matcher = globMatcher(pattern);
  const files: { path: string; modified?: number }[] = [];
  const skipped: Record<string, number> = {};
  const troubles: string[] = [];
  // Listed again for their counts where nothing matched (a listing made without a walk counts nothing).
  const uncounted: Scan[] = [];
  const count = (passed: Readonly<Record<string, number>>) => {
    for (const [why, n] of Object.entries(passed)) skipped[why] = (skipped[why] ?? 0) + n;
  };
  for (const scan of scansFor(workspace, pattern)) {
    const { mount, dir } = scan;
    const listed = await mount.list(dir, { recursive: true, modified: input.sort === 'modified', filesOnly: true });
    if (!listed.ok) continue;
    if (listed.uncounted) uncounted.push(scan);
    count(listed.passedOver);
    if (listed.incomplete) troubles.push(listed.incomplete);
    for (const e of listed.entries) {
      if (e.kind !== 'file') continue;
      const full = prefixed(mount.name, e.path);
      if (within !== undefined && full !== within && !full.startsWith(`${within}/`)) continue;
      if (matcher.match(full)) files.push({ path: full, ...(e.modified === undefined ? {} : { modified: e.modified }) });
    }
  }
  if (files.length === 0) {
    for (const { mount, dir } of uncounted) {
      const again = await mount.list(dir, { recursive: true });
      if (again.ok) count(again.passedOver);
    }
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // Newest first, as editor agents' glob tools list; a path without a time (or a tie) keeps path order.
  if (input.sort === 'modified') files.sort((a, b) => (b.modified ?? -Infinity) - (a.modified ?? -Infinity) || 0);
  const notes = [...troubles, ...(files.length === 0 ? [globNone(pattern, exampleMount(workspace)), passedOver(skipped)] : [])].filter(
    (n): n is string => n !== undefined,
  );
  const paths = files.map((f) => f.path);
  return answer(pageOf(paths, input.offset ?? 0, budget, 'files', (shown, note) => ({ pattern, files: shown, ...(note ? { note } : {}) }), notes));
}

/** The `glob` tool. */
export const globTool = defineTool({
  name: 'glob',
  title: 'Find files by name',
  description: 'List files whose paths match a glob.',
  input: schema,
  output: outputOf({ files: 'array' }),
  hints: { readOnly: true, destructive: false, idempotent: true },
  run: glob,
});
