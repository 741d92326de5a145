/**
 * grep over files above `maxFileSize`, searched straight from disk a stretch at a time, on
 * both kinds of mount: the same answers as the file searched whole, ripgrep's lines and
 * counts on a generated 20 MB log, the cuts between stretches (a CRLF split, a BOM, a
 * line longer than a stretch, context across a cut), a file replaced mid-search, the
 * deadline inside a large file, and a ~300 MB log in a child process measuring peak RSS.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MatchRunner } from '@ws/grep';
import { handleToolCall, type Workspace } from '@ws/tools';
import type { Host } from '../src/host.ts';
import { mulberry32 } from '../../../test/random.ts';
import { tempDir } from './fixtures.ts';
import { openTestHost, storeHost, testConfig } from './host-fixtures.ts';

type Data = Record<string, unknown> & { note?: string };

async function grep(workspace: Workspace, input: Record<string, unknown>, resultMaxChars?: number): Promise<Data> {
  const r = await handleToolCall(workspace, { name: 'grep', input, ...(resultMaxChars === undefined ? {} : { resultMaxChars }) });
  if (!r.success) throw new Error(r.error);
  return r.data as Data;
}

/** Every page from offset 0, following only the notes. */
async function walk(workspace: Workspace, input: Record<string, unknown>, budget: number): Promise<Data[]> {
  const pages: Data[] = [];
  for (let offset = 0; ; ) {
    const page = await grep(workspace, { ...input, offset }, budget);
    pages.push(page);
    const next = page.note?.match(/continue with offset=(\d+)/);
    if (!next) return pages;
    offset = Number(next[1]);
  }
}

/** The workspace with a large file's stretches made small (and, where given, scans run by `runner`). */
function withStretches(host: Host, bytes: number, runner?: MatchRunner, timeoutMs?: number): Workspace {
  const settings = host.workspace.grep ?? {};
  return {
    ...host.workspace,
    grep: { ...settings, stretch: { bytes, longestLine: 1 << 16 }, ...(runner ? { runner } : {}), ...(timeoutMs ? { timeoutMs } : {}) },
  };
}

/** A log: a BOM, CRLF and LF ends, long lines with a match far in, blank lines, some non-ASCII; the same on every run. */
function generatedLog(lines: number, seed: number, longLines = 0.005): string {
  const random = mulberry32(seed);
  const out: string[] = ['\uFEFF'];
  for (let i = 1; i <= lines; i++) {
    const r = random();
    const level = r < 0.05 ? 'ERROR' : r < 0.15 ? 'WARN' : 'INFO';
    const text =
      r > 1 - longLines ? `${i} ${level} ${'payload '.repeat(400 + Math.floor(random() * 3000))}ERROR tail` : r > 0.98 ? '' : `${i} ${level} req=${Math.floor(random() * 1e6)} path=/a/ü ms=${Math.floor(random() * 100)}`;
    out.push(text, random() < 0.3 ? '\n' : '\r\n');
  }
  return out.join('');
}

