export { type FileText, type LineEndings, fileText, hasBom } from './file-text.ts';
export { type TextView, textNotes } from './notes.ts';
export { numberedLine } from './numbered-line.ts';
export { safeCut } from './cut.ts';
export { jsonLength } from './json-length.ts';
export { type InvalidSequence, type Utf8Layout, utf8Layout } from './utf8.ts';
export { invalidLines } from './notes.ts';
export { BINARY_SNIFF_BYTES, looksBinary } from './binary.ts';
