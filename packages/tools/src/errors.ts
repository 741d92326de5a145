/**
 * Every sentence `@ws/tools` says to a model or a person, in one place so tests and the
 * README can refer to it. The one rule: each says what is wrong and what to do next.
 */
import type { EditProblem } from './edit-plan.ts';

/** `a`, `a and b`, `a, b and c`. */
function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** How much of a caller's input a sentence repeats: a 10 MB input must not make a 10 MB error. */
export const ECHO_MAX_CHARS = 200;

/** `s` quoted as a sentence repeats it: at most `max` characters, then "…". */
export function quoted(s: string, max = ECHO_MAX_CHARS): string {
  const cut = s.length > max ? `${s.slice(0, max)}…` : s;
  return JSON.stringify(cut);
}

/** `s` as a sentence repeats it unquoted (a glob, a path): at most {@link ECHO_MAX_CHARS} characters, then "…". */
function echoed(s: string): string {
  return s.length > ECHO_MAX_CHARS ? `${s.slice(0, ECHO_MAX_CHARS)}…` : s;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

// ── calls and inputs ────────────────────────────────────────────────────────────

/** A tool name that is not one of the tools. */
export function unknownTool(name: unknown, known: readonly string[]): string {
  return `There is no tool named ${quoted(String(name))}; the tools are ${list(known)}.`;
}

/** A field (or the whole input, `field` undefined) that is not what the schema allows. */
export function invalidInput(tool: string, field: string | undefined, allowed: string, got: string): string {
  if (field === undefined) return `${tool} takes ${allowed}; it got ${got}.`;
  if (got === 'nothing') return `${tool} needs "${field}": ${allowed}.`;
  return `${tool}'s "${field}" must be ${allowed}; it got ${got}.`;
}

/** Fields the tool does not take. */
export function unknownFields(tool: string, at: string | undefined, keys: readonly string[], known: readonly string[]): string {
  const where = at === undefined ? tool : `${tool}'s "${at}"`;
  const names = keys.slice(0, 20).map((k) => quoted(k));
  return `${where} has no field${keys.length === 1 ? '' : 's'} ${list(names)}; it takes ${list(known)}.`;
}

/** A call's resultMaxChars that is not a whole number of 1 or more. */
export function badBudget(got: unknown): string {
  return `resultMaxChars must be a whole number, 1 or more; the call gave ${echoed(JSON.stringify(got) ?? String(got))}. Leave it out to take the whole result.`;
}

/** A call cancelled before it began. */
export function cancelled(tool: string): string {
  return `${tool} was cancelled before it began; nothing was changed.`;
}

/** A fault inside the tools; the details went to the operator's log. */
export function internalError(tool: string): string {
  return `${tool} failed inside ws (the details were logged for the operator); nothing more is known. Try again, or try another way.`;
}

// ── paths ───────────────────────────────────────────────────────────────────────

/** A path longer than any file system takes. */
export function pathTooLong(raw: string, max: number): string {
  return `The path ${quoted(raw)} is ${raw.length.toLocaleString('en-US')} characters long; no file system here takes a path over ${max.toLocaleString('en-US')}.`;
}

/** A path with a part longer than a file name may be. */
export function nameTooLong(part: string, max: number): string {
  return `The path has a part ${quoted(part)} longer than ${max} bytes, which no file or directory name can be.`;
}

/** A path with a NUL character. */
export function nulInPath(raw: string): string {
  return `The path ${quoted(raw)} holds a NUL character, which no file name can; write the path without it.`;
}

/** An absolute path; `guesses`: the mount paths it names (it lies in a mount's directory), else an example under mount `example`. */
export function absolutePath(raw: string, example: string, guesses: readonly string[] = []): string {
  const hint = guesses.length === 0 ? `, as in ${example}/src/a.ts.` : `: did you mean ${guesses.map(echoed).join(' or ')}?`;
  return `The path ${quoted(raw)} is absolute; paths begin with a mount name${hint}`;
}

/** A path with backslashes. */
export function backslashPath(raw: string, example: string): string {
  return `The path ${quoted(raw)} has a backslash; separate a path's parts with /, as in ${example}/src/a.ts.`;
}

/** A path with a `..` segment. */
export function parentSegment(raw: string, example: string): string {
  return `The path ${quoted(raw)} has a ".." part, which could leave its mount; name the path from the mount, as in ${example}/src/a.ts.`;
}

/** A path whose first part is not a mount; `example` names a mount for the example. */
export function unknownMount(raw: string, name: string, mounts: readonly string[], guesses: readonly string[], example: string): string {
  const known = mounts.length === 0 ? 'this workspace has no mounts' : `the mounts are ${list(mounts)}`;
  const start = name === '' ? `The path ${quoted(raw)} names no mount` : `There is no mount named ${quoted(name)}`;
  const hint = guesses.length === 0 ? `paths begin with a mount name, as in ${example}/src/a.ts` : `did you mean ${guesses.map(echoed).join(' or ')}?`;
  return `${start}; ${known}: ${hint}`.replace(/([^?])$/, '$1.');
}

/** A `mount` field naming no mount. */
export function noSuchMount(name: string, mounts: readonly string[]): string {
  return `There is no mount named ${quoted(name)}; the mounts are ${list(mounts)}.`;
}

/** Both `path` and `mount` given to a tool that takes one. */
export function pathOrMount(tool: string): string {
  return `${tool} takes a path or a mount, not both; a path already names its mount.`;
}

// ── reading and listing ─────────────────────────────────────────────────────────

/** `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** Nothing at a path; close paths, if any. */
export function missing(path: string, suggestions: readonly string[]): string {
  if (suggestions.length === 0) return `${path} does not exist; find files with glob or ls.`;
  return `${path} does not exist. Did you mean ${orList(suggestions)}?`;
}

/** A directory given to a tool that reads or changes a file. */
export function isDirectory(path: string, tool: string): string {
  return tool === 'read'
    ? `${path} is a directory; list it with ls, or read a file inside it.`
    : `${path} is a directory; ${tool} changes one file at a time.`;
}

/** A binary file given to read. */
export function binaryRead(path: string, size: number): string {
  return `${path} is a binary file (${plural(size, 'byte')}); read shows text only.`;
}

/** The note a large file's page carries (the README's "Large files"). */
export function largeFileNote(size: number, max: number): string {
  return (
    `This file is ${size.toLocaleString('en-US')} bytes, over the mount's limit of ${max.toLocaleString('en-US')}: ` +
    'it is paged straight from disk, read-only, and is too large to store or edit.'
  );
}

/** An edit, write or move of a file over the mount's limit. */
export function largeFileChange(path: string, size: number, max: number): string {
  return (
    `${path} is ${size.toLocaleString('en-US')} bytes, over the mount's limit of ${max.toLocaleString('en-US')}: ` +
    'read pages it straight from disk, but it is too large to store or edit.'
  );
}

/** Why diff or move passes over a large file: a clause after its path. */
export function largeFileWhy(size: number): string {
  return `is ${size.toLocaleString('en-US')} bytes, over the mount's limit: too large to store or edit`;
}

/** A large file that changed on disk between two stretches of one page. */
export function largeFileChanged(path: string): string {
  return `${path} changed on disk while it was read; read it again.`;
}

/** An image whose base64 does not fit the budget. */
export function imageTooLarge(path: string, size: number, length: number, budget: number): string {
  return `${path} is an image of ${plural(size, 'byte')}: ${length} characters as base64, over this call's limit of ${budget}; read shows an image whole or not at all.`;
}

/** A list answer cut to its budget. */
export function listCut(what: string, shown: number, total: number, narrow: string): string {
  return `Showing the first ${shown} of ${total} ${what}; ${total - shown} more not shown. ${narrow}`;
}

/** A walk that passed things over: `12 ignored, 2 editor swap or backup files`. */
export function passedOver(counts: Readonly<Record<string, number>>): string | undefined {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([why, n]) => `${n} ${why}`);
  return parts.length === 0 ? undefined : `The walk passed over ${list(parts)}.`;
}

