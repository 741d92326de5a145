/**
 * Skipping files without decoding them. Where every match of a pattern must contain a
 * run of ASCII text (its top level is a sequence, and the run is characters, `\d` or
 * `\w`, none of them optional), a file whose bytes lack that run has no matching line,
 * and decoding it — the costliest step of a search — can be skipped. ASCII bytes in
 * UTF-8 are those characters of the decoded text, in the same order and next to each
 * other, even around invalid sequences. The one rule: the filter may let a file through
 * that has no match, never turn away one that has; when unsure, it lets the file through.
 */
import type { AsciiSet, TopLevelAtom } from './pattern-syntax.ts';

/** One element of a required run: an ASCII character (its code) or an ASCII set. */
export type RunElement = number | AsciiSet;

/** Text every match contains, and a quick test for it on a file's bytes. */
export interface LiteralPrefilter {
  /** The run, as written in the pattern (before case folding). */
  readonly run: readonly RunElement[];
  /** Every run every match contains, the chosen one among them, in pattern order. */
  readonly runs: readonly (readonly RunElement[])[];
  /**
   * Every run every match contains, for an index that looks each up alone (in no order,
   * and they may overlap): {@link requiredRuns} with `overlapping`.
   */
  readonly indexRuns: readonly (readonly RunElement[])[];
  /** False only when the bytes cannot hold a match. */
  mayMatch(bytes: Uint8Array): boolean;
  /**
   * False only when no line of the bytes (the bytes between two line feeds) holds every
   * run, in order and apart: a match within one line holds them so. For a search line by
   * line (not `multiline`), where it is a finer test than {@link mayMatch}.
   */
  mayMatchLine(bytes: Uint8Array): boolean;
  /**
   * Each line of the bytes that holds every run, in order and apart (the lines
   * {@link mayMatchLine} looks for), told to `visit` as its start and end (the end at its
   * line feed, or the bytes' end), until `visit` answers true: `'stopped'` then, `'done'`
   * where no line is left, `'unsure'` where looking on costs more than reading the bytes
   * whole would (lines may be left untold).
   */
  linesHolding(bytes: Uint8Array, visit: (start: number, end: number) => boolean): 'stopped' | 'done' | 'unsure';
  /**
   * The pattern is its run and nothing else (ASCII characters, `\d` and `\w`, no CR or
   * line feed): a line the run is on is a line the pattern matches, so a search line by
   * line need not test the lines {@link linesHolding} tells it of.
   */
  readonly exact: boolean;
}

/**
 * Roughly how common each byte is in source code and prose, most common first. Only
 * used to pick which character of the run to look for; a poor guess costs time, not answers.
 */
const COMMON = ' \n\tetaoinsrlhdcupmfgyb.,_()=;w"\'vk/-:{}x0123456789<>*[]#$!&|+@?\\%^~`';

function frequency(byte: number): number {
  const k = COMMON.indexOf(String.fromCharCode(byte));
  return k === -1 ? 0 : COMMON.length - k;
}

const isLetter = (b: number) => (b >= 65 && b <= 90) || (b >= 97 && b <= 122);
const isDigit = (b: number) => b >= 48 && b <= 57;

/** How much a run narrows the search: a character counts more than a set. */
function weight(run: readonly RunElement[]): number {
  return run.reduce<number>((w, e) => w + (typeof e === 'number' ? 1 : 0.5), 0);
}

/**
 * Every run at the top level that every match contains (each with a character), if the
 * top level is a sequence. With `overlapping` (for an index that looks each run up alone,
 * in no order), an element that repeats at least once (`\w+`, `a{2,}`) also begins the
 * run after it, since its last time is next to what follows (so `\w+Error` gives a run of
 * a word character and `Error`); the runs may then share a character of a match, which
 * the line test's "in order and apart" would not allow.
 */
