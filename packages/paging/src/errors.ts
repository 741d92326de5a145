/**
 * Why a page is refused, in the sentences a model reads. Every wording lives here so
 * tests and docs can refer to one place. The rule: each sentence says what is wrong
 * and what to do instead.
 */

/** A request a page cannot answer; `message` is the sentence to hand the caller. */
export class PagingError extends Error {
  override readonly name = 'PagingError';
}

/** What a number field is for, said after its name in a refusal. */
const FIELD_MEANING: Record<string, string> = {
  offset: 'the line to start from, 1 for the first',
  limit: 'the most lines to read',
  offsetChars: 'the index in the text to start from, 0 for the start',
  limitChars: 'the most characters to read',
  resultMaxChars: 'the most characters of the result that can reach you whole',
};

function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') {
    const s = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the string ${JSON.stringify(s)}`;
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function lines(n: number): string {
  return n === 1 ? '1 line' : `${n.toLocaleString('en-US')} lines`;
}

function characters(n: number): string {
  return n === 1 ? '1 character' : `${n.toLocaleString('en-US')} characters`;
}

/** The refusals, one function per kind. */
export const refusal = {
  notBoth: (): string =>
    'Give offset and limit to read lines, or offsetChars and limitChars to read characters, not both.',

  notWholeNumber: (field: string, value: unknown, least: number): string =>
    `${field} must be a whole number, ${least} or more (${FIELD_MEANING[field]}); got ${shown(value)}.`,

  notPath: (value: unknown): string => `path must be the file's path, as a string; got ${shown(value)}.`,

  notNotes: (): string => 'notes must be a list of sentences (strings) for the page to carry.',

  pastLastLine: (offset: number, totalLines: number): string =>
    totalLines === 0
      ? `offset=${offset} is past the end of the file, which is empty; read it with offset=1.`
      : `offset=${offset} is past the end of the file, which has ${lines(totalLines)}; give an offset from 1 to ${totalLines}.`,

  pastLastCharacter: (offsetChars: number, totalChars: number): string =>
    totalChars === 0
      ? `offsetChars=${offsetChars} is past the end of the file, which is empty; read it with offsetChars=0.`
      : `offsetChars=${offsetChars} is past the end of the file, which has ${characters(totalChars)}; ` +
        `give an offsetChars from 0 to ${totalChars - 1}.`,

  insidePair: (offsetChars: number, pairStart: number): string =>
    `offsetChars=${offsetChars} is inside a surrogate pair (one character, such as an emoji, stored as two ` +
    `UTF-16 units) that starts at ${pairStart}; read from offsetChars=${pairStart} instead.`,
};
