/**
 * Skipping files without decoding them. Where every match of a pattern must contain a
 * run of ASCII characters (its top level is a sequence and the run is not quantified),
 * a file whose bytes lack that run has no matching line, and decoding it — the costliest
 * step of a search — can be skipped. The one rule: the filter may let a file through
 * that has no match, never turn away one that has; when unsure, it lets the file through.
 */
import type { TopLevelAtom } from './pattern-syntax.ts';

/** ASCII text every match contains, and a quick test for it on a file's bytes. */
export interface LiteralPrefilter {
  /** The run's bytes (ASCII, so the same in UTF-8 and in the decoded text). */
  readonly literal: Uint8Array;
  /** False only when the bytes cannot hold a match. */
  mayMatch(bytes: Uint8Array): boolean;
}

/**
 * Roughly how common each byte is in source code and prose, most common first. Only
 * used to pick which byte of the run to look for; a poor guess costs time, not answers.
 */
const COMMON = ' \n\tetaoinsrlhdcupmfgyb.,_()=;w"\'vk/-:{}x0123456789<>*[]#$!&|+@?\\%^~`';

function frequency(byte: number): number {
  const k = COMMON.indexOf(String.fromCharCode(byte));
  return k === -1 ? 0 : COMMON.length - k;
}

const isLetter = (b: number) => (b >= 65 && b <= 90) || (b >= 97 && b <= 122);

/** The longest unquantified run of ASCII characters at the top level, if the top level is a sequence. */
function requiredRun(topLevel: readonly TopLevelAtom[]): number[] {
  if (topLevel.some((a) => a.kind === 'alternation')) return [];
  let best: number[] = [];
  let run: number[] = [];
  const close = () => {
    if (run.length > best.length) best = run;
    run = [];
  };
  for (const atom of topLevel) {
    if (atom.kind === 'character' && atom.value < 128) {
      run.push(atom.value);
    } else if (atom.kind === 'quantifier') {
      // The character before a quantifier may be absent or repeated: drop it and end the run.
      run.pop();
      close();
    } else {
      close();
    }
  }
  close();
  return best;
}

/**
 * A prefilter for a scanned pattern, or undefined when no run of ASCII text is certain
 * to be in every match. With `caseInsensitive`, ASCII letters match either case (without
 * the `u` flag no other character folds to an ASCII letter).
 */
export function literalPrefilter(topLevel: readonly TopLevelAtom[], caseInsensitive: boolean): LiteralPrefilter | undefined {
  const run = requiredRun(topLevel);
  if (run.length === 0) return undefined;
  const literal = Uint8Array.from(caseInsensitive ? run.map((b) => (isLetter(b) ? b | 0x20 : b)) : run);
  const folds = (b: number) => caseInsensitive && isLetter(b);

  // Look for the rarest byte of the run, then compare the rest around it.
  let anchor = 0;
  let anchorCost = Infinity;
  for (let k = 0; k < literal.length; k++) {
    const b = literal[k];
    const cost = folds(b) ? frequency(b) + frequency(b & ~0x20) + 1 : frequency(b);
    if (cost < anchorCost) {
      anchor = k;
      anchorCost = cost;
    }
  }
  const anchorBytes = folds(literal[anchor]) ? [literal[anchor], literal[anchor] & ~0x20] : [literal[anchor]];

  const matchesAt = (bytes: Uint8Array, start: number): boolean => {
    for (let j = 0; j < literal.length; j++) {
      const b = bytes[start + j];
      const want = literal[j];
      if (b !== want && !(folds(want) && (b | 0x20) === want)) return false;
    }
    return true;
  };

  return {
    literal,
    mayMatch(bytes) {
      // Past this many false starts, decoding costs less than looking on: let the file through.
      let budget = 64 + (bytes.length >> 7);
      for (const a of anchorBytes) {
        let i = bytes.indexOf(a, anchor);
        while (i !== -1) {
          const start = i - anchor;
          if (start + literal.length <= bytes.length && matchesAt(bytes, start)) return true;
          if (--budget === 0) return true;
          i = bytes.indexOf(a, i + 1);
        }
      }
      return false;
    },
  };
}
