/**
 * `bun run bench`: the edit planner and the receipt against naive references measured
 * in the same run. It prints figures and ratios; it asserts nothing.
 */
import { fileText } from '@ws/text';
import { type EditSpec, type PlannedEdit, type Replacements, hunksOf, planEdits, receipt } from '../src/index.ts';
import { lcsLength } from '../test/lcs-table.ts';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function time(runs: number, f: () => unknown): number {
  // Start each measurement on a collected heap, so one benchmark's garbage is not billed to the next.
  Bun.gc(true);
  // Warm up until the JIT has compiled the hot paths (at most a few runs of slow references).
  for (let i = 0; i < Math.min(runs, 5); i++) f();
  const ts: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    f();
    ts.push(performance.now() - t);
  }
  return median(ts);
}

const ms = (x: number) => (x >= 100 ? `${x.toFixed(0)} ms` : `${x.toFixed(2)} ms`);

/** The naive clash check: every pair of edits, walking both span lists whole. */
function naiveClashes(text: string, edits: readonly EditSpec[]): number {
  const spans = edits.map((e) => {
    const at: number[] = [];
    for (let i = text.indexOf(e.oldString); i !== -1; i = text.indexOf(e.oldString, i + e.oldString.length)) at.push(i);
    return at;
  });
  let problems = 0;
  for (let j = 1; j < edits.length; j++) {
    let clashes = false;
    for (let i = 0; i < j; i++) {
      const a = spans[i];
      const b = spans[j];
      const la = edits[i].oldString.length;
      const lb = edits[j].oldString.length;
      let p = 0;
      let q = 0;
      let overlaps = 0;
      while (p < a.length && q < b.length) {
        if (a[p] < b[q] + lb && b[q] < a[p] + la) overlaps++;
        if (a[p] + la <= b[q] + lb) p++;
        else q++;
      }
      if (overlaps > 0) clashes = true;
    }
    if (clashes) problems++;
  }
  return problems;
}

function planner(label: string, text: string, edits: EditSpec[], target: number, naiveRuns: number): void {
  const ft = fileText(text);
  let problems = 0;
  const t = time(7, () => {
    const p = planEdits(ft, edits);
    problems = p.ok ? 0 : p.problems.length;
  });
  let naiveProblems = 0;
  const n = time(naiveRuns, () => {
    naiveProblems = naiveClashes(text, edits);
  });
  if (naiveProblems !== problems) throw new Error(`naive found ${naiveProblems} clashes, the planner ${problems}`);
  console.log(
    `planner  ${label}: ${problems} clash problems, median ${ms(t)} (target ≤ ${ms(target)}, ${t <= target ? 'within' : 'OVER'}); ` +
      `naive all-pairs ${ms(n)} (${(n / t).toFixed(1)}× slower)`,
  );
}

/** The naive receipt: for each edit, filter every replacement for its own. */
function naiveReceipt(edits: readonly PlannedEdit[], r: Replacements): string[] {
  const newLine = new Int32Array(r.count);
  let delta = 0;
  for (let j = 0; j < r.count; j++) {
    newLine[j] = r.line[j] + delta;
    delta += edits[r.edit[j]].newNewlines - edits[r.edit[j]].oldNewlines;
  }
  const all = Array.from({ length: r.count }, (_, j) => ({ edit: r.edit[j], line: newLine[j] }));
  return edits.map((_, e) =>
    all
      .filter((c) => c.edit === e)
      .map((c) => String(c.line))
      .join(', '),
  );
}

// Planner 1: 100 edits each replacing every x in a 20 KB file of 10,000 x's (one per line).
{
  const text = 'x\n'.repeat(10_000);
  const edits = Array.from({ length: 100 }, () => ({ oldString: 'x', newString: 'y', replaceAll: true }));
  planner('100 edits × every x of 10,000 in 20 KB', text, edits, 100, 5);
}

// Planner 2: 2,000 edits of one text that occurs at 500 places.
{
  const text = Array.from({ length: 500 }, (_, i) => `line ${i}: needle here`).join('\n');
  const edits = Array.from({ length: 2000 }, () => ({ oldString: 'needle', newString: 'pin', replaceAll: true }));
  planner('2,000 edits × one text at 500 places', text, edits, 1000, 1);
}

// Receipt: 500 edits each replacing all 100 occurrences of its own token (50,000 replacements, ~244 KB).
{
  const tokens = Array.from({ length: 500 }, (_, k) => `t${String(k).padStart(3, '0')}`);
  const lines: string[] = [];
  for (let r = 0; r < 100; r++) lines.push(...tokens);
  const text = `${lines.join('\n')}\n`;
  const edits = tokens.map((t) => ({ oldString: t, newString: t.toUpperCase(), replaceAll: true }));
  const p = planEdits(fileText(text), edits);
  if (!p.ok) throw new Error('the receipt benchmark’s plan failed');
  const file = { path: 'work/tokens.txt', numbers: edits.map((_, i) => i + 1), edits: p.edits, replacements: p.replacements };
  const t = time(31, () => receipt([file]));
  const n = time(5, () => naiveReceipt(p.edits, p.replacements));
  console.log(
    `receipt  500 edits × 100 replacements (${p.replacements.count.toLocaleString('en-US')} in ${(text.length / 1024).toFixed(0)} KB): ` +
      `median ${ms(t)} (target ≤ 5 ms, ${t <= 5 ? 'within' : 'OVER'}); naive filter-per-edit ${ms(n)} (${(n / t).toFixed(1)}× slower)`,
  );
}


// diff: a 10,000-line file with 100 changed lines, and with every line changed, against the LCS table.
{
  const a = Array.from({ length: 10_000 }, (_, i) => `  const value${i % 113} = compute(${i % 7});`);
  const some = a.map((l, i) => (i % 100 === 50 ? `${l} // changed` : l));
  const every = a.map((l) => `${l}!`);
  const t1 = time(11, () => hunksOf(a, some));
  const t2 = time(11, () => hunksOf(a, every));
  const n = time(1, () => lcsLength(a.slice(0, 2_000), some.slice(0, 2_000))) * 25;
  console.log(
    `diff     10,000 lines, 100 changed: median ${ms(t1)}; every line changed: ${ms(t2)} (target ≤ 50 ms, ${Math.max(t1, t2) <= 50 ? 'within' : 'OVER'}); ` +
      `LCS table (2,000² × 25) ${ms(n)} (${(n / t1).toFixed(0)}× slower)`,
  );
}
