/**
 * `watch = "always"`: a file watcher per mount that passes over paths as they change, so
 * `status` and listings are current without a tool call. The one rule: the watcher only
 * runs named passes — the three-way rule then sees the host's own writes as agreement
 * (disk = store = evidence), so they never show as a person's change.
 */
import { type FSWatcher, watch } from 'node:fs';
import { walkRules } from './disk/rules.ts';
import type { StoreMount } from './mounts/store-backed.ts';

/** How long the watcher waits for more changes before it passes over what it gathered. */
export const DEBOUNCE_MS = 100;

/** Running watchers. */
export interface Watching {
  stop(): void;
}

/** True when a walk would pass over `path` or a directory above it. */
function passedOver(path: string, rules: ReturnType<typeof walkRules>): boolean {
  const parts = path.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const p = parts.slice(0, i).join('/');
    if (rules.passOver(p, i < parts.length) !== undefined) return true;
  }
  return false;
}

/** Starts a watcher for each mount; changes are passed over in batches. */
export function watchMounts(mounts: readonly StoreMount[]): Watching {
  const watchers: FSWatcher[] = [];
  const timers: ReturnType<typeof setTimeout>[] = [];
  for (const mount of mounts) {
    const rules = walkRules(mount.config.ignore, undefined);
    let pending = new Set<string>();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = Promise.resolve();
    const flush = () => {
      timer = undefined;
      const paths = [...pending];
      pending = new Set();
      running = running.then(async () => {
        try {
          await mount.passPaths(paths);
        } catch (err) {
          process.stderr.write(`ws: the watcher's pass over ${mount.name} failed: ${err instanceof Error ? err.message : String(err)}\n`);
        }
      });
    };
    try {
      const w = watch(mount.config.root, { recursive: true }, (_event, name) => {
        if (typeof name !== 'string' || name === '') return;
        const path = name.split('\\').join('/');
        if (passedOver(path, rules) || path.startsWith('.ws/') || path.includes('/.ws-tmp-') || path.startsWith('.ws-tmp-')) return;
        pending.add(path);
        if (timer === undefined) {
          timer = setTimeout(flush, DEBOUNCE_MS);
          timers.push(timer);
        }
      });
      w.on('error', (err) => process.stderr.write(`ws: the watcher on ${mount.name} stopped: ${err.message}\n`));
      watchers.push(w);
    } catch (err) {
      process.stderr.write(`ws: could not watch ${mount.config.root}: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
  return {
    stop() {
      for (const w of watchers) w.close();
      for (const t of timers) clearTimeout(t);
    },
  };
}
