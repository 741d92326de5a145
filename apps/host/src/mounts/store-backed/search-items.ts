/**
 * What grep looks at on a store-backed mount, one file at a time, and how a pass's reports
 * become those files. The one rule: the files a search plans are the workspace view — S
 * where the workspace holds the file (and a conflict's disk side), disk only for a file the
 * workspace doesn't store.
 */
import type { PathReport } from '@ws/reconcile';
import { showsFile } from '@ws/reconcile';
import { compare } from './context.ts';

/** One file grep looks at, as planned under the lock. */
export type SearchItem =
  | {
      readonly path: string;
      readonly source: 'workspace';
      readonly hash: string;
      readonly size: number;
      readonly conflict?: { readonly hash: string; readonly size: number };
    }
  | { readonly path: string; readonly source: 'disk' }
  /** Over `maxFileSize` on disk (the store never holds it): searched straight from disk. */
  | { readonly path: string; readonly source: 'large' }
  | { readonly path: string; readonly source: 'skip'; readonly reason: string };

/** The files a pass's reported paths show a search, in their order. */
export function reportedItems(paths: readonly PathReport[]): SearchItem[] {
  const items: SearchItem[] = [];
  for (const r of paths) {
    if (!showsFile(r.state)) continue;
    const side = r.conflict?.diskSide;
    const conflict = side?.kind === 'stored' && side.hash !== r.workspace?.hash ? { hash: side.hash, size: side.size } : undefined;
    if (r.workspace) {
      items.push({ path: r.path, source: 'workspace', hash: r.workspace.hash, size: r.workspace.size, ...(conflict ? { conflict } : {}) });
    } else if (r.state === 'disk-only' && r.disk.kind === 'opaque') {
      items.push({ path: r.path, source: r.disk.why === 'too-large' ? 'large' : 'disk' });
    }
  }
  return items;
}

/** Items in path order: as they are where they are in it already (checked), else sorted. */
export function sortedIfNeeded(items: SearchItem[]): SearchItem[] {
  for (let k = 1; k < items.length; k++) if (!(items[k - 1].path < items[k].path)) return items.sort((x, y) => compare(x.path, y.path));
  return items;
}
