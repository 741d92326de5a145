/**
 * The one place that loads zod: a tool record's input schema built on the real zod, and
 * its JSON Schema as a client sees it. Used by the generator (`bun run schemas`) and the
 * tests that hold the generated schemas to their zod source; never on a tool call's path,
 * and not exported from the package's index (importing it would load zod).
 */
import { z } from 'zod';
import { type JsonSchema, fieldsOf, trimmed } from './schemas.ts';
import type { Tool } from './tool.ts';

/** The zod schema of a tool's input. */
export function zodInput(tool: Pick<Tool, 'input'>): z.ZodType {
  return tool.input(z, fieldsOf(z));
}

/** The JSON Schema of a zod schema as it is listed: without `$schema`, `additionalProperties` or safe-integer bounds. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return trimmed(z.toJSONSchema(schema)) as JsonSchema;
}

const KEYWORDS = new Set(['type', 'properties', 'required', 'items', 'minItems', 'minLength', 'minimum', 'maximum', 'enum', 'description', 'additionalProperties', '$schema']);

/**
 * The listed JSON Schema of a tool's input, refused where it uses what the checker in
 * `validate.ts` does not read: an object that allows unknown fields, a number bound other
 * than zod's safe-integer ones, or any keyword beyond type, properties, required, items,
 * minItems, minLength, minimum, enum and description.
 */
export function generatedSchemaOf(tool: Pick<Tool, 'name' | 'input'>): JsonSchema {
  const full = z.toJSONSchema(zodInput(tool)) as JsonSchema;
  const walk = (node: JsonSchema, at: string): void => {
    for (const key of Object.keys(node)) {
      if (!KEYWORDS.has(key)) throw new Error(`${tool.name}: ${at} uses ${key}, which the input checker does not read`);
    }
    if (node.type === 'object' && node.additionalProperties !== false) throw new Error(`${tool.name}: ${at} is not a strict object`);
    if (node.maximum !== undefined && node.maximum !== Number.MAX_SAFE_INTEGER) throw new Error(`${tool.name}: ${at} has a maximum`);
    for (const [k, v] of Object.entries((node.properties as Record<string, JsonSchema> | undefined) ?? {})) walk(v, `${at}.${k}`);
    if (node.items !== undefined) walk(node.items as JsonSchema, `${at}[]`);
  };
  walk(full, 'input');
  return trimmed(full) as JsonSchema;
}
