export { type LinePage, type LinePageOptions, type LineSpan, DEFAULT_LIMIT, linePage, linePageOfSpan } from './line-page.ts';
export { type CharacterPage, type CharacterPageOptions, type CharacterSpan, DEFAULT_LIMIT_CHARS, characterPage, characterPageOfSpan } from './char-page.ts';
export { PagingError } from './errors.ts';
export { LONG_LINE_CHARS, type LineWindow, lineWindow } from './long-line.ts';
export { type Rest, restMarker, startMarker } from './notes.ts';
