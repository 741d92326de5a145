/**
 * @ws/grep against ripgrep and against a naive search, on a generated tree of 400 files
 * (48 MB, a quarter of them CRLF) in a temporary directory. Every side runs in this
 * process's run, on the same files, alternately, and the figures are medians; what
 * counts are the ratios (targets: within 3x of `rg --crlf -n` for a literal word and for
 * a pattern matching nothing, within 5x for `foo\d+$`; at least 2x faster than naive).
 * Against rg, our time includes reading the files (Bun.file, a few reads in flight), as
 * rg's does. Against the naive baseline — which, like `search`, starts from a file's
 * bytes — both search the same bytes already in memory, so the ratio compares the
 * searches, not the disk. The matching (path, line) pairs must be the same as ripgrep's
 * and the baseline's, or the bench fails.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GrepFile, search } from '../src/index.ts';
import { seededBelow } from '../../../test/random.ts';

const FILES = 400;
const TOTAL_BYTES = 48 * 1024 * 1024;
const RUNS = 9;

const IDS = [
  'value', 'index', 'result', 'options', 'config', 'handler', 'buffer', 'items', 'count', 'state', 'render', 'update',
  'parseLine', 'readFile', 'userName', 'request', 'response', 'cache', 'token', 'offset', 'limit', 'entries', 'node',
  'parent', 'child', 'mount', 'path', 'pattern', 'matches', 'context', 'logger', 'timeout', 'layout', 'footer',
];
const WORDS = ['the', 'file', 'is', 'read', 'when', 'a', 'line', 'ends', 'ok', 'todo', 'fix', 'later', 'see', 'issue', 'why', 'not'];
const ACCENTED = ['caf\u00e9', 'na\u00efve', 'r\u00e9sum\u00e9', '\ud83d\ude00', '\u2713', '\u00fcber'];

/**
 * Source-like text: statements, comments (some accented, some emoji), blank lines. Half
 * the files use `fooN` names (some lines end in one); 20 files call `renderFooter`.
 * No line's own text ends in a CR and all of it is valid UTF-8, where ws and rg differ by design.
 */
function generateFile(k: number, bytes: number): string {
  const r = seededBelow(k + 1);
  const pick = <T>(xs: readonly T[]) => xs[r(xs.length)];
  const hasFoo = k % 2 === 0;
  const hasNeedle = k % 20 === 7;
  // As in most source trees, most files are ASCII; one in eight has accents and emoji in its comments.
  const words = k % 8 === 3 ? [...WORDS, ...ACCENTED] : WORDS;
  const eol = k % 4 === 0 ? '\r\n' : '\n';
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const indent = '  '.repeat(r(4));
    const roll = r(100);
    let line: string;
    if (roll < 10) line = '';
    else if (roll < 25) line = `${indent}// ${Array.from({ length: 3 + r(8) }, () => pick(words)).join(' ')}`;
    else if (roll < 45) line = `${indent}const ${pick(IDS)} = ${pick(IDS)}(${pick(IDS)}, ${r(1000)});`;
    else if (roll < 60) line = `${indent}if (${pick(IDS)}.${pick(IDS)} > ${r(100)}) { return ${pick(IDS)}; }`;
    else if (roll < 70) line = `import { ${pick(IDS)}, ${pick(IDS)} } from './${pick(IDS)}.ts';`;
    else if (roll < 80) line = `${indent}${pick(IDS)}.${pick(IDS)} = "${pick(words)} ${pick(words)}";`;
    else if (roll < 85 && hasFoo) line = `${indent}let foo${r(500)} = ${pick(IDS)};`;
    else if (roll < 87 && hasFoo) line = `${indent}return foo${r(500)}`;
    else if (roll < 88 && hasNeedle) line = `${indent}${pick(IDS)} = renderFooter(${pick(IDS)});`;
    else line = `${indent}}`;
    lines.push(line);
    size += new TextEncoder().encode(line + eol).length;
  }
  return lines.join(eol) + eol;
}

