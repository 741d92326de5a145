/**
 * linePage against the brute-force reference (every candidate page built and
 * serialized whole), both timed in this run, alternately, so machine drift hits both.
 * Targets are on our medians (≤ 1 ms, ≤ 1 ms, ≤ 2 ms); the ratios show what the
 * incremental measuring saves. Then how a page's cost grows with its size.
 */
import { fileText } from '@ws/text';
import { type LinePageOptions, linePage } from '../src/index.ts';
import { referenceLinePage } from '../test/longest-page-reference.ts';
import { ordinarySource } from '../test/ordinary-source.ts';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median times of two functions run alternately. */
function timePair(runs: number, ours: () => unknown, reference: () => unknown): [number, number] {
  ours();
  reference();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    ours();
    a.push(performance.now() - t);
    t = performance.now();
    reference();
    b.push(performance.now() - t);
  }
  return [median(a), median(b)];
}

function timeOne(runs: number, f: () => unknown): number {
  // The reference leaves a heap of garbage behind; collect it before timing alone.
  Bun.gc(true);
  for (let i = 0; i < 50; i++) f();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    f();
    times.push(performance.now() - t);
  }
  return median(times);
}

function figure(name: string, target: number, runs: number, ft: ReturnType<typeof fileText>, options: LinePageOptions, referenceBudget: number): void {
  const reference = { ...options, resultMaxChars: referenceBudget };
  if (JSON.stringify(linePage(ft, options)) !== JSON.stringify(referenceLinePage(ft, reference))) {
    throw new Error(`${name}: linePage and the reference disagree`);
  }
  // Warm up linePage on its own first, so the JIT has seen it before the medians.
  for (let i = 0; i < 200; i++) linePage(ft, options);
  const [ours, ref] = timePair(runs, () => linePage(ft, options), () => referenceLinePage(ft, reference));
  const verdict = ours <= target ? 'within' : 'OVER';
  console.log(
    `${name}: median ${ours.toFixed(3)} ms (target ≤ ${target} ms, ${verdict}); ` +
      `brute-force reference ${ref.toFixed(2)} ms; ratio ${(ours / ref).toFixed(4)}`,
  );
}

const PATH = 'work/src/page.ts';
const source = fileText(ordinarySource(3000));
figure('a page of an ordinary 3,000-line source file at 24,000', 1, 41, source, { path: PATH, resultMaxChars: 24_000 }, 24_000);

const long = fileText(`${'const data = "'}${'abcdefghij'.repeat(6000)}`.slice(0, 60_000) + `\n${ordinarySource(100)}`);
figure('a page whose first line is a 60,000-character line at 1,000 (the cut search)', 1, 41, long, { path: PATH, resultMaxChars: 1000 }, 1000);

// Without a budget there is nothing to search; the reference still tries every page
// (at a budget nothing passes) and so builds 3,000 candidates.
figure('a page of a 3,000-line file with no budget (limit 5,000)', 2, 11, source, { path: PATH, limit: 5000 }, Number.MAX_SAFE_INTEGER);

console.log('\nhow the cost grows with the page (a 20,000-line ordinary source file, no line limit):');
const big = fileText(ordinarySource(20_000));
for (const budget of [1_000, 4_000, 16_000, 64_000, 256_000]) {
  const options = { path: PATH, limit: 20_000, resultMaxChars: budget };
  const page = linePage(big, options);
  const ms = timeOne(41, () => linePage(big, options));
  const lines = page.toLine - page.fromLine + 1;
  console.log(
    `  budget ${budget.toLocaleString('en-US').padStart(7)}: ${String(lines).padStart(5)} lines, ` +
      `median ${ms.toFixed(3)} ms, ${((ms * 1000) / lines).toFixed(2)} µs a line`,
  );
}

console.log('how the cut search grows with the first line (budget 1,000):');
for (const length of [2_000, 20_000, 200_000]) {
  const ft = fileText(`${'abcdefghij'.repeat(length / 10)}\nnext\n`);
  const ms = timeOne(101, () => linePage(ft, { path: PATH, resultMaxChars: 1000 }));
  console.log(`  a ${length.toLocaleString('en-US')}-character first line: median ${ms.toFixed(3)} ms`);
}
