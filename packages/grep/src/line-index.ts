/**
 * A file's lines by number without an object per line: where each starts in the text
 * (one 32-bit number a line), and each line's text cut out on demand. The one rule:
 * `line(n)` and `start(n)` are `fileText(text).lines[n - 1]` and `.starts[n - 1]`.
 */

const CR = 13;

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