/** A glob that matched nothing; `mount` names one of the workspace's mounts for the example. */
export function globNone(pattern: string, mount: string): string {
  return `No file matches ${echoed(pattern)}. Patterns are mount-prefixed (${mount}/**/*.ts); check the mount name and the directory.`;
}

// ── changing files ──────────────────────────────────────────────────────────────

/** A change asked of a read-only mount. */
export function readOnly(mount: string, tool: string): string {
  return `Mount ${mount} is read-only; ${tool} cannot change it. Change files in a mount that is not read-only.`;
}

/** A binary file given to edit. */
export function binaryEdit(path: string): string {
  return `${path} is a binary file; edit changes text only. Use write to replace it whole.`;
}

/** A missing file given to edit. */
export function missingEdit(path: string, suggestions: readonly string[]): string {
  const guess = suggestions.length === 0 ? '' : ` Did you mean ${orList(suggestions)}?`;
  return `${path} does not exist.${guess} To create a file, use write.`;
}

/** A path with no file to write to: the mount root. */
export function mountRootChange(path: string, tool: string): string {
  return `${path} is a mount's root; ${tool} needs a file inside it, as in ${path}/a.txt.`;
}

/** The most problems an edit's answer names one by one. */
export const MAX_LISTED_PROBLEMS = 20;

