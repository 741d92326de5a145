/**
 * Which lines of one decoded text match, as line numbers only (so a file with millions
 * of matches costs four bytes a match, not an object): each line as `fileText` shows it,
 * tested alone. The fast way runs the pattern once over the whole text (flags `gm`) and
 * maps where matches start to lines; it is exact because, for a pattern without
 * lookarounds, anything that matches within a line also matches at the same place in
 * the whole text (the text around a line is a line end, which `^`, `$` and `\b` read as
 * the line's edge). The converse can fail — a match that runs into the next line or over
 * a CRLF end's CR, a `^`/`$` beside a CR inside the line — so such a line is tested alone.
 * The one rule: the lines found are exactly those the pattern matches tested alone, and
 * a line on which the engine may have given up is never counted as a non-match: it is
 * listed in `gaveUp`.
 */
import { crlfEnds } from './file-kind.ts';
import { type Matcher, firstMatchIn } from './matcher.ts';

/** A JavaScript test slower than this that finds nothing may be the engine giving up (JavaScriptCore stops backtracking silently). */
export const SLOW_TEST_MS = 200;

/** How the scan may spend its time. */
export interface ScanClock {
  /** When to stop (as `now()` counts); Infinity for never. */
  readonly deadline: number;
  readonly now: () => number;
  /** Told now and then which line the scan has reached. */
  readonly progress?: (line: number) => void;
}

/** What scanning one text found. */
export interface ScanResult {
  /** Matching lines, ascending; with `multiline`, each group's first line. */
  readonly hits: Uint32Array;
  /** With `multiline`: each group's last line (a group is matches whose lines touch). */
  readonly ends?: Uint32Array;
  /** Matching lines in all (with `multiline`, every line of every group). */
  readonly lines: number;
  /** Lines on which the engine gave up: whether they match is unknown. */
  readonly gaveUp: Uint32Array;
  /** The text's CRLF line ends; found when asked for or when a line matched. */
  readonly crlfEnds?: 'CRLF' | 'mixed';
  /** Set when the deadline stopped the scan: the first line not searched. */
  readonly stoppedAt?: number;
  /**
   * The matching lines were counted, not numbered (`scanAhead` for a page already full):
   * every entry of `hits` is 0 and `crlfEnds` is not read. Only a file that is counted,
   * never shown (`GrepFile.counted`), carries such a scan.
   */
  readonly unnumbered?: true;
}

/** A growing list of line numbers. */
export class Lines {
  private a = new Uint32Array(16);
  n = 0;
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Uint32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  last(): number {
    return this.a[this.n - 1];
  }
  setLast(v: number): void {
    this.a[this.n - 1] = v;
  }
  done(): Uint32Array {
    return this.a.subarray(0, this.n);
  }
}

const CR = 13;
/** How often the scan says which line it has reached, in milliseconds. */
const PROGRESS_EVERY_MS = 50;
const told = new WeakMap<ScanClock, number>();

/** Tells the clock's `progress` the line reached, at most every {@link PROGRESS_EVERY_MS}. */
function tell(clock: ScanClock, now: number, line: number): void {
  if (clock.progress === undefined) return;
  const last = told.get(clock);
  if (last !== undefined && now - last < PROGRESS_EVERY_MS) return;
  told.set(clock, now);
  clock.progress(line);
}

/** How many steps go by between looks at the clock. */
const CLOCK_EVERY = 64;

/** Where the line starting at `start` ends as read shows it (`lf`: its LF, or -1). */
function lineEnd(s: string, start: number, lf: number): number {
  if (lf === -1) return s.length;
  if (lf > start && s.charCodeAt(lf - 1) === CR && !(lf - 1 > start && s.charCodeAt(lf - 2) === CR)) return lf - 1;
  return lf;
}

/** Tests one line, timing JavaScript's engine so that giving up is told apart from no match. */
export function testLine(matcher: Matcher, text: string, clock: ScanClock): boolean | 'gave-up' {
  if (matcher.engine === 're2') return firstMatchIn(matcher, text) !== -1;
  const t0 = clock.now();
  if (matcher.line.test(text)) return true;
  if (clock.now() - t0 < SLOW_TEST_MS) return false;
  if (matcher.re2 !== undefined && !/[\uD800-\uDFFF]/.test(text)) return matcher.re2.firstMatch(text) !== -1;
  return 'gave-up';
}

interface Walk {
  readonly s: string;
  readonly hits: Lines;
  readonly gaveUp: Lines;
}

/** Each line from `start` (line `line`) tested alone; returns the first line not searched, or undefined at the end. */
function lineByLine(w: Walk, matcher: Matcher, clock: ScanClock, start: number, line: number): number | undefined {
  const { s } = w;
  let steps = 0;
  while (start < s.length) {
    if (++steps % CLOCK_EVERY === 0 || matcher.engine === 'js') {
      const now = clock.now();
      if (now > clock.deadline) return line;
      tell(clock, now, line);
    }
    const lf = s.indexOf('\n', start);
    const end = lineEnd(s, start, lf);
    const found = testLine(matcher, s.slice(start, end), clock);
    if (found === true) w.hits.push(line);
    else if (found === 'gave-up') w.gaveUp.push(line);
    if (lf === -1) break;
    line++;
    start = lf + 1;
  }
  return undefined;
}

