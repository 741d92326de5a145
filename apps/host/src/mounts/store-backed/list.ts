/**
 * `ls` on a store-backed mount: a pass over the directory, then its entries from what the
 * workspace view shows. The one rule: which paths are files of the view is
 * `@ws/reconcile`'s `showsFile` (after a pass, or of each record's decision against disk
 * as its evidence records it, where the store holds what disk does) or `storedState`
 * (from the store alone).
 */
import { type DiskView, decide, type Evidence, type PathRecords, showsFile, type StoredPath, storedState } from '@ws/reconcile';
import type { Entry, ListOptions, ListOutcome, Work } from '@ws/tools';
import { type StoreMountContext, compare, inDirectory, isDirectoryPath, parentOf, reconcileWork } from './context.ts';
import { quietAnswers, quietHolds } from './quiet.ts';
import { sizeOf } from './reports.ts';

/** A file of the workspace view, as a listing shows it. */
export interface ViewFile {
  readonly path: string;
  readonly size?: number;
  readonly state: string;
}

/** What a listing is made from. */
interface Seen {
  readonly files: readonly ViewFile[];
  readonly directories: readonly string[];
  readonly passedOver: Record<string, number>;
  readonly incomplete?: string;
  /** Made without a walk: `passedOver` counts nothing. */
  readonly uncounted?: boolean;
}

/** How a listing lists: `ls`'s and glob's options, and whether the mount's watcher has settled (`settledNow` in `mount.ts`). */
export interface ListHow extends ListOptions {
  readonly settled: boolean;
}

/**
 * Lists `path` (contained already; `''`: the root), under the lock; `modified`: with each
 * file's time (below); recursive, `settled` or (the whole mount) where a quiet record
 * holds: from the store's records where they say what a pass would ({@link fromRecords}).
 */
export async function listPath(ctx: StoreMountContext, path: string, how: ListHow, work?: Work): Promise<ListOutcome> {
  const { recursive } = how;
  const branch = ctx.store.selectedBranch();
  // No directory on disk or in the tree: a file the workspace shows (said so, as a direct
  // mount says it), or nothing — a pass over the path as a directory would find neither.
  if (path !== '' && !(await isDirectoryPath(ctx, path, branch))) {
    return { ok: false, message: (await showsAsFile(ctx, path, branch)) ? ctx.words.notADirectory(path) : ctx.words.missing(path) };
  }
  // A recursive listing of the whole mount where a quiet record holds: from the records too,
  // the record's check (a stat an entry) costing less than the pass it stands for.
  const byRecords = recursive && how.modified !== true;
  const quiet = byRecords && !how.settled && path === '' && ctx.checksDisk && (await quietHolds(ctx, branch));
  const records = byRecords && (how.settled || quiet) ? await fromRecords(ctx, path, branch, how.filesOnly === true) : undefined;
  if (quiet && records !== undefined) quietAnswers.count++;
  const seen =
    records ||
    (!recursive && (await lookAtLevel(ctx, path, branch, work))) ||
    (await look(ctx, path, branch, work, !recursive));
  const { files, directories } = seen;
  // A directory that went while it was looked at.
  if (path !== '' && files.length === 0 && directories.length === 0 && !(await isDirectoryPath(ctx, path, branch))) {
    return { ok: false, message: ctx.words.missing(path) };
  }
  const entries = entriesOf(path, files, directories, recursive);
  return {
    ok: true,
    entries: how.modified === true ? await withTimes(ctx, path, entries, recursive) : entries,
    passedOver: seen.passedOver,
    ...(seen.incomplete ? { incomplete: seen.incomplete } : {}),
    ...(seen.uncounted ? { uncounted: true as const } : {}),
  };
}

/** True where the workspace's view shows a file at `path`: after a pass over it where the mount checks disk, else from the store alone. */
async function showsAsFile(ctx: StoreMountContext, path: string, branch: string): Promise<boolean> {
  const result = ctx.checksDisk ? await ctx.pass({ kind: 'paths', paths: [path] }) : undefined;
  if (result?.kind === 'done') return result.paths.some((r) => r.path === path && showsFile(r.state));
  const rec = ctx.store.read(branch, ctx.config.name, path);
  return rec.tree !== null && storedState(rec) !== null;
}