/** One planner problem as a sentence; `edit` is the call's edit number, `single` for a plain `edit` call. */
export function editProblem(p: EditProblem, path: string, number: (index: number) => number, single: boolean): string {
  const who = (i: number) => (single ? 'oldString' : `Edit ${number(i)}'s oldString`);
  switch (p.kind) {
    case 'invalid-utf8':
      return `${path} is not valid UTF-8, so edit refuses it${single ? '' : ` (edit${p.edits.length === 1 ? '' : 's'} ${list(p.edits.map((i) => String(number(i))))})`}; use write to replace it whole.`;
    case 'empty':
      return `${who(p.edit)} is empty; give the text to replace, or use write for a whole file.`;
    case 'unchanged':
      return `${who(p.edit)} and its newString are the same text, so nothing would change; give the text as it should become.`;
    case 'not-found': {
      if (p.empty) return `${who(p.edit)} was not found in ${path}, which is empty; use write to give it content.`;
      if (p.numbered) {
        return `${who(p.edit)} was not found in ${path}, but would be without read's line numbers: leave out each line's number and the tab after it.`;
      }
      const missingLine = p.missing ? ` Its line ${p.missing.line}, ${quoted(p.missing.text)}, appears nowhere in the file.` : '';
      const nearest = p.nearest
        ? ` The nearest line is ${p.nearest.line}: ${quoted(p.nearest.text)}; check whitespace and spelling, or read the file again.`
        : ' Read the file again and copy the text exactly.';
      return `${who(p.edit)} was not found in ${path}.${missingLine}${nearest}`;
    }
    case 'not-unique': {
      const more = p.count > p.lines.length ? ` and ${p.count - p.lines.length} more` : '';
      return `${who(p.edit)} occurs ${p.count} times in ${path}, at lines ${list(p.lines.map(String))}${more}; include more of the surrounding text to pick one, or set replaceAll to change every one.`;
    }
    case 'spans-invalid':
      return `${who(p.edit)} matches text on line ${p.line} of ${path} that holds bytes that are not UTF-8 (shown as U+FFFD); ws keeps such bytes as they are and cannot write them from text. Edit around them: end oldString before the U+FFFD or begin it after.`;
    case 'replacement-in-new':
      return `${single ? 'newString' : `Edit ${number(p.edit)}'s newString`} holds U+FFFD, and ${path} is not valid UTF-8, where U+FFFD shows bytes that are not UTF-8; ws would write the character (EF BF BD), not those bytes. Leave the U+FFFD out: edit around it.`;
    case 'clash':
      return `Edits ${number(p.other)} and ${number(p.edit)} both change text at line ${p.line} of ${path}; edits are located in the file as it was before the call, so make them one edit.`;
  }
}

