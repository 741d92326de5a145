/**
 * Builds the installed bin into `dist/` (`bun run build:bin`). What a process loads is
 * what it pays for at start, run or not, so the bin is cut where a command's needs part:
 *
 * - `cli.js`: reads the command word and loads one of the two bundles below
 *   (`src/bin/entry.ts`).
 * - `ws-command.js`: the CLI for every one-shot command, without the MCP server; where
 *   the CLI imports the server, it names `ws-server.js` instead.
 * - `ws-server.js`: the CLI with the MCP server, for `ws mcp` and `ws serve`.
 * - `grep-engine.js`: `@ws/grep` with its regular-expression engines, loaded by the
 *   first grep. Both bundles import it by that name, so a process holds one copy; it
 *   shares no classes with them (its `GrepError` is caught where it is imported).
 * - `grep/worker.js`, `disk/walk-worker.js`, `store/postgres/worker.js`: the Workers,
 *   each a thread of its own, bundled whole (they share no chunk).
 *
 * Every bundle is CommonJS with a bytecode cache (Bun caches bytecode for CommonJS only
 * outside `--compile`) and minified; the four above know their directory as
 * `WS_BIN_DIR`, from which they name the Workers' files and each other. A Worker's cache
 * counts too: grep's Worker starts with every one-shot grep, and parsing its 250 KB took
 * it from 10 ms to its first answer to 15 (the host README's "Performance").
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BunPlugin } from 'bun';

const HOST = resolve(import.meta.dir, '..');
const DIST = join(HOST, 'dist');
const WORKERS = {
  WS_GREP_WORKER: '"./grep/worker.js"',
  WS_WALK_WORKER: '"./disk/walk-worker.js"',
  WS_PG_WORKER: '"./store/postgres/worker.js"',
};

/** Imports that name another bundle of the bin instead of taking its modules in. */
function elsewhere(serverToo: boolean): BunPlugin {
  return {
    name: 'ws-bin-parts',
    setup(build) {
      build.onResolve({ filter: /^@ws\/grep$/ }, () => ({ path: './grep-engine.js', external: true }));
      if (serverToo) {
        build.onResolve({ filter: /^\.\/serve\.ts$/ }, (args) =>
          args.importer === join(HOST, 'src/cli.ts') ? { path: './ws-server.js', external: true } : undefined,
        );
      }
    },
  };
}

async function build(config: Parameters<typeof Bun.build>[0]): Promise<void> {
  const built = await Bun.build(config);
  if (!built.success) {
    for (const log of built.logs) console.error(log);
    process.exit(1);
  }
}

rmSync(DIST, { recursive: true, force: true });
for (const worker of ['grep/worker', 'store/postgres/worker', 'disk/walk-worker']) {
  await build({
    entrypoints: [join(HOST, 'src', `${worker}.ts`)],
    outdir: join(DIST, worker, '..'),
    naming: `${worker.slice(worker.lastIndexOf('/') + 1)}.js`,
    target: 'bun',
    format: 'cjs',
    bytecode: true,
    minify: true,
    define: WORKERS,
  });
}
const bundles: readonly [entry: string, name: string, plugins: BunPlugin[]][] = [
  [join(HOST, 'src/bin/entry.ts'), 'cli', []],
  [join(HOST, 'src/cli.ts'), 'ws-command', [elsewhere(true)]],
  [join(HOST, 'src/bin/server.ts'), 'ws-server', [elsewhere(false)]],
  [Bun.resolveSync('@ws/grep', HOST), 'grep-engine', []],
];
for (const [entry, name, plugins] of bundles) {
  await build({
    entrypoints: [entry],
    outdir: DIST,
    naming: `${name}.js`,
    target: 'bun',
    format: 'cjs',
    bytecode: true,
    minify: true,
    banner: 'var WS_BIN_DIR = __dirname;',
    define: WORKERS,
    plugins,
  });
}
