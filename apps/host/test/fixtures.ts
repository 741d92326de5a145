/**
 * Temporary directories for tests that touch real disks, removed when the run ends.
 * `bun test` runs every file in one process and evaluates this module once, so the hook
 * registered here belongs to whichever file loads it first — unless a preload loads it,
 * where it is the whole run's (`test/preload.ts`, named in this package's bunfig.toml).
 * Before, every directory made after the first test file stayed behind: some 1,700 a run
 * of the suite. (The test process emits no `exit` event to hang the removal on.)
 */
import { afterAll } from 'bun:test';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh, real (symlink-free) temporary directory. */
export function tempDir(prefix = 'ws-host-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/**
 * Runs `fn` while another process (`swapper.ts`) swaps `root/sub` with `root/link` in a
 * tight loop: under way before `fn` begins, stopped after it ends, however it ends.
 */
export async function whileSwapping(root: string, fn: () => Promise<void>): Promise<void> {
  const swapper = Bun.spawn(['bun', join(import.meta.dir, 'swapper.ts'), root], { stdout: 'pipe', stderr: 'ignore' });
  try {
    const reader = swapper.stdout.getReader();
    await reader.read();
    reader.releaseLock();
    await fn();
  } finally {
    swapper.kill();
    await swapper.exited;
  }
}

export const enc = (s: string) => new TextEncoder().encode(s);
export const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/**
 * Makes up to `count` files under `root` in directories whose names repeat at every depth
 * (`a/b/a/c.txt`), 1 to `maxDepth` deep, each holding `this is <its path>`: the paths made.
 */
export function repeatedNameTree(root: string, seed: number, count: number, maxDepth: number): string[] {
  const random = seededRandom(seed);
  const names = ['a', 'b', 'c'];
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const depth = 1 + random(maxDepth);
    const dirs = Array.from({ length: depth }, () => names[random(names.length)]).join('/');
    const path = `${dirs}/${names[random(names.length)]}.txt`;
    if (files.includes(path)) continue;
    mkdirSync(join(root, dirs), { recursive: true });
    writeFileSync(join(root, path), `this is ${path}`);
    files.push(path);
  }
  return files;
}

/** A seeded xorshift: `rand(n)` is a whole number in [0, n), the same for the same seed. */
export function seededRandom(seed: number): (n: number) => number {
  let state = seed >>> 0 || 1;
  return (n: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}
