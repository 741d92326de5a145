/**
 * grep's files on a store-backed mount: which files to search is decided under the lock
 * (a pass over the path), their bytes are read afterwards. The one rule: a search sees the
 * workspace view — S where the workspace holds the file (and a conflict's disk side),
 * disk only for a file the workspace doesn't store.
 */
import { showsFile } from '@ws/reconcile';
import type { SearchFile } from '@ws/tools';
import { type StoreMountContext, scopeOf } from './context.ts';

/** One file grep looks at, as planned under the lock. */
export type SearchItem =
  | { readonly path: string; readonly source: 'workspace'; readonly hash: string; readonly conflictHash?: string }
  | { readonly path: string; readonly source: 'disk' }
  | { readonly path: string; readonly source: 'skip'; readonly reason: string; readonly tooLarge?: true };

/** The files grep looks at under `path` (contained already), decided under the lock. */
export async function searchPlan(ctx: StoreMountContext, path: string): Promise<SearchItem[]> {
  const { store, config } = ctx;
  const branch = store.selectedBranch();
  const fromStore = () => store.treeFiles(branch, config.name, path).map((f): SearchItem => ({ path: f.path, source: 'workspace', hash: f.entry.hash }));
  if (!ctx.checksDisk) return fromStore();
  const result = await ctx.pass(await scopeOf(ctx, path, branch));
  if (result.kind === 'gave-up') return fromStore();
  const plan: SearchItem[] = [];
  for (const r of result.paths) {
    if (!showsFile(r.state)) continue;
    const side = r.conflict?.diskSide;
    const conflictHash = side?.kind === 'stored' && side.hash !== r.workspace?.hash ? side.hash : undefined;
    if (r.workspace) {
      plan.push({ path: r.path, source: 'workspace', hash: r.workspace.hash, ...(conflictHash ? { conflictHash } : {}) });
    } else if (r.state === 'disk-only' && r.disk.kind === 'opaque') {
      plan.push(
        r.disk.why === 'too-large'
          ? { path: r.path, source: 'skip', reason: ctx.words.overLimit(r.disk.size, config.maxFileSize), tooLarge: true }
          : { path: r.path, source: 'disk' },
      );
    }
  }
  return plan;
}

/** The bytes of each planned file, read outside the lock (blobs never change; disk is read as it is). */
export async function* searchBytes(ctx: StoreMountContext, plan: readonly SearchItem[]): AsyncIterable<SearchFile> {
  for (const item of plan) {
    let found: SearchFile[];
    try {
      found = await bytesOf(ctx, item);
    } catch (err) {
      // One file that can't be read is skipped with why; the search goes on.
      if (process.env.WS_DEBUG === '1') console.error(err);
      const why = err instanceof Error ? err.message : String(err);
      found = [{ path: item.path, skipped: err instanceof Error && err.name === 'StoreError' ? why : ctx.words.failed('Reading', item.path, why) }];
    }
    yield* found;
  }
}

async function bytesOf(ctx: StoreMountContext, item: SearchItem): Promise<SearchFile[]> {
  if (item.source === 'skip') return [{ path: item.path, skipped: item.reason, ...(item.tooLarge ? { tooLarge: true } : {}) }];
  if (item.source === 'disk') {
    const read = await ctx.disk.read(item.path, ctx.config.maxFileSize);
    return read.kind === 'file' && read.bytes !== null ? [{ path: item.path, bytes: read.bytes }] : [];
  }
  const out: SearchFile[] = [];
  const bytes = ctx.store.getBlob(item.hash);
  if (bytes !== null) out.push({ path: item.path, bytes });
  const other = item.conflictHash ? ctx.store.getBlob(item.conflictHash) : null;
  if (other !== null) out.push({ path: item.path, bytes: other, version: 'conflicting-disk' });
  return out;
}
