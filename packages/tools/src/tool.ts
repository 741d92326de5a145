/**
 * A tool as one record: its name, title, description, input (a zod schema, built on
 * demand) and output schemas, hints
 * and handler. The one rule: the tool list, the dispatch, the input checks and the MCP
 * listing are all derived from these records (`tools.ts`); nothing else names a tool, so
 * adding one touches its record, its handler and its sentences.
 */
import type { z } from 'zod';
import type { Answer } from './result.ts';
import type { InputBuilder, JsonSchema } from './schemas.ts';
import type { Work, Workspace } from './workspace.ts';

/** What a call may do to the world, as MCP's annotations state it. */
export interface ToolHints {
  /** Changes nothing a person would call a change. */
  readonly readOnly: boolean;
  /** Can remove or overwrite bytes on disk (a direct mount's changes, a push of drafts). */
  readonly destructive: boolean;
  /** The same call again has no further effect. */
  readonly idempotent: boolean;
}

/** How far a long call has come: counts done and, where known, the total. */
export interface Progress {
  readonly done: number;
  readonly total?: number;
  readonly message?: string;
}

/** What one call carries beside its input. */
export interface CallContext {
  /** The most characters of data that reach the caller whole; undefined: no limit. */
  readonly budget: number | undefined;
  /** Aborted when the caller cancels: the work stops at its next safe point. */
  readonly signal?: AbortSignal;
  /** Told how far long work has come (a client that asked for progress). */
  readonly progress?: (progress: Progress) => void;
}

/** What a mount's long work is told of the call: its signal and its progress. */
export function workOf(call: CallContext): Work {
  return { ...(call.signal ? { signal: call.signal } : {}), ...(call.progress ? { progress: call.progress } : {}) };
}

/** One tool. */
export interface Tool<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  /** A short human name, for clients that show one. */
  readonly title: string;
  /** Fixed text: what applies to one result is said in that result. */
  readonly description: string;
  /** The zod schema of its input, built on the zod it is handed (the generated JSON Schema is what calls are checked against). */
  readonly input: InputBuilder<S>;
  /** JSON Schema of the data a successful call answers. */
  readonly output: JsonSchema;
  readonly hints: ToolHints;
  run(workspace: Workspace, input: z.infer<S>, call: CallContext): Promise<Answer>;
}

/** A tool record, typed by its input schema where it is written, and kept beside the others. */
export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool {
  // The records live in one list whose inputs differ; each run gets input its own schema checked.
  return tool as unknown as Tool;
}
