/**
 * A pattern compiled for search: the expression for the whole text, the one for a single
 * line, and what the pattern's syntax allows (searching the text at once, skipping files
 * by their bytes). The one rule: the pattern means what it means tested alone against
 * each line read shows — every other form here is an optimisation that must agree.
 */
import { GrepError } from './grep-error.ts';
import { type LiteralPrefilter, literalPrefilter } from './literal-prefilter.ts';
import { namesBom, namesCr } from './names-cr.ts';
import { badPatternMessage } from './notes.ts';
import { scanPattern } from './pattern-syntax.ts';

/** A compiled pattern and what search may do with it. */
export interface Matcher {
  /** The pattern as given. */
  readonly pattern: string;
  /** Flags `gm` (and `i`): run over a whole text, `^`/`$` at line ends. */
  readonly whole: RegExp;
  /** No `g`, no `m` (`i` where asked): tested against one line, as the pattern means. */
  readonly line: RegExp;
  /**
   * The whole text may be searched at once. False when the pattern looks around: a
   * lookaround at a line's edge would see the neighbouring line, so each line is tested alone.
   */
  readonly wholeText: boolean;
  /** Text every match contains, for skipping a file by its bytes; absent when there is none. */
  readonly prefilter?: LiteralPrefilter;
  /** The pattern spells a CR (`namesCr`). */
  readonly namesCr: boolean;
  /** The pattern spells U+FEFF (`namesBom`). */
  readonly namesBom: boolean;
}

function compile(pattern: string, flags: string): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch (e) {
    const reason = (e instanceof Error ? e.message : String(e)).replace(/^Invalid regular expression:\s*/i, '');
    throw new GrepError(badPatternMessage(pattern, reason));
  }
}

/** Compiles a pattern (no flags but `i` where asked); throws GrepError for a bad one. */
export function compileMatcher(pattern: string, caseInsensitive: boolean): Matcher {
  const i = caseInsensitive ? 'i' : '';
  const line = compile(pattern, i);
  const whole = compile(pattern, `gm${i}`);
  const scan = scanPattern(pattern);
  const prefilter = literalPrefilter(scan.topLevel, caseInsensitive);
  return {
    pattern,
    whole,
    line,
    wholeText: !scan.lookaround,
    ...(prefilter === undefined ? {} : { prefilter }),
    namesCr: namesCr(pattern),
    namesBom: namesBom(pattern),
  };
}
