/**
 * `bun run bench` for apps/host: runs every `*.bench.ts` in this folder in turn, each in
 * its own process (so one benchmark's warm caches and open stores don't colour the next),
 * and fails if any of them fails.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const benches = readdirSync(import.meta.dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
let failed = 0;
for (const file of benches) {
  console.log(`— ${file}`);
  const code = await Bun.spawn(['bun', join(import.meta.dir, file)], { stdout: 'inherit', stderr: 'inherit' }).exited;
  if (code !== 0) {
    console.error(`${file} failed (exit ${code})`);
    failed++;
  }
}
process.exit(failed > 0 ? 1 : 0);
