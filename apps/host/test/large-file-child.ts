/**
 * Run alone (`bun test/large-file-child.ts`): writes a 60 MB log in 1 MB batches, then
 * reads three of its pages over a direct mount at an MCP budget and prints the process's
 * peak RSS before and after, as one JSON line.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handleToolCall } from '@ws/tools';
import { checkConfig } from '../src/config.ts';
import { openHost } from '../src/host.ts';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ws-large-')));
const LINES = 1_500_000;
let size = 0;
const fd = openSync(join(root, 'big.log'), 'w');
for (let from = 1; from <= LINES; from += 10_000) {
  let batch = '';
  for (let i = from; i < from + 10_000 && i <= LINES; i++) batch += `line ${i} ${'.'.repeat(27)}\n`;
  size += writeSync(fd, batch);
}
closeSync(fd);
Bun.gc(true);
const storeDir = mkdtempSync(join(tmpdir(), 'ws-large-store-'));
const config = checkConfig({ store: { path: join(storeDir, 's.sqlite') }, mount: [{ name: 'work', path: root, backend: 'direct' }] }, 'test', root);
const host = await openHost(config, { watch: false });
/** This process's peak resident set in MB (VmHWM: a spawned process's own, unlike maxRSS, which Linux carries over from the parent). */
function peakMb(): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return Math.round((hwm ? Number(hwm[1]) : process.resourceUsage().maxRSS) / 1024);
}
// A first call loads and compiles the tools; the baseline is taken after it.
writeFileSync(join(root, 'small.txt'), 'small\n');
await handleToolCall(host.workspace, { name: 'read', input: { path: 'work/small.txt' }, resultMaxChars: 24_000 });
Bun.gc(true);
const baseRssMb = peakMb();
const started = performance.now();
let totalLines = 0;
let lastLine = '';
for (const offset of [1, 750_000, LINES]) {
  const r = await handleToolCall(host.workspace, { name: 'read', input: { path: 'work/big.log', offset }, resultMaxChars: 24_000 });
  if (!r.success) throw new Error(r.error);
  const page = r.data as { totalLines: number; content: string };
  totalLines = page.totalLines;
  lastLine = page.content.split('\n').at(-1) ?? '';
}
const ms = Math.round(performance.now() - started);
const maxRssMb = peakMb();
rmSync(root, { recursive: true, force: true });
rmSync(storeDir, { recursive: true, force: true });
console.log(JSON.stringify({ size, totalLines, lastLine, baseRssMb, maxRssMb, ms }));
process.exit(0);