/** The answer when an edit call stored nothing: every problem, the first 20 named. */
export function editsRefused(sentences: readonly string[], single: boolean): string {
  if (single) return sentences[0];
  const shown = sentences.slice(0, MAX_LISTED_PROBLEMS).map((s) => `- ${s}`);
  const more = sentences.length > MAX_LISTED_PROBLEMS ? [`- and ${sentences.length - MAX_LISTED_PROBLEMS} more.`] : [];
  return [`Nothing was stored: ${plural(sentences.length, 'problem')}.`, ...shown, ...more].join('\n');
}

/** A receipt cut to its budget. */
export function receiptCut(shown: number, total: number): string {
  return `All ${total} edits were stored; this receipt lists the first ${shown}. Read the files to see the rest.`;
}

/** A commit a mount refused; `undone` names mounts whose part was taken back. */
export function commitRefused(message: string, undone: readonly string[]): string {
  const back = undone.length === 0 ? '' : ` The changes already stored in ${list(undone)} were taken back.`;
  // A mount's sentence that says so itself is not told it twice.
  return /nothing was stored/i.test(message) ? `${message}${back}` : `Nothing was stored: ${message}${back}`;
}

/** Edits planned again after a file changed under them (someone saved), refused on the new text. */
export function replanRefused(changed: readonly string[], refused: string): string {
  return `${list(changed)} changed while the call was being stored (someone saved), so it was planned again on the new text: ${refused}`;
}

/** A receipt's note where edits were planned again on a file that changed under them, and applied there. */
export function replannedNote(changed: readonly string[]): string {
  return `${list(changed)} changed after ${changed.length === 1 ? 'it was' : 'they were'} read (someone saved), so the edits were planned again on the new text and applied there; read again to see the other changes.`;
}

/** A cross-mount commit whose undo failed: say exactly what stayed stored. */
export function commitPartly(message: string, stored: readonly string[]): string {
  return `Only part of the call was stored: ${message} ${list(stored)} kept the new text and could not be taken back; read them and fix by hand.`;
}

/** A string field holding half of a UTF-16 surrogate pair, which UTF-8 cannot store. */
export function loneSurrogate(field: string): string {
  return `${field} holds a lone surrogate (half of a UTF-16 pair), which UTF-8 cannot store; send whole characters.`;
}

/** A report whose lists were cut to fit the budget; `wayOn` says how this tool's caller sees the rest. */
export function reportCut(shown: string, wayOn: string): string {
  return `Lists were cut to fit resultMaxChars: ${shown}. ${wayOn}`;
}

/** How to see the rest of a cut report, per tool: only ways the tool (or another) really takes. */
export const reportWayOn = {
  sync: 'Narrow with path (a directory or a file) to see the rest.',
  materialize: 'Narrow with path (a directory or a file) to see the rest.',
  status: 'To see every path, list the mount with ls and recursive: true (each entry shows its state), continuing with offset.',
} as const;

// ── grep, ls and glob pages ─────────────────────────────────────────────────────

/** Why grep did not search a file larger than its mount's limit. */
export function overSize(limit: number): string {
  return `over the mount's size limit (${limit} bytes)`;
}

/** Why grep did not search a binary file. */
export const BINARY_SKIP = 'binary (a NUL byte in its first 8 KB)';

/** Why grep with `multiline` did not search a file over the mount's size limit. */
export const LARGE_MULTILINE_SKIP =
  "over the mount's size limit, so searched only line by line: a multiline match may span any number of lines, and the file is never held whole (search it without multiline)";

/** The lines of large files too long to hold (over `mib` MiB), which grep did not search. */
export function grepUnsearched(total: number, named: readonly string[], mib: number): string {
  const more = total > named.length ? ` and ${total - named.length} more` : '';
  const one = total === 1;
  return (
    `${plural(total, 'line')} of files over the size limit ${one ? 'is' : 'are'} longer than ${mib} MiB and ${one ? 'was' : 'were'} not searched; ` +
    `whether ${one ? 'it matches' : 'they match'} is unknown: ${named.join(', ')}${more}. read pages such a line by characters (offsetChars, limitChars).`
  );
}

