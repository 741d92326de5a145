export { search, type GrepFile, type SearchOptions, type SearchAnswer, type FileMatches, type SkippedFile, type FileVersion } from './search.ts';
export type { LineMatch } from './context.ts';
export { namesCr, namesBom } from './names-cr.ts';
export { GrepError } from './grep-error.ts';