function generateTree(dir: string): { paths: string[]; bytes: number; crlf: number } {
  const r = seededBelow(2026);
  const weights = Array.from({ length: FILES }, () => 1 + r(8));
  const sum = weights.reduce((a, b) => a + b, 0);
  const paths: string[] = [];
  let bytes = 0;
  for (let k = 0; k < FILES; k++) {
    const path = join(dir, `src${String(k % 10)}`, `file${String(k).padStart(3, '0')}.ts`);
    const text = generateFile(k, Math.round((weights[k] / sum) * TOTAL_BYTES));
    if (k < 10) Bun.spawnSync(['mkdir', '-p', join(dir, `src${k}`)]);
    writeFileSync(path, text);
    bytes += Buffer.byteLength(text);
    paths.push(path);
  }
  return { paths, bytes, crlf: FILES / 4 };
}

/** Files read as a host would feed them to search: in order, a few reads in flight. */
async function* readFiles(paths: readonly string[]): AsyncGenerator<GrepFile> {
  const ahead = 8;
  const reads: Promise<Uint8Array>[] = [];
  for (let k = 0; k < paths.length; k++) {
    while (reads.length < ahead && k + reads.length < paths.length) reads.push(Bun.file(paths[k + reads.length]).bytes());
    yield { path: paths[k], bytes: await reads.shift()! };
  }
}

type Pairs = string[];

async function ours(pattern: string, files: AsyncIterable<GrepFile> | readonly GrepFile[]): Promise<Pairs> {
  const answer = await search(pattern, files);
  return answer.results.flatMap((r) => r.matches.map((m) => `${r.path}:${m.line}`));
}

/** The naive baseline: decode each file, split lines, test the pattern on each. */
function naive(pattern: string, files: readonly { path: string; bytes: Uint8Array }[]): Pairs {
  const re = new RegExp(pattern);
  const decoder = new TextDecoder();
  const pairs: Pairs = [];
  for (const file of files) {
    const lines = decoder.decode(file.bytes).split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    for (let k = 0; k < lines.length; k++) {
      const line = lines[k].endsWith('\r') ? lines[k].slice(0, -1) : lines[k];
      if (re.test(line)) pairs.push(`${file.path}:${k + 1}`);
    }
  }
  return pairs;
}

