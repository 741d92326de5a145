/**
 * The one error search throws: a bad pattern or a bad option. Its message is a full
 * sentence (from `notes.ts`) that says what is wrong and what to do, ready to show a
 * model or a person; search never lets a raw SyntaxError out.
 */

/** A bad pattern or option, with a message that names it and says what to do. */
export class GrepError extends Error {
  override readonly name = 'GrepError';
}
