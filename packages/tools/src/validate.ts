/**
 * Checks a tool call's input against its zod schema and turns what is wrong into one
 * sentence naming the field and what is allowed. The one rule: what is "allowed" is read
 * from the same JSON Schema the client sees, so an error never disagrees with the schema.
 */
import { z } from 'zod';
import { type JsonSchema, jsonSchemaOf } from './schemas.ts';
import type { Tool } from './tool.ts';
import { invalidInput, unknownFields } from './errors.ts';

/** The outcome of checking one input. */
export type Checked<I> = { readonly ok: true; readonly input: I } | { readonly ok: false; readonly message: string };

type Key = string | number;

/** The JSON Schema node for a field path (`['edits', 0, 'oldString']`), if the schema has one. */
function schemaAt(schema: JsonSchema, path: readonly Key[]): JsonSchema | undefined {
  let node: JsonSchema | undefined = schema;
  for (const key of path) {
    if (node === undefined) return undefined;
    if (typeof key === 'number') node = node.items as JsonSchema | undefined;
    else node = (node.properties as Record<string, JsonSchema> | undefined)?.[key];
  }
  return node;
}

/** What a schema node allows, in words: "a whole number, 1 or more". */
function allowed(node: JsonSchema | undefined): string {
  if (node === undefined) return 'nothing (this field is not part of the tool)';
  switch (node.type) {
    case 'integer': {
      const min = node.minimum as number | undefined;
      return min === undefined ? 'a whole number' : `a whole number, ${min} or more`;
    }
    case 'number':
      return 'a number';
    case 'string':
      return (node.minLength as number | undefined) ? 'a non-empty string' : 'a string';
    case 'boolean':
      return 'true or false';
    case 'array': {
      const item = node.items as JsonSchema | undefined;
      const fields = item?.properties ? Object.keys(item.properties as object) : [];
      const required = new Set((item?.required as string[] | undefined) ?? []);
      const shape = fields.map((f) => (required.has(f) ? f : `${f}?`)).join(', ');
      const min = node.minItems as number | undefined;
      return `a list${min ? ` of at least ${min}` : ''}, each an object { ${shape} }`;
    }
    case 'object':
      return 'an object';
    default:
      return 'a valid value';
  }
}

/** How a received value reads in a sentence: `0`, `1.5`, `a string`, `nothing`. */
function described(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : String(value);
  if (typeof value === 'string') return value === '' ? 'an empty string' : 'a string';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value === 'object' ? 'object' : typeof value}`;
}

function valueAt(input: unknown, path: readonly Key[]): unknown {
  let v: unknown = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<Key, unknown>)[key];
  }
  return v;
}

/** `edits[2].oldString` for `['edits', 2, 'oldString']`. */
function fieldName(path: readonly Key[]): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

/** Checks `input` for `tool`; on failure, one sentence per problem, joined. */
export function checkInput<S extends z.ZodType>(tool: Pick<Tool<S>, 'name' | 'input'>, input: unknown): Checked<z.infer<S>> {
  const name = tool.name;
  const parsed = tool.input.safeParse(input === undefined ? {} : input);
  if (parsed.success) return { ok: true, input: parsed.data };
  const schema = jsonSchemaOf(tool.input);
  const sentences: string[] = [];
  for (const issue of parsed.error.issues) {
    const path = issue.path.filter((k): k is Key => typeof k !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      const node = schemaAt(schema, path);
      const known = Object.keys((node?.properties as object | undefined) ?? {});
      sentences.push(unknownFields(name, path.length ? fieldName(path) : undefined, issue.keys, known));
      continue;
    }
    if (path.length === 0) {
      sentences.push(invalidInput(name, undefined, 'an object of named fields', described(input)));
      continue;
    }
    sentences.push(invalidInput(name, fieldName(path), allowed(schemaAt(schema, path)), described(valueAt(input, path))));
  }
  return { ok: false, message: [...new Set(sentences)].join(' ') };
}