/** States whose workspace copy is the agent's, not disk's: their time is the agent's last change. */
const AGENT_COPY = new Set(['workspace-draft', 'conflict', 'not-in-branch']);

/**
 * Each file's `modified`: where the workspace copy is the agent's (a draft, a conflict's
 * workspace side), the time of its newest version in the history; else disk's mtime (one
 * walk of `path`). A file with neither keeps no time, and sorts after those with one.
 */
async function withTimes(ctx: StoreMountContext, path: string, entries: Entry[], recursive: boolean): Promise<Entry[]> {
  const onDisk = new Map<string, number>();
  for (const f of (await (recursive ? ctx.disk.walk(path) : ctx.walkLevel(path))).files) onDisk.set(f.path, f.meta.mtimeMs);
  return entries.map((e) => {
    if (e.kind !== 'file') return e;
    const newest = e.state !== undefined && AGENT_COPY.has(e.state) ? ctx.store.history(ctx.config.name, e.path)[0] : undefined;
    const time = newest !== undefined ? Date.parse(newest.at) : onDisk.get(e.path);
    return time === undefined || Number.isNaN(time) ? e : { ...e, modified: time };
  });
}

/**
 * The view of the directory `dir`'s own entries, for a listing that is not recursive,
 * where the mount checks disk and `dir` is a directory on disk (else undefined, and the
 * listing takes the whole pass of {@link look}): what disk holds directly in it (a walk
 * of that one level) and what the workspace's tree holds there, each file passed over
 * by name; a child directory the walk did not enter but the tree holds files beneath
 * (gone from disk, or passed over) has those files looked at by name, and is listed where
 * one shows. Nothing beneath the level is walked or passed, so listing the root of
 * a large tree costs what its first level holds — the whole pass this replaces took half
 * a second on a 42,000-file tree at every call. A walk of the level that could not read
 * everything, a root that moved or went away, or a pass that gave up leaves it to the
 * whole pass, which says why.
 */
async function lookAtLevel(ctx: StoreMountContext, dir: string, branch: string, work?: Work): Promise<Seen | undefined> {
  if (!ctx.checksDisk || (dir !== '' && !(await ctx.isDirectory(dir)))) return undefined;
  // Looking at a file by name costs about three times what the whole pass spends on one
  // (its own stat and record reads, where the pass has the walk's and one scan): where the
  // level holds a third or more of the files beneath it, the whole pass is the cheaper
  // look, and is taken before anything is walked. (`WS_LEVEL_LOOK=always` looks at the
  // level whatever it costs: tests hold both looks to the same answers on small trees.)
  const dearer = (byName: number, beneath: number) => byName * 3 > beneath && process.env.WS_LEVEL_LOOK !== 'always';
  const held = ctx.store.treeChildren(branch, ctx.config.name, dir);
  if (dearer(held.files.length, held.beneath)) return undefined;
  const walk = await ctx.walkLevel(dir);
  if (walk.incomplete !== null || walk.unreadable.length > 0) return undefined;
  const atLevel = (p: { readonly path: string } | string) => parentOf(typeof p === 'string' ? p : p.path) === dir;
  const named = [...new Set([...walk.files.filter(atLevel).map((f) => f.path), ...held.files])].sort(compare);
  const walkedDirs = walk.directories.filter(atLevel);
  const walked = new Set(walkedDirs);
  // A child directory the walk did not enter but the tree holds files beneath (gone from
  // disk, passed over, or no longer a directory): those files, each looked at by name, as
  // a pass over the whole directory would.
  const unwalked = held.directories.filter((d) => !walked.has(d)).map((d) => [d, ctx.store.treeFiles(branch, ctx.config.name, d).map((f) => f.path)] as const);
  if (dearer(unwalked.reduce((n, [, paths]) => n + paths.length, named.length), held.beneath)) return undefined;
  const progress = reconcileWork(work).progress;
  // Run even where the level holds no file: the pass is what checks the mount's root.
  const level = await ctx.pass({ kind: 'paths', paths: named }, progress ? { progress } : {});
  // A root that moved or went away: the whole pass says so, as it always has.
  if (level.kind !== 'done' || level.rootProblem !== null) return undefined;
  const directories = [...walkedDirs];
  for (const [d, paths] of unwalked) {
    const beneath = await ctx.pass({ kind: 'paths', paths });
    if (beneath.kind !== 'done' || beneath.rootProblem !== null) return undefined;
    if (beneath.paths.some((r) => showsFile(r.state))) directories.push(d);
  }
  const files = level.paths.filter((r) => showsFile(r.state)).map((r) => ({ path: r.path, size: sizeOf(r), state: r.state }));
  return { files, directories, passedOver: counted(walk.passedOver, dir) };
}

