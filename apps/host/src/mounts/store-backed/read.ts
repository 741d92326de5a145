/**
 * `read` on a store-backed mount: a named pass over the path (the read's disk check),
 * then `@ws/reconcile`'s finding, mapped one to one onto the tools' outcome. The one rule:
 * the answer is decided by `readFinding`; nothing here overrules it.
 */
import { readFinding, readSentence } from '@ws/reconcile';
import type { ReadOutcome } from '@ws/tools';
import { type StoreMountContext, isDirectoryPath } from './context.ts';

/** Reads `path` (contained already), under the lock. */
export async function readPath(ctx: StoreMountContext, path: string): Promise<ReadOutcome> {
  const { store, config } = ctx;
  if (!ctx.checksDisk) return readStored(ctx, path);
  const result = await ctx.pass({ kind: 'paths', paths: [path] });
  const report = result.kind === 'done' ? result.paths.find((p) => p.path === path) : undefined;
  const branch = result.kind === 'done' ? result.branch : store.selectedBranch();
  const held = report ? report.workspace : store.read(branch, config.name, path).tree;
  const directory = held === null && (await isDirectoryPath(ctx, path, branch));
  const finding = readFinding(result, path, { workspaceHolds: held !== null, directory });
  switch (finding.kind) {
    case 'page': {
      const bytes = held === null ? null : store.getBlob(held.hash);
      return bytes === null ? { kind: 'missing' } : { kind: 'file', bytes, notes: finding.notes };
    }
    case 'answer':
      // A file too large to store is paged straight from disk, read-only.
      // Where the store held it until disk made it too large, the page says so too.
      if (finding.reason === 'not-stored' && finding.why === 'too-large' && held === null) {
        const large = await ctx.readLarge(path);
        const dropped = finding.message === readSentence.notStored('too-large', true);
        return large.kind === 'large' && dropped ? { ...large, notes: [finding.message, ...large.notes] } : large;
      }
      return { kind: 'answer', message: finding.message };
    case 'binary': {
      // The store keeps no binary file; disk's bytes, where they fit, let read show an image.
      const disk = await ctx.disk.read(path, config.maxFileSize);
      const bytes = disk.kind === 'file' && disk.bytes !== null ? { bytes: disk.bytes } : {};
      return { kind: 'binary', size: finding.size, ...bytes };
    }
    case 'directory':
      return { kind: 'directory' };
    case 'missing':
      return { kind: 'missing' };
  }
}

/** `watch = "never"`: the workspace's copy as it is, without looking at disk. */
async function readStored(ctx: StoreMountContext, path: string): Promise<ReadOutcome> {
  const branch = ctx.store.selectedBranch();
  const tree = ctx.store.read(branch, ctx.config.name, path).tree;
  const bytes = tree === null ? null : ctx.store.getBlob(tree.hash);
  if (bytes !== null) return { kind: 'file', bytes, notes: [] };
  return (await isDirectoryPath(ctx, path, branch)) ? { kind: 'directory' } : { kind: 'missing' };
}
