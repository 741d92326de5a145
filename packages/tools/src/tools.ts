/**
 * Every tool, in the order a client should list them, and the listing derived from
 * their records. The one rule: a description never changes with the workspace or the
 * call; what applies to one result is said in that result.
 */
import { deleteTool } from './delete.ts';
import { diffTool } from './diff.ts';
import { discardTool } from './discard.ts';
import { historyTool, restoreTool } from './history.ts';
import { moveTool } from './move.ts';
import { editManyTool, editTool } from './edit.ts';
import { globTool } from './glob.ts';
import { grepTool } from './grep.ts';
import { lsTool } from './ls.ts';
import { readTool } from './read.ts';
import { materializeTool, statusTool, syncTool } from './reports.ts';
import type { JsonSchema } from './schemas.ts';
import type { Tool } from './tool.ts';
import { inputSchemaOf } from './validate.ts';
import { writeTool } from './write.ts';

/** Every tool's record. */
export const tools: readonly Tool[] = [
  readTool,
  grepTool,
  globTool,
  lsTool,
  diffTool,
  historyTool,
  writeTool,
  editTool,
  editManyTool,
  moveTool,
  deleteTool,
  restoreTool,
  discardTool,
  syncTool,
  materializeTool,
  statusTool,
];

/** The tool named `name`, if there is one. */
export function toolNamed(name: unknown): Tool | undefined {
  return tools.find((t) => t.name === name);
}

/** One tool as an MCP client lists it. */
export interface ToolListing {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
  readonly annotations: {
    readonly readOnlyHint: boolean;
    readonly destructiveHint: boolean;
    readonly idempotentHint: boolean;
    /** ws acts only on its mounts: never on the world beyond them. */
    readonly openWorldHint: false;
  };
}

/** A tool's listing: its JSON Schemas and its hints as MCP annotations. */
export function listingOf(tool: Tool): ToolListing {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool),
    outputSchema: tool.output,
    annotations: {
      readOnlyHint: tool.hints.readOnly,
      destructiveHint: tool.hints.destructive,
      idempotentHint: tool.hints.idempotent,
      openWorldHint: false,
    },
  };
}