/**
 * The view beneath `dir` from the store's records, for a recursive listing where the
 * store holds what disk does (the mount's watcher has settled, or a quiet record holds:
 * each path's evidence is disk's file): each record decided by the three-way rule against
 * disk as its evidence records it, as a pass finds it where nothing changed since — or
 * undefined where any record holds what only a pass settles (an effect pending, or a
 * decision that would change it: a conflict a pass would settle, or whose file disk
 * changed since, a fingerprint it would refresh), or the mount's root is not the one the store agreed on, and the listing
 * passes after all. `filesOnly` (glob's): the files alone, without a walk (`uncounted`);
 * else the directories and what was passed over come from a walk by names (no stat a
 * file), as the pass's walk says them.
 */
async function fromRecords(ctx: StoreMountContext, dir: string, branch: string, filesOnly: boolean): Promise<Seen | undefined> {
  // A directory a walk passes over, named outright, is listed as a walk of it shows it: a pass does that.
  if (!ctx.checksDisk || ctx.passedOver(dir) !== undefined) return undefined;
  // A root that went away or was replaced: the pass says so, as it always has.
  const root = await ctx.disk.locateRoot();
  const agreed = ctx.store.rootIdentity(ctx.config.name);
  if (root.kind === 'unavailable' || (agreed !== null && agreed !== root.identity)) return undefined;
  const files: ViewFile[] = [];
  for (const rec of ctx.store.scan(branch, ctx.config.name, dir)) {
    if (rec.pending !== null) return undefined;
    const file = viewOf(rec);
    if (file === undefined) return undefined;
    if (file !== null) files.push(file);
  }
  files.sort((a, b) => compare(a.path, b.path));
  if (filesOnly) return { files, directories: [], passedOver: {}, uncounted: true };
  const walk = await ctx.walkNames(dir);
  if (walk === undefined || walk.incomplete !== null || walk.unreadable.length > 0) return undefined;
  return { files, directories: walk.directories, passedOver: counted(walk.passedOver) };
}

/**
 * Disk as a path's records say it is: what a pass sees where nothing changed since — a
 * conflict's disk side (where disk changed since it was recorded, the decision records it
 * unchanged, and the listing passes), else the evidence.
 */
function diskAsRecorded(rec: StoredPath): DiskView {
  const side = rec.mark?.conflict;
  if (side) {
    const d = side.disk;
    if (d.kind === 'stored') return { kind: 'text', hash: d.hash, size: d.size, mode: null, fingerprint: '' };
    if (d.kind === 'referenced') return { kind: 'opaque', why: d.why, id: d.id, size: d.size, mode: null, fingerprint: '' };
    return { kind: 'absent' };
  }
  const evidence = rec.evidence;
  if (evidence === null || evidence.kind === 'absent') return { kind: 'absent' };
  const fingerprint = evidence.fingerprint ?? '';
  if (evidence.kind === 'text') return { kind: 'text', hash: evidence.hash, size: evidence.size, mode: evidence.mode, fingerprint };
  return { kind: 'opaque', why: evidence.why, id: evidence.id, size: evidence.size, mode: evidence.mode, fingerprint };
}

/** A record as the listing shows it (null: not a file of the view), or undefined where a pass over it would write. */
function viewOf(rec: StoredPath): ViewFile | null | undefined {
  const disk = diskAsRecorded(rec);
  const d = decide({ tree: rec.tree, evidence: rec.evidence, mark: rec.mark, disk, ...(rec.agreedElsewhere ? { agreedElsewhere: rec.agreedElsewhere } : {}) });
  if (d.taken !== null || d.settled !== null || d.gaveUp !== null || !sameRecords(d.next, rec)) return undefined;
  if (!showsFile(d.state)) return null;
  const size = d.next.tree !== null ? d.next.tree.size : disk.kind === 'text' || disk.kind === 'opaque' ? disk.size : undefined;
  return { path: rec.path, ...(size === undefined ? {} : { size }), state: d.state };
}

