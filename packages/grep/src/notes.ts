/**
 * Every sentence search writes — the answer's notes, the reasons a file was skipped,
 * the errors — kept here so tests and docs refer to one place. The one rule for notes:
 * a note comes only where the answer could mislead without it, a pattern naming a CR or
 * a BOM over files that have one; skipped files are named in no note.
 */

/** How many files a note names before it counts the rest. */
export const NAMED_FILES_MAX = 20;

/** Why a file with a NUL byte near its start was not searched. */
export const BINARY_REASON = 'binary (a NUL byte in its first 8 KB)';

/** Why a file larger than `maxFileSize` was not searched. */
export function overSizeReason(size: number, maxFileSize: number): string {
  return `over the size limit (${size} bytes; the limit is ${maxFileSize})`;
}

/** The error for a pattern the engine rejects; `reason` is the engine's own words. */
export function badPatternMessage(pattern: string, reason: string): string {
  return (
    `The pattern \`${pattern}\` is not a valid JavaScript regular expression (${reason}). ` +
    'Fix the pattern and search again; to find text as it is, put a backslash before each of ' +
    '\\ ^ $ . | ? * + ( ) [ ] { }.'
  );
}

/** The error for a pattern that is not a string. */
export function patternNotStringMessage(pattern: unknown): string {
  return `The pattern must be a string (a JavaScript regular expression); got ${describe(pattern)}.`;
}

/** The error for an option out of range or of the wrong type. */
export function badOptionMessage(field: string, value: unknown, expected: string): string {
  return `The option ${field} must be ${expected}; got ${describe(value)}. Fix it and search again.`;
}

/** What each option must be, as `badOptionMessage` says it. */
export const EXPECTED = {
  lines: 'a whole number of lines, 0 or more',
  bytes: 'a whole number of bytes, 0 or more',
  flag: 'true or false',
} as const;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return `a value of type ${Array.isArray(value) ? 'array' : typeof value}`;
}

/** What the notes need to know about one searched file (or one version of it). */
export interface NoteFacts {
  readonly path: string;
  /** `'conflicting-disk'` for a conflict's disk version. */
  readonly version?: 'conflicting-disk';
  /** Set when the file has CRLF line ends. */
  readonly crlfEnds?: 'CRLF' | 'mixed';
  /** The file starts with a UTF-8 BOM. */
  readonly bom: boolean;
}

/** What the pattern names, and where the host keeps files. */
export interface NoteContext {
  readonly namesCr: boolean;
  readonly namesBom: boolean;
  /** The host has a direct mount: a character read there shows disk's file. */
  readonly onDirectMountHost: boolean;
}

function fileList(names: readonly string[]): string {
  const shown = names.slice(0, NAMED_FILES_MAX).join(', ');
  const rest = names.length - NAMED_FILES_MAX;
  return rest > 0 ? `${shown} and ${rest} more; narrow with path or glob` : shown;
}

function count(n: number): string {
  return n === 1 ? '1 file searched has' : `${n} files searched have`;
}

function whereCharacterReadShows(direct: boolean): string {
  return direct ? 'in the workspace\u2019s copy, or in disk\u2019s file on a direct mount' : 'in the workspace\u2019s copy';
}

/** Each path once, in first-seen order, with its workspace copy and its conflicting-disk version. */
function byPath(facts: readonly NoteFacts[]): { path: string; copy?: NoteFacts; disk?: NoteFacts }[] {
  const entries = new Map<string, { path: string; copy?: NoteFacts; disk?: NoteFacts }>();
  for (const f of facts) {
    let entry = entries.get(f.path);
    if (entry === undefined) {
      entry = { path: f.path };
      entries.set(f.path, entry);
    }
    if (f.version === 'conflicting-disk') entry.disk ??= f;
    else entry.copy ??= f;
  }
  return [...entries.values()];
}

function crNote(named: readonly string[], direct: boolean): string {
  return (
    `This pattern names a CR, and ${count(named.length)} CRLF line ends: ${fileList(named)}. ` +
    'Lines are matched as read shows them, without a CRLF end\u2019s CR unless the line\u2019s own text ends in a CR; ' +
    `a character read (offsetChars) shows every CR ${whereCharacterReadShows(direct)}.`
  );
}

function bomNote(named: readonly string[], direct: boolean): string {
  return (
    `This pattern names U+FEFF, and ${count(named.length)} a UTF-8 BOM at its start: ${fileList(named)}. ` +
    'A BOM is not part of the first line as read shows it, so lines are matched without it; ' +
    `a character read (offsetChars) shows it ${whereCharacterReadShows(direct)}.`
  );
}

/**
 * The answer's note, or undefined when none applies: where the pattern names a CR, the
 * files with CRLF line ends; where it names U+FEFF, the files that start with a BOM.
 * Each file is named once per note, in the order given; a conflict's disk version is
 * named as such only where the workspace copy lacks the character.
 */
export function answerNote(facts: readonly NoteFacts[], context: NoteContext): string | undefined {
  const notes: string[] = [];
  const entries = byPath(facts);
  if (context.namesCr) {
    const named: string[] = [];
    for (const { path, copy, disk } of entries) {
      if (copy?.crlfEnds) named.push(`${path} (${copy.crlfEnds})`);
      else if (disk?.crlfEnds) named.push(`${path} (${disk.crlfEnds} in its conflicting-disk version)`);
    }
    if (named.length > 0) notes.push(crNote(named, context.onDirectMountHost));
  }
  if (context.namesBom) {
    const named: string[] = [];
    for (const { path, copy, disk } of entries) {
      if (copy?.bom) named.push(path);
      else if (disk?.bom) named.push(`${path} (BOM in its conflicting-disk version)`);
    }
    if (named.length > 0) notes.push(bomNote(named, context.onDirectMountHost));
  }
  return notes.length > 0 ? notes.join(' ') : undefined;
}
