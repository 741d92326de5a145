/**
 * Checking what a caller asked for before any page is built (README, "Refusals"). The rule: a
 * bad request is refused with a PagingError naming the field, never read as something
 * else (a fractional offset is not rounded, a negative one is not clamped).
 */
import { PagingError, refusal } from './errors.ts';

/** What both page kinds take besides where to start and how much. */
export interface CommonInput {
  readonly path: string;
  readonly budget: number | undefined;
  readonly notes: readonly string[];
}

type Options = Readonly<Record<string, unknown>>;

function given(options: Options, field: string): boolean {
  return options[field] !== undefined;
}

/** The field's whole number (at least `least`), its fallback where absent, or a refusal. */
export function wholeNumber(options: Options, field: string, least: number, fallback: number): number {
  const value = options[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < least) {
    throw new PagingError(refusal.notWholeNumber(field, value, least));
  }
  return value;
}

/** Refuses a request that names both line and character positions. */
export function refuseBoth(options: Options): void {
  const lines = given(options, 'offset') || given(options, 'limit');
  const characters = given(options, 'offsetChars') || given(options, 'limitChars');
  if (lines && characters) throw new PagingError(refusal.notBoth());
}

/** The path, the budget and the caller's notes, checked. */
export function commonInput(options: Options): CommonInput {
  const path = options.path;
  if (typeof path !== 'string') throw new PagingError(refusal.notPath(path));
  const notes = options.notes ?? [];
  if (!Array.isArray(notes) || !notes.every((n) => typeof n === 'string')) {
    throw new PagingError(refusal.notNotes());
  }
  const budget = given(options, 'resultMaxChars') ? wholeNumber(options, 'resultMaxChars', 1, 0) : undefined;
  return { path, budget, notes };
}
