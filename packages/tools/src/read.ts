/**
 * `read`: a file as a line page or a character page (`@ws/paging`), on either kind of
 * mount; on a store-backed mount the mount's disk check runs first and its notes ride
 * in the page's note, counted against the budget. The one rule: whatever is not a page
 * — a directory, a binary file, a missing path, a refused request — is a sentence,
 * except an image (PNG, JPEG, GIF, WebP), which is shown whole where it fits.
 */
import { fileText } from '@ws/text';
import { PagingError, characterPage, linePage } from '@ws/paging';
import { z } from 'zod';
import { outputOf, path, wholeFromOne, wholeFromZero } from './schemas.ts';
import { type CallContext, defineTool } from './tool.ts';
import type { Workspace } from './workspace.ts';
import { binaryRead, imageTooLarge, isDirectory, missing } from './errors.ts';
import { base64Length, imageType } from './image.ts';
import { jsonLength } from '@ws/text';
import { suggestions } from './close-paths.ts';
import { locate } from './paths.ts';
import { type Answer, answer, refuse } from './result.ts';

const schema = z.strictObject({
  path,
  offset: wholeFromOne.optional(),
  limit: wholeFromOne.optional(),
  offsetChars: wholeFromZero.optional(),
  limitChars: wholeFromOne.optional(),
});
type ReadInput = z.infer<typeof schema>;

/** Reads `path` as a page held to `budget` (whole lines, no budget, where none is stated). */
async function read(workspace: Workspace, input: ReadInput, { budget }: CallContext): Promise<Answer> {
  const at = locate(workspace, input.path);
  if (!at.ok) return refuse(at.message);
  if (at.rel === '') return refuse(isDirectory(at.path, 'read'));
  const found = await at.mount.read(at.rel);
  switch (found.kind) {
    case 'directory':
      return refuse(isDirectory(at.path, 'read'));
    case 'binary':
      return found.bytes ? image(at.path, found.bytes, budget) : refuse(binaryRead(at.path, found.size));
    case 'missing':
      return refuse(missing(at.path, await suggestions(at.mount, at.path)));
    case 'answer':
      return refuse(found.message);
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

/** An image, shown whole where it fits the budget; any other binary file, refused. */
function image(path: string, bytes: Uint8Array, budget: number | undefined): Answer {
  const mimeType = imageType(bytes);
  if (mimeType === undefined) return refuse(binaryRead(path, bytes.length));
  const data = { path, mimeType, size: bytes.length };
  const length = base64Length(bytes.length);
  if (budget !== undefined && length + jsonLength(data) > budget) return refuse(imageTooLarge(path, bytes.length, length, budget));
  return answer(data, [{ mimeType, data: Buffer.from(bytes).toString('base64') }]);
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
  description: 'Read a text file as numbered lines (offset/limit) or characters (offsetChars/limitChars). Paths start with a mount: work/a.ts. A cut page says how to read on.',
  input: schema,
  output: outputOf({ path: 'string', content: 'string', note: 'string' }),
  hints: { readOnly: true, destructive: false, idempotent: true },
  run: read,
});
