/**
 * Run alone (`bun test/grep-large-child.ts DIR`): greps DIR/big.log (written by the caller,
 * so its writing is not in this process's peak) over a direct mount as `ws call grep`
 * would — count mode, then the first content page and one a quarter of the way in, at an
 * MCP budget — and prints the counts, the lines the pages start with, the process's peak
 * RSS before and after, and how long each grep took, as one JSON line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handleToolCall } from '@ws/tools';
import { checkConfig } from '../src/config.ts';
import { openHost } from '../src/host.ts';

const root = process.argv[2];
const size = Bun.file(join(root, 'big.log')).size;
const storeDir = mkdtempSync(join(tmpdir(), 'ws-grep-large-store-'));
const config = checkConfig(
  { grepTimeoutMs: 600_000, store: { path: join(storeDir, 's.sqlite') }, mount: [{ name: 'work', path: root, backend: 'direct' }] },
  'test',
  root,
);
const host = await openHost(config, { watch: false });
function peakMb(): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return Math.round((hwm ? Number(hwm[1]) : process.resourceUsage().maxRSS) / 1024);
}
// A first grep loads the tools and starts a Worker; the baseline is taken after it.
writeFileSync(join(root, 'small.txt'), 'hit\n');
await handleToolCall(host.workspace, { name: 'grep', input: { pattern: 'hit', path: 'work/small.txt' }, resultMaxChars: 24_000 });
Bun.gc(true);
const baseRssMb = peakMb();

async function grep(input: Record<string, unknown>) {
  const t0 = performance.now();
  const r = await handleToolCall(host.workspace, { name: 'grep', input: { path: 'work/big.log', ...input }, resultMaxChars: 24_000 });
  if (!r.success) throw new Error(r.error);
  return { data: r.data as Record<string, unknown>, ms: Math.round(performance.now() - t0) };
}
const count = await grep({ pattern: 'hit', output: 'count' });
const first = await grep({ pattern: 'hit' });
const far = await grep({ pattern: 'hit', offset: Math.floor((count.data.totalMatches as number) / 2) });
const firstLine = (d: Record<string, unknown>) => (d.results as { matches: { line: number }[] }[])[0].matches[0].line;
const maxRssMb = peakMb();
host.close();
rmSync(storeDir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    size,
    counted: (count.data.counts as Record<string, number>)['work/big.log'],
    totalMatches: far.data.totalMatches,
    firstLine: firstLine(first.data),
    farLine: firstLine(far.data),
    farNote: far.data.note,
    baseRssMb,
    maxRssMb,
    ms: { count: count.ms, first: first.ms, far: far.ms },
  }),
);
process.exit(0);
