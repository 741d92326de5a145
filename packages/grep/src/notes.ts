/**
 * Every sentence search writes — its errors — kept here so tests and docs refer to one
 * place. The one rule: search reports facts (data), and its callers word them for their
 * readers; the only sentences here are refusals, each saying what is wrong and what to do.
 */

/** How much of an input an error repeats: a 10 MB pattern must not make a 10 MB error. */
export const ECHO_MAX_CHARS = 200;

/** `text` as an error repeats it: at most {@link ECHO_MAX_CHARS} characters, then "…". */
function echoed(text: string): string {
  return text.length > ECHO_MAX_CHARS ? `${text.slice(0, ECHO_MAX_CHARS)}…` : text;
}

/** The error for a pattern the engine rejects; `reason` is the engine's own words (which may repeat the pattern). */
export function badPatternMessage(pattern: string, reason: string): string {
  return (
    `The pattern \`${echoed(pattern)}\` is not a valid JavaScript regular expression (${echoed(reason)}). ` +
    'Fix the pattern and search again; to find text as it is, put a backslash before each of ' +
    '\\ ^ $ . | ? * + ( ) [ ] { }.'
  );
}

/** The error for a pattern that is not a string. */
export function patternNotStringMessage(pattern: unknown): string {
  return `The pattern must be a string (a JavaScript regular expression); got ${describe(pattern)}.`;
}

/** The error for an option out of range or of the wrong type. */
export function badOptionMessage(field: string, value: unknown, expected: string): string {
  return `The option ${field} must be ${expected}; got ${describe(value)}. Fix it and search again.`;
}

/** What each option must be, as `badOptionMessage` says it. */
export const EXPECTED = {
  lines: 'a whole number of lines, 0 or more',
  bytes: 'a whole number of bytes, 0 or more',
  flag: 'true or false',
  milliseconds: 'a whole number of milliseconds, 0 or more',
} as const;

/** The error for a file type search does not know. */
export function unknownTypeMessage(type: string, known: readonly string[]): string {
  return `There is no file type ${JSON.stringify(echoed(type))}; the types are ${known.join(', ')}.`;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return `a value of type ${Array.isArray(value) ? 'array' : typeof value}`;
}
