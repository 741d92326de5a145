/**
 * Which lines of a file match, found from its bytes: only the lines that hold every run
 * of ASCII text the pattern requires (`LiteralPrefilter.linesHolding`) are decoded, each
 * alone, and tested as the scan shows it (its BOM and a CRLF end's CR left out) — a line
 * without those runs cannot match. A file's text is never decoded whole, so a search
 * ahead makes a line's worth of garbage per candidate line instead of a string the size
 * of every file with a match (a host's Workers hold less between collections). The one
 * rule: the answer is the one `scanText` gives for the decoded text, or none where that
 * is not certain.
 */
import { hasBom } from '@ws/text';
import { crlfEndsOfBytes } from './file-kind.ts';
import { shownEndOfBytes } from './line-index.ts';
import type { Matcher } from './matcher.ts';
import { Lines, type ScanResult, testLine } from './scan.ts';

const LF = 10;
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** How many line feeds lie in `bytes` from `from` up to (not including) `to`. */
function lineFeeds(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = bytes.indexOf(LF, from); i !== -1 && i < to; i = bytes.indexOf(LF, i + 1)) n++;
  return n;
}

/**
 * What `scanText` finds in the text the bytes decode to (a file's bytes, not a later
 * stretch), without its line ends unless a line matched — or undefined where this cannot
 * say: the pattern has no required run or is `multiline`, the prefilter stopped looking
 * (reading the file whole costs less), or `deadline` (as `now` counts) passed.
 */
export function scanBytes(matcher: Matcher, bytes: Uint8Array, deadline: number, now: () => number, numbered = true): ScanResult | undefined {
  const { prefilter } = matcher;
  if (prefilter === undefined || matcher.options.multiline) return undefined;
  if (!numbered && prefilter.exact) return countLines(prefilter, bytes, deadline, now);
  const bom = hasBom(bytes);
  const clock = { deadline: Infinity, now };
  const hits = new Lines();
  const gaveUp = new Lines();
  // The line last told, and where it starts: lines are counted from there.
  let line = 1;
  let lineAt = 0;
  let late = false;
  const seen = prefilter.linesHolding(bytes, (start, end) => {
    if (now() > deadline) {
      late = true;
      return true;
    }
    const from = start === 0 && bom ? 3 : start;
    // A pattern that is its run matches every line the run is on: nothing to decode or test.
    const found = prefilter.exact ? true : testLine(matcher, decoder.decode(bytes.subarray(from, shownEndOfBytes(bytes, from, end))), clock);
    if (found === false) return false;
    // Lines are counted only up to a line that matched (or gave up): most lines told match not.
    line += lineFeeds(bytes, lineAt, start);
    lineAt = start;
    if (found === true) hits.push(line);
    else gaveUp.push(line);
    return false;
  });
  if (late || seen === 'unsure') return undefined;
  const found = hits.done();
  const ending = found.length > 0 ? crlfEndsOfBytes(bytes) : undefined;
  return { hits: found, lines: found.length, gaveUp: gaveUp.done(), ...(ending === undefined ? {} : { crlfEnds: ending }) };
}

/** How often {@link countLines} looks at the clock, in lines counted. */
const COUNT_CLOCK_EVERY = 1024;

/**
 * The lines an exact prefilter (`LiteralPrefilter.exact`: the pattern is its run) finds,
 * counted and not numbered — no line feed before a match is counted — as an unnumbered
 * scan; undefined where the prefilter stopped looking or `deadline` passed.
 */
function countLines(prefilter: NonNullable<Matcher['prefilter']>, bytes: Uint8Array, deadline: number, now: () => number): ScanResult | undefined {
  let n = 0;
  let late = false;
  const seen = prefilter.linesHolding(bytes, () => {
    if (++n % COUNT_CLOCK_EVERY === 0 && now() > deadline) late = true;
    return late;
  });
  if (late || seen === 'unsure') return undefined;
  return { hits: new Uint32Array(n), lines: n, gaveUp: new Uint32Array(0), unnumbered: true };
}
