/**
 * `noMatches` offers many files a caller knows hold no match as one: a search given them so
 * answers exactly as one given each as its own `noMatch` file — the type filter, the size
 * limit (an over-size file skipped in its place), the deadline (the search stops at the
 * same file) and the count of files searched all as for the files one by one. A property on
 * generated lists, cut into runs at random. WS_SEED fixes the run.
 */
import { expect, test } from 'bun:test';
import fc from 'fast-check';
import { type GrepFile, search } from '../src/index.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });
const enc = new TextEncoder();

/** A file of the list: one with a match (its bytes), or one known to hold none (its size). */
const entry = fc.record({
  name: fc.constantFrom('a.ts', 'b.md', 'c.txt', 'd.ts', 'e', 'f.js'),
  dir: fc.constantFrom('', 'src/', 'src/deep/', 'docs/'),
  none: fc.boolean(),
  size: fc.constantFrom(0, 5, 90, 100, 101, 4000),
  cut: fc.boolean(),
});

test('files offered as runs of noMatches answer as the same files offered one by one', async () => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(entry, { maxLength: 40 }),
      fc.record({ type: fc.constantFrom(undefined, 'ts', 'md'), maxFileSize: fc.constantFrom(undefined, 100), timeoutMs: fc.constantFrom(undefined, 0) }),
      fc.constantFrom(undefined, 'v2'),
      async (entries, limits, version) => {
        const label = version === undefined ? {} : { version };
        const files = entries.map((e, k) => ({ ...e, path: `${e.dir}${k}-${e.name}` }));
        const oneByOne: GrepFile[] = files.map((f) => (f.none ? { path: f.path, noMatch: true, size: f.size, ...label } : { path: f.path, bytes: enc.encode(`needle ${f.path}\n`), ...label }));
        // Runs of files with no match, cut where the list says (and wherever a matching file comes).
        const asRuns: GrepFile[] = [];
        let run: { paths: string[]; sizes: number[] } | undefined;
        for (const f of files) {
          if (f.none) {
            run ??= { paths: [], sizes: [] };
            run.paths.push(f.path);
            run.sizes.push(f.size);
            if (f.cut) {
              asRuns.push({ noMatches: run, ...label });
              runs++;
              run = undefined;
            }
            continue;
          }
          if (run !== undefined) asRuns.push({ noMatches: run, ...label });
          run = undefined;
          asRuns.push({ path: f.path, bytes: enc.encode(`needle ${f.path}\n`), ...label });
        }
        if (run !== undefined) asRuns.push({ noMatches: run, ...label });
        const options = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
        expect(await search('needle', asRuns, options)).toEqual(await search('needle', oneByOne, options));
      },
    ),
    params(2000),
  );
  expect(runs).toBeGreaterThan(1000);
});

test('a run stops the search at its first file past the deadline, and skips its over-size files by name', async () => {
  const files: GrepFile[] = [{ noMatches: { paths: ['x/big.ts', 'x/small.ts', 'x/other.ts'], sizes: [500, 5, 6] } }];
  const limited = await search('needle', files, { maxFileSize: 100 });
  expect(limited.filesSearched).toBe(2);
  expect(limited.skipped).toEqual([{ path: 'x/big.ts', reason: { kind: 'over-size', size: 500, limit: 100 } }]);
  const late = await search('needle', files, { maxFileSize: 100, timeoutMs: 0 });
  expect(late.filesSearched).toBe(0);
  expect(late.stopped).toEqual({ path: 'x/small.ts', line: 1, lost: false });
});
