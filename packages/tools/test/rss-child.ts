/**
 * Run alone (`bun test/rss-child.ts`): a grep over 10 M matching lines, one page at the
 * budget of an MCP call, then the process's peak RSS. Prints one JSON line.
 */
import { handleToolCall } from '../src/index.ts';
import { memoryWorkspace } from './memory-workspace.ts';

const line = new TextEncoder().encode('match me\n');
/**
 * `count` lines, made in place (the line copied over doubling stretches): no string of the
 * whole text is ever built, so the peak measured is the search's and the files', not the
 * garbage of making them (a 36 MB string and its encoding put the peak at 287–302 MB).
 */
function lines(count: number): Uint8Array {
  const out = new Uint8Array(line.length * count);
  out.set(line);
  for (let have = line.length; have < out.length; have *= 2) out.copyWithin(have, 0, Math.min(have, out.length - have));
  return out;
}
// One file of 4 M matching lines and six of 1 M: the largest file and the number of files
// both count. The six share one buffer (nothing writes them): the peak is the search's, not
// 45 MB more of this fixture's copies, which a real mount, reading a file at a time, never holds.
const files: Record<string, Uint8Array> = { 'big.txt': lines(4_000_000) };
const million = lines(1_000_000);
for (let i = 0; i < 6; i++) files[`part-${i}.txt`] = million;
// The test is of the total and the memory, not of the deadline: a loaded machine may take
// longer than the default 10 s to count 10 M lines, so the search is given ten minutes.
const ws = { ...memoryWorkspace([{ name: 'work', backend: 'direct', maxFileSize: 64 * 1024 * 1024, files }]), grep: { timeoutMs: 600_000 } };
const started = performance.now();
const r = await handleToolCall(ws, { name: 'grep', input: { pattern: 'match' }, resultMaxChars: 24_000 });
const ms = performance.now() - started;
if (!r.success) throw new Error(r.error);
const data = r.data as { totalMatches: number; note: string };
const length = JSON.stringify(data).length;
console.log(JSON.stringify({ totalMatches: data.totalMatches, length, note: data.note, ms: Math.round(ms), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }));
