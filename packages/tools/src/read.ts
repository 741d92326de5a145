/**
 * `read`: a file as a line page or a character page (`@ws/paging`), on either kind of
 * mount; on a store-backed mount the mount's disk check runs first and its notes ride
 * in the page's note, counted against the budget. The one rule: whatever is not a page
 * — a directory, a binary file, a missing path, a refused request — is a sentence,
 * except an image (PNG, JPEG, GIF, WebP), which is shown whole where it fits.
 */
import { fileText, jsonLength } from '@ws/text';
import { DEFAULT_LIMIT, DEFAULT_LIMIT_CHARS, PagingError, characterPage, characterPageOfSpan, linePage, linePageOfSpan } from '@ws/paging';
import { type InputOf, defineInput, outputOf } from './schemas.ts';
import { type CallContext, defineTool } from './tool.ts';
import type { Mount, ReadOutcome, Workspace } from './workspace.ts';
import {
  binaryRead,
  directHasNoDrafts,
  imageTooLarge,
  isDirectory,
  largeFileChanged,
  largeFileNote,
  missing,
  notOnThisMount,
  quoted,
  versionAbsent,
  versionNote,
} from './errors.ts';
import { UNBUDGETED_SPAN_CHARS, characterSpan, lineSpan } from './large-file.ts';
import { base64Length, base64Of, imageType } from './image.ts';
import { suggestions } from './close-paths.ts';
import { locate } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';

const schema = defineInput((z, { path, wholeFromOne, wholeFromZero }) => z.strictObject({
  path,
  offset: wholeFromOne.optional(),
  limit: wholeFromOne.optional(),
  offsetChars: wholeFromZero.optional(),
  limitChars: wholeFromOne.optional(),
  version: z.string().min(1).optional().describe('disk, agreed or a history id'),
}));
type ReadInput = InputOf<typeof schema>;

/** Reads `path` as a page held to `budget` (whole lines, no budget, where none is stated). */
async function read(workspace: Workspace, input: ReadInput, { budget }: CallContext): Promise<Answer> {
  const at = locate(workspace, input.path);
  if (!at.ok) return refuse(at.message);
  if (at.rel === '') return refuse(isDirectory(at.path, 'read'));
  const found = await versionOf(at.mount, at.rel, input.version);
  if ('refused' in found) return refuse(found.refused);
  switch (found.kind) {
    case 'directory':
      return refuse(isDirectory(at.path, 'read'));
    case 'binary':
      return found.bytes ? image(at.path, found.bytes, budget) : refuse(binaryRead(at.path, found.size));
    case 'missing':
      if (input.version !== undefined && at.mount.backend === 'store') return refuse(versionAbsent(at.path, input.version));
      return refuse(missing(at.path, await suggestions(at.mount, at.path)));
    case 'answer':
      return refuse(found.message);
    case 'large':
      return largePage(at.path, found, at.mount.maxFileSize, input, budget);
    case 'file':
      break;
  }
  const ft = fileText(found.bytes);
  const byCharacters = input.offsetChars !== undefined || input.limitChars !== undefined;
  const options = { path: at.path, resultMaxChars: budget, notes: found.notes };
  try {
    return answer(
      byCharacters
        ? characterPage(ft, { ...options, offsetChars: input.offsetChars, limitChars: input.limitChars, ...lineFields(input) })
        : linePage(ft, { ...options, offset: input.offset, limit: input.limit }),
    );
  } catch (err) {
    if (err instanceof PagingError) return refuse(err.message);
    throw err;
  }
}

/**
 * A page of a file over the mount's limit, streamed from disk (the README's "Large
 * files"): the same pages a normal read gives, plus the note that it is too large to
 * store or edit; without a budget, held to {@link UNBUDGETED_SPAN_CHARS} as if one were given.
 */
async function largePage(
  path: string,
  found: Extract<ReadOutcome, { kind: 'large' }>,
  maxFileSize: number,
  input: ReadInput,
  budget: number | undefined,
): Promise<Answer> {
  const options = { path, resultMaxChars: budget ?? UNBUDGETED_SPAN_CHARS, notes: [...found.notes, largeFileNote(found.size, maxFileSize)] };
  const byCharacters = input.offsetChars !== undefined || input.limitChars !== undefined;
  try {
    if (byCharacters) {
      const span = await characterSpan(found.size, found.range, input.offsetChars ?? 0, input.limitChars ?? DEFAULT_LIMIT_CHARS, options.resultMaxChars);
      if (span === null) return refuse(largeFileChanged(path));
      return answer(characterPageOfSpan(span, { ...options, offsetChars: input.offsetChars, limitChars: input.limitChars, ...lineFields(input) }));
    }
    const overhead = path.length + options.notes.reduce((sum, note) => sum + note.length, 0);
    const span = await lineSpan(found.size, found.range, { offset: input.offset ?? 1, limit: input.limit ?? DEFAULT_LIMIT, budget: options.resultMaxChars, overhead });
    if (span === null) return refuse(largeFileChanged(path));
    return answer(linePageOfSpan(span, { ...options, offset: input.offset, limit: input.limit }));
  } catch (err) {
    if (err instanceof PagingError) return refuse(err.message);
    throw err;
  }
}

/** An image, shown whole where it fits the budget; any other binary file, refused. */
function image(path: string, bytes: Uint8Array, budget: number | undefined): Answer {
  const mimeType = imageType(bytes);
  if (mimeType === undefined) return refuse(binaryRead(path, bytes.length));
  const data = { path, mimeType, size: bytes.length };
  const length = base64Length(bytes.length);
  if (budget !== undefined && length + jsonLength(data) > budget) return refuse(imageTooLarge(path, bytes.length, length, budget));
  return answer(data, [{ mimeType, data: base64Of(bytes) }]);
}

/**
 * What to page: the workspace's copy (no version); on a store-backed mount, the named
 * version, read-only, with a note saying which; on a direct mount, disk's file is the
 * only version there is.
 */
async function versionOf(mount: Mount, rel: string, version: string | undefined): Promise<ReadOutcome | { refused: string }> {
  if (version === undefined || (mount.backend === 'direct' && version === 'disk')) return mount.read(rel);
  if (mount.backend === 'direct') return { refused: directHasNoDrafts(mount.name, `read with version ${quoted(version)}`) };
  if (mount.readVersion === undefined) return { refused: notOnThisMount(mount.name, 'read with version') };
  const found = await mount.readVersion(rel, version);
  return found.kind === 'file' || found.kind === 'large' ? { ...found, notes: [versionNote(version), ...found.notes] } : found;
}

/** Line fields passed on beside character ones, so the page refuses "not both" in its own words. */
function lineFields(input: ReadInput): { offset?: number; limit?: number } {
  return {
    ...(input.offset === undefined ? {} : { offset: input.offset }),
    ...(input.limit === undefined ? {} : { limit: input.limit }),
  };
}

/** The `read` tool. */
export const readTool = defineTool({
  name: 'read',
  title: 'Read a file',
  description: 'Read a text file as numbered lines or characters. Paths start with a mount: work/a.ts.',
  input: schema,
  output: outputOf({ path: 'string', content: 'string' }),
  hints: { readOnly: true, destructive: false, idempotent: true },
  run: read,
});
