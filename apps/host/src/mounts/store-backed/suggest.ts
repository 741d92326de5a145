/**
 * Paths a mistyped one may have meant, from the store's own records: the same name in
 * another directory (any case), and the files beside it. The one rule: never a pass or a
 * walk — a typo must cost one indexed query and one directory's records, not the mount.
 */
import { type StoreMountContext, parentOf } from './context.ts';

/** How many candidates of each kind are offered to the "did you mean" ranking. */
const CANDIDATES = 200;

/** Mount-relative paths the workspace holds that `path` may have meant (unranked). */
export async function closeTo(ctx: StoreMountContext, path: string): Promise<string[]> {
  const { store, config } = ctx;
  const branch = store.selectedBranch();
  const name = path.slice(path.lastIndexOf('/') + 1);
  const named = name === '' ? [] : store.pathsNamed(branch, config.name, name, CANDIDATES);
  const parent = parentOf(path);
  const beside: string[] = [];
  for (const f of store.treeFiles(branch, config.name, parent)) {
    if (parentOf(f.path) !== parent) continue;
    beside.push(f.path);
    if (beside.length >= CANDIDATES) break;
  }
  return [...new Set([...named, ...beside])];
}
