/**
 * A seeded file for grep's differential tests: binary, empty, over the mount's size limit,
 * invalid UTF-8, CRLF, BOM or plain lines of words, some holding `function …Error` and
 * some ending in `needle`; and the inputs compared.
 */
export interface GrepFileShape {
  /** The mount's `maxFileSize`: an over-size file is larger. */
  readonly maxFile: number;
  readonly words: readonly string[];
  /** At most this many lines. */
  readonly lines: number;
  /** Every this many files ends in `needle`. */
  readonly needleEvery: number;
  /** What an over-size file starts with. */
  readonly overSizeStart?: string;
}

export function grepTestFile(r: (n: number) => number, k: number, shape: GrepFileShape): string | Uint8Array {
  const kind = r(14);
  if (kind === 0) return new Uint8Array([0x72, 0x65, 0, 0x75, 0x72, 0x6e]); // binary
  if (kind === 1) return '';
  if (kind === 2) return `${shape.overSizeStart ?? ''}${'x'.repeat(shape.maxFile + 1 + r(100))}`; // over the mount's maxFileSize
  if (kind === 3) return new Uint8Array([0x66, 0x6f, 0x6f, 0x31, 0x32, 0xff, 0x0a, 0x62, 0x61, 0x72]); // invalid UTF-8
  const end = kind <= 6 ? '\r\n' : '\n';
  const lines: string[] = [];
  for (let n = r(shape.lines); n > 0; n--) {
    const words: string[] = [];
    for (let w = r(6); w > 0; w--) words.push(shape.words[r(shape.words.length)]);
    if (r(8) === 0) words.push(`function ${['create', 'Thing', 'foo'][r(3)]}Error`);
    lines.push(words.join(' '));
  }
  const body = lines.join(end) + (r(2) === 0 ? end : '') + (k % shape.needleEvery === 0 ? 'needle' : '');
  return kind === 7 ? `\uFEFF${body}` : body;
}

/** The inputs grep's differential tests compare answers for. */
export const GREP_PATTERNS: Record<string, unknown>[] = [
  { pattern: 'createThing' },
  { pattern: 'function\\s+\\w+Error' },
  { pattern: 'return', output: 'count' },
  { pattern: 'needle$', output: 'files' },
  { pattern: 'foo\\d+$', contextBefore: 1, contextAfter: 1 },
  { pattern: 'FOO12', caseInsensitive: true },
  { pattern: 'a.b(c', fixedStrings: true },
  { pattern: 'bar\\r$' },
  { pattern: '\\uFEFFreturn' },
  { pattern: 'Thing[^\\n]*\\n[^\\n]*bar', multiline: true },
  { pattern: '(?<=function )\\w+' },
  { pattern: 'zzz-not-there' },
  { pattern: 'return', type: 'ts' },
];
