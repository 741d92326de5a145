/**
 * The search's answer equals a naive reference on generated files and patterns: decode
 * each file with fileText and test the pattern (flags '' or 'i') against every line alone.
 * This is what proves the fast ways — the whole text searched at once and lines mapped
 * from offsets, files skipped by their bytes — change no answer. WS_SEED fixes the run.
 */
import { describe, expect, test } from 'bun:test';
import { fileText } from '@ws/text';
import fc from 'fast-check';
import { type GrepFile, GrepError, namesBom, namesCr, search } from '../src/index.ts';

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });

const enc = new TextEncoder();

/** The answer as a naive search gives it, with neighbours assigned as search documents. */
function reference(
  pattern: string,
  files: readonly GrepFile[],
  options: { caseInsensitive: boolean; contextBefore: number; contextAfter: number; maxFileSize?: number },
) {
  const re = new RegExp(pattern, options.caseInsensitive ? 'i' : '');
  const results = [];
  const skipped = [];
  // The facts a caller words: the CRLF and BOM files, where the pattern names a CR or U+FEFF.
  const crlfFiles: { path: string; version?: string; lineEndings: 'CRLF' | 'mixed' }[] = [];
  const bomFiles: { path: string; version?: string }[] = [];
  let totalMatches = 0;
  let filesSearched = 0;
  let slow = false;
  for (const file of files) {
    const version = file.version ? { version: file.version } : {};
    if ('noMatch' in file || 'noMatches' in file || 'large' in file || 'counted' in file) throw new Error('the model takes no noMatch, noMatches, large or counted files');
    if (!('bytes' in file)) {
      skipped.push({ path: file.path, ...version, reason: { kind: 'not-read', why: file.skipped } });
      continue;
    }
    if (options.maxFileSize !== undefined && file.bytes.length > options.maxFileSize) {
      skipped.push({ path: file.path, ...version, reason: expect.any(Object) });
      continue;
    }
    if (file.bytes.subarray(0, 8192).includes(0)) {
      skipped.push({ path: file.path, ...version, reason: expect.any(Object) });
      continue;
    }
    filesSearched++;
    const ft = fileText(file.bytes);
    if (ft.crlf > 0 && namesCr(pattern)) crlfFiles.push({ path: file.path, ...version, lineEndings: ft.lineEndings === 'CRLF' ? 'CRLF' : 'mixed' });
    if (ft.bom && namesBom(pattern)) bomFiles.push({ path: file.path, ...version });
    const hits: number[] = [];
    ft.lines.forEach((line, k) => {
      const t0 = performance.now();
      if (re.test(line)) hits.push(k + 1);
      // A slow test may be the engine giving up (JavaScriptCore stops silently): the reference knows nothing then.
      else if (performance.now() - t0 > 10) slow = true;
    });
    if (hits.length === 0) continue;
    totalMatches += hits.length;
    const B = options.contextBefore;
    const A = options.contextAfter;
    const matches = hits.map((n, k) => {
      const prev = hits[k - 1];
      const next = hits[k + 1];
      const before: string[] = [];
      const after: string[] = [];
      for (let m = n - B; m < n; m++) {
        // Shown before this match only if it exists, is not the previous match or its after-context.
        if (m >= 1 && (prev === undefined || (m > prev && m - prev > A))) before.push(ft.lines[m - 1]);
      }
      for (let m = n + 1; m <= n + A; m++) {
        if (m <= ft.lines.length && (next === undefined || m < next)) after.push(ft.lines[m - 1]);
      }
      return { line: n, text: ft.lines[n - 1], ...(before.length ? { before } : {}), ...(after.length ? { after } : {}) };
    });
    const lineEndings = ft.lineEndings === 'CRLF' || ft.lineEndings === 'mixed' ? { lineEndings: ft.lineEndings } : {};
    results.push({ path: file.path, ...version, ...lineEndings, matches });
  }
  return slow ? undefined : { results, totalMatches, filesSearched, skipped, crlfFiles, bomFiles, gaveUp: [] };
}

/** What the reference states, from search's answer. */
const stated = (a: Awaited<ReturnType<typeof search>>) => ({
  results: a.results,
  totalMatches: a.totalMatches,
  filesSearched: a.filesSearched,
  skipped: a.skipped,
  crlfFiles: a.crlfFiles,
  bomFiles: a.bomFiles,
  gaveUp: a.gaveUp,
});

// Pieces of files that stress the reading: every line end, lone CRs, own CRs, BOMs,
// the other characters `^`/`$` see as line ends under `m`, case folding, invalid bytes.
const piece = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      '\n', '\n', '\r\n', '\r\n', '\r', '\r\r\n', '\uFEFF', '\u2028', '\u2029', 'a', 'b', 'A', 'ab', 'foo', 'foo12',
      ' ', '\t', 'x\r', '1', '\ud83d\ude00', 'é', 'É', '\u017f', 's', 'S', '\u212a', 'k', 'K', '_', '.',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
);
const invalidBytes = fc.constantFrom([0x80], [0xff], [0xc3, 0x41], [0xed, 0xa0, 0x80], [0xe2, 0x82]);
const fileBytes = fc
  .tuple(
    fc.boolean(),
    fc.array(fc.oneof({ weight: 120, arbitrary: piece.map((s) => Array.from(enc.encode(s))) }, { weight: 10, arbitrary: invalidBytes }, { weight: 1, arbitrary: fc.constant([0]) }), {
      maxLength: 40,
    }),
  )
  .map(([bom, parts]) => new Uint8Array([...(bom ? [0xef, 0xbb, 0xbf] : []), ...parts.flat()]));