export function requiredRuns(topLevel: readonly TopLevelAtom[], overlapping = false): RunElement[][] {
  if (topLevel.some((a) => a.kind === 'alternation')) return [];
  const runs: RunElement[][] = [];
  let run: RunElement[] = [];
  // The element the atom just before put at the run's end, if it was one.
  let last: RunElement | undefined;
  const close = () => {
    // A run needs a character to look for; sets alone are everywhere.
    if (run.some((e) => typeof e === 'number')) runs.push(run);
    run = [];
  };
  for (const atom of topLevel) {
    if (atom.kind === 'character' && atom.value < 128) {
      run.push(atom.value);
      last = atom.value;
      continue;
    }
    if (atom.kind === 'set') {
      run.push(atom.set);
      last = atom.set;
      continue;
    }
    // The element before a quantifier is there at least once unless its least count is 0;
    // what follows it need not be next to its first time, so the run ends either way.
    if (atom.kind === 'quantifier' && atom.min === 0) run.pop();
    close();
    if (overlapping && atom.kind === 'quantifier' && atom.min > 0 && last !== undefined) run.push(last);
    last = undefined;
  }
  close();
  return runs;
}

/** The weightiest of the runs (the first of equal weight). */
function weightiest(runs: readonly RunElement[][]): RunElement[] {
  let best: RunElement[] = [];
  for (const run of runs) if (weight(run) > weight(best)) best = run;
  return best;
}

/** Which bytes each element accepts. */
function acceptedBytes(e: RunElement, caseInsensitive: boolean): Uint8Array {
  const table = new Uint8Array(256);
  for (let b = 0; b < 128; b++) {
    if (e === 'digit') table[b] = isDigit(b) ? 1 : 0;
    else if (e === 'word') table[b] = isLetter(b) || isDigit(b) || b === 95 ? 1 : 0;
    else table[b] = b === e || (caseInsensitive && isLetter(e) && (b | 0x20) === (e | 0x20)) ? 1 : 0;
  }
  return table;
}

/** One required run, compiled for looking it up in bytes. */
interface CompiledRun {
  readonly length: number;
  /** Which bytes each element accepts. */
  readonly tables: readonly Uint8Array[];
  /** The element looked for first (its rarest character), and the bytes it accepts. */
  readonly anchor: number;
  readonly anchorBytes: readonly number[];
  /** How common its anchor is ({@link frequency}; lower is rarer). */
  readonly cost: number;
  /** The run's bytes, where each element accepts one byte only: looked up whole (`bytesIndexOf`). */
  readonly needle?: Uint8Array;
  /**
   * Where the run has no needle: its longest stretch of elements that accept one byte each
   * (two or more, `foo` of `foo\d`), looked up whole, and where it starts in the run; the
   * rest of the run is checked around each place found.
   */
  readonly stretch?: { readonly bytes: Uint8Array; readonly at: number };
}

/**
 * Where bytes first appear in bytes, at or after `from` (-1: nowhere), as the runtime's
 * `Buffer` looks them up (a native substring search, some four times quicker here than
 * looking for the run's rarest byte and checking the rest in JavaScript); undefined
 * where the runtime has no `Buffer`, and the runs are looked up by their anchors.
 */
const bytesIndexOf = (globalThis as { Buffer?: { prototype: { indexOf: (this: Uint8Array, needle: Uint8Array, from: number) => number } } }).Buffer?.prototype.indexOf;

/** Where `needle` first appears in `bytes` at or after `from` (-1: nowhere); only for a run that has one (so `Buffer` is there). */
const needleAt = (bytes: Uint8Array, needle: Uint8Array, from: number): number => (bytesIndexOf as NonNullable<typeof bytesIndexOf>).call(bytes, needle, from);

function compileRun(run: readonly RunElement[], caseInsensitive: boolean): CompiledRun {
  const tables = run.map((e) => acceptedBytes(e, caseInsensitive));
  // Look for the rarest character of the run, then check the rest around it.
  let anchor = 0;
  let cost = Infinity;
  for (let k = 0; k < run.length; k++) {
    const e = run[k];
    if (typeof e !== 'number') continue;
    const c = caseInsensitive && isLetter(e) ? frequency(e | 0x20) + frequency(e & ~0x20) + 1 : frequency(e);
    if (c < cost) {
      anchor = k;
      cost = c;
    }
  }
  const anchorBytes: number[] = [];
  for (let b = 0; b < 128; b++) if (tables[anchor][b]) anchorBytes.push(b);
  const single = tables.map((t) => (t.indexOf(1) === t.lastIndexOf(1) ? t.indexOf(1) : -1));
  const needle = bytesIndexOf !== undefined && !single.includes(-1) ? Uint8Array.from(single) : undefined;
  const stretch = needle === undefined && bytesIndexOf !== undefined ? longestStretch(single) : undefined;
  return { length: run.length, tables, anchor, anchorBytes, cost, ...(needle === undefined ? {} : { needle }), ...(stretch === undefined ? {} : { stretch }) };
}

