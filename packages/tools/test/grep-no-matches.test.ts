/**
 * A mount may offer many files it knows hold no match as one (`noMatches`): grep answers
 * as if each were offered alone as `noMatch` — the path and glob filters, the type filter,
 * a file over the mount's limit named as skipped in its place, and a progress report for
 * every file offered.
 */
import { expect, test } from 'bun:test';
import { handleToolCall, type Mount, type SearchFile, type Workspace } from '../src/index.ts';
import { memoryWorkspace } from './memory-workspace.ts';

const dec = new TextDecoder();
const files: Record<string, string> = {};
for (let k = 0; k < 60; k++) files[`${['', 'src/', 'src/deep/', 'docs/'][k % 4]}f${k}.${['ts', 'md', 'txt'][k % 3]}`] = k % 7 === 0 ? `a needle ${k}\n` : `nothing ${k}\n`;
// Over the mount's limit (30 bytes), with no match: offered by size alone, it is skipped in its place.
files['src/big.ts'] = `nothing here, but too long to be searched ${'x'.repeat(40)}\n`;

/** The mount, its files with no match offered as `noMatch` one by one, or as runs of `noMatches` cut every `cut` files. */
function offering(workspace: Workspace, cut: number | undefined): Workspace {
  const mounts = workspace.mounts.map((m): Mount => {
    const offered = Object.create(m) as Mount;
    offered.searchFiles = async function* (path, query) {
      let run: { paths: string[]; sizes: number[] } = { paths: [], sizes: [] };
      for await (const f of m.searchFiles(path, query) as AsyncIterable<SearchFile>) {
        const none = 'bytes' in f ? !dec.decode(f.bytes).includes('needle') && { path: f.path, size: f.bytes.length } : 'large' in f && { path: f.path, size: f.large.size };
        if (none) {
          if (cut === undefined) {
            yield { path: none.path, noMatch: true, size: none.size };
            continue;
          }
          run.paths.push(none.path);
          run.sizes.push(none.size);
          if (run.paths.length >= cut) {
            yield { noMatches: run };
            run = { paths: [], sizes: [] };
          }
          continue;
        }
        if (run.paths.length > 0) yield { noMatches: run };
        run = { paths: [], sizes: [] };
        yield f;
      }
      if (run.paths.length > 0) yield { noMatches: run };
    };
    return offered;
  });
  return { ...workspace, mounts };
}

const INPUTS = [
  { pattern: 'needle' },
  { pattern: 'needle', glob: '*.ts' },
  { pattern: 'needle', glob: 'work/src/**' },
  { pattern: 'needle', type: 'md' },
  { pattern: 'needle', path: 'work/src' },
  { pattern: 'needle', output: 'files' },
  { pattern: 'needle', output: 'count' },
  { pattern: 'zzz' },
];

test('files offered as runs of noMatches answer, and report progress, as the same files offered one by one', async () => {
  for (const input of INPUTS) {
    const run = async (cut: number | undefined) => {
      const told: number[] = [];
      const got = await handleToolCall(offering(memoryWorkspace([{ name: 'work', backend: 'direct', files, maxFileSize: 30 }]), cut), {
        name: 'grep',
        input,
        progress: (p) => told.push(p.done),
      });
      if (!got.success) throw new Error(got.error);
      return { data: got.data, told };
    };
    const single = await run(undefined);
    for (const cut of [1, 3, 100]) expect(await run(cut)).toEqual(single);
    if (input.pattern === 'needle' && Object.keys(input).length === 1) {
      expect(JSON.stringify(single.data)).toContain('work/src/big.ts');
      // A report for every file offered (and any the search adds of its own).
      expect(single.told.length).toBeGreaterThanOrEqual(Object.keys(files).length);
    }
  }
});
