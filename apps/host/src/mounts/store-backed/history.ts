/**
 * A file's versions on a store-backed mount, newest first: every change to the
 * workspace's copy (an agent's draft, disk taken in, a discard, a branch switch) and
 * every materialize, following the path back across a move. The one rule: the list is
 * the store's history as recorded — a disk check first takes in a change disk made, so
 * it is listed; nothing else is changed.
 */
import type { Refusal, Version } from '@ws/tools';
import { type StoreMountContext, isDirectoryPath } from './context.ts';

/** The versions of `path` (contained already), under the lock. */
export async function historyOf(ctx: StoreMountContext, path: string): Promise<{ readonly ok: true; readonly versions: readonly Version[] } | Refusal> {
  const { store, config, words } = ctx;
  if (path === '') return { ok: false, message: words.historyOfDirectory(path) };
  const branch = store.selectedBranch();
  const held = store.read(branch, config.name, path).tree !== null;
  if (!held && (await isDirectoryPath(ctx, path, branch))) return { ok: false, message: words.historyOfDirectory(path) };
  if (ctx.checksDisk) await ctx.pass({ kind: 'paths', paths: [path] });
  const versions = store.history(config.name, path).map((v): Version => ({ id: String(v.seq), at: v.at, source: v.source, size: v.size }));
  return { ok: true, versions };
}
