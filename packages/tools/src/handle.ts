/**
 * `handleToolCall`: one tool call in, one result out. The one rule: it never throws —
 * a bad call is a sentence, and a fault inside the tools is logged for the operator and
 * answered with a sentence too. This is the edge where an answer takes its wire shape.
 */
import type { Workspace } from './workspace.ts';
import { badBudget, cancelled, internalError, unknownTool } from './errors.ts';
import { type ToolResult, onTheWire, refuse } from './result.ts';
import type { CallContext, Progress } from './tool.ts';
import { toolNamed, tools } from './tools.ts';
import { checkInput } from './validate.ts';

/** A tool call: a tool's name, its input, and what the caller gives beside it. */
export interface ToolCall {
  readonly name: string;
  readonly input?: unknown;
  /** Where given, answers are held to it (`JSON.stringify(data).length`); where not, the caller takes the data whole. */
  readonly resultMaxChars?: number;
  /** Aborted when the caller cancels the call. */
  readonly signal?: AbortSignal;
  /** Told how far long work has come. */
  readonly progress?: (progress: Progress) => void;
}

/**
 * Runs one tool call against a workspace. Always resolves: `{ success: true, data }`, or
 * `{ success: false, error }` with a sentence saying what is wrong and what to do.
 */
export async function handleToolCall(workspace: Workspace, call: ToolCall): Promise<ToolResult> {
  const name = call?.name;
  try {
    const tool = toolNamed(name);
    if (tool === undefined) return onTheWire(refuse(unknownTool(name, tools.map((t) => t.name))));
    const budget = call.resultMaxChars;
    if (budget !== undefined && !(Number.isInteger(budget) && budget >= 1)) return onTheWire(refuse(badBudget(budget)));
    const checked = checkInput(tool, call.input);
    if (!checked.ok) return onTheWire(refuse(checked.message));
    if (call.signal?.aborted) return onTheWire(refuse(cancelled(tool.name)));
    const context: CallContext = {
      budget,
      ...(call.signal ? { signal: call.signal } : {}),
      ...(call.progress ? { progress: call.progress } : {}),
    };
    return onTheWire(await tool.run(workspace, checked.input, context));
  } catch (err) {
    console.error(`@ws/tools: ${String(name)} threw`, err);
    return onTheWire(refuse(internalError(String(name))));
  }
}
