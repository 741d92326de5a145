/**
 * The fields tools share, and how a zod schema becomes the JSON Schema a client sees.
 * The one rule: validation and the listed schema both come from the same zod schema, so
 * they cannot drift; the listed one drops what only costs a model's context (`$schema`,
 * the safe-integer bounds zod puts on every whole number, and `additionalProperties`:
 * an unknown field is refused by name all the same).
 */
import { z } from 'zod';

/** A JSON Schema object. */
export type JsonSchema = { readonly [key: string]: unknown };

/** A mount-prefixed path (the MCP instructions and read's description say so once). */
export const path = z.string().min(1);
/** A path that narrows a search or a listing: an empty one is refused by the path check, by name, so the schema spares the bound. */
export const scope = z.string();
/** A whole number from 1. */
export const wholeFromOne = z.number().int().min(1);
/** A whole number from 0. */
export const wholeFromZero = z.number().int().min(0);
/** A mount's name. */
export const mountName = z.string().min(1);

const SAFE = Number.MAX_SAFE_INTEGER;

function trimmed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(trimmed);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === 'additionalProperties') continue;
    if ((key === 'maximum' && value === SAFE) || (key === 'minimum' && value === -SAFE)) continue;
    out[key] = trimmed(value);
  }
  return out;
}

const generated = new WeakMap<z.ZodType, JsonSchema>();

/** The JSON Schema of a zod schema (made once), without `$schema` or safe-integer bounds. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  let json = generated.get(schema);
  if (json === undefined) {
    json = trimmed(z.toJSONSchema(schema)) as JsonSchema;
    generated.set(schema, json);
  }
  return json;
}

/**
 * An output schema: the main top-level fields of a tool's data and their JSON types, no
 * more — not the `note` every page may carry, nor the data's inner shape (the README's):
 * the list a client sees stays small.
 */
export function outputOf(fields: Record<string, 'string' | 'integer' | 'boolean' | 'array' | 'object'>): JsonSchema {
  return { type: 'object', properties: Object.fromEntries(Object.entries(fields).map(([k, type]) => [k, { type }])) };
}
