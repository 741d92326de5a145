/**
 * A preload for `bun --preload` that records, at exit, each module that imported
 * another (so every module with imports that was loaded), one path a line, to the file
 * `WS_LOADS_OUT` names, and each of Bun's own modules loaded (`bun:sqlite`…: the
 * resolver is not asked for those, `require.cache` holds them). startup.test.ts reads it.
 */
import { writeFileSync } from 'node:fs';
import { plugin } from 'bun';

const importers = new Set<string>();
plugin({
  name: 'load-recorder',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      importers.add(args.importer);
      return undefined;
    });
  },
});
process.on('exit', () => {
  const out = process.env.WS_LOADS_OUT;
  const builtins = Object.keys(require.cache).filter((key) => key.startsWith('bun:'));
  if (out !== undefined) writeFileSync(out, [...importers, ...builtins].join('\n'));
});
