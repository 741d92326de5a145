/**
 * What every tool call answers. The one rule: a call never throws to its caller — an
 * answer is data, or a sentence that says what is wrong and what to do.
 */

/** A tool call's answer (SPEC §0). */
export type ToolResult = { readonly success: true; readonly data: unknown } | { readonly success: false; readonly error: string };

/** A successful answer. */
export function answer(data: unknown): ToolResult {
  return { success: true, data };
}

/** A refusal, as a sentence. */
export function refuse(error: string): ToolResult {
  return { success: false, error };
}