const files = fc
  .array(
    fc.oneof(
      { weight: 8, arbitrary: fileBytes.map((bytes) => ({ bytes })) },
      { weight: 1, arbitrary: fileBytes.map((bytes) => ({ bytes, version: 'conflicting-disk' as const })) },
      { weight: 1, arbitrary: fc.constant({ skipped: 'not read' }) },
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((fs): GrepFile[] => fs.map((f, k) => ({ path: `work/f${k}.txt`, ...f })));

// Pieces of patterns that see past a line's edge if the search is careless.
const patternPiece = fc.constantFrom(
  '^', '$', '\\r', '\\n', '\\s', '\\S', '[^a]', '.', '\\b', '\\B', 'a', 'b', 'ab', 'foo', 'foo\\d+', 'k', 'K', 's', 'é',
  '(?=', '(?!', '(?<=', '(?<!', '(', '(?:', ')', '*', '+', '?', '|', '[\\s\\S]', '[^]', '\\uFEFF', '\\u2028', '[\\r\\n]',
  '\\W', '\\D', '(a|b)', '(a|b)+', '(ab*)*', '(?:\\s|x)+', '\\1', '.*', '\r', '\\x0d', '$^', '\\r$', '^$', 'x\\r', '{2}',
  // Whole lookarounds that would see a neighbouring line or a CRLF end's CR.
  '(?![^])', '(?<![^])', '(?=\\r)', '(?!\\r)', '(?<=\\n)', '(?=\\s)', '(?<=\\s)', '(?<!a)', '(?=a)',
);
const pattern = fc.array(patternPiece, { minLength: 0, maxLength: 6 }).map((xs) => xs.join(''));
const options = fc.record({
  caseInsensitive: fc.boolean(),
  contextBefore: fc.constantFrom(0, 0, 1, 2),
  contextAfter: fc.constantFrom(0, 0, 1, 3),
  maxFileSize: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
});

function engineAccepts(p: string): boolean {
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
}

describe('search equals the naive per-line reference', () => {
  test('on generated files, patterns and options', async () => {
    let compared = 0;
    let matched = 0;
    let onRe2 = 0;
    await fc.assert(
      fc.asyncProperty(pattern, files, options, async (p, fs, opts) => {
        if (!engineAccepts(p)) {
          await expect(search(p, fs, opts)).rejects.toBeInstanceOf(GrepError);
          return;
        }
        const answer = await search(p, fs, opts);
        compared++;
        if (answer.totalMatches > 0) matched++;
        if (answer.engine === 're2') onRe2++;
        const expected = reference(p, fs, opts);
        if (expected !== undefined) expect(stated(answer)).toEqual(expected);
      }),
      params(4000),
    );
    // The generator must find lines often and miss them often, or agreement proves little.
    expect(matched).toBeGreaterThan(compared / 5);
    expect(compared - matched).toBeGreaterThan(compared / 10);
    // Patterns that repeat a group run on RE2: the reference (JavaScript alone) checks them too.
    expect(onRe2).toBeGreaterThan(compared / 50);
  }, 120_000);

  test('on longer files whose lines are mostly plain, as source files are', async () => {
    const line = fc.array(fc.constantFrom('let', ' ', 'foo42', 'x', '=', 'ab', '(a)', 'é', '\r', 'Foo'), { maxLength: 12 }).map((xs) => xs.join(''));
    const end = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r\n', '\r\r\n', '');
    const longFile = fc
      .tuple(fc.boolean(), fc.array(fc.tuple(line, end), { maxLength: 300, size: 'max' }))
      .map(([bom, ls]) => enc.encode((bom ? '\uFEFF' : '') + ls.map(([l, e]) => l + e).join('')));
    const longPattern = fc.constantFrom('foo\\d+$', 'let\\r', '\\r$|Foo', '\\uFEFF|x', '^let', 'ab', 'x =', '\\(a\\)$', '^$', '\\r$', '^\\s*$', 'foo|let', '(?<=x)', 'a(?!b)', 'é$', 'FOO');
    await fc.assert(
      fc.asyncProperty(longPattern, fc.array(longFile, { minLength: 1, maxLength: 4, size: 'max' }), fc.boolean(), async (p, bs, ci) => {
        const fs: GrepFile[] = bs.map((bytes, k) => ({ path: `work/long${k}.txt`, bytes }));
        const opts = { caseInsensitive: ci, contextBefore: 0, contextAfter: 0 };
        const expected = reference(p, fs, opts);
        if (expected !== undefined) expect(stated(await search(p, fs, opts))).toEqual(expected);
      }),
      params(400),
    );
  }, 120_000);
});
