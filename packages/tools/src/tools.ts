/**
 * The tools as a client lists them: name, fixed description, JSON Schema. The one rule:
 * a description never changes with the workspace or the call; what applies to one
 * result is said in that result.
 */
import { type JsonSchema, type ToolName, jsonSchemaOf } from './schemas.ts';

/** One tool as an MCP client or a model sees it. */
export interface ToolDefinition {
  readonly name: ToolName;
  readonly description: string;
  /** JSON Schema (draft 2020-12) of the input, generated from the zod schema that validates it. */
  readonly inputSchema: JsonSchema;
}

const descriptions: Record<ToolName, string> = {
  read:
    'Read a text file as numbered lines (offset/limit), or as exact characters (offsetChars/limitChars). ' +
    'A page that stops early says in its note how to read on.',
  grep:
    'Search files for a JavaScript regular expression, line by line as read shows them; ' +
    'every mount, or one path, optionally filtered by a mount-prefixed glob.',
  glob: 'List files whose mount-prefixed paths match a glob, e.g. work/**/*.ts.',
  ls: 'List a directory’s entries with kind and size (and state, on a store-backed mount); without a path, the mounts.',
  write: 'Replace a file whole with new content, creating it and its parent directories where missing.',
  edit:
    'Replace text in a file: oldString must occur exactly once (or set replaceAll). ' +
    'Copy oldString from a read or grep without the line numbers.',
  edit_many:
    'Make several edits, in one file or many, all stored or none; each is located in its file as it was before the call.',
  delete: 'Delete one file.',
  sync: 'Take disk’s changes into the workspace, for one path, one mount or every mount.',
  materialize: 'Write the workspace’s drafts to disk, for one path, one mount or every mount.',
  status: 'Report each mount: backend, root, read-only, branch, drafts, conflicts and what was passed over.',
};

/** Every tool, in the order a client should list them. */
export const tools: readonly ToolDefinition[] = (Object.keys(descriptions) as ToolName[]).map((name) => ({
  name,
  description: descriptions[name],
  inputSchema: jsonSchemaOf(name),
}));
