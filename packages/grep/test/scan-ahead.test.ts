/**
 * `scanAhead` lets a host offer a file as `noMatch` — searched, unread — and answer the
 * search's job for a file it scanned ahead with that scan; so `none` must never be said
 * of a file with a match, of a binary-looking file, or where the pattern names a CR or
 * U+FEFF (those facts need every file), and `scanned` must be what the search's own job
 * gives. A property: on generated files and patterns, a search given `noMatch` where it
 * said `none`, and a runner answering with its scans, answers exactly what a search
 * given every file's bytes answers. WS_SEED fixes the run.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { type FoundFile, type GrepFile, type MatchJob, type MatchJobResult, scanAhead, search, searchFiles } from '../src/index.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });
const enc = new TextEncoder();
const plain = { caseInsensitive: false, fixedStrings: false, multiline: false };

const piece = fc.constantFrom('\n', '\r\n', '\r', '\uFEFF', '\u2028', 'a', 'b', 'ab', 'foo', 'foo12', ' ', '\t', 'x\r', 'é', 'K', '\u212a', '_', '.', 'Error', 'function ');
const fileBytes = fc
  .tuple(fc.boolean(), fc.array(fc.oneof({ weight: 30, arbitrary: piece.map((s) => Array.from(enc.encode(s))) }, { weight: 1, arbitrary: fc.constantFrom([0], [0x80], [0xc3, 0x41]) }), { maxLength: 40 }))
  .map(([bom, parts]) => new Uint8Array([...(bom ? [0xef, 0xbb, 0xbf] : []), ...parts.flat()]));
const patternPiece = fc.constantFrom(
  '^', '$', '\\r', '\\s', '\\s+', '\\w+', '[^a]', '.', '\\b', 'a', 'b', 'ab', 'foo', 'foo\\d+', 'k', 'é', '(?=a)', '(?<!a)', '(', ')', '*', '+', '?', '|',
  '\\uFEFF', '\\u2028', '[\\s\\S]', '(a|b)+', '\\n', 'Error', 'function',
);
const pattern = fc.array(patternPiece, { minLength: 1, maxLength: 5 }).map((xs) => xs.join(''));
const options = fc.record({ caseInsensitive: fc.boolean(), fixedStrings: fc.boolean(), multiline: fc.boolean() });

function accepted(p: string, fixed: boolean): boolean {
  if (fixed) return true;
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
}

describe('scanAhead', () => {
  test('a search given noMatch where it said none, and its scans, answers as one given every file', async () => {
    const said = { none: 0, scanned: 0, unsure: 0 };
    await fc.assert(
      fc.asyncProperty(pattern, fc.array(fileBytes, { minLength: 1, maxLength: 4 }), options, async (p, bs, opts) => {
        if (!accepted(p, opts.fixedStrings)) return;
        const read: GrepFile[] = bs.map((bytes, k) => ({ path: `f${k}`, bytes }));
        const scans = new Map<Uint8Array, { result: MatchJobResult; lineEnds: boolean }>();
        const ahead: GrepFile[] = bs.map((bytes, k) => {
          const a = scanAhead(p, opts, bytes, 10_000);
          said[a.kind]++;
          if (a.kind === 'none') return { path: `f${k}`, noMatch: true, size: bytes.length };
          if (a.kind === 'scanned') scans.set(bytes, a);
          return { path: `f${k}`, bytes };
        });
        // A runner that answers with the scan made ahead, where it was made for this very job.
        const runner = async (job: MatchJob) => {
          const made = scans.get(job.bytes);
          if (made === undefined) throw new Error('the search asked for a scan of a file not scanned ahead');
          expect(job.lineEnds).toBe(made.lineEnds);
          return made.result;
        };
        const [a, b] = [await search(p, read, opts), await search(p, ahead, { ...opts, runner })];
        expect(b).toEqual(a);
      }),
      params(3000),
    );
    // Every answer must be common, or agreement proves little.
    expect(said.none).toBeGreaterThan(500);
    expect(said.scanned).toBeGreaterThan(500);
    expect(said.unsure).toBeGreaterThan(20);
  }, 120_000);

  test('a search given only the scans of the files it said scanned (counted) counts and notes what one given their bytes does', async () => {
    let counted = 0;
    // What a sink can see of a found file without its lines.
    const seen = (f: FoundFile) => ({
      path: f.path,
      results: f.results,
      lines: f.lines,
      lineEndings: f.lineEndings,
      ranges: Array.from({ length: f.results }, (_, k) => f.result(k)),
    });
    await fc.assert(
      fc.asyncProperty(pattern, fc.array(fileBytes, { minLength: 1, maxLength: 4 }), options, async (p, bs, opts) => {
        if (!accepted(p, opts.fixedStrings)) return;
        const read: GrepFile[] = bs.map((bytes, k) => ({ path: `f${k}`, bytes }));
        const ahead: GrepFile[] = bs.map((bytes, k) => {
          const a = scanAhead(p, opts, bytes, 10_000);
          if (a.kind === 'none') return { path: `f${k}`, noMatch: true, size: bytes.length };
          if (a.kind === 'scanned') {
            counted++;
            return { path: `f${k}`, counted: { size: bytes.length, scan: a.result } };
          }
          return { path: `f${k}`, bytes };
        });
        const run = async (files: GrepFile[]) => {
          const found: unknown[] = [];
          const skipped: unknown[] = [];
          const facts = await searchFiles(p, files, { ...opts, maxFileSize: 30 }, { found: (f) => void found.push(seen(f)), skipped: (f) => void skipped.push(f) });
          return { facts, found, skipped };
        };
        expect(await run(ahead)).toEqual(await run(read));
      }),
      params(2000),
    );
    expect(counted).toBeGreaterThan(300);
  }, 120_000);

  test('counting only, a search given the scans counted answers the counts and facts one given the bytes does; only a pattern that is its run goes unnumbered', async () => {
    let unnumbered = 0;
    let numbered = 0;
    // What a page that is full reads of a found file: its counts, never its lines.
    const counts = (f: FoundFile) => ({ path: f.path, results: f.results, lines: f.lines });
    const literal = fc.array(fc.constantFrom('a', 'b', 'ab', 'foo', 'k', 'Error', '\\d', '\\w', '_', ' ', '\\.', '\\t'), { minLength: 1, maxLength: 2 }).map((xs) => xs.join(''));
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 3, arbitrary: literal }, { weight: 1, arbitrary: pattern }), fc.array(fileBytes, { minLength: 1, maxLength: 4 }), options, async (p, bs, opts) => {
        if (!accepted(p, opts.fixedStrings)) return;
        const read: GrepFile[] = bs.map((bytes, k) => ({ path: `f${k}`, bytes }));
        const ahead: GrepFile[] = bs.map((bytes, k) => {
          const a = scanAhead(p, opts, bytes, 10_000, undefined, true);
          if (a.kind === 'none') return { path: `f${k}`, noMatch: true, size: bytes.length };
          if (a.kind === 'scanned') {
            // Numbered or not, the same scan but for the numbers (and the line ends, not read).
            const full = scanAhead(p, opts, bytes, 10_000);
            if (full.kind !== 'scanned') throw new Error('counting changed what the scan said');
            if (a.result.unnumbered) {
              unnumbered++;
              expect([...a.result.hits].every((h) => h === 0)).toBe(true);
              expect({ n: a.result.hits.length, lines: a.result.lines, gaveUp: [...a.result.gaveUp], bom: a.result.bom }).toEqual({
                n: full.result.hits.length,
                lines: full.result.lines,
                gaveUp: [...full.result.gaveUp],
                bom: full.result.bom,
              });
            } else {
              numbered++;
              expect(a).toEqual(full);
            }
            return { path: `f${k}`, counted: { size: bytes.length, scan: a.result } };
          }
          return { path: `f${k}`, bytes };
        });
        const run = async (files: GrepFile[]) => {
          const found: unknown[] = [];
          const facts = await searchFiles(p, files, { ...opts, maxFileSize: 30 }, { found: (f) => void found.push(counts(f)) });
          return { facts, found };
        };
        expect(await run(ahead)).toEqual(await run(read));
      }),
      params(3000),
    );
    expect(unnumbered).toBeGreaterThan(150);
    expect(numbered).toBeGreaterThan(300);
  }, 120_000);

  test('an unnumbered scan is only for a pattern that is its run, and its lines are not told', async () => {
    const bytes = enc.encode('a b\nb\r\nxb\n');
    const a = scanAhead('b', plain, bytes, 10_000, undefined, true);
    if (a.kind !== 'scanned') throw new Error('expected a scan');
    expect(a.result.unnumbered).toBe(true);
    expect(a.result.lines).toBe(3);
    const found: FoundFile[] = [];
    const facts = await searchFiles('b', [{ path: 'x', counted: { size: bytes.length, scan: a.result } }], plain, { found: (f) => void found.push(f) });
    expect(facts.totalMatches).toBe(3);
    expect(found[0].results).toBe(3);
    expect(() => found[0].result(0)).toThrow('searched to be counted, not shown');
    for (const p of ['b$', '^b', 'b\\s?', 'x?b', '(b)']) {
      const s = scanAhead(p, plain, bytes, 10_000, undefined, true);
      expect(s.kind === 'scanned' && s.result.unnumbered === undefined).toBe(true);
    }
    // A pattern naming a CR is never counted unnumbered: its facts need the line ends.
    const cr = scanAhead('b\\r', plain, bytes, 10_000, undefined, true);
    expect(cr.kind === 'scanned' && cr.result.unnumbered === undefined).toBe(true);
  });

  test("a counted file's lines can't be shown: asking throws, and says why", async () => {
    const bytes = enc.encode('a b\nb\n');
    const a = scanAhead('b', plain, bytes, 10_000);
    if (a.kind !== 'scanned') throw new Error('expected a scan');
    const found: FoundFile[] = [];
    const facts = await searchFiles('b', [{ path: 'x', counted: { size: bytes.length, scan: a.result } }], plain, { found: (f) => void found.push(f) });
    expect(facts.totalMatches).toBe(2);
    expect(found[0].results).toBe(2);
    expect(found[0].result(1)).toEqual({ line: 2, endLine: 2 });
    expect(() => found[0].line(1)).toThrow('searched to be counted, not shown');
    expect(() => found[0].shown(0)).toThrow('not kept');
  });

  test('never for a binary-looking file, a pattern naming a CR or a BOM, a match, or a scan out of time', () => {
    const kind = (p: string, bytes: Uint8Array, limit = 10_000, now?: () => number) => scanAhead(p, plain, bytes, limit, now).kind;
    expect(kind('zzz', new Uint8Array([0x61, 0, 0x62]))).toBe('unsure');
    expect(kind('zzz', enc.encode('abc\n'))).toBe('none');
    expect(kind('zzz\\r', enc.encode('abc\r\n'))).toBe('scanned');
    expect(kind('\\uFEFFzzz', enc.encode('abc\n'))).toBe('scanned');
    expect(kind('b', enc.encode('abc\n'))).toBe('scanned');
    // Tested line by line (a lookaround, no literal to skip by) on a clock past its limit at once: stopped, so nothing is certain.
    let t = 0;
    expect(kind('(?<=a)\\d', enc.encode('aaa\n'.repeat(200)), 5, () => (t += 10))).toBe('unsure');
    expect(kind('(?<=a)\\d', enc.encode('aaa\n'.repeat(200)))).toBe('none');
  });

  test('a line holding every required run is tested as the scan shows it: its BOM and its CRLF end left out', () => {
    const kind = (p: string, text: string) => scanAhead(p, plain, enc.encode(text), 10_000).kind;
    // Both runs on one line but no match there (\w+ needs a character): no line matches.
    expect(kind('function\\s+\\w+Error', 'function Error\nfunction x\nan Error\n')).toBe('none');
    expect(kind('function\\s+\\w+Error', 'function Error\nfunction xError\n')).toBe('scanned');
    expect(kind('Error$', 'an Error\r\n')).toBe('scanned');
    expect(kind('Error$', 'an Error\r\r\n')).toBe('none');
    expect(kind('^Error', '\uFEFFError here\n')).toBe('scanned');
    expect(kind('^Error', 'x\n\uFEFFError here\n')).toBe('none');
  });
});
