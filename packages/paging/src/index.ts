export { type LinePage, type LinePageOptions, linePage } from './line-page.ts';
export { type CharacterPage, type CharacterPageOptions, characterPage } from './char-page.ts';
export { PagingError } from './errors.ts';
export { LONG_LINE_CHARS, type LineWindow, lineWindow } from './long-line.ts';
export { type Rest, restMarker, startMarker } from './notes.ts';
