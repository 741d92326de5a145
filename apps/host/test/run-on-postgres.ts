/**
 * The host suite's second run: every test file whose stores the fixtures make, again with
 * each store a fresh PostgreSQL database (`WS_TEST_STORE=postgres`, see `engine.ts`).
 * `bun run test` runs it after the SQLite run. The files left out, and why:
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const SKIP: Readonly<Record<string, string>> = {
  // They run on both engines themselves, store by store.
  'contract.test.ts': 'runs the store contract on both engines itself',
  'store.test.ts': 'runs on both engines itself',
  'crash.test.ts': 'runs its SIGKILL trials on both engines itself',
  'mcp-crash.test.ts': 'runs on both engines itself',
  'model-real-stores.test.ts': 'runs the model test on both engines itself',
  'pg-store.test.ts': 'PostgreSQL only',
  'pg-outage.test.ts': 'PostgreSQL only',
  'two-hosts.test.ts': 'PostgreSQL only',
  // About the SQLite file itself, which a shared store doesn't have.
  'boundary.test.ts': "the SQLite store's own files inside a mount, which no tool may touch",
  'first-sync-crash.test.ts': "the SQLite store's first sync in one transaction (a shared store's SIGKILL trials: crash.test.ts)",
  'store-faults.test.ts': "a damaged, full, busy or newer SQLite file (a shared store's faults: pg-outage.test.ts, pg-store.test.ts)",
  'store-index.test.ts': "the SQLite store's packed blobs, FTS5 index and blob collection",
  'store-lock-file.test.ts': "the SQLite store's lock file (a shared store's lock: pg-store.test.ts)",
  'quiet-sync.test.ts': "the SQLite store's quiet records (a shared store keeps none: every sync there is a pass)",
  'quiet-share.test.ts': "the SQLite store's quiet records, checked on two threads (a shared store keeps none)",
  // Long, and about what no store engine changes (CI's 30 minutes): each passed on
  // PostgreSQL when the second run was made (266 tests, 455 s with these in it).
  'grep-large.test.ts': 'files over the size limit, searched from disk in stretches (21 s)',
  'inspector.test.ts': "the MCP Inspector's CLI speaking the protocol (23 s)",
  'serve-load.test.ts': "20,000 HTTP initialize requests and the server's memory (14 s)",
  'swap-race.test.ts': "a swapped-in symlink against the disk layer's containment (47 s)",
  // No store at all: the disk layer, direct mounts, config and sessions.
  'compare-and-swap.test.ts': 'the disk layer alone',
  'config.test.ts': 'config files alone',
  'direct-collisions.test.ts': 'direct mounts alone',
  'disk-faults.test.ts': 'the disk layer alone',
  'disk.test.ts': 'the disk layer alone',
  'grep-deadline.test.ts': 'a direct mount alone',
  'grep-runner.test.ts': "grep's Workers alone",
  'ignore-files.test.ts': 'the disk layer alone',
  'mount-rules.test.ts': 'the disk layer alone',
  'read-dirs.test.ts': 'the disk layer alone',
  'read-many.test.ts': 'the disk layer alone',
  'replace-window.test.ts': 'the edit window alone',
  'review-sign-in.test.ts': "the review page's sign-in alone",
  'search-walk.test.ts': "a direct mount's walk alone",
  'walk-parallel.test.ts': 'the disk layer alone',
  'sessions.test.ts': 'HTTP sessions alone',
  'startup.test.ts': 'what a command on a direct mount loads, and the built bin',
};

const dir = import.meta.dir;
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.test.ts') && !(f in SKIP))
  .sort()
  .map((f) => join(dir, f));
const extra = process.argv.slice(2);
const proc = Bun.spawn(['bun', 'test', '--timeout', '120000', '--preload', join(dir, 'engine-preload.ts'), ...extra, ...files], {
  cwd: join(dir, '..'),
  env: { ...process.env, WS_TEST_STORE: 'postgres' },
  stdio: ['inherit', 'inherit', 'inherit'],
});
process.exit(await proc.exited);