/** The longest stretch of one-byte elements (`single[k]` not -1), two or more long; the first of equal length. */
function longestStretch(single: readonly number[]): CompiledRun['stretch'] {
  let best: { at: number; length: number } | undefined;
  for (let k = 0; k < single.length; ) {
    if (single[k] === -1) {
      k++;
      continue;
    }
    let end = k;
    while (end < single.length && single[end] !== -1) end++;
    if (end - k >= 2 && (best === undefined || end - k > best.length)) best = { at: k, length: end - k };
    k = end;
  }
  return best === undefined ? undefined : { bytes: Uint8Array.from(single.slice(best.at, best.at + best.length)), at: best.at };
}

/** Where the run's bytes (its `needle`) first appear at or after `from`, looked up again only past the last place found. */
function nextNeedle(needle: Uint8Array, seen: Seen, bytes: Uint8Array, from: number): number {
  const at = seen.at[0];
  if (from >= seen.from[0] && (at === -1 || at >= from)) return at;
  const found = needleAt(bytes, needle, from);
  seen.from[0] = from;
  seen.at[0] = found;
  return found;
}

function matchesAt(r: CompiledRun, bytes: Uint8Array, start: number): boolean {
  for (let j = 0; j < r.tables.length; j++) {
    if (r.tables[j][bytes[start + j]] !== 1) return false;
  }
  return true;
}

/**
 * Where a run's anchor bytes were last looked up in one file: from where (`from`), and the
 * first place at or after it (`at`, -1: none). Looked up again only where a search starts
 * past that place, so a file read line by line is searched once for each anchor byte.
 */
interface Seen {
  readonly from: number[];
  readonly at: number[];
}

const unseen = (r: CompiledRun): Seen => ({ from: r.anchorBytes.map(() => Infinity), at: r.anchorBytes.map(() => -1) });

/** `seen` as {@link unseen} made it: nothing looked up yet. */
function forget(seen: Seen): void {
  seen.from.fill(Infinity);
  seen.at.fill(-1);
}

/** The first place of anchor byte `j` at or after `from`. */
function nextAnchor(r: CompiledRun, seen: Seen, bytes: Uint8Array, j: number, from: number): number {
  const at = seen.at[j];
  if (from >= seen.from[j] && (at === -1 || at >= from)) return at;
  const found = bytes.indexOf(r.anchorBytes[j], from);
  seen.from[j] = from;
  seen.at[j] = found;
  return found;
}

/**
 * Where the run first starts in `bytes` at or after `from`, ending at or before `to`
 * (-1: nowhere). `spend` is told of each false start, and says whether the budget is
 * spent: looking by a stretch then stops (the caller, seeing it spent, lets the bytes through).
 */
function findRun(r: CompiledRun, seen: Seen, bytes: Uint8Array, from: number, to: number, spend: () => boolean): number {
  if (r.needle !== undefined) {
    const at = nextNeedle(r.needle, seen, bytes, from);
    return at !== -1 && at + r.length <= to ? at : -1;
  }
  if (r.stretch !== undefined) {
    // Each place of the stretch, leftmost first: the first where the whole run fits is the run's first place.
    const { bytes: part, at: offset } = r.stretch;
    for (let i = nextNeedle(part, seen, bytes, from + offset); i !== -1; i = nextNeedle(part, seen, bytes, i + 1)) {
      const start = i - offset;
      if (start + r.length > to) return -1;
      if (matchesAt(r, bytes, start)) return start;
      if (spend()) return -1;
    }
    return -1;
  }
  let best = -1;
  for (let j = 0; j < r.anchorBytes.length; j++) {
    let i = nextAnchor(r, seen, bytes, j, from + r.anchor);
    while (i !== -1) {
      const start = i - r.anchor;
      if ((best !== -1 && start >= best) || start + r.length > to) break;
      if (matchesAt(r, bytes, start)) {
        best = start;
        break;
      }
      spend();
      i = nextAnchor(r, seen, bytes, j, i + 1);
    }
  }
  return best;
}

/**
 * A prefilter for a scanned pattern, or undefined when no run of ASCII text is certain
 * to be in every match. With `caseInsensitive`, ASCII letters match either case (without
 * the `u` flag no other character folds to an ASCII letter, and `\w` stays ASCII).
 */
