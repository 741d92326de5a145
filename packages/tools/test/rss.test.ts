import { expect, test } from 'bun:test';

test('10 M matching lines: the total is exact, the page full, and the peak RSS under 300 MB (in a child process)', async () => {
  const child = Bun.spawn(['bun', `${import.meta.dir}/rss-child.ts`], { stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(err).toBe('');
  expect(code).toBe(0);
  const r = JSON.parse(out) as { totalMatches: number; length: number; note: string; ms: number; maxRssMb: number };
  console.log(`10 M matches: ${r.maxRssMb} MB peak RSS, ${r.ms} ms, page ${r.length} of 24,000 characters`);
  expect(r.totalMatches).toBe(10_000_000);
  expect(r.length).toBeLessThanOrEqual(24_000);
  expect(r.length).toBeGreaterThanOrEqual(0.9 * 24_000);
  expect(r.note).toContain('continue with offset=');
  expect(r.maxRssMb).toBeLessThan(300);
}, 600_000);
