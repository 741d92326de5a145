/**
 * What every tool answers, inside the house and on the wire. The one rule: a call never
 * throws to its caller — an answer is data, or a sentence that says what is wrong and
 * what to do. Inside, a failure is `{ ok: false, message }` as everywhere in ws; the wire
 * shape `{ success, data | error }` is made only at the edge (`handleToolCall`).
 */

/** A tool's data: always a JSON object (never an array), so MCP can carry it as `structuredContent`. */
export type Data = object;

/** An image an answer shows beside its data (MCP: an image content block). */
export interface Image {
  readonly mimeType: string;
  /** The image's bytes, base64. */
  readonly data: string;
}

/** A tool's answer inside the house. */
export type Answer =
  | { readonly ok: true; readonly data: Data; readonly images?: readonly Image[] }
  | { readonly ok: false; readonly message: string };

/** A tool call's answer on the wire. */
export type ToolResult =
  | { readonly success: true; readonly data: Data; readonly images?: readonly Image[] }
  | { readonly success: false; readonly error: string };

/** A successful answer, with any images it shows. */
export function answer(data: Data, images?: readonly Image[]): Answer {
  return images === undefined ? { ok: true, data } : { ok: true, data, images };
}

/** A refusal, as a sentence. */
export function refuse(message: string): Answer {
  return { ok: false, message };
}

/** The wire shape of an answer. */
export function onTheWire(a: Answer): ToolResult {
  if (!a.ok) return { success: false, error: a.message };
  return a.images === undefined ? { success: true, data: a.data } : { success: true, data: a.data, images: a.images };
}