export function literalPrefilter(topLevel: readonly TopLevelAtom[], caseInsensitive: boolean): LiteralPrefilter | undefined {
  const runs = requiredRuns(topLevel);
  const run = weightiest(runs);
  if (run.length === 0) return undefined;
  const chosen = compileRun(run, caseInsensitive);
  const compiled = runs.map((r) => compileRun(r, caseInsensitive));
  // The line test starts from the run whose anchor is rarest, then reads its line.
  let pivot = 0;
  for (let k = 1; k < compiled.length; k++) if (compiled[k].cost < compiled[pivot].cost) pivot = k;

  // What the line test's lookups found, kept from call to call (forgotten at each start)
  // rather than made for every file a search reads: undefined while a test is using them
  // (a visit that tested lines again would make its own).
  let spare: { readonly pivot: Seen; readonly runs: readonly Seen[] } | undefined = { pivot: unseen(compiled[pivot]), runs: compiled.map(unseen) };

  // Only characters and ASCII sets, at least one character, none a line's end: the run is the pattern.
  const exact = topLevel.every((a) => (a.kind === 'character' && a.value < 128 && a.value !== 10 && a.value !== 13) || a.kind === 'set');
  const mayMatch = (bytes: Uint8Array): boolean => {
    if (chosen.needle !== undefined) return needleAt(bytes, chosen.needle, 0) !== -1;
    // Past this many false starts, decoding costs less than looking on: let the file through.
    let budget = 64 + (bytes.length >> 4);
    let out = false;
    const spend = () => {
      if (--budget === 0) out = true;
      return out;
    };
    if (chosen.stretch !== undefined) {
      const found = findRun(chosen, unseen(chosen), bytes, 0, bytes.length, spend);
      return found !== -1 || out;
    }
    for (const a of chosen.anchorBytes) {
      let i = bytes.indexOf(a, chosen.anchor);
      while (i !== -1) {
        const start = i - chosen.anchor;
        if (start + chosen.length <= bytes.length && matchesAt(chosen, bytes, start)) return true;
        spend();
        if (out) return true;
        i = bytes.indexOf(a, i + 1);
      }
    }
    return false;
  };

  return {
    run,
    runs,
    indexRuns: requiredRuns(topLevel, true),
    exact,
    mayMatch,
    mayMatchLine(bytes) {
      return this.linesHolding(bytes, () => true) !== 'done';
    },
    linesHolding(bytes, visit) {
      // Past this many false starts (lines read in vain among them), decoding costs less
      // than looking on: let the file through. Each line is read a few times at most.
      let budget = 64 + (bytes.length >> 4);
      let out = false;
      const spend = () => {
        if (--budget <= 0) out = true;
        return out;
      };
      const p = compiled[pivot];
      const mine = spare ?? { pivot: unseen(p), runs: compiled.map(unseen) };
      spare = undefined;
      forget(mine.pivot);
      for (const s of mine.runs) forget(s);
      const pivotSeen = mine.pivot;
      const seen = mine.runs;
      try {
        let from = 0;
        for (;;) {
          const at = findRun(p, pivotSeen, bytes, from, bytes.length, spend);
          if (out) return 'unsure';
          if (at === -1) return 'done';
          const lineStart = at === 0 ? 0 : bytes.lastIndexOf(10, at - 1) + 1;
          const lf = bytes.indexOf(10, at);
          const lineEnd = lf === -1 ? bytes.length : lf;
          // Every run in order, each after the one before, within this line (leftmost first
          // is best: each run has a fixed length, so its first place ends first).
          // A lone run within its line needs no second look: none of it lies between the
          // line's start and `at`, as the line starts at or after `from`.
          let k = compiled.length === 1 && at + p.length <= lineEnd ? 1 : 0;
          for (let cursor = lineStart; k < compiled.length; k++) {
            const found = findRun(compiled[k], seen[k], bytes, cursor, lineEnd, spend);
            if (found === -1 || out) break;
            cursor = found + compiled[k].length;
          }
          if (out) return 'unsure';
          if (k === compiled.length && visit(lineStart, lineEnd)) return 'stopped';
          // A line read in vain counts as a false start too.
          spend();
          if (out) return 'unsure';
          if (lf === -1) return 'done';
          from = lf + 1;
        }
      } finally {
        spare = mine;
      }
    },
  };
}
