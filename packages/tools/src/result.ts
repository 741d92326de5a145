/**
 * What every tool answers, inside the house and on the wire. The one rule: a call never
 * throws to its caller — an answer is data, or a sentence that says what is wrong and
 * what to do. Inside, a failure is `{ ok: false, message }` as everywhere in ws; the wire
 * shape `{ success, data | error }` is made only at the edge (`handleToolCall`).
 */

/** A tool's data: always a JSON object (never an array), so MCP can carry it as `structuredContent`. */
export type Data = object;

/** A tool's answer inside the house. */
export type Answer = { readonly ok: true; readonly data: Data } | { readonly ok: false; readonly message: string };

/** A tool call's answer on the wire. */
export type ToolResult = { readonly success: true; readonly data: Data } | { readonly success: false; readonly error: string };

/** A successful answer. */
export function answer(data: Data): Answer {
  return { ok: true, data };
}

/** A refusal, as a sentence. */
export function refuse(message: string): Answer {
  return { ok: false, message };
}

/** The wire shape of an answer. */
export function onTheWire(a: Answer): ToolResult {
  return a.ok ? { success: true, data: a.data } : { success: false, error: a.message };
}
