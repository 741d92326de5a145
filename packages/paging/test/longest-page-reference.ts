/**
 * The longest page by brute force, to check `linePage` against: build every page a
 * line page could be — each run of whole lines from the offset, each cut of the first
 * line — serialize each whole with JSON.stringify, and pick by the README's "Line pages".
 * Slow on purpose; it shares only the wording (notes.ts) with the code it checks.
 */
import { type FileText, numberedLine, textNotes } from '@ws/text';
import type { LinePage } from '../src/index.ts';
import { type LineStop, type Rest, lineStopNote, restMarker } from '../src/notes.ts';

export interface ReferenceOptions {
  readonly path: string;
  readonly offset?: number;
  readonly limit?: number;
  readonly resultMaxChars: number;
  readonly notes?: readonly string[];
}

function splitsPair(s: string, i: number): boolean {
  const before = s.charCodeAt(i - 1);
  const after = s.charCodeAt(i);
  return i > 0 && i < s.length && before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}

interface Candidate {
  readonly page: LinePage;
  readonly length: number;
  /** Orders candidates by how much they show: whole-line pages above cuts, longer above shorter. */
  readonly shows: number;
}

/** Builds the candidate pages from one offset, each as it would go out. */
export function candidates(ft: FileText, options: ReferenceOptions) {
  const { path, offset = 1, limit = 2000, notes = [] } = options;
  const totalLines = ft.lines.length;
  const last = Math.min(totalLines, offset + limit - 1);
  const carried = [...textNotes(ft), ...notes];

  const cutText = (n: number, cut: number): { text: string; rest: Rest } => {
    const line = ft.lines[n - 1];
    const rest = { offsetChars: ft.starts[n - 1] + cut, limitChars: line.length - cut };
    return { text: line.slice(0, cut) + restMarker(rest), rest };
  };
  const shownLines = new Map<number, { text: string; rest: Rest | null }>();
  const shown = (n: number): { text: string; rest: Rest | null } => {
    const line = ft.lines[n - 1];
    if (line.length <= 2000) return { text: line, rest: null };
    let cut = 2000;
    while (splitsPair(line, cut)) cut--;
    if (!shownLines.has(n)) shownLines.set(n, cutText(n, cut));
    return shownLines.get(n) as { text: string; rest: Rest | null };
  };
  const build = (texts: string[], lastRest: Rest | null, shows: number): Candidate => {
    const toLine = offset + texts.length - 1;
    const next = toLine < totalLines ? toLine + 1 : null;
    const stop: LineStop =
      lastRest !== null
        ? { kind: 'cut', line: toLine, rest: lastRest, next }
        : next === null
          ? { kind: 'end' }
          : toLine === last
            ? { kind: 'limit', next }
            : { kind: 'budget', next };
    const said = [...carried, lineStopNote(stop)].filter((s) => s !== '');
    const content = texts.map((t, i) => numberedLine(offset + i, t)).join('\n');
    const page: LinePage =
      said.length > 0
        ? { path, totalLines, fromLine: offset, toLine, note: said.join(' '), content }
        : { path, totalLines, fromLine: offset, toLine, content };
    return { page, length: JSON.stringify(page).length, shows };
  };

  return {
    last,
    /** The page of whole lines (long ones cut at 2,000) from the offset to `toLine`. */
    whole(toLine: number): Candidate {
      const texts: string[] = [];
      let rest: Rest | null = null;
      for (let n = offset; n <= toLine; n++) ({ text: texts[n - offset], rest } = shown(n));
      return build(texts, rest, 1e9 + toLine);
    },
    /** The page of the first line alone, cut after `cut` characters. */
    cut(cut: number): Candidate {
      const c = cutText(offset, cut);
      return build([c.text], c.rest, cut);
    },
    /** Every cut of the first line a page may show: at least one character, none inside a pair. */
    cuts(): number[] {
      const first = ft.lines[offset - 1];
      const all: number[] = [];
      for (let cut = 1; cut < first.length && cut <= 2000; cut++) if (!splitsPair(first, cut)) all.push(cut);
      return all;
    },
  };
}

/** The page `linePage` must return for these options, found by trying everything. */
export function referenceLinePage(ft: FileText, options: ReferenceOptions): LinePage {
  const budget = options.resultMaxChars;
  const from = candidates(ft, options);
  const offset = options.offset ?? 1;

  const wholes: Candidate[] = [];
  for (let n = offset; n <= from.last; n++) wholes.push(from.whole(n));
  const fittingWhole = wholes.filter((c) => c.length <= budget);
  if (fittingWhole.length > 0) return fittingWhole[fittingWhole.length - 1].page;

  const cuts = from.cuts().map((cut) => from.cut(cut));
  const fittingCut = cuts.filter((c) => c.length <= budget);
  if (fittingCut.length > 0) return fittingCut[fittingCut.length - 1].page;

  // The floor: the shortest page there is; on a tie, the one that shows more.
  const all = [...wholes, ...cuts];
  all.sort((a, b) => a.length - b.length || b.shows - a.shows);
  return all[0].page;
}
