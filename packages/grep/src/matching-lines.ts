/**
 * Which lines of one decoded text match: each line as `fileText` shows it, tested alone.
 * The fast way runs the pattern once over the whole text (flags `gm`) and maps where
 * matches start to lines; it is exact because, for a pattern without lookarounds,
 * anything that matches within a line also matches at the same place in the whole text
 * (the text around a line is a line end, which `^`, `$` and `\b` read as the line's
 * edge). The converse can fail — a match that runs into the next line or over a CRLF
 * end's CR, a `^`/`$` beside a CR inside the line — so such a line is tested alone.
 * The one rule: the lines found are exactly those `line.test(lines[i])` finds.
 */
import { fileText } from '@ws/text';
import { crlfEnds } from './file-kind.ts';
import type { Matcher } from './matcher.ts';

/** A matching line: its number (1-based) and its text as read shows it. */
export interface LineHit {
  readonly line: number;
  readonly text: string;
}

/** What searching one text found. */
export interface TextMatches {
  /** The matching lines, in order. */
  readonly hits: readonly LineHit[];
  /** The text's CRLF line ends (as `crlfEnds`); found when asked for or when a line matched. */
  readonly crlfEnds?: 'CRLF' | 'mixed';
}

const CR = 13;

/** Characters that `^` and `$` read as a line's edge under the `m` flag, besides LF. */
const INNER_EDGE = /[\r\u2028\u2029]/;

const withEnds = (hits: LineHit[], ends: 'CRLF' | 'mixed' | undefined): TextMatches => (ends === undefined ? { hits } : { hits, crlfEnds: ends });

/** Each line tested alone, for patterns that look around. */
function lineByLine(text: string, matcher: Matcher, lineEnds: boolean): TextMatches {
  const ft = fileText(text);
  const hits: LineHit[] = [];
  for (let k = 0; k < ft.lines.length; k++) {
    if (matcher.line.test(ft.lines[k])) hits.push({ line: k + 1, text: ft.lines[k] });
  }
  const ends = ft.lineEndings === 'CRLF' || ft.lineEndings === 'mixed' ? ft.lineEndings : undefined;
  return withEnds(hits, lineEnds || hits.length > 0 ? ends : undefined);
}

/** The whole text at once, lines mapped from match offsets. */
function wholeText(text: string, bom: boolean, matcher: Matcher, lineEnds: boolean): TextMatches {
  // Without the BOM, line 1 starts the string, so `^` holds there as it does in the line.
  const s = bom ? text.slice(1) : text;
  const re = matcher.whole;
  const hits: LineHit[] = [];
  let line = 1;
  let start = 0;
  let lf = s.indexOf('\n');
  // The kinds of line end passed on the way, so the line ends cost no second walk.
  let crlf = false;
  let bareLf = false;
  const next = () => {
    if (s.charCodeAt(lf - 1) === CR) crlf = true;
    else bareLf = true;
    line++;
    start = lf + 1;
    lf = s.indexOf('\n', start);
  };

  while (start < s.length) {
    re.lastIndex = start;
    const m = re.exec(s);
    if (m === null) break;
    const at = m.index;
    while (lf !== -1 && lf < at) next();
    if (start === s.length) break; // after the final line end: no line there
    // Where the line as read ends: before a CRLF end's CR, unless its own text ends in a CR.
    let end = lf === -1 ? s.length : lf;
    if (lf > start && s.charCodeAt(lf - 1) === CR && !(lf - 1 > start && s.charCodeAt(lf - 2) === CR)) end = lf - 1;
    if (at <= end) {
      const lineText = s.slice(start, end);
      const inside = at + m[0].length <= end && !INNER_EDGE.test(lineText);
      if (inside || matcher.line.test(lineText)) hits.push({ line, text: lineText });
    }
    if (lf === -1) break;
    next();
  }
  return withEnds(hits, lineEnds || hits.length > 0 ? crlfEnds(s, start, { crlf, bareLf }) : undefined);
}

/**
 * The lines of `text` (decoded, BOM and CRs kept; `bom` when it starts with the BOM)
 * that the pattern matches, each tested as `fileText` shows it; and the text's CRLF line
 * ends where `lineEnds` asks for them or a line matched.
 */
export function matchingLines(text: string, bom: boolean, matcher: Matcher, lineEnds: boolean): TextMatches {
  return matcher.wholeText ? wholeText(text, bom, matcher, lineEnds) : lineByLine(text, matcher, lineEnds);
}
