import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { type FoundFile, type GrepFile, type LargeText, type MatchRunner, type SearchOptions, runMatchJob, search, searchFiles } from '../src/index.ts';

const enc = (s: string) => new TextEncoder().encode(s);
/** fast-check's seed: `WS_SEED` replays another run; by default every run is the same one. */
const SEED = Number(process.env.WS_SEED ?? 14);

/** `bytes` as a large file whose reader reuses one buffer, as the host's does; `change` makes it answer null from that read on. */
function largeOf(bytes: Uint8Array, change?: { afterReads: number }): LargeText & { reads: number } {
  let buffer = new Uint8Array(0);
  const file = {
    size: bytes.length,
    reads: 0,
    async range(start: number, length: number) {
      file.reads++;
      if (change !== undefined && file.reads > change.afterReads) return null;
      const part = bytes.subarray(start, start + length);
      if (buffer.length < part.length) buffer = new Uint8Array(part.length);
      buffer.set(part);
      return buffer.subarray(0, part.length);
    },
  };
  return file;
}

/** What a sink sees of every result: each shown line with its character index and first match. */
async function seen(pattern: string, files: GrepFile[], options: SearchOptions) {
  const out: unknown[] = [];
  const facts = await searchFiles(pattern, files, options, {
    found(file: FoundFile) {
      for (let k = 0; k < file.results; k++) {
        const { from, to } = file.shown(k);
        const shown = [];
        for (let n = from; n <= to; n++) shown.push({ n, text: file.line(n), start: file.lineStart(n), at: file.firstMatch(n) });
        const { line } = file.result(k);
        out.push({ path: file.path, result: { line, text: file.line(line), start: file.lineStart(line), at: file.firstMatch(line) }, shown });
      }
    },
  });
  return { out, facts };
}

const whole = (bytes: Uint8Array): GrepFile => ({ path: 'a.log', bytes });
const large = (bytes: Uint8Array): GrepFile => ({ path: 'a.log', large: largeOf(bytes) });
const small = (bytes: number, longestLine = 1 << 20) => ({ stretch: { bytes, longestLine } });

describe('a large file is searched a stretch at a time, as though whole', () => {
  test('on generated texts (CRLF, lone CRs, a BOM, long lines, invalid UTF-8), stretch sizes and context, every result, line, index and fact agrees', async () => {
    const piece = fc.constantFrom('a', 'b', 'ab', 'x', ' ', '\r', '\n', '\r\n', '\r\r\n', '\uFEFF', 'é', '😀', '\u2028', 'aaaaaaaaaaaa', '\xff');
    const text = fc.tuple(fc.boolean(), fc.array(piece, { maxLength: 120 })).map(([bom, parts]) => {
      const s = (bom ? '\uFEFF' : '') + parts.join('');
      // '\xff' stands for a byte that is not UTF-8.
      const bytes: number[] = [];
      for (const part of s.split('\xff')) bytes.push(...enc(part), 0xff);
      bytes.pop();
      return new Uint8Array(bytes);
    });
    const pattern = fc.constantFrom('a', 'ab', '^a', 'a$', 'b\\r', '\\r$', '^\\uFEFF', '^$', 'x|b', 'a(?=b)', '(?<!a)b', '😀', 'é', '\\s');
    await fc.assert(
      fc.asyncProperty(text, pattern, fc.integer({ min: 1, max: 40 }), fc.nat(3), fc.nat(3), async (bytes, p, stretch, before, after) => {
        const options = { contextBefore: before, contextAfter: after, ...small(stretch) };
        const a = await seen(p, [whole(bytes)], options);
        const b = await seen(p, [large(bytes)], options);
        // Context reaches one stretch either side: with stretches of a few bytes, less than
        // the whole file's context may show; the results themselves always agree.
        expect(b.out.map((r) => (r as { result: unknown }).result)).toEqual(a.out.map((r) => (r as { result: unknown }).result));
        expect(b.facts).toEqual(a.facts);
      }),
      { numRuns: 400, seed: SEED },
    );
  });

  test('with stretches that hold the context, the lines shown, their indexes and first matches agree too', async () => {
    const line = fc.constantFrom('alpha', 'beta', 'gamma\r', 'alpha beta', '', '\uFEFFalpha', 'é alpha 😀');
    const text = fc.array(line, { minLength: 1, maxLength: 200 }).map((ls) => enc(ls.join('\n') + '\n'));
    await fc.assert(
      fc.asyncProperty(text, fc.constantFrom('alpha', 'beta$', '^gamma', 'a b'), fc.integer({ min: 64, max: 300 }), fc.nat(2), fc.nat(2), async (bytes, p, stretch, before, after) => {
        // Each line is at most 16 bytes, so a stretch of 64 holds at least 3 lines: context of 2 reaches.
        const options = { contextBefore: before, contextAfter: after, ...small(stretch) };
        expect((await seen(p, [large(bytes)], options)).out).toEqual((await seen(p, [whole(bytes)], options)).out);
        expect(await search(p, [large(bytes)], options)).toEqual(await search(p, [whole(bytes)], options));
      }),
      { numRuns: 300, seed: SEED },
    );
  });
});

