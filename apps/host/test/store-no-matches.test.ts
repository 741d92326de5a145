/**
 * A store-backed mount's search offers the files it knows hold no match — ruled out by the
 * search index, or searched ahead by grep's Workers and found with no matching line — as
 * runs (`noMatches`), not one step a file: every planned file exactly once, in plan order,
 * each run's files in a row between the files it offers whole, and the same answer as
 * before the runs (the tools and `@ws/grep` take a run as each of its `noMatch` files).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { handleToolCall, type SearchFile, type SearchQuery } from '@ws/tools';
import type { Host } from '../src/host.ts';
import { tempDir } from './fixtures.ts';
import { openTestHost, testConfig, writeFiles } from './host-fixtures.ts';

const hosts: Host[] = [];
afterAll(() => {
  for (const h of hosts) h.close();
});

/** A tree of `n` files in a few directories, every `every`th one holding `needle` on a line. */
function tree(n: number, every: number, needle: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const dir = ['', 'a', 'a/b', 'c'][i % 4];
    files[`${dir === '' ? '' : `${dir}/`}f${String(i).padStart(3, '0')}.ts`] = `const x${i} = ${i};\n${i % every === 0 ? `call(${needle});\n` : 'nothing(here);\n'}`;
  }
  return files;
}

/** Each file offered, in order: a run's files one by one, marked as the run they came in. */
function flatten(offered: readonly SearchFile[]): { path: string; how: string; run?: number }[] {
  const out: { path: string; how: string; run?: number }[] = [];
  offered.forEach((f, k) => {
    if ('noMatches' in f) {
      for (const path of f.noMatches.paths) out.push({ path, how: 'none', run: k });
      return;
    }
    out.push({ path: f.path, how: 'noMatch' in f ? 'noMatch' : 'bytes' in f ? 'bytes' : 'counted' in f ? 'counted' : 'other' });
  });
  return out;
}

const query = (pattern: string): SearchQuery => ({ pattern, caseInsensitive: false, fixedStrings: false, multiline: false });

/**
 * A long-running host over `files`, synced and its search index current: files are ruled out
 * on either store (on PostgreSQL a search reads its blobs without grep's Workers, so only the
 * index rules any out).
 */
async function indexedHost(files: Record<string, string>): Promise<Host> {
  const root = tempDir('ws-no-matches-');
  writeFiles(root, files);
  const host = await openTestHost(testConfig(root, [{ name: 'work', path: '.', ignore: [], watch: 'always' }]), { watch: true });
  hosts.push(host);
  await handleToolCall(host.workspace, { name: 'sync', input: {} });
  await host.indexer?.current();
  return host;
}

async function offeredBy(host: Host, pattern: string): Promise<SearchFile[]> {
  const offered: SearchFile[] = [];
  for await (const f of host.workspace.mounts[0].searchFiles('', query(pattern))) offered.push(f);
  return offered;
}

describe('a store-backed search offers the files that hold no match as runs', () => {
  const files = tree(240, 7, 'createThing');
  const paths = Object.keys(files).sort();
  const matching = paths.filter((p) => files[p].includes('createThing'));

  test('ruled out by the index: every file once, in order, the runs between the matches', async () => {
    const host = await indexedHost(files);
    expect(host.indexer).toBeDefined();
    const offered = await offeredBy(host, 'createThing');
    const flat = flatten(offered);
    // Every planned file exactly once, in the plan's order (the paths' order).
    expect(flat.map((f) => f.path)).toEqual(paths);
    expect(flat.filter((f) => f.how === 'bytes').map((f) => f.path)).toEqual(matching);
    // The others came in runs, none alone, none empty, and never two runs in a row (a run ends only at a file offered whole).
    expect(flat.filter((f) => f.how !== 'bytes').every((f) => f.how === 'none')).toBe(true);
    const runs = offered.filter((f) => 'noMatches' in f) as Extract<SearchFile, { noMatches: unknown }>[];
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.length).toBeLessThanOrEqual(matching.length + 1);
    for (const run of runs) {
      expect(run.noMatches.paths.length).toBeGreaterThan(0);
      expect(run.noMatches.sizes.length).toBe(run.noMatches.paths.length);
      run.noMatches.paths.forEach((p, k) => expect(run.noMatches.sizes[k]).toBe(Buffer.byteLength(files[p])));
    }
    for (let k = 1; k < offered.length; k++) expect('noMatches' in offered[k] && 'noMatches' in offered[k - 1]).toBe(false);
  });

  test('the answer is the one the files give one by one: matches, counts and the page', async () => {
    const host = await indexedHost(files);
    // The same mount with each run offered as its files one at a time, as before the runs.
    const mount = host.workspace.mounts[0];
    let runs = 0;
    const oneByOne = {
      ...host.workspace,
      mounts: [
        {
          ...mount,
          async *searchFiles(path: string, q?: SearchQuery): AsyncIterable<SearchFile> {
            for await (const f of mount.searchFiles(path, q)) {
              if (!('noMatches' in f)) yield f;
              else {
                runs++;
                for (let k = 0; k < f.noMatches.paths.length; k++) yield { path: f.noMatches.paths[k], noMatch: true, size: f.noMatches.sizes[k] };
              }
            }
          },
        },
      ],
    };
    for (const input of [{ pattern: 'createThing' }, { pattern: 'nothing\\(' }, { pattern: 'x1\\d+ =', output: 'count' }, { pattern: 'const', output: 'files' }, { pattern: 'absent_anywhere' }]) {
      const inRuns = (await handleToolCall(host.workspace, { name: 'grep', input })) as { success: boolean };
      const single = await handleToolCall(oneByOne, { name: 'grep', input });
      expect(inRuns.success).toBe(true);
      expect(inRuns).toEqual(single);
    }
    // Runs were offered (the index ruled files out), so the comparison compared something.
    expect(runs).toBeGreaterThan(0);
    // Every file searched counts, the ones in runs too.
    const listed = (await handleToolCall(host.workspace, { name: 'grep', input: { pattern: 'createThing', output: 'files' } })) as { data: { totalFiles: number; filesSearched: number } };
    expect(listed.data.totalFiles).toBe(matching.length);
    expect(listed.data.filesSearched).toBe(paths.length);
  });
});
