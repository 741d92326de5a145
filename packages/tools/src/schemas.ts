/**
 * The fields tools share, and how a tool's input schema is written. The one rule: a
 * tool's input is written once, in zod, in its record (`input((z, fields) => …)`); the
 * JSON Schema a client sees and the checks a call meets are both generated from that zod
 * schema at build time (`input-schemas.ts`, made by `bun run schemas`; a test fails when
 * it is stale), so they cannot drift and nothing loads zod when a tool is called. The
 * listed schema drops what only costs a model's context (`$schema`, the safe-integer
 * bounds zod puts on every whole number, and `additionalProperties`: an unknown field is
 * refused by name all the same).
 */
import type { z } from 'zod';

/** A JSON Schema object. */
export type JsonSchema = { readonly [key: string]: unknown };

/** The zod module, as a record's input builder is handed it. */
export type Zod = typeof z;

/** The fields tools share, built on the zod they are handed. */
export function fieldsOf(zod: Zod) {
  return {
    /** A mount-prefixed path (the MCP instructions and read's description say so once). */
    path: zod.string().min(1),
    /** A path that narrows a search or a listing: an empty one is refused by the path check, by name, so the schema spares the bound. */
    scope: zod.string(),
    /** A whole number from 1. */
    wholeFromOne: zod.number().int().min(1),
    /** A whole number from 0. */
    wholeFromZero: zod.number().int().min(0),
    /** A mount's name. */
    mountName: zod.string().min(1),
  };
}

/** The fields tools share. */
export type Fields = ReturnType<typeof fieldsOf>;

/** How a record writes its input: a zod schema built on the zod (and shared fields) it is handed. */
export type InputBuilder<S extends z.ZodType = z.ZodType> = (zod: Zod, fields: Fields) => S;

/** A record's input builder, typed where it is written. */
export function defineInput<S extends z.ZodType>(build: InputBuilder<S>): InputBuilder<S> {
  return build;
}

/** The input a builder's schema accepts, as the handler receives it. */
export type InputOf<B extends InputBuilder> = z.infer<ReturnType<B>>;

const SAFE = Number.MAX_SAFE_INTEGER;

/** zod's JSON Schema without `$schema`, `additionalProperties` or safe-integer bounds. */
export function trimmed(node: unknown): unknown {
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

/**
 * An output schema: the main top-level fields of a tool's data and their JSON types, no
 * more — not the `note` every page may carry, nor the data's inner shape (the README's):
 * the list a client sees stays small.
 */
export function outputOf(fields: Record<string, 'string' | 'integer' | 'boolean' | 'array' | 'object'>): JsonSchema {
  return { type: 'object', properties: Object.fromEntries(Object.entries(fields).map(([k, type]) => [k, { type }])) };
}
