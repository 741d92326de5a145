/**
 * Whether bytes are a binary file: `@ws/text`'s one rule (a NUL byte in the first 8 KB),
 * the same grep uses, so a file grep passes over as binary is never stored as text.
 * Invalid UTF-8 is still text (a read shows it with a note: `@ws/text`'s README).
 */
export { looksBinary } from '@ws/text';