for (const backend of ['store', 'direct'] as const) {
  describe(`grep over a file above maxFileSize on a ${backend} mount`, () => {
    test('every page, in every mode, is the page of the same file searched whole (context across the cuts, long lines, CRLF, a BOM)', async () => {
      const log = generatedLog(3000, 14);
      const whole = await storeHost({ mount: { backend, ignore: [] }, files: { 'app.log': log, 'b.txt': 'ERROR b\n' } });
      const large = await storeHost({ mount: { backend, maxFileSize: 1000, ignore: [] }, files: { 'app.log': log, 'b.txt': 'ERROR b\n' } });
      // Stretches of 4 KiB: the log's 200 KB cut about 50 times, its long lines longer than a stretch.
      const stretched = withStretches(large.host, 4096);
      for (const input of [
        { pattern: 'ERROR', contextBefore: 1, contextAfter: 2 },
        { pattern: 'ms=9\\d$' },
        { pattern: '^\\d+ WARN', output: 'files' },
        { pattern: 'ü ms=1', fixedStrings: true, output: 'count' },
      ]) {
        const a = await walk(whole.host.workspace, input, 6000);
        expect(a.length).toBeGreaterThan(input.output ? 0 : 3);
        expect(await walk(stretched, input, 6000)).toEqual(a);
      }
      whole.host.close();
      large.host.close();
    }, 60_000);

    test('the cuts: a CRLF split between two reads, a BOM, a match at a stretch’s first line', async () => {
      // Reads of 16 bytes: the first ends with `\r`, the second starts with `\n`.
      const text = '\uFEFFabcdefghijkl\r\nhit klmnop\r\nqrs\r\nhit\r\n';
      const { host } = await storeHost({ mount: { backend, maxFileSize: 10, ignore: [] }, files: { 'big.log': text } });
      expect(new TextEncoder().encode(text)[15]).toBe(13);
      const ws = withStretches(host, 16);
      expect((await grep(ws, { pattern: 'l$' })).results).toEqual([{ path: 'work/big.log', lineEndings: 'CRLF', matches: [{ line: 1, text: 'abcdefghijkl' }] }]);
      expect((await grep(ws, { pattern: '^hit', contextBefore: 1 })).results).toEqual([
        {
          path: 'work/big.log',
          lineEndings: 'CRLF',
          matches: [
            { line: 2, text: 'hit klmnop', before: ['abcdefghijkl'] },
            { line: 4, text: 'hit', before: ['qrs'] },
          ],
        },
      ]);
      const cr = await grep(ws, { pattern: '\\r' });
      expect(cr.totalMatches).toBe(0);
      expect(cr.note).toContain('work/big.log (CRLF)');
      host.close();
    });

    test('a large binary file is skipped as binary; with multiline a large file is skipped with why', async () => {
      const bin = new Uint8Array(5000).fill(0x61);
      bin[100] = 0;
      const { host } = await storeHost({ mount: { backend, maxFileSize: 1000, ignore: [] }, files: { 'dump.bin': bin, 'big.log': 'a\nb\n'.repeat(1000) } });
      const a = await grep(host.workspace, { pattern: 'a' });
      expect(a.skipped).toEqual([{ reason: 'binary (a NUL byte in its first 8 KB)', count: 1, paths: ['work/dump.bin'] }]);
      expect(a.totalMatches).toBe(1000);
      const m = await grep(host.workspace, { pattern: 'a\\nb', multiline: true });
      expect(m.skipped).toEqual([
        { reason: expect.stringContaining('search it without multiline'), count: 1, paths: ['work/big.log'] },
        { reason: 'binary (a NUL byte in its first 8 KB)', count: 1, paths: ['work/dump.bin'] },
      ]);
      host.close();
    });

    test('a file that grows while it is searched: what was found stands, and the note names the change and where', async () => {
      const { host, root } = await storeHost({ mount: { backend, maxFileSize: 1000, ignore: [] }, files: { 'big.log': 'hit\n'.repeat(1000), 'z.txt': 'hit\n' } });
      const real = host.workspace.grep?.runner;
      let scans = 0;
      // After the second stretch is scanned, a person's program appends to the log.
      const runner: MatchRunner = async (job) => {
        if (++scans === 2) appendFileSync(join(root, 'big.log'), 'hit\n');
        if (real === undefined) throw new Error('the host runs scans in Workers');
        return real(job);
      };
      const a = await grep(withStretches(host, 400, runner), { pattern: 'hit', output: 'count' });
      // Two stretches of 100 lines were searched before the change, then z.txt.
      expect(a.counts).toEqual({ 'work/big.log': 200, 'work/z.txt': 1 });
      expect(a.note).toBe('A file changed on disk while it was searched and was not searched further: work/big.log from line 201; the matches before are from the version first seen. Search again.');
      // Searched again, the grown file is searched whole.
      expect((await grep(withStretches(host, 400), { pattern: 'hit', output: 'count' })).counts).toEqual({ 'work/big.log': 1001, 'work/z.txt': 1 });
      host.close();
    });

    test('a file replaced (renamed over) while it is searched: no stretch of the new file is mixed in', async () => {
      const { host, root } = await storeHost({ mount: { backend, maxFileSize: 1000, ignore: [] }, files: { 'big.log': 'hit\n'.repeat(1000) } });
      const real = host.workspace.grep?.runner;
      let scans = 0;
      // The same size, other text: only the fingerprint tells the two apart.
      const runner: MatchRunner = async (job) => {
        if (++scans === 1) {
          writeFileSync(join(root, 'new.tmp'), 'hot\n'.repeat(1000));
          renameSync(join(root, 'new.tmp'), join(root, 'big.log'));
        }
        if (real === undefined) throw new Error('the host runs scans in Workers');
        return real(job);
      };
      const a = await grep(withStretches(host, 400, runner), { pattern: 'h', output: 'count' });
      expect(a.counts).toEqual({ 'work/big.log': 100 });
      expect(a.note).toContain('work/big.log from line 101;');
      host.close();
    });

    test('the deadline stops inside a large file: the note names its line and a way further that exists', async () => {
      const { host } = await storeHost({ mount: { backend, maxFileSize: 1000, ignore: [] }, files: { 'big.log': 'hit\n'.repeat(1000), 'z.txt': 'hit\n' } });
      const real = host.workspace.grep?.runner;
      // The second scan takes longer than the whole 1 s deadline: two stretches are searched.
      let scans = 0;
      const runner: MatchRunner = async (job) => {
        if (++scans === 2) await Bun.sleep(1100);
        if (real === undefined) throw new Error('the host runs scans in Workers');
        return real(job);
      };
      const a = await grep(withStretches(host, 400, runner, 1000), { pattern: 'hit', output: 'count' });
      expect(a.counts).toEqual({ 'work/big.log': 200 });
      expect(a.note).toContain('The search stopped at its 1 s deadline at line 201 of work/big.log;');
      expect(a.note).toContain("work/big.log is over the size limit and is searched from its start each time: a faster pattern (a literal with fixedStrings, no lookarounds) or a longer deadline (the host's grepTimeoutMs) reaches further.");
      host.close();
    });
  });
}