/** Large files that changed while grep searched them: each path with the first line not searched. */
export function grepChanged(files: readonly { path: string; line: number }[]): string {
  const list = files.map((f) => `${f.path} from line ${f.line.toLocaleString('en-US')}`).join(', ');
  const one = files.length === 1;
  return (
    `${one ? 'A file' : 'Files'} changed on disk while ${one ? 'it was' : 'they were'} searched and ${one ? 'was' : 'were'} not searched further: ${list}; ` +
    `the matches before are from the version first seen. Search again.`
  );
}

/** How many names a skipped reason lists before it counts the rest. */
export const SKIPPED_NAMES_MAX = 5;

/** How many files a CR or BOM note names before it counts the rest. */
export const NOTED_FILES_MAX = 20;

/**
 * Where a page of a listing stopped, and how to go on: `continue with offset=N` while
 * more follow; on a later page that ends the listing, that nothing more follows.
 */
export function pageNote(what: string, offset: number, shown: number, total: number): string | undefined {
  const n = (x: number) => x.toLocaleString('en-US');
  if (offset >= total && offset > 0) return `offset=${offset} is past the end: there are ${n(total)} ${what}; nothing more follows.`;
  if (offset + shown < total) {
    return `Showing ${what} ${n(offset + 1)}-${n(offset + shown)} of ${n(total)}; continue with offset=${offset + shown}.`;
  }
  return offset === 0 ? undefined : `Showing ${what} ${n(offset + 1)}-${n(total)} of ${n(total)}; nothing more follows.`;
}

/** A page whose first result did not fit whole: its context was left out. */
export function contextLeftOut(line: number): string {
  return `The context of line ${line} was left out to fit resultMaxChars; ask with a larger resultMaxChars or fewer context lines to see it.`;
}

/** Where the deadline stopped a search. */
export function grepStopped(seconds: number, path: string, line: number, lost: boolean, large = false): string {
  const lostPart = lost ? ` (its matches were not counted)` : '';
  const largePart = large
    ? ` ${path} is over the size limit and is searched from its start each time: a faster pattern (a literal with fixedStrings, no lookarounds) or a longer deadline (the host's grepTimeoutMs) reaches further.`
    : '';
  return (
    `The search stopped at its ${seconds} s deadline at line ${line.toLocaleString('en-US')} of ${path}${lostPart}; the files after it were not searched, ` +
    `so the counts cover only what was searched. Search the rest with a path, glob or type that leaves out what was searched, or a simpler pattern.${largePart}`
  );
}

/** Lines on which the pattern's engine gave up. */
export function grepGaveUp(total: number, named: readonly string[]): string {
  const more = total > named.length ? ` and ${total - named.length} more` : '';
  return (
    `The pattern gave up on ${plural(total, 'line')}; whether ${total === 1 ? 'it matches' : 'they match'} is unknown: ${named.join(', ')}${more}. ` +
    'A pattern without lookarounds or backreferences runs on a linear-time engine that never gives up.'
  );
}

function fileNames(names: readonly string[]): string {
  const shown = names.slice(0, NOTED_FILES_MAX).join(', ');
  const rest = names.length - NOTED_FILES_MAX;
  return rest > 0 ? `${shown} and ${rest} more; narrow with path or glob` : shown;
}

function searchedHave(n: number): string {
  return n === 1 ? '1 file searched has' : `${n} files searched have`;
}

function whereCharacterReadShows(direct: boolean): string {
  return direct ? 'in the workspace\u2019s copy, or in disk\u2019s file on a direct mount' : 'in the workspace\u2019s copy';
}

/** A pattern naming a CR over files with CRLF ends (the README's "grep's CR and BOM notes"). */
export function grepCrNote(named: readonly string[], direct: boolean): string {
  return (
    `This pattern names a CR, and ${searchedHave(named.length)} CRLF line ends: ${fileNames(named)}. ` +
    'Lines are matched as read shows them, without a CRLF end\u2019s CR unless the line\u2019s own text ends in a CR; ' +
    `a character read (offsetChars) shows every CR ${whereCharacterReadShows(direct)}.`
  );
}

/** A pattern naming U+FEFF over files that start with a BOM. */
export function grepBomNote(named: readonly string[], direct: boolean): string {
  return (
    `This pattern names U+FEFF, and ${searchedHave(named.length)} a UTF-8 BOM at its start: ${fileNames(named)}. ` +
    'A BOM is not part of the first line as read shows it, so lines are matched without it; ' +
    `a character read (offsetChars) shows it ${whereCharacterReadShows(direct)}.`
  );
}

