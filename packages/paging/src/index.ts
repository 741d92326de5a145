export { type LinePage, type LinePageOptions, linePage } from './line-page.ts';
export { type CharacterPage, type CharacterPageOptions, characterPage } from './char-page.ts';
export { PagingError } from './errors.ts';
