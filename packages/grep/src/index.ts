export {
  searchFiles,
  runMatchJob,
  indexTerms,
  type IndexTerm,
  scanAhead,
  type AheadScan,
  type GrepFile,
  type SearchOptions,
  type SearchSink,
  type SearchFacts,
  type FoundFile,
  type SkippedFile,
  type SkipReason,
  type MatchJob,
  type MatchJobResult,
  type MatchRunner,
} from './search.ts';
export { type LargeText, type StretchSizes, STRETCH_SIZES } from './stretches.ts';
export { search, matchesOf, type SearchAnswer, type FileMatches, type LineMatch } from './collect.ts';
export type { PatternOptions } from './matcher.ts';
export { FILE_TYPES, fileTypeFilter } from './file-types.ts';
export { SLOW_TEST_MS } from './scan.ts';
export { namesCr, namesBom } from './names-cr.ts';
export { GrepError } from './grep-error.ts';