/** A CR or BOM file named by its conflicting-disk version only. */
export function inDiskVersion(path: string, what: string): string {
  return `${path} (${what} in its conflicting-disk version)`;
}

// ── drafts: diff, versions, discard, restore, move ──────────────────────────────

/** A store-backed mount that lacks a method a tool needs (a mount built before the tool). */
export function notOnThisMount(mount: string, tool: string): string {
  return `Mount ${mount} does not offer ${tool} yet: this ws's store-backed mount lacks it. Nothing was changed.`;
}

/** A tool about drafts or versions asked of a direct mount. */
export function directHasNoDrafts(mount: string, tool: string): string {
  return `${mount} is a direct mount: its changes go to disk at once and it keeps no drafts or versions, so ${tool} has nothing to act on there.`;
}

/** diff on a direct mount: said in the answer's note. */
export function directNothingToCompare(mount: string): string {
  return `${mount} is a direct mount: its changes go to disk at once, so there is no workspace copy to compare with disk's.`;
}

/** diff where the workspace's copy is disk's everywhere asked. */
export function noDrafts(where: string): string {
  return `No drafts in ${where}: the workspace's copy is disk's.`;
}

/** What `sync` says of drafts it kept (disk had not changed them): the words a store-backed mount's sync report uses. */
export const keptDraftsNote =
  'sync kept these drafts: disk has not changed them since the workspace and disk last agreed. See what they change with diff; drop one with discard; write them to disk with materialize.';

/** What `status` adds where a mount has drafts, deletions or conflicts. */
export const draftsStatusNote =
  'diff shows what the drafts change; discard drops one (it stays in history); materialize writes them to disk.';

/** A version name read or restore cannot find for a path. */
export function noSuchVersion(path: string, version: string): string {
  return `${path} has no version ${quoted(version)}; history lists its versions, or use "disk" or "agreed".`;
}

/** `agreed` asked where the store records no agreement for the path. */
export function noAgreedVersion(path: string): string {
  return `The store records no version of ${path} that disk and the workspace agreed on; read it with version "disk", or list its versions with history.`;
}

/** The note a page of another version carries. */
export function versionNote(version: string): string {
  if (version === 'disk') return 'This page shows disk’s copy, read-only: an edit changes the workspace’s copy, not this one.';
  if (version === 'agreed') return 'This page shows the last version disk and the workspace agreed on, read-only; restore makes it the draft.';
  return `This page shows version ${quoted(version)}, read-only; restore makes it the draft.`;
}

/** read asked for a version that is an absence. */
export function versionAbsent(path: string, version: string): string {
  if (version === 'disk') return `Disk has no file at ${path}; read it without version to see the workspace’s copy.`;
  if (version === 'agreed') return `Disk and the workspace last agreed that ${path} did not exist; there is no text to show.`;
  return `Version ${quoted(version)} of ${path} is a deletion; there is no text to show.`;
}

/** discard found nothing to drop. */
export function nothingToDiscard(path: string): string {
  return `${path} has no draft or deletion to discard; the workspace already reads disk’s copy.`;
}

/** A move whose two paths are the same, or whose new path is inside the path moved. */
export function moveOntoItself(from: string, to: string): string {
  return from === to
    ? `move's from and to are both ${from}; give the new path as to.`
    : `move cannot put ${from} inside itself (${to}); choose a path outside it.`;
}

/** A move across mounts of different kinds. */
export function moveAcrossKinds(from: string, fromKind: string, to: string, toKind: string): string {
  return `move works within a mount or between mounts of one kind; ${from} is on a ${fromKind} mount and ${to} on a ${toKind} one. Copy with read and write, then delete.`;
}

/** A move whose targets exist. */
export function moveTargetsExist(targets: readonly string[]): string {
  const shown = targets.slice(0, 10);
  const more = targets.length > shown.length ? ` and ${targets.length - shown.length} more` : '';
  return `${list(shown)}${more} already ${targets.length === 1 ? 'exists' : 'exist'}; move refuses to replace ${targets.length === 1 ? 'it' : 'them'} unless overwrite is true. Nothing was moved.`;
}

