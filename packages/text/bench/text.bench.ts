/**
 * fileText against `new TextDecoder().decode(bytes).split('\n')` on a generated 50 MB
 * text, and jsonLength against JSON.stringify(x).length on a 1 MB string with escapes.
 * Both sides run in this process; the ratios are what count (target: ≤ 2× and ≤ 1×).
 */
import { fileText, jsonLength } from '../src/index.ts';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median times of two functions run alternately, so drift in the machine hits both alike. */
function timePair(runs: number, a: () => unknown, b: () => unknown): [number, number] {
  a();
  b();
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const [f, times] of i % 2 ? ([[a, ta], [b, tb]] as const) : ([[b, tb], [a, ta]] as const)) {
      const t = performance.now();
      f();
      times.push(performance.now() - t);
    }
  }
  return [median(ta), median(tb)];
}

/** A deterministic 50 MB text: a quarter of lines CRLF, some long lines, some emoji. */
function generateText(targetBytes: number): Uint8Array {
  const words = ['const', 'value', 'return', 'function', '{', '}', 'x', '=', '"str"', 'héllo', '😀', '//', 'if', '(a)'];
  let state = 12345;
  const rand = (n: number) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % n;
  };
  const parts: string[] = [];
  let size = 0;
  let line = 0;
  while (size < targetBytes) {
    const long = line % 500 === 0;
    const n = long ? 600 + rand(400) : 3 + rand(12);
    const ws: string[] = [];
    for (let i = 0; i < n; i++) ws.push(words[rand(words.length)]);
    const s = ws.join(' ') + (line % 4 === 0 ? '\r\n' : '\n');
    parts.push(s);
    size += s.length;
    line++;
  }
  return new TextEncoder().encode(parts.join(''));
}

const bytes = generateText(50 * 1024 * 1024);
const mb = bytes.length / (1024 * 1024);
const [baseline, ours] = timePair(7, () => new TextDecoder().decode(bytes).split('\n'), () => fileText(bytes));
console.log(`fileText on ${mb.toFixed(1)} MB: ${(mb / (ours / 1000)).toFixed(0)} MB/s`);
console.log(`baseline (decode + split): ${(mb / (baseline / 1000)).toFixed(0)} MB/s`);
console.log(`fileText / baseline time: ${(ours / baseline).toFixed(2)}x (target <= 2x)`);

const pool = ['plain words here ', 'say "hi" ', 'C:\\path\\x ', 'tab\there ', 'line\n', '😀 ', 'ctl\u0001 ', 'é ü ', '\u2028'];
const pieces: string[] = [];
for (let len = 0, k = 0; len < 1_000_000; k++) {
  const p = pool[(k * 7) % pool.length];
  pieces.push(p);
  len += p.length;
}
const escaped = pieces.join('');
const [stringify, measured] = timePair(61, () => JSON.stringify(escaped).length, () => jsonLength(escaped));
console.log(`jsonLength on a 1 MB string with escapes: ${measured.toFixed(3)} ms; JSON.stringify(x).length: ${stringify.toFixed(3)} ms`);
console.log(`jsonLength / JSON.stringify time: ${(measured / stringify).toFixed(2)}x (target <= 1x)`);

// Paging measures one line at a time; that is where measuring beats building most.
const lines = escaped.split('\n');
const [stringifyLines, measuredLines] = timePair(
  31,
  () => lines.reduce((n, l) => n + JSON.stringify(l).length, 0),
  () => lines.reduce((n, l) => n + jsonLength(l), 0),
);
console.log(`jsonLength / JSON.stringify time, per line (${lines.length} lines): ${(measuredLines / stringifyLines).toFixed(2)}x`);
