/**
 * `watch = "always"`: a file watcher per mount that passes over paths as they change, so
 * `status` and listings are current without a tool call. The one rule: the watcher only
 * runs passes, over what a walk would look at (the mount's ignore list and its ignore files
 * pass over the same paths here as in a sync) — the three-way rule then sees the host's own writes as agreement
 * (disk = store = evidence), so they never show as a person's change.
 */
import { join } from 'node:path';
import type { PassResult } from '@ws/reconcile';
import { insideRel, kindAt } from './disk/contain.ts';
import { type WalkRules, walkRules } from './disk/rules.ts';
import { type TreeWatch, watchTree } from './disk/watcher.ts';
import type { StoreMount } from './mounts/store-backed/mount.ts';

/** How long the watcher waits for more changes before it passes over what it gathered. */
export const DEBOUNCE_MS = 100;

/** Running watchers. */
export interface Watching {
  stop(): void;
}

function log(line: string): void {
  process.stderr.write(`ws: watch: ${line}\n`);
}

/** True when a walk would pass over `path` or a directory above it. */
function passedOver(path: string, isDir: boolean, rules: WalkRules): boolean {
  const parts = path.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const dir = i < parts.length || isDir;
    if (rules.passOver(parts.slice(0, i).join('/'), dir) !== undefined) return true;
  }
  return false;
}

function isDirectory(abs: string): boolean {
  return kindAt(abs, false) === 'directory';
}

/** One log line per path the pass took something in for, or found in conflict. */
function logPass(mount: string, result: PassResult): void {
  if (result.kind === 'gave-up') return;
  for (const r of result.paths) {
    if (r.conflict !== null) {
      log(`${mount}/${r.path}: ${r.conflict.description}`);
    } else if (r.taken !== null && r.taken.kind !== 'mode') {
      const took =
        r.taken.kind === 'text' ? (r.taken.new ? 'a new file' : 'a change') : r.taken.kind === 'deletion' ? 'a deletion' : 'a file it does not store';
      log(`${mount}/${r.path}: took in ${took} from disk`);
    }
  }
}

/** Watches one mount until `stop`. */
function watchMount(mount: StoreMount, storePath: string): Watching {
  const root = mount.config.root;
  // A walk's own rules, ignore files included (read afresh for each batch, so an edited
  // .gitignore counts from its next change on): what a sync would pass over, the watcher does.
  const rules = walkRules(mount.config.ignore, insideRel(root, storePath), mount.config.gitignore ? root : undefined);
  let pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  /** Named passes over what changed; a path that held no file (a directory, made or gone) is passed as a directory. */
  async function passOver(paths: readonly string[]): Promise<void> {
    const result = await mount.passPaths(paths);
    if (stopped) return;
    if (result.kind === 'gave-up') {
      for (const p of paths) pending.add(p);
      schedule();
      return;
    }
    logPass(mount.name, result);
    for (const r of result.paths) {
      if (r.state !== 'absent' || stopped) continue;
      // A directory made or gone: a walk of it takes in what it holds (a directory that
      // left the mount holds nothing, so the files the store had beneath it are deletions).
      logPass(mount.name, await mount.passDirectory(r.path));
    }
  }

  function flush(): void {
    timer = undefined;
    rules.renew?.();
    const paths = [...pending].filter((p) => !passedOver(p, isDirectory(join(root, p)), rules));
    pending = new Set();
    if (paths.length === 0 || stopped) return;
    running = running.then(() =>
      passOver(paths).catch((err) => {
        if (!stopped) log(`the pass over ${mount.name} failed: ${err instanceof Error ? err.message : String(err)}`);
      }),
    );
  }

  function schedule(): void {
    if (timer === undefined && !stopped) timer = setTimeout(flush, DEBOUNCE_MS);
  }

  let watcher: TreeWatch | undefined;
  let healthy = false;
  try {
    watcher = watchTree(
      root,
      (rel) => {
        pending.add(rel);
        schedule();
      },
      (why) => {
        healthy = false;
        if (!stopped) log(`the watcher on ${mount.name} stopped (${why}); run sync to take disk's changes in.`);
      },
    );
    healthy = true;
  } catch (err) {
    log(`could not watch ${root} (${err instanceof Error ? err.message : String(err)}); run sync to take disk's changes in.`);
  }
  // The mount asks before a search whether what the watcher saw is all passed over.
  mount.watchedBy({
    async settle() {
      if (!healthy || stopped) return false;
      if (timer !== undefined) {
        clearTimeout(timer);
        flush();
      }
      await running;
      return healthy && !stopped && pending.size === 0 && timer === undefined;
    },
  });
  return {
    stop() {
      stopped = true;
      healthy = false;
      watcher?.close();
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

/**
 * Starts a watcher for each mount; changes are passed over in batches. `storePath`: the
 * store's file, whose own writes (and its lock's) are never passed over.
 */
export function watchMounts(mounts: readonly StoreMount[], storePath: string): Watching {
  const all = mounts.map((m) => watchMount(m, storePath));
  return {
    stop() {
      for (const w of all) w.stop();
    },
  };
}
