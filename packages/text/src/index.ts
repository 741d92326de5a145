export { type FileText, type LineEndings, fileText, hasBom } from './file-text.ts';
export { type TextView, textNotes } from './notes.ts';
export { numberedLine } from './numbered-line.ts';
export { safeCut } from './cut.ts';
export { jsonLength } from './json-length.ts';
export { BINARY_SNIFF_BYTES, looksBinary } from './binary.ts';