async function ripgrep(rg: string, pattern: string, dir: string): Promise<Pairs> {
  const proc = Bun.spawn([rg, '--crlf', '-n', '--no-config', '--no-heading', '--with-filename', '--color', 'never', '-e', pattern, dir], {
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const out = await new Response(proc.stdout).text();
  const code = await proc.exited;
  if (code > 1) throw new Error(`rg exited ${code}: ${await new Response(proc.stderr).text()}`);
  const pairs: Pairs = [];
  for (const line of out.split('\n')) {
    const m = /^(.*?\.ts):(\d+):/.exec(line);
    if (m) pairs.push(`${m[1]}:${m[2]}`);
  }
  return pairs;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median times of each side, run in turn so drift in the machine hits all alike. */
async function timeAll(sides: Record<string, () => Pairs | Promise<Pairs>>): Promise<{ times: Record<string, number>; pairs: Record<string, Pairs> }> {
  const names = Object.keys(sides);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  const pairs: Record<string, Pairs> = {};
  for (const n of names) pairs[n] = await sides[n](); // warm-up, and the answers to compare
  for (let run = 0; run < RUNS; run++) {
    const order = run % 2 === 0 ? names : [...names].reverse();
    for (const n of order) {
      Bun.gc(true);
      const t = performance.now();
      await sides[n]();
      samples[n].push(performance.now() - t);
    }
  }
  return { times: Object.fromEntries(names.map((n) => [n, median(samples[n])])), pairs };
}

const same = (a: Pairs, b: Pairs) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
const ms = (t: number) => `${t.toFixed(1)} ms`;

const rg = Bun.which('rg');
const dir = mkdtempSync(join(tmpdir(), 'ws-grep-bench-'));
let failed = false;
try {
  const tree = generateTree(dir);
  const inMemory = await Promise.all(tree.paths.map(async (path) => ({ path, bytes: await Bun.file(path).bytes() })));
  console.log(`@ws/grep bench: ${FILES} files, ${(tree.bytes / (1024 * 1024)).toFixed(1)} MB (${tree.crlf} CRLF) in ${dir}`);
  if (rg === null) {
    console.log('ripgrep: `rg` is not on PATH, so there is nothing to compare with; install it (Debian: apt-get install -y ripgrep). Our figures and the naive baseline follow.');
  } else {
    const version = Bun.spawnSync([rg, '--version']).stdout.toString().split('\n')[0];
    console.log(`ripgrep: ${rg} (${version}), run as \`rg --crlf -n\``);
  }

  const cases = [
    { label: '(a) literal word', pattern: 'renderFooter', rgTarget: 3 },
    { label: '(b)', pattern: 'foo\\d+$', rgTarget: 5 },
    { label: '(c) matching nothing', pattern: 'legacyShim\\(\\w+\\)', rgTarget: 3 },
  ];
  let allWithin = true;
  for (const c of cases) {
    const sides: Record<string, () => Pairs | Promise<Pairs>> = {
      ours: () => ours(c.pattern, readFiles(tree.paths)),
      oursInMemory: () => ours(c.pattern, inMemory),
      naiveInMemory: () => naive(c.pattern, inMemory),
    };
    if (rg !== null) sides.rg = () => ripgrep(rg, c.pattern, dir);
    const { times, pairs } = await timeAll(sides);

    const files = new Set(pairs.ours.map((p) => p.slice(0, p.lastIndexOf(':')))).size;
    const agreesNaive = same(pairs.ours, pairs.naiveInMemory) && same(pairs.ours, pairs.oursInMemory);
    const agreesRg = rg === null ? undefined : same(pairs.ours, pairs.rg);
    if (!agreesNaive || agreesRg === false) failed = true;
    const agreement =
      agreesRg === undefined
        ? `same pairs as naive: ${agreesNaive ? 'yes' : 'NO'}`
        : `same (path, line) pairs as rg: ${agreesRg ? 'yes' : `NO (rg ${pairs.rg.length})`}, as naive: ${agreesNaive ? 'yes' : 'NO'}`;
    console.log(`${c.label} \`${c.pattern}\`: ${pairs.ours.length} lines in ${files} files; ${agreement}`);

    if (rg !== null) {
      const rgRatio = times.ours / times.rg;
      const rgOk = rgRatio <= c.rgTarget;
      allWithin &&= rgOk;
      console.log(
        `    reading included: ours ${ms(times.ours)}, rg ${ms(times.rg)}: ` +
          `${rgRatio.toFixed(2)}x rg's time (target <= ${c.rgTarget}x${rgOk ? '' : ', MISSED'})`,
      );
    } else {
      console.log(`    reading included: ours ${ms(times.ours)}`);
    }
    const naiveRatio = times.naiveInMemory / times.oursInMemory;
    const naiveOk = naiveRatio >= 2;
    allWithin &&= naiveOk;
    console.log(
      `    bytes in memory:  ours ${ms(times.oursInMemory)}, naive ${ms(times.naiveInMemory)}: ` +
        `ours ${naiveRatio.toFixed(2)}x faster (target >= 2x${naiveOk ? '' : ', MISSED'})`,
    );
  }
  console.log(
    rg === null
      ? `within the naive target: ${allWithin ? 'yes' : 'no'}; ripgrep targets not measured (no rg)`
      : `all figures within target: ${allWithin ? 'yes' : 'no'}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failed) {
  console.error('@ws/grep bench: the matching lines differ (see above).');
  process.exit(1);
}
