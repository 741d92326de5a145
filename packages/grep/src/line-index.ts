/**
 * A file's lines by number without an object per line: where each starts in the text
 * (one 32-bit number a line), and each line's text cut out on demand. The one rule:
 * `line(n)` and `start(n)` are `fileText(text).lines[n - 1]` and `.starts[n - 1]`.
 */

const CR = 13;
const LF = 10;

/** A decoded text's lines, as read shows them. */
export class LineIndex {
  private readonly starts: Uint32Array;
  /** How many lines the text has (a final line end makes no empty last line). */
  readonly count: number;

  constructor(
    readonly text: string,
    bom: boolean,
  ) {
    const first = bom ? 1 : 0;
    // One pass over the line ends, into a list that doubles as it fills.
    let starts = new Uint32Array(Math.max(16, text.length >>> 5));
    let n = 0;
    if (first < text.length) starts[n++] = first;
    for (let lf = text.indexOf('\n', first); lf !== -1 && lf + 1 < text.length; lf = text.indexOf('\n', lf + 1)) {
      if (n === starts.length) {
        const grown = new Uint32Array(starts.length * 2);
        grown.set(starts);
        starts = grown;
      }
      starts[n++] = lf + 1;
    }
    this.starts = starts.subarray(0, n);
    this.count = n;
  }

  /** Where line `n` (1-based) starts in the text, BOM and CRs counted. */
  start(n: number): number {
    return this.starts[n - 1];
  }

  /** Line `n` as read shows it: without its line end, and without a CRLF end's CR unless its own text ends in a CR. */
  line(n: number): string {
    const { text } = this;
    const start = this.starts[n - 1];
    const lf = n < this.count ? this.starts[n] - 1 : text.indexOf('\n', start);
    if (lf === -1) return text.slice(start);
    let end = lf;
    if (lf > start && text.charCodeAt(lf - 1) === CR && !(lf - 1 > start && text.charCodeAt(lf - 2) === CR)) end = lf - 1;
    return text.slice(start, end);
  }
}

const lineDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Where the line of `bytes` from `start` to `end` (its line feed, or the bytes' end) ends
 * as read shows it: before a CRLF end's CR, unless the line's own bytes end in a CR.
 */
export function shownEndOfBytes(bytes: Uint8Array, start: number, end: number): number {
  return end < bytes.length && end > start && bytes[end - 1] === CR && !(end - 1 > start && bytes[end - 2] === CR) ? end - 1 : end;
}

/**
 * A file's lines by number read from its bytes, for a file whose text was never decoded
 * (scanned ahead from its bytes): each line decoded alone when asked, and the line starts
 * found only as far as asked — a file shown for one match near its top costs that line,
 * not its whole text. A line feed is never part of a UTF-8 sequence, so a line's bytes
 * decode to that line of the decoded text, replacement characters and all. The one
 * rule: `line(n)` and `count` are `new LineIndex(decoded bytes, bom)`'s.
 */
export class ByteLines {
  /** Where each line found so far starts in the bytes. */
  private starts = new Uint32Array(16);
  private found = 0;
  /** Where the search for the next line start goes on (-1: every start is found). */
  private next: number;

  constructor(
    readonly bytes: Uint8Array,
    bom: boolean,
  ) {
    const first = bom ? 3 : 0;
    this.next = first < bytes.length ? first : -1;
  }

  /** Finds line starts until `n` are known or none is left; whether line `n` exists. */
  private reach(n: number): boolean {
    const { bytes } = this;
    while (this.found < n && this.next !== -1) {
      if (this.found === this.starts.length) {
        const grown = new Uint32Array(this.starts.length * 2);
        grown.set(this.starts);
        this.starts = grown;
      }
      const start = this.next;
      this.starts[this.found++] = start;
      const lf = bytes.indexOf(LF, start);
      this.next = lf === -1 || lf + 1 >= bytes.length ? -1 : lf + 1;
    }
    return n <= this.found;
  }

  /** How many lines the text has (a final line end makes no empty last line). */
  get count(): number {
    this.reach(Number.POSITIVE_INFINITY);
    return this.found;
  }

  /** Line `n` (1-based) as read shows it: without its line end, and without a CRLF end's CR unless its own bytes end in a CR. */
  line(n: number): string {
    if (n < 1 || !this.reach(n)) return '';
    const { bytes } = this;
    const start = this.starts[n - 1];
    const lf = bytes.indexOf(LF, start);
    return lineDecoder.decode(bytes.subarray(start, shownEndOfBytes(bytes, start, lf === -1 ? bytes.length : lf)));
  }
}