describe('a generated 20 MB log against ripgrep (`rg --crlf`), at the real stretch size', () => {
  const RG = Bun.which('rg');
  let host: Host;
  let root: string;
  beforeAll(async () => {
    root = tempDir('ws-grep-large-rg-');
    const bytes = new TextEncoder().encode(generatedLog(400_000, 1414, 0.0005));
    // A CRLF whose CR ends the first 1 MiB read and whose LF starts the second.
    const at = 1 << 20;
    const lf = bytes.lastIndexOf(10, at - 100);
    const cutLine = new TextEncoder().encode(`ERROR at the cut ${'p'.repeat(at - 1 - (lf + 1) - 17)}\r\n`);
    writeFileSync(join(root, 'big.log'), Buffer.concat([bytes.subarray(0, lf + 1), cutLine, bytes.subarray(lf + 1)]));
    const written = Bun.file(join(root, 'big.log'));
    const cut = new Uint8Array(await written.slice(at - 2, at + 1).arrayBuffer());
    expect([...cut.subarray(1)]).toEqual([13, 10]);
    expect(written.size).toBeGreaterThan(15_000_000);
    host = await openTestHost(testConfig(root, [{ name: 'work', path: '.', backend: 'direct', maxFileSize: 1_000_000 }]), { watch: false });
  });
  afterAll(() => host?.close());

  function rg(args: readonly string[]): string[] {
    if (RG === null) throw new Error('ripgrep (rg) is not installed; .ci/run installs it with apt-get.');
    const run = Bun.spawnSync([RG, '--crlf', '--no-config', ...args, 'big.log'], { cwd: root, stdout: 'pipe', stderr: 'pipe' });
    if (run.exitCode === 2) throw new Error(`rg ${args.join(' ')} failed: ${run.stderr.toString()}`);
    return run.stdout.toString().split('\n').filter((l) => l !== '');
  }

  for (const [name, pattern, rgArgs, wsInput] of [
    ['a word', 'ERROR', [], {}],
    ['a regex with $ over CRLF ends', 'ms=9\\d$', [], {}],
    ['anchored', '^\\d+ WARN', [], {}],
    ['fixed strings', 'ü ms=1', ['-F'], { fixedStrings: true }],
    ['a rare regex', 'req=99\\d{3} ', [], {}],
    ['a match far into long lines', 'ERROR tail', ['-F'], { fixedStrings: true }],
  ] as const) {
    test(`${name}: the same lines (walked page by page) and the same count`, async () => {
      const expected = rg(['-n', ...rgArgs, '-e', pattern]).map((l) => Number(l.slice(0, l.indexOf(':'))));
      expect(expected.length).toBeGreaterThan(50);
      const counted = (await grep(host.workspace, { pattern, ...wsInput, path: 'work/big.log', output: 'count' })).counts as Record<string, number>;
      expect(counted['work/big.log']).toBe(Number(rg(['-c', ...rgArgs, '-e', pattern])[0]));
      // Pages are walked where they are few (each page searches the whole file again).
      if (expected.length > 3000) return;
      const pages = await walk(host.workspace, { pattern, ...wsInput, path: 'work/big.log' }, 24_000);
      const lines = pages.flatMap((p) => (p.results as { matches: { line: number }[] }[]).flatMap((r) => r.matches.map((m) => m.line)));
      expect(lines).toEqual(expected);
    }, 120_000);
  }
});