/** A move of files ws does not hold as text. */
export function moveNotText(paths: readonly { path: string; why: string }[]): string {
  const shown = paths.slice(0, 10).map((p) => `${p.path} (${p.why})`);
  const more = paths.length > shown.length ? ` and ${paths.length - shown.length} more` : '';
  return `move moves text files only, and ${list(shown)}${more} ${paths.length === 1 ? 'is not one' : 'are not'}; move ${paths.length === 1 ? 'it' : 'them'} outside ws. Nothing was moved.`;
}

/** A move of a path that names no file. */
export function moveMissing(path: string, suggestions: readonly string[]): string {
  const guess = suggestions.length === 0 ? '' : ` Did you mean ${orList(suggestions)}?`;
  return `${path} does not exist, so there is nothing to move.${guess}`;
}

/** A move onto a directory. */
export function moveOntoDirectory(to: string): string {
  return `${to} is a directory; move takes the new path itself (${to}/name for a file inside it).`;
}

/** A diff answer cut to its budget. */
export function diffCut(from: number, to: number, total: number): string {
  return `Showing hunks ${from}–${to} of ${total}; continue with offset=${to + 1}.`;
}

/** A hunk longer than the whole budget, shown cut. */
export function hunkCut(hunk: number, path: string, shown: number, lines: number, line: number): string {
  return `Hunk ${hunk} is cut to fit: ${shown} of its ${lines} lines shown; read ${path} from offset=${line} for the rest.`;
}

/** diff's offset past the last hunk. */
export function diffOffsetPast(offset: number, total: number): string {
  return `offset=${offset} is past the last hunk (there ${total === 1 ? 'is 1' : `are ${total}`}); use an offset from 1 to ${Math.max(total, 1)}.`;
}

/** history's offset past the last version. */
export function historyOffsetPast(path: string, offset: number, total: number): string {
  return `offset=${offset} is past ${path}'s last version (it has ${plural(total, 'version')}); use an offset from 1 to ${Math.max(total, 1)}.`;
}

/** A history answer cut to its budget. */
export function historyCut(from: number, to: number, total: number): string {
  return `Showing versions ${from}–${to} of ${total}, newest first; continue with offset=${to + 1}.`;
}

/** diff's note where two copies' line ends differ. */
export function diffLineEnds(path: string, a: string, endsA: string, b: string, endsB: string): string {
  return `${path}: ${a} has ${endsA} and ${b} ${endsB}; lines are compared without their line ends.`;
}

/** diff's note where one copy has a BOM and the other not. */
export function diffBom(path: string, has: string, lacks: string): string {
  return `${path}: ${has} starts with a UTF-8 BOM and ${lacks} does not.`;
}

/** diff's note where one copy ends its last line and the other not. */
export function diffFinalLineEnd(path: string, open: string, ends: string): string {
  return `${path}: ${open} has no line end after its last line; ${ends} has one.`;
}

/** diff's note where the copies' lines are equal and their bytes are not. */
export function diffUnseenBytes(path: string, a: string, b: string): string {
  return `${path}: ${a} and ${b} differ only in bytes read shows alike (byte sequences that are not UTF-8, shown as U+FFFD).`;
}

/** Why a side is not compared: binary. */
export function diffWhyBinary(size: number): string {
  return `is a binary file (${plural(size, 'byte')})`;
}

/** diff's note for a side it does not compare as lines. */
export function diffNotLines(path: string, side: string, why: string): string {
  return `${path}: ${side} ${why}; it is not compared as lines.`;
}

/** diff's note for a conflict the store records no agreement for. */
export function diffConflictWithoutAgreement(path: string): string {
  return `${path} is in conflict and the store records no version disk and the workspace agreed on, so the workspace’s copy is compared with disk’s.`;
}

/** diff's count of per-file notes past the ones named. */
export function diffMoreNotes(n: number): string {
  return `And ${plural(n, 'more note')} of that kind; diff one path to see its own.`;
}
