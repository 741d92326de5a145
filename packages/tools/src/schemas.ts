/**
 * Each tool's input, written once as a zod schema. The one rule: validation and the
 * JSON Schema a client sees both come from these schemas (`z.toJSONSchema`), so they
 * cannot drift; nothing else describes a tool's fields.
 */
import { z } from 'zod';

const path = z
  .string()
  .min(1)
  .describe('A mount-prefixed path: the mount name, then the path inside it, e.g. work/src/a.ts.');
const wholeFromOne = z.number().int().min(1);
const wholeFromZero = z.number().int().min(0);

const readInput = z.strictObject({
  path: path.describe('The file to read, mount-prefixed (work/src/a.ts).'),
  offset: wholeFromOne.optional().describe('The first line to show (1 is the first line). Not with offsetChars/limitChars.'),
  limit: wholeFromOne.optional().describe('How many lines to show at most (2000 where not given).'),
  offsetChars: wholeFromZero
    .optional()
    .describe('Read characters instead of lines: the index in the file’s text to start at (0 is the start).'),
  limitChars: wholeFromOne.optional().describe('Read characters instead of lines: how many characters at most (2000 where not given).'),
});

const grepInput = z.strictObject({
  pattern: z.string().min(1).describe('A JavaScript regular expression, tested against each line as read shows it.'),
  path: path.optional().describe('A mount, directory or file to search (every mount where not given).'),
  glob: z.string().min(1).optional().describe('Search only paths matching this mount-prefixed glob, e.g. work/**/*.ts.'),
  contextBefore: wholeFromZero.optional().describe('Lines to show before each matching line.'),
  contextAfter: wholeFromZero.optional().describe('Lines to show after each matching line.'),
  caseInsensitive: z.boolean().optional().describe('Match letters in either case.'),
});

const globInput = z.strictObject({
  pattern: z.string().min(1).describe('A glob over mount-prefixed paths, e.g. work/**/*.ts.'),
  path: path.optional().describe('A mount or directory to look in; a pattern that does not start with a mount name is read relative to it.'),
});

const lsInput = z.strictObject({
  path: path.optional().describe('A mount or directory to list (the mounts where not given).'),
  recursive: z.boolean().optional().describe('List everything beneath, not just the directory’s own entries.'),
});

const writeInput = z.strictObject({
  path: path.describe('The file to write, mount-prefixed; missing parent directories are created.'),
  content: z.string().describe('The whole new content of the file, exactly as it should be stored.'),
});

const oneEdit = {
  oldString: z.string().min(1).describe('The text to replace, copied from a read or grep (without line numbers).'),
  newString: z.string().describe('The text to put in its place.'),
  replaceAll: z.boolean().optional().describe('Replace every occurrence instead of exactly one.'),
};

const editInput = z.strictObject({
  path: path.describe('The file to edit, mount-prefixed.'),
  ...oneEdit,
});

const editManyInput = z.strictObject({
  edits: z
    .array(z.strictObject({ path: path.describe('The file to edit, mount-prefixed.'), ...oneEdit }))
    .min(1)
    .describe('The edits, all stored or none; each is located in its file as it was before the call.'),
});

const deleteInput = z.strictObject({
  path: path.describe('The file to delete, mount-prefixed.'),
});

const mountName = z.string().min(1).describe('A mount’s name, e.g. work.');

const syncInput = z.strictObject({
  path: path.optional().describe('A file or directory to take disk’s changes in for.'),
  mount: mountName.optional().describe('A mount to take disk’s changes in for (every mount where neither path nor mount is given).'),
});

const materializeInput = z.strictObject({
  path: path.optional().describe('A file or directory whose drafts to write to disk.'),
  mount: mountName.optional().describe('A mount whose drafts to write to disk (every mount where neither path nor mount is given).'),
  force: z.boolean().optional().describe('Write even over a conflict or a disk copy that could not be checked.'),
});

const statusInput = z.strictObject({
  mount: mountName.optional().describe('One mount to report on (every mount where not given).'),
});

/** The zod schema of each tool's input, by tool name. */
export const inputSchemas = {
  read: readInput,
  grep: grepInput,
  glob: globInput,
  ls: lsInput,
  write: writeInput,
  edit: editInput,
  edit_many: editManyInput,
  delete: deleteInput,
  sync: syncInput,
  materialize: materializeInput,
  status: statusInput,
} as const;

/** A tool's name. */
export type ToolName = keyof typeof inputSchemas;

/** The checked input of each tool. */
export type ToolInput<N extends ToolName> = z.infer<(typeof inputSchemas)[N]>;

/** A JSON Schema object, as `z.toJSONSchema` makes it. */
export type JsonSchema = { readonly [key: string]: unknown };

const generated = new Map<ToolName, JsonSchema>();

/** The JSON Schema of a tool's input, generated (once) from its zod schema. */
export function jsonSchemaOf(name: ToolName): JsonSchema {
  let schema = generated.get(name);
  if (schema === undefined) {
    schema = z.toJSONSchema(inputSchemas[name]) as JsonSchema;
    generated.set(name, schema);
  }
  return schema;
}