test('a ~300 MB log with 4.7 M matching lines is grepped in a child process with peak RSS independent of its size', async () => {
  const dir = tempDir('ws-grep-large-child-');
  // 30 or 31 bytes a line, every odd line holding `hit`, written in batches (this process, not the child).
  const lines = 9_375_000;
  const file = Bun.file(join(dir, 'big.log')).writer();
  for (let from = 1; from <= lines; from += 100_000) {
    let batch = '';
    for (let i = from; i < from + 100_000 && i <= lines; i++) {
      const n = String(i).padStart(8, '0');
      batch += i % 2 === 1 ? `${n} hit ........ level=${i % 10}\n` : `${n} nothing here. level=${i % 10}\n`;
    }
    file.write(batch);
  }
  await file.end();
  const child = Bun.spawn(['bun', `${import.meta.dir}/grep-large-child.ts`, dir], { stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(err).toBe('');
  expect(code).toBe(0);
  const r = JSON.parse(out) as { size: number; counted: number; totalMatches: number; firstLine: number; farLine: number; farNote: string; baseRssMb: number; maxRssMb: number; ms: Record<string, number> };
  console.log(`${Math.round(r.size / 1e6)} MB log: peak RSS ${r.maxRssMb} MB (${r.baseRssMb} MB before), count ${r.ms.count} ms, first page ${r.ms.first} ms, page at offset 2,343,750 ${r.ms.far} ms`);
  expect(r.size).toBeGreaterThan(280_000_000);
  expect(r.counted).toBe(lines / 2);
  expect(r.totalMatches).toBe(r.counted);
  expect(r.firstLine).toBe(1);
  // Offset 2,343,750 of the matches (every odd line) is line 4,687,501.
  expect(r.farLine).toBe(4_687_501);
  expect(r.farNote).toContain('continue with offset=');
  // 128–141 MB measured, under load too: the stretches' garbage is collected as they pass,
  // paced by the bytes searched; without that it was 182–258 MB, as the collector pleased.
  expect(r.maxRssMb).toBeLessThan(200);
}, 300_000);
