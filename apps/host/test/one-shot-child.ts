/**
 * Walks a tree of `argv[2]` again and again (`argv[3]` times), as a one-shot command where
 * `argv[4]` is "one-shot": `one-shot.test.ts` reads which functions JavaScriptCore
 * compiled with FTL from its stderr. Prints the files each walk found, the last walk's.
 */
import { oneShotCommand } from '../src/disk/one-shot.ts';
import { fileMeta } from '../src/disk/fingerprint.ts';
import { walkRules } from '../src/disk/rules.ts';
import { newTally, visitTree } from '../src/disk/walk.ts';

const [root, times, mode] = process.argv.slice(2);
if (mode === 'one-shot') oneShotCommand();
const time = { granularityMs: 20, coarseMs: null, now: Date.now };
let out: string[] = [];
for (let i = 0; i < Number(times); i++) {
  const files: string[] = [];
  const rules = walkRules(['node_modules/', '.git/'], undefined, root);
  visitTree({ root, from: '', rules, followSymlinks: false, cap: 1e9 }, newTally(), (path, kind, info) => {
    if (kind === 'file' && info !== null) files.push(`${path} ${fileMeta(time, info).size}`);
  });
  out = files;
}
console.log(out.join('\n'));
