/**
 * Run alone (`bun test/rss-child.ts`): a grep over 10 M matching lines, one page at the
 * budget of an MCP call, then the process's peak RSS. Prints one JSON line.
 */
import { handleToolCall } from '../src/index.ts';
import { memoryWorkspace } from './memory-workspace.ts';

const line = 'match me\n';
// One file of 4 M matching lines and six of 1 M: the largest file and the number of files both count.
const files: Record<string, Uint8Array> = { 'big.txt': new TextEncoder().encode(line.repeat(4_000_000)) };
for (let i = 0; i < 6; i++) files[`part-${i}.txt`] = new TextEncoder().encode(line.repeat(1_000_000));
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
