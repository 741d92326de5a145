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
  /** False only when the bytes cannot hold a match. */
  mayMatch(bytes: Uint8Array): boolean;
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

/** Every run at the top level that every match contains (each with a character), if the top level is a sequence. */
export function requiredRuns(topLevel: readonly TopLevelAtom[]): RunElement[][] {
  if (topLevel.some((a) => a.kind === 'alternation')) return [];
  const runs: RunElement[][] = [];
  let run: RunElement[] = [];
  const close = () => {
    // A run needs a character to look for; sets alone are everywhere.
    if (run.some((e) => typeof e === 'number')) runs.push(run);
    run = [];
  };
  for (const atom of topLevel) {
    if (atom.kind === 'character' && atom.value < 128) {
      run.push(atom.value);
    } else if (atom.kind === 'set') {
      run.push(atom.set);
    } else if (atom.kind === 'quantifier') {
      // The element before a quantifier is there at least once unless its least count is 0;
      // what follows it need not be next to its first time, so the run ends either way.
      if (atom.min === 0) run.pop();
      close();
    } else {
      close();
    }
  }
  close();
  return runs;
}

/** The weightiest of the required runs (the first of equal weight). */
function requiredRun(topLevel: readonly TopLevelAtom[]): RunElement[] {
  let best: RunElement[] = [];
  for (const run of requiredRuns(topLevel)) if (weight(run) > weight(best)) best = run;
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

/**
 * A prefilter for a scanned pattern, or undefined when no run of ASCII text is certain
 * to be in every match. With `caseInsensitive`, ASCII letters match either case (without
 * the `u` flag no other character folds to an ASCII letter, and `\w` stays ASCII).
 */
export function literalPrefilter(topLevel: readonly TopLevelAtom[], caseInsensitive: boolean): LiteralPrefilter | undefined {
  const run = requiredRun(topLevel);
  if (run.length === 0) return undefined;
  const tables = run.map((e) => acceptedBytes(e, caseInsensitive));

  // Look for the rarest character of the run, then check the rest around it.
  let anchor = 0;
  let anchorCost = Infinity;
  for (let k = 0; k < run.length; k++) {
    const e = run[k];
    if (typeof e !== 'number') continue;
    const cost = caseInsensitive && isLetter(e) ? frequency(e | 0x20) + frequency(e & ~0x20) + 1 : frequency(e);
    if (cost < anchorCost) {
      anchor = k;
      anchorCost = cost;
    }
  }
  const anchorBytes: number[] = [];
  for (let b = 0; b < 128; b++) if (tables[anchor][b]) anchorBytes.push(b);

  const matchesAt = (bytes: Uint8Array, start: number): boolean => {
    for (let j = 0; j < tables.length; j++) {
      if (tables[j][bytes[start + j]] !== 1) return false;
    }
    return true;
  };

  return {
    run,
    runs: requiredRuns(topLevel),
    mayMatch(bytes) {
      // Past this many false starts, decoding costs less than looking on: let the file through.
      let budget = 64 + (bytes.length >> 4);
      for (const a of anchorBytes) {
        let i = bytes.indexOf(a, anchor);
        while (i !== -1) {
          const start = i - anchor;
          if (start + run.length <= bytes.length && matchesAt(bytes, start)) return true;
          if (--budget === 0) return true;
          i = bytes.indexOf(a, i + 1);
        }
      }
      return false;
    },
  };
}
