import { describe, expect, test } from 'bun:test';
import { type GrepFile, GrepError, type MatchRunner, runMatchJob, search, searchFiles } from '../src/index.ts';

const enc = new TextEncoder();
const file = (path: string, text: string): GrepFile => ({ path, bytes: enc.encode(text) });

describe('fixedStrings', () => {
  test('the pattern is found as written, every special character literal', async () => {
    const a = await search('a.b(c)*', [file('work/a.txt', 'axb(c)\na.b(c)*\n')], { fixedStrings: true });
    expect(a.results[0].matches).toEqual([{ line: 2, text: 'a.b(c)*' }]);
    const b = await search('(', [file('work/a.txt', 'f(x)\n')], { fixedStrings: true });
    expect(b.totalMatches).toBe(1);
  });

  test('with caseInsensitive, either case', async () => {
    const a = await search('Foo.', [file('work/a.txt', 'foo.\nFOO.\nfoox\n')], { fixedStrings: true, caseInsensitive: true });
    expect(a.results[0].matches.map((m) => m.line)).toEqual([1, 2]);
  });
});

describe('multiline', () => {
  test('a match may span lines; it reports its first and last line and shows them', async () => {
    const a = await search('start[\\s\\S]*?end', [file('work/a.txt', 'x\nstart here\nmiddle\nthe end\ny\n')], { multiline: true });
    expect(a.results[0].matches).toEqual([{ line: 2, endLine: 4, text: 'start here\nmiddle\nthe end' }]);
    expect(a.totalMatches).toBe(3);
    expect(a.totalResults).toBe(1);
  });

  test('matches whose lines touch make one group; the lines are counted once', async () => {
    const a = await search('a\\nb|c', [file('work/a.txt', 'a\nbc\nz\na\nb\n')], { multiline: true });
    expect(a.results[0].matches.map((m) => [m.line, m.endLine ?? m.line])).toEqual([
      [1, 2],
      [4, 5],
    ]);
    expect(a.totalMatches).toBe(4);
  });

  test('a CRLF file’s lines are shown as read shows them', async () => {
    const a = await search('one\\r\\ntwo', [file('work/a.txt', 'one\r\ntwo\r\n')], { multiline: true });
    expect(a.results[0].matches).toEqual([{ line: 1, endLine: 2, text: 'one\ntwo' }]);
  });

  test('without multiline the same pattern finds nothing', async () => {
    const a = await search('one\\ntwo', [file('work/a.txt', 'one\ntwo\n')]);
    expect(a.totalMatches).toBe(0);
  });
});

describe('type', () => {
  test('only files of the type are searched, by name', async () => {
    const files = [file('work/a.ts', 'x'), file('work/b.tsx', 'x'), file('work/c.js', 'x'), file('work/Makefile', 'x'), file('work/d.py', 'x')];
    expect((await search('x', files, { type: 'ts' })).results.map((r) => r.path)).toEqual(['work/a.ts', 'work/b.tsx']);
    expect((await search('x', files, { type: 'make' })).results.map((r) => r.path)).toEqual(['work/Makefile']);
    expect((await search('x', files, { type: 'py' })).filesSearched).toBe(1);
  });

  test('an unknown type is a GrepError naming the known ones', async () => {
    const error = await search('x', [], { type: 'typescript' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrepError);
    expect((error as Error).message).toStartWith('There is no file type "typescript"; the types are asm, c, ');
    expect((error as Error).message).toContain(' ts, ');
  });
});

describe('never lies, never hangs', () => {
  test('past the deadline the search stops, naming the file and line where it stopped, with what it found', async () => {
    let t = 0;
    const now = () => t++;
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n');
    const a = await search('line', [file('work/a.txt', 'line\n'), file('work/b.txt', lines), file('work/c.txt', 'line\n')], { timeoutMs: 500, now });
    expect(a.stopped?.path).toBe('work/b.txt');
    expect(a.stopped?.line).toBeGreaterThan(1);
    expect(a.stopped?.line).toBeLessThan(5000);
    expect(a.totalMatches).toBe(1 + (a.stopped!.line - 1));
    expect(a.results.map((r) => r.path)).toEqual(['work/a.txt', 'work/b.txt']);
  });

  test('the deadline counts only matching: files that are slow to arrive (a first sync) do not use it up', async () => {
    let t = 0;
    const now = () => t;
    async function* slowFiles() {
      for (const name of ['a', 'b', 'c', 'd']) {
        t += 5_000; // each file takes 5 s to arrive, ten times the deadline
        yield file(`work/${name}.txt`, 'line one\nline two\n');
      }
    }
    const a = await search('line', slowFiles(), { timeoutMs: 500, now });
    expect(a.stopped).toBeUndefined();
    expect([a.filesSearched, a.totalMatches]).toEqual([4, 8]);
  });

  test('time a runner spent matching a file ahead counts against the deadline with the scan of it', async () => {
    let t = 0;
    const now = () => t;
    const first = enc.encode('line one\n');
    const files: GrepFile[] = [{ path: 'work/a.txt', bytes: first }, file('work/b.txt', 'line one\n'), file('work/c.txt', 'line one\n')];
    // The first file took 600 ms of matching before its job (a host searching ahead); its job itself took none.
    const runner: MatchRunner = async (job) => {
      const scan = runMatchJob(job, now);
      return job.bytes === first ? { ...scan, aheadMs: 600 } : scan;
    };
    const a = await search('line', files, { timeoutMs: 500, now, runner });
    expect({ searched: a.filesSearched, stopped: a.stopped }).toEqual({ searched: 1, stopped: { path: 'work/b.txt', line: 1, lost: false } });
    // Without it, the same search is within its deadline.
    const b = await search('line', files, { timeoutMs: 500, now, runner: async (job) => runMatchJob(job, now) });
    expect({ searched: b.filesSearched, stopped: b.stopped }).toEqual({ searched: 3, stopped: undefined });
  });

  test('a line the engine gave up on is reported, never counted as a non-match', async () => {
    // A lookaround keeps the pattern on JavaScript's engine; JavaScriptCore gives up on these lines.
    const text = `${'a'.repeat(40)}b\nab\n${'a'.repeat(40)}b\n`;
    const a = await search('(a+)+(?=$)', [file('work/a.txt', text)]);
    expect(a.engine).toBe('js');
    expect(a.totalMatches).toBe(0);
    expect(a.gaveUp).toEqual([{ path: 'work/a.txt', lines: [1, 3] }]);
  }, 30_000);

  test('a file’s matches stay line numbers until asked for: the sink sees counts without building lines', async () => {
    const big = enc.encode('x\n'.repeat(200_000));
    let results = 0;
    const facts = await searchFiles('x', [{ path: 'work/big.txt', bytes: big }], {}, { found: (f) => void (results += f.results) });
    expect(results).toBe(200_000);
    expect(facts.totalMatches).toBe(200_000);
  });
});

test('a scan tells its progress by line, by time, so a runner that ends it can say where it was', async () => {
  const { runMatchJob } = await import('../src/index.ts');
  let t = 0;
  const reached: number[] = [];
  const text = Array.from({ length: 2000 }, (_, i) => `l${i}`).join('\n');
  runMatchJob({ pattern: 'x(?=y)', options: { caseInsensitive: false, fixedStrings: false, multiline: false }, bytes: enc.encode(text), lineEnds: false, timeLimitMs: 1e9 }, () => (t += 1), (line) => reached.push(line));
  expect(reached.length).toBeGreaterThan(5);
  expect(reached).toEqual([...reached].sort((a, b) => a - b));
  expect(reached[reached.length - 1]).toBeLessThanOrEqual(2000);
});