/** The whole text at once, lines mapped from match offsets; falls back to line by line where the engine was slow. */
function wholeText(w: Walk, matcher: Matcher, clock: ScanClock): number | undefined {
  const { s } = w;
  const re = matcher.whole;
  let line = 1;
  let start = 0;
  let lf = s.indexOf('\n');
  let steps = 0;
  const next = () => {
    line++;
    start = lf + 1;
    lf = s.indexOf('\n', start);
  };

  while (start < s.length) {
    if (++steps % CLOCK_EVERY === 0) {
      const now = clock.now();
      if (now > clock.deadline) return line;
      tell(clock, now, line);
    }
    re.lastIndex = start;
    const t0 = clock.now();
    let at: number;
    let stop: number;
    if (matcher.mayMatchLf) {
      const m = re.exec(s);
      if (m === null) {
        // A slow search that found nothing may have given up: test the rest line by line.
        if (clock.now() - t0 >= SLOW_TEST_MS) return lineByLine(w, matcher, clock, start, line);
        break;
      }
      at = m.index;
      stop = at + m[0].length;
    } else if (re.test(s)) {
      // No match holds a line feed, so it lies in the line where it ends; no match object is made.
      stop = re.lastIndex;
      at = stop > start ? stop - 1 : stop;
    } else {
      if (clock.now() - t0 >= SLOW_TEST_MS) return lineByLine(w, matcher, clock, start, line);
      break;
    }
    while (lf !== -1 && lf < at) next();
    if (start === s.length) break; // after the final line end: no line there
    const end = lineEnd(s, start, lf);
    if (matcher.mayMatchLf ? at <= end : true) {
      const inside = stop <= end && !innerEdge(s, start, end);
      const found = inside || testLine(matcher, s.slice(start, end), clock);
      if (found === true) w.hits.push(line);
      else if (found === 'gave-up') w.gaveUp.push(line);
    }
    if (lf === -1) break;
    next();
  }
  return undefined;
}

/** True where the line from `start` to `end` holds a character `^`/`$` read as a line's edge under `m` (a CR, U+2028, U+2029). */
function innerEdge(s: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === CR || c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}

/** Matches that may span lines: each group of touching lines once. */
function multiline(w: Walk, matcher: Matcher, clock: ScanClock, ends: Lines): number | undefined {
  const { s } = w;
  const re = matcher.whole;
  let line = 1;
  let lineStart = 0;
  let lf = s.indexOf('\n');
  const lineOf = (index: number) => {
    while (lf !== -1 && lf < index) {
      line++;
      lineStart = lf + 1;
      lf = s.indexOf('\n', lineStart);
    }
    return line;
  };
  re.lastIndex = 0;
  let steps = 0;
  while (re.lastIndex <= s.length) {
    if (++steps % CLOCK_EVERY === 0 && clock.now() > clock.deadline) return lineOf(re.lastIndex);
    const t0 = clock.now();
    const m = re.exec(s);
    if (m === null) {
      if (clock.now() - t0 >= SLOW_TEST_MS) w.gaveUp.push(lineOf(re.lastIndex));
      break;
    }
    const at = m.index;
    const length = m[0].length;
    if (length === 0) re.lastIndex = at + 1;
    const first = lineOf(at);
    if (at >= s.length && lineStart >= s.length) break; // after the final line end: no line there
    // The last character of the match decides its last line (an LF belongs to its line).
    const last = length === 0 ? first : lineOf(at + length - 1);
    if (w.hits.n > 0 && first <= ends.last()) {
      if (last > ends.last()) ends.setLast(last);
    } else {
      w.hits.push(first);
      ends.push(last);
    }
  }
  return undefined;
}

/**
 * The lines of `text` (decoded, BOM and CRs kept; `bom` when it starts with the BOM)
 * that the pattern matches, each tested as `fileText` shows it; and the text's CRLF line
 * ends where `lineEnds` asks for them or a line matched. Stops at the clock's deadline.
 */
export function scanText(text: string, bom: boolean, matcher: Matcher, lineEnds: boolean, clock: ScanClock): ScanResult {
  // Without the BOM, line 1 starts the string, so `^` holds there as it does in the line.
  const s = bom ? text.slice(1) : text;
  const w: Walk = { s, hits: new Lines(), gaveUp: new Lines() };
  let stoppedAt: number | undefined;
  let ends: Lines | undefined;
  if (matcher.options.multiline) {
    ends = new Lines();
    stoppedAt = multiline(w, matcher, clock, ends);
  } else {
    stoppedAt = matcher.wholeText ? wholeText(w, matcher, clock) : lineByLine(w, matcher, clock, 0, 1);
  }
  const hits = w.hits.done();
  let lines = hits.length;
  let endList: Uint32Array | undefined;
  if (ends !== undefined) {
    endList = ends.done();
    lines = 0;
    for (let k = 0; k < hits.length; k++) lines += endList[k] - hits[k] + 1;
  }
  // The line ends past where the walk stopped are read only when they are needed.
  const ask = stoppedAt === undefined && (lineEnds || hits.length > 0);
  const ending = ask ? crlfEnds(s) : undefined;
  return {
    hits,
    ...(endList === undefined ? {} : { ends: endList }),
    lines,
    gaveUp: w.gaveUp.done(),
    ...(ending === undefined ? {} : { crlfEnds: ending }),
    ...(stoppedAt === undefined ? {} : { stoppedAt }),
  };
}
