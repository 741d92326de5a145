/**
 * Whether a pattern names a CR or a BOM (U+FEFF), in any spelling the engine reads as
 * that one character. Search uses it to know when its answer must say where a CRLF
 * end's CR or a file's BOM went, since lines as read shows them hold neither.
 * The one rule: decide by how the engine reads the pattern, not by its spelling —
 * `\\r` names no CR and `\15` names one.
 */
import { scanPattern } from './pattern-syntax.ts';

const CR = 0x0d;
const BOM = 0xfeff;

/**
 * True when the pattern spells a CR, inside or outside a character class: a literal CR,
 * `\r`, `\x0d`, `\u000d` (either case), `\cM`, `\cm`, `\015` (or `\15` while there are
 * fewer than 15 groups), or a backslash before a literal CR. An escaped backslash
 * (`\\r`) and identity escapes (`\X0D`, `\CM`) do not. The pattern is read without the
 * `u` flag, as search compiles it.
 */
export function namesCr(pattern: string): boolean {
  return scanPattern(pattern).characters.includes(CR);
}

/**
 * True when the pattern spells U+FEFF (the BOM): a literal one, `\uFEFF` in either
 * case, or a backslash before a literal one, inside or outside a character class.
 */
export function namesBom(pattern: string): boolean {
  return scanPattern(pattern).characters.includes(BOM);
}
