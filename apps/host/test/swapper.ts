/**
 * The swap race's attacker: swaps `ROOT/sub` (a directory of the mount) with `ROOT/link`
 * (a symlink to a directory outside it) with renameat2(RENAME_EXCHANGE), in a tight loop
 * over every root given, until killed. Prints how many swaps it made every 1,000.
 */
import { libc } from '../src/disk/libc.ts';

const roots = process.argv.slice(2);
if (libc === null) throw new Error('the swapper needs renameat2 through bun:ffi (Linux)');
let swaps = 0;
for (;;) {
  for (const root of roots) {
    libc.exchangeat(-1, `${root}/sub`, -1, `${root}/link`);
    swaps++;
  }
  if (swaps % 1000 === 0) process.stdout.write(`${swaps}\n`);
}
