/**
 * The benchmark's spawner: a small process, started while the benchmark is small, that
 * runs each measured command for it and reports the command's time and peak RSS. A child
 * of a large process would not do: Bun starts a child from its parent's address space,
 * and Linux keeps the larger of the two peaks across the exec, so `resourceUsage().maxRSS`
 * counted the benchmark's own high-water mark (`true` reported 323 MiB once the benchmark
 * had grown to 300 MB). This process stays small — it holds no command's output, only
 * the chunk being drained — so a figure is the measured command's own, above this floor (`floorRss`).
 *
 * One request a line on stdin, as JSON `{ argv, cwd, stdin? }`; one answer a line on
 * stdout, `{ ms, maxRss, code }` (ms from the spawn to the exit, the output drained).
 */
import { lines } from './lines.ts';

async function runOne(request: { argv: string[]; cwd: string; stdin?: string }): Promise<{ ms: number; maxRss: number; code: number }> {
  const t = performance.now();
  const child = Bun.spawn(request.argv, { cwd: request.cwd, stdout: 'pipe', stderr: 'ignore', stdin: request.stdin === undefined ? 'ignore' : new Blob([request.stdin]) });
  // Drained a chunk at a time and let go: held whole, ripgrep's 65 MB for a common word
  // would grow this process, and every child after it would start from that size.
  const reader = child.stdout.getReader();
  while (!(await reader.read()).done) {}
  const code = await child.exited;
  const ms = performance.now() - t;
  return { ms, maxRss: child.resourceUsage()?.maxRSS ?? 0, code };
}

for await (const line of lines(Bun.stdin.stream())) {
  const answer = await runOne(JSON.parse(line));
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
