/**
 * `handleToolCall`: one tool call in, one result out. The one rule: it never throws —
 * a bad call is a sentence, and a fault inside the tools is logged for the operator and
 * answered with a sentence too.
 */
import type { Workspace } from './workspace.ts';
import { type ToolName, inputSchemas } from './schemas.ts';
import { checkInput } from './validate.ts';
import { badBudget, internalError, unknownTool } from './errors.ts';
import { type ToolResult, refuse } from './result.ts';
import { editFiles } from './edit.ts';
import { glob } from './glob.ts';
import { grep } from './grep.ts';
import { read } from './read.ts';
import { ls } from './ls.ts';
import { materialize, status, sync } from './reports.ts';
import { remove } from './delete.ts';
import { write } from './write.ts';

/** A tool call (SPEC §0): a tool's name, its input, and the most characters of data that reach the caller whole. */
export interface ToolCall {
  readonly name: string;
  readonly input?: unknown;
  /** Where given, answers are held to it (`JSON.stringify(data).length`); where not, the caller takes the data whole. */
  readonly resultMaxChars?: number;
}

const names = Object.keys(inputSchemas) as ToolName[];

function isToolName(name: unknown): name is ToolName {
  return typeof name === 'string' && (names as string[]).includes(name);
}

async function dispatch(workspace: Workspace, name: ToolName, input: unknown, budget: number | undefined): Promise<ToolResult> {
  switch (name) {
    case 'read': {
      const c = checkInput('read', input);
      return c.ok ? read(workspace, c.input, budget) : refuse(c.error);
    }
    case 'grep': {
      const c = checkInput('grep', input);
      return c.ok ? grep(workspace, c.input, budget) : refuse(c.error);
    }
    case 'glob': {
      const c = checkInput('glob', input);
      return c.ok ? glob(workspace, c.input, budget) : refuse(c.error);
    }
    case 'ls': {
      const c = checkInput('ls', input);
      return c.ok ? ls(workspace, c.input, budget) : refuse(c.error);
    }
    case 'write': {
      const c = checkInput('write', input);
      return c.ok ? write(workspace, c.input) : refuse(c.error);
    }
    case 'edit': {
      const c = checkInput('edit', input);
      return c.ok ? editFiles(workspace, [c.input], budget, true) : refuse(c.error);
    }
    case 'edit_many': {
      const c = checkInput('edit_many', input);
      return c.ok ? editFiles(workspace, c.input.edits, budget, false) : refuse(c.error);
    }
    case 'delete': {
      const c = checkInput('delete', input);
      return c.ok ? remove(workspace, c.input) : refuse(c.error);
    }
    case 'sync': {
      const c = checkInput('sync', input);
      return c.ok ? sync(workspace, c.input, budget) : refuse(c.error);
    }
    case 'materialize': {
      const c = checkInput('materialize', input);
      return c.ok ? materialize(workspace, c.input, budget) : refuse(c.error);
    }
    case 'status': {
      const c = checkInput('status', input);
      return c.ok ? status(workspace, c.input, budget) : refuse(c.error);
    }
  }
}

/**
 * Runs one tool call against a workspace. Always resolves: `{ success: true, data }`, or
 * `{ success: false, error }` with a sentence saying what is wrong and what to do.
 */
export async function handleToolCall(workspace: Workspace, call: ToolCall): Promise<ToolResult> {
  const name = call?.name;
  try {
    if (!isToolName(name)) return refuse(unknownTool(name, names));
    const budget = call.resultMaxChars;
    if (budget !== undefined && !(Number.isInteger(budget) && budget >= 1)) return refuse(badBudget(budget));
    return await dispatch(workspace, name, call.input, budget);
  } catch (err) {
    console.error(`@ws/tools: ${String(name)} threw`, err);
    return refuse(internalError(String(name)));
  }
}
