/**
 * "Did you mean": the paths closest to one that does not exist, as a shell suggests.
 * The one rule: a suggestion must be close enough to be a plausible slip (a typo, a
 * wrong directory, a wrong case), never just the least-bad path of an unrelated tree.
 */
import type { Mount } from './workspace.ts';
import { prefixed } from './paths.ts';

/** Levenshtein distance, stopping early once it passes `limit` (returns `limit + 1`). */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let best = cur[0];
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (cur[j] < best) best = cur[j];
    }
    if (best > limit) return limit + 1;
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * Up to `max` of `candidates` closest to `wanted` (all mount-prefixed): the same name in
 * another directory or case, or a path a few keystrokes away. Closest first.
 */
export function closePaths(wanted: string, candidates: Iterable<string>, max = 3): string[] {
  const want = wanted.toLowerCase();
  const wantBase = baseName(want);
  const limit = Math.max(2, Math.floor(want.length / 5));
  const scored: { path: string; score: number }[] = [];
  for (const path of candidates) {
    if (path === wanted) continue;
    const lower = path.toLowerCase();
    let score: number;
    if (lower === want) score = 0;
    else if (wantBase !== '' && baseName(lower) === wantBase) score = 1;
    else {
      const d = distance(want, lower, limit);
      if (d > limit) continue;
      score = 1 + d;
    }
    scored.push({ path, score });
  }
  scored.sort((a, b) => a.score - b.score || a.path.localeCompare(b.path));
  return scored.slice(0, max).map((s) => s.path);
}

/**
 * Close paths to a missing mount-prefixed `path`: among the mount's own candidates where
 * it offers them (a store's records, no walk), else — or where none is close — among every
 * file of its mount.
 */
export async function suggestions(mount: Mount, path: string): Promise<string[]> {
  if (mount.candidates) {
    const rel = path.slice(mount.name.length + 1);
    const close = closePaths(path, (await mount.candidates(rel)).map((p) => prefixed(mount.name, p)));
    if (close.length > 0) return close;
  }
  const listed = await mount.list('', { recursive: true, filesOnly: true });
  if (!listed.ok) return [];
  return closePaths(path, listed.entries.filter((e) => e.kind === 'file').map((e) => prefixed(mount.name, e.path)));
}
