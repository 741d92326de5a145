/**
 * A pattern compiled for search: which engine runs it, the expression for the whole
 * text, the test for a single line, and what the pattern's syntax allows (searching the
 * text at once, skipping files by their bytes). The one rule: the pattern means what it
 * means tested alone against each line read shows — every other form here (the whole
 * text at once, RE2 instead of JavaScript) is an optimisation that must agree.
 */
import { GrepError } from './grep-error.ts';
import { type LiteralPrefilter, literalPrefilter } from './literal-prefilter.ts';
import { namesBom, namesCr } from './names-cr.ts';
import { badPatternMessage } from './notes.ts';
import { scanPattern } from './pattern-syntax.ts';
import { type Re2Line, backtracksBadly, mayMatchLineFeed, re2Line, toRe2Syntax } from './re2.ts';

/** How a pattern is read. */
export interface PatternOptions {
  /** Adds the `i` flag. */
  readonly caseInsensitive: boolean;
  /** The pattern is a literal string, not a regular expression. */
  readonly fixedStrings: boolean;
  /** A match may span lines (the whole text is searched at once). */
  readonly multiline: boolean;
}

/** A compiled pattern and what search may do with it. */
export interface Matcher {
  /** The pattern as given. */
  readonly pattern: string;
  readonly options: PatternOptions;
  /** `'re2'`: every line is tested by the linear-time engine; `'js'`: by JavaScript's. */
  readonly engine: 'js' | 're2';
  /** Flags `gm` (and `i`): run over a whole text, `^`/`$` at line ends. */
  readonly whole: RegExp;
  /** No `g`, no `m` (`i` where asked): tested against one line, as the pattern means. */
  readonly line: RegExp;
  /** The RE2 form, where the pattern translates. */
  readonly re2?: Re2Line;
  /**
   * The whole text may be searched at once. False when the pattern looks around (a
   * lookaround at a line's edge would see the neighbouring line) or runs on RE2.
   */
  readonly wholeText: boolean;
  /** A match may hold a line feed; where not, the whole-text search needs no match object (only where it ends). */
  readonly mayMatchLf: boolean;
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

/** A literal string as a regular expression that matches exactly it. */
export function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Recently compiled matchers: a search compiles its pattern once, not once a file. */
const compiled = new Map<string, Matcher>();
const COMPILED_MAX = 16;

/** The matcher asked for last, and what it was asked for: a search asks again for every file it reads. */
let last: { readonly pattern: string; readonly flags: number; readonly matcher: Matcher } | undefined;

/** Compiles a pattern (once per pattern and options, kept for the next file); throws GrepError for a bad one. */
export function compileMatcher(pattern: string, options: PatternOptions): Matcher {
  const flags = (options.caseInsensitive ? 1 : 0) | (options.fixedStrings ? 2 : 0) | (options.multiline ? 4 : 0);
  if (last !== undefined && last.pattern === pattern && last.flags === flags) return last.matcher;
  const matcher = compileKept(pattern, options, flags);
  last = { pattern, flags, matcher };
  return matcher;
}

/** {@link compileMatcher} through the recently compiled (by `flags`, the options as bits): made where none is kept. */
function compileKept(pattern: string, options: PatternOptions, flags: number): Matcher {
  const key = `${flags}\0${pattern}`;
  const known = compiled.get(key);
  if (known !== undefined) return known;
  const matcher = compileNew(pattern, options);
  if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, matcher);
  return matcher;
}

/** RE2's form of a pattern, translated and compiled only when first asked. */
function lazyRe2(source: string, caseInsensitive: boolean): Re2Line | undefined {
  let made: Re2Line | undefined | null = null;
  const get = () => {
    if (made === null) made = re2Line(source, caseInsensitive);
    return made;
  };
  if (toRe2Syntax(source, caseInsensitive) === undefined) return undefined;
  // RE2 may still refuse what translates (a nesting too deep): JavaScript answers then.
  const js = new RegExp(source, caseInsensitive ? 'i' : '');
  return { firstMatch: (line) => get()?.firstMatch(line) ?? line.search(js) };
}

function compileNew(pattern: string, options: PatternOptions): Matcher {
  const source = options.fixedStrings ? escapeLiteral(pattern) : pattern;
  const i = options.caseInsensitive ? 'i' : '';
  const line = compile(source, i);
  const whole = compile(source, `gm${i}`);
  const scan = scanPattern(source);
  const prefilter = literalPrefilter(scan.topLevel, options.caseInsensitive);
  // A pattern that can backtrack exponentially runs on RE2 where it translates; the
  // rest on JavaScript's engine, which is faster on the patterns people mostly write.
  const re2 = !options.fixedStrings && !scan.lookaround ? lazyRe2(source, options.caseInsensitive) : undefined;
  const engine = re2 !== undefined && backtracksBadly(source) ? 're2' : 'js';
  return {
    pattern,
    options,
    engine,
    whole,
    line,
    ...(re2 === undefined ? {} : { re2 }),
    wholeText: !scan.lookaround && engine === 'js',
    mayMatchLf: mayMatchLineFeed(source),
    ...(prefilter === undefined ? {} : { prefilter }),
    namesCr: namesCr(source),
    namesBom: namesBom(source),
  };
}

/**
 * Where in `line` (as read shows it) the pattern first matches, or -1: by RE2 where the
 * matcher runs on it (JavaScript for a line with a surrogate half, which RE2 reads as one
 * character), else by JavaScript.
 */
export function firstMatchIn(matcher: Matcher, line: string): number {
  if (matcher.engine === 're2' && matcher.re2 !== undefined && !SURROGATE.test(line)) return matcher.re2.firstMatch(line);
  return line.search(matcher.line);
}