/** The records a decision leaves are the ones it was given (a fingerprint refreshed to itself counts as the same). */
function sameRecords(next: PathRecords, was: PathRecords): boolean {
  if (next.mark !== was.mark && JSON.stringify(next.mark) !== JSON.stringify(was.mark)) return false;
  if (next.tree !== was.tree && (next.tree?.hash !== was.tree?.hash || next.tree?.size !== was.tree?.size || next.tree?.mode !== was.tree?.mode)) return false;
  return sameEvidence(next.evidence, was.evidence);
}

/** Two evidences naming the same disk file, field by field (a decision may make a new object of the same one). */
function sameEvidence(a: Evidence | null, b: Evidence | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.kind !== b.kind) return false;
  if (a.kind === 'absent' || b.kind === 'absent') return true;
  if (a.size !== b.size || a.mode !== b.mode || a.fingerprint !== b.fingerprint) return false;
  if (a.kind === 'text' && b.kind === 'text') return a.hash === b.hash;
  return a.kind === 'opaque' && b.kind === 'opaque' && a.why === b.why && a.id === b.id;
}

/** What a walk passed over, counted by reason; with `dir`, only what lies directly in it: a listing of one level says what that level passed over, whichever look made it. */
function counted(entries: readonly { readonly path: string; readonly reason: string }[], dir?: string): Record<string, number> {
  const byReason: Record<string, number> = {};
  for (const e of entries) if (dir === undefined || parentOf(e.path) === dir) byReason[e.reason] = (byReason[e.reason] ?? 0) + 1;
  return byReason;
}

/**
 * The view of `path`: after a pass where the mount checks disk, else (or when the pass
 * gave up) from the store alone. `oneLevel`: for a listing that is not recursive, which
 * says what its own level passed over.
 */
async function look(ctx: StoreMountContext, path: string, branch: string, work?: Work, oneLevel = false): Promise<Seen> {
  // A listing tells its caller how the pass goes, but is not cut short: it lists what it can.
  const progress = reconcileWork(work).progress;
  const result = ctx.checksDisk ? await ctx.pass({ kind: 'directory', path }, progress ? { progress } : {}) : undefined;
  if (result?.kind === 'done') {
    return {
      files: result.paths.filter((r) => showsFile(r.state)).map((r) => ({ path: r.path, size: sizeOf(r), state: r.state })),
      directories: result.directories,
      passedOver: oneLevel ? counted(result.passedOverEntries, path) : { ...result.passedOver },
      incomplete: result.rootProblem ?? result.incomplete ?? undefined,
    };
  }
  return {
    files: storedView(ctx, branch, path),
    directories: [],
    passedOver: {},
    ...(result?.kind === 'gave-up' ? { incomplete: `disk could not be checked (${result.reason}); this lists the workspace's copy` } : {}),
  };
}

/** The workspace view of a directory without looking at disk, in path order. */
export function storedView(ctx: StoreMountContext, branch: string, dir: string): ViewFile[] {
  const out: ViewFile[] = [];
  for (const rec of ctx.store.scan(branch, ctx.config.name, dir)) {
    const state = storedState(rec);
    if (rec.tree !== null && state !== null) out.push({ path: rec.path, size: rec.tree.size, state });
  }
  return out.sort((a, b) => compare(a.path, b.path));
}

/** The entries of `path`: its files and the directories they and the walk imply, direct children only unless `recursive`. */
function entriesOf(path: string, files: readonly ViewFile[], directories: readonly string[], recursive: boolean): Entry[] {
  const dirs = new Set<string>(directories.filter((d) => d !== path));
  for (const f of files) {
    for (let p = parentOf(f.path); p !== '' && p !== path && inDirectory(p, path); p = parentOf(p)) dirs.add(p);
  }
  const shown = (p: string) => recursive || parentOf(p) === path;
  const entries: Entry[] = [];
  for (const d of dirs) if (shown(d)) entries.push({ path: d, kind: 'directory' });
  for (const f of files) {
    if (shown(f.path)) entries.push({ path: f.path, kind: 'file', ...(f.size === undefined ? {} : { size: f.size }), state: f.state });
  }
  return entries.sort((a, b) => compare(a.path, b.path));
}
