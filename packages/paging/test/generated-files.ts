/**
 * Files for property tests to page through: BOM or not; LF, CRLF, `\r\r\n` and lone
 * CRs; quotes, backslashes, control characters, tabs, accents, emoji; invalid UTF-8;
 * long lines; with and without a final line end (README, "Walks"). Runs take their seed from
 * WS_SEED where it is set; fast-check prints the seed of a failing run.
 */
import fc from 'fast-check';

/** The seed from WS_SEED, where set. */
export const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : undefined;

/** fast-check parameters for `numRuns` runs, seeded from WS_SEED where set. */
export function runs(numRuns: number): fc.Parameters<unknown> {
  return seed === undefined ? { numRuns } : { numRuns, seed };
}

const enc = new TextEncoder();

/** Pieces of a line's text, as bytes. */
const piece: fc.Arbitrary<readonly number[]> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .oneof(
        fc.constantFrom('a', 'word ', 'x = 1;', '"', '\\', '\t', '\u0001', '\u001f', '\u007f', 'é', 'ü', '\u2028', '\r', '[', '…', '7'),
        fc.constantFrom('\ud83d\ude00', '\ud83c\udf89', '\ufeff', '\ufffd'),
        fc.string({ maxLength: 6 }),
        fc.string({ unit: 'grapheme', maxLength: 3 }),
      )
      .map((s) => Array.from(enc.encode(s))),
  },
  { weight: 1, arbitrary: fc.constantFrom([0x80], [0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98]) },
);

/** A line's text as bytes: a few pieces, or pieces repeated to about `length` bytes. */
function line(maxPieces: number, longWeight: number, longMin: number, longMax: number): fc.Arbitrary<readonly number[]> {
  const short = fc.array(piece, { maxLength: maxPieces }).map((ps) => ps.flat());
  const long = fc
    .tuple(fc.array(piece, { minLength: 1, maxLength: 4 }), fc.integer({ min: longMin, max: longMax }))
    .map(([ps, length]) => {
      const chunk = ps.flat();
      if (chunk.length === 0) return chunk;
      const out: number[] = [];
      while (out.length < length) out.push(...chunk);
      return out;
    });
  return longWeight === 0 ? short : fc.oneof({ weight: 100 - longWeight, arbitrary: short }, { weight: longWeight, arbitrary: long });
}

/** How generated files look. */
export interface FileShape {
  readonly maxLines: number;
  /** Draw line counts across all of 0..maxLines rather than mostly small ones. */
  readonly manyLines: boolean;
  readonly maxPieces: number;
  /** Percent of lines that are long. */
  readonly longWeight: number;
  readonly longMin: number;
  readonly longMax: number;
}

const LF = [0x0a];
const CRLF = [0x0d, 0x0a];
const CRCRLF = [0x0d, 0x0d, 0x0a];

/** Valid UTF-8 without a CR: each invalid sequence becomes a real U+FFFD. */
function clean(bytes: readonly number[]): readonly number[] {
  return Array.from(enc.encode(new TextDecoder().decode(new Uint8Array(bytes)).replaceAll('\r', '')));
}

/**
 * A generated file's bytes. A third of files are clean (valid UTF-8, LF ends, no BOM:
 * no notes to carry), a third CRLF throughout, a third anything at all.
 */
export function generatedFile(shape: FileShape): fc.Arbitrary<Uint8Array> {
  return fc
    .record({
      style: fc.constantFrom('clean', 'crlf', 'messy'),
      bom: fc.boolean(),
      lines: fc.array(fc.tuple(line(shape.maxPieces, shape.longWeight, shape.longMin, shape.longMax), fc.constantFrom(LF, CRLF, CRCRLF)), {
        maxLength: shape.maxLines,
        size: shape.manyLines ? 'max' : 'small',
      }),
      finalEnd: fc.boolean(),
    })
    .map(({ style, bom, lines, finalEnd }) => {
      const bytes: number[] = bom && style !== 'clean' ? [0xef, 0xbb, 0xbf] : [];
      lines.forEach(([text, end], i) => {
        for (const b of style === 'messy' ? text : clean(text)) bytes.push(b);
        if (i < lines.length - 1 || finalEnd) bytes.push(...(style === 'clean' ? LF : style === 'crlf' ? CRLF : end));
      });
      return new Uint8Array(bytes);
    });
}

/** Sentences a caller (the disk check) might hand a page. */
export const callerNotes: fc.Arbitrary<readonly string[]> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<readonly string[]>([]) },
  {
    weight: 1,
    arbitrary: fc.subarray([
      'Disk changed and the stored copy did not: this read shows disk\u2019s text.',
      'Disk could not be checked (permission denied); this read shows the workspace\u2019s copy.',
      'Say "hi" \\ \ud83d\ude00.',
    ]),
  },
);
