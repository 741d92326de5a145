/**
 * One reading of a file's lines, shared by read, grep and edit, so that text copied
 * from one matches in another. The rule a reader must not break: `text` is the file
 * exactly as stored (BOM and every CR kept), and `starts[i]` indexes `text` so that
 * `text.slice(starts[i], starts[i] + lines[i].length) === lines[i]`.
 */
import { utf8Layout } from './utf8.ts';

/** How a file's lines end, taken over all its line ends. */
export type LineEndings = 'none' | 'LF' | 'CRLF' | 'mixed';

/** A file's text and its lines as read, grep and edit all see them. */
export interface FileText {
  /** The whole decoded text, exactly as stored: BOM (U+FEFF) and every CR included. */
  readonly text: string;
  /** Each line's text as read shows it: without a CRLF end's CR, without the BOM. */
  readonly lines: readonly string[];
  /** For each line, the index in `text` where it begins (the BOM and CRs count). */
  readonly starts: readonly number[];
  /** The bytes begin with EF BB BF (for a string: it begins with U+FEFF). */
  readonly bom: boolean;
  /** False when any byte sequence is not UTF-8 (each decodes to one U+FFFD). */
  readonly validUtf8: boolean;
  /**
   * The index in `text` of each U+FFFD that stands for bytes that are not UTF-8, in
   * order (empty for valid UTF-8, and for a string: a string holds no bytes). A U+FFFD
   * not listed here is the character itself, stored as EF BF BD.
   */
  readonly invalidAt: readonly number[];
  /** How many line ends are CRLF. */
  readonly crlf: number;
  /** How many line ends are a bare LF. */
  readonly lf: number;
  /** How many lines' own text ends in a CR (`x\r\r\n`: the line is `x\r`). */
  readonly ownCr: number;
  /** `'none'` (no line end), `'LF'`, `'CRLF'` or `'mixed'`. */
  readonly lineEndings: LineEndings;
}

const CR = 13;
const REPLACEMENT = '\uFFFD';

const NONE: readonly number[] = Object.freeze([]);

const lenient = new TextDecoder('utf-8', { ignoreBOM: true });
const strict = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });

/** True when the bytes begin with the UTF-8 byte order mark EF BB BF. */
export function hasBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

function decode(bytes: Uint8Array): { text: string; validUtf8: boolean } {
  const text = lenient.decode(bytes);
  // A U+FFFD in the text is either a replaced sequence or a real U+FFFD in the file;
  // only then is the strict decode worth its cost.
  if (!text.includes(REPLACEMENT)) return { text, validUtf8: true };
  try {
    strict.decode(bytes);
    return { text, validUtf8: true };
  } catch {
    return { text, validUtf8: false };
  }
}

/**
 * Reads bytes (or an already-decoded string) into lines the way every ws tool shows
 * them. Lines split at LF; a CRLF end's CR is not part of the line unless the line's
 * own text ends in a CR too (`x\r\r\n` reads `x\r\r`); every other CR stays; a leading
 * BOM is not part of line 1; a final line end makes no empty last line.
 */
export function fileText(bytes: Uint8Array | string): FileText {
  let text: string;
  let bom: boolean;
  let validUtf8: boolean;
  let invalidAt = NONE;
  if (typeof bytes === 'string') {
    text = bytes;
    bom = text.charCodeAt(0) === 0xfeff;
    // A string cannot hold invalid UTF-8 bytes; a lone surrogate is its nearest kin.
    validUtf8 = text.isWellFormed();
  } else {
    ({ text, validUtf8 } = decode(bytes));
    bom = hasBom(bytes);
    if (!validUtf8) invalidAt = utf8Layout(bytes).invalid.map((s) => s.at);
  }

  const lines: string[] = [];
  const starts: number[] = [];
  let crlf = 0;
  let lf = 0;
  let ownCr = 0;
  const end = text.length;
  let start = bom ? 1 : 0;

  while (start < end) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) {
      lines.push(text.slice(start));
      starts.push(start);
      break;
    }
    let stop = nl;
    if (nl > start && text.charCodeAt(nl - 1) === CR) {
      crlf++;
      if (nl - 1 > start && text.charCodeAt(nl - 2) === CR) {
        // The line's own text ends in a CR: show the end's CR too, as stored, so a
        // copy of the line matches here and nowhere else.
        ownCr++;
      } else {
        stop = nl - 1;
      }
    } else {
      lf++;
    }
    lines.push(text.slice(start, stop));
    starts.push(start);
    start = nl + 1;
  }

  const lineEndings: LineEndings =
    crlf + lf === 0 ? 'none' : crlf === 0 ? 'LF' : lf === 0 ? 'CRLF' : 'mixed';
  return { text, lines, starts, bom, validUtf8, invalidAt, crlf, lf, ownCr, lineEndings };
}