describe('the cuts between stretches', () => {
  test('a match straddling where one read ends and the next begins is found on its line', async () => {
    // The first read of 8 bytes ends inside `needle`.
    const bytes = enc('one\nneedle\ntwo\n');
    const a = await search('needle', [large(bytes)], small(8));
    expect(a.results).toEqual([{ path: 'a.log', matches: [{ line: 2, text: 'needle' }] }]);
  });

  test('a CRLF split between reads (the CR ends one, the LF starts the next) is one CRLF end', async () => {
    const bytes = enc('abc\r\ndefg\r\nhij\r\n');
    // Reads of 10 bytes: the first ends with the CR after `defg`.
    expect(bytes[9]).toBe(13);
    const a = await search('g$', [large(bytes)], small(10));
    expect(a.results).toEqual([{ path: 'a.log', lineEndings: 'CRLF', matches: [{ line: 2, text: 'defg' }] }]);
    expect((await search('\\r', [large(bytes)], small(10))).crlfFiles).toEqual([{ path: 'a.log', lineEndings: 'CRLF' }]);
  });

  test('a BOM is the file\u2019s only at its start; a U+FEFF starting a later stretch is text', async () => {
    const bytes = enc('\uFEFFhead\n\uFEFFtail\n');
    const a = await search('^\\uFEFF', [large(bytes)], small(8));
    expect(a.results).toEqual([{ path: 'a.log', matches: [{ line: 2, text: '\uFEFFtail' }] }]);
    expect(a.bomFiles).toEqual([{ path: 'a.log' }]);
    expect((await search('^head', [large(bytes)], small(8))).totalMatches).toBe(1);
  });

  test('a line longer than a read is held whole and searched', async () => {
    const long = `${'x'.repeat(100)}needle${'y'.repeat(100)}`;
    const a = await search('needle', [large(enc(`a\n${long}\nb\n`))], small(16, 1000));
    expect(a.results[0].matches).toEqual([{ line: 2, text: long }]);
  });

  test('a line longer than the longest held is counted, named unsearched, and the lines after keep their numbers and indexes', async () => {
    const bytes = enc(`needle\n${'z'.repeat(500)}\r\nneedle é\nneedle`);
    const found: { line: number; start: number }[] = [];
    const facts = await searchFiles('needle', [large(bytes)], small(16, 100), {
      found(file) {
        for (let k = 0; k < file.results; k++) found.push({ line: file.result(k).line, start: file.lineStart(file.result(k).line) });
      },
    });
    expect(found).toEqual([
      { line: 1, start: 0 },
      { line: 3, start: 7 + 502 },
      { line: 4, start: 7 + 502 + 9 },
    ]);
    expect(facts.unsearched).toEqual([{ path: 'a.log', lines: [2] }]);
    expect(facts.totalMatches).toBe(3);
  });

  test('context lines reach across a cut, each shown once', async () => {
    const bytes = enc('a\nb\nhit\nc\nd\nhit\ne\n');
    const options = { contextBefore: 2, contextAfter: 2 };
    expect(await search('hit', [large(bytes)], { ...options, ...small(6) })).toEqual(await search('hit', [whole(bytes)], options));
  });
});

describe('what a large file\u2019s search says when it cannot be whole', () => {
  test('a NUL in its first 8 KB makes it binary, as for any file', async () => {
    const bytes = new Uint8Array(20_000).fill(0x61);
    bytes[8000] = 0;
    expect((await search('a', [large(bytes)], small(100))).skipped).toEqual([{ path: 'a.log', reason: { kind: 'binary' } }]);
    bytes[8000] = 0x61;
    bytes[9000] = 0;
    expect((await search('a', [large(bytes)], small(100))).totalMatches).toBe(1);
  });

  test('a file that changes while it is searched: the results before the change stand, the change is named with the first line not searched', async () => {
    const bytes = enc('hit 1\nhit 2\nhit 3\nhit 4\n');
    // Read 1 is the sniff, reads 2 and 3 the first two stretches of 6 bytes.
    const a = await search('hit', [{ path: 'a.log', large: largeOf(bytes, { afterReads: 3 }) }], small(6));
    expect(a.results).toEqual([{ path: 'a.log', matches: [{ line: 1, text: 'hit 1' }, { line: 2, text: 'hit 2' }] }]);
    expect(a.changed).toEqual([{ path: 'a.log', line: 3 }]);
    expect(a.totalMatches).toBe(2);
  });

  test('multiline is refused for a large file, with its own reason', async () => {
    const a = await search('a', [large(enc('a\n'))], { multiline: true });
    expect(a.skipped).toEqual([{ path: 'a.log', reason: { kind: 'large-multiline', size: 2 } }]);
    expect(a.filesSearched).toBe(0);
  });

  test('the deadline stops inside a large file at the first line of the stretch it did not reach', async () => {
    const bytes = enc('hit\n'.repeat(50));
    let t = 0;
    // Each scan takes 10 ms of a 25 ms deadline: the third stretch is the last scanned.
    const runner: MatchRunner = async (job) => {
      t += 10;
      return runMatchJob(job);
    };
    const a = await search('hit', [large(bytes), { path: 'b.log', bytes: enc('hit\n') }], { ...small(40), timeoutMs: 25, runner, now: () => t });
    expect(a.stopped).toEqual({ path: 'a.log', line: 31, lost: false, large: true });
    expect(a.totalMatches).toBe(30);
    expect(a.results.map((r) => r.path)).toEqual(['a.log']);
  });

  test('a Worker ended past its deadline loses that stretch\u2019s matches only, and says so', async () => {
    const bytes = enc('hit\n'.repeat(30));
    let calls = 0;
    const runner: MatchRunner = async (job) => {
      calls++;
      if (calls === 2) return { hits: new Uint32Array(0), lines: 0, gaveUp: new Uint32Array(0), stoppedAt: 1, bom: false, lost: true };
      return runMatchJob(job);
    };
    const a = await search('hit', [large(bytes)], { ...small(40), timeoutMs: 10_000, runner });
    expect(a.stopped).toEqual({ path: 'a.log', line: 11, lost: true, large: true });
    expect(a.totalMatches).toBe(10);
  });
});
