/**
 * Checks a tool call's input against the JSON Schema generated from its record's zod
 * schema, and turns what is wrong into one sentence naming the field and what is
 * allowed. The one rule: what is "allowed" is read from the same JSON Schema the client
 * sees, so an error never disagrees with the schema; and the checks are zod's, in zod's
 * order (a test holds the two to the same answers), without loading zod at all.
 *
 * What the checker reads (the generator refuses a schema that needs more): objects are
 * strict (an unknown field is refused by name, after the object's own fields); strings
 * with `minLength` and `enum`; `integer` is a safe integer (zod's bounds), with `minimum`;
 * booleans; arrays of items, `minItems` checked only when every item passed (as zod does).
 */
import { type JsonSchema } from './schemas.ts';
import { inputSchemas } from './input-schemas.ts';
import type { InputOf } from './schemas.ts';
import type { Tool } from './tool.ts';
import { invalidInput, quoted, unknownFields } from './errors.ts';

/** The outcome of checking one input. */
export type Checked<I> = { readonly ok: true; readonly input: I } | { readonly ok: false; readonly message: string };

type Key = string | number;

/** One thing wrong: a field refused as it is, or an object's unknown fields. */
type Issue = { readonly path: readonly Key[]; readonly unknown?: readonly string[] };

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** The issues of `value` against `node`, in the order zod reports them. */
function issuesOf(node: JsonSchema, value: unknown, path: Key[], out: Issue[]): void {
  switch (node.type) {
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        out.push({ path: [...path] });
        return;
      }
      const properties = (node.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((node.required as string[] | undefined) ?? []);
      for (const key of Object.keys(properties)) {
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined) {
          if (required.has(key)) out.push({ path: [...path, key] });
          continue;
        }
        path.push(key);
        issuesOf(properties[key], v, path, out);
        path.pop();
      }
      const unknown = Object.keys(value).filter((k) => !hasOwn(properties, k));
      if (unknown.length > 0) out.push({ path: [...path], unknown });
      return;
    }
    case 'array': {
      if (!Array.isArray(value)) {
        out.push({ path: [...path] });
        return;
      }
      const before = out.length;
      const items = node.items as JsonSchema;
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        issuesOf(items, value[i], path, out);
        path.pop();
      }
      const min = node.minItems as number | undefined;
      if (out.length === before && min !== undefined && value.length < min) out.push({ path: [...path] });
      return;
    }
    case 'string': {
      const allowed = node.enum as string[] | undefined;
      const min = node.minLength as number | undefined;
      if (typeof value !== 'string' || (allowed !== undefined && !allowed.includes(value)) || (min !== undefined && value.length < min)) {
        out.push({ path: [...path] });
      }
      return;
    }
    case 'integer': {
      const min = node.minimum as number | undefined;
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || (min !== undefined && value < min)) out.push({ path: [...path] });
      return;
    }
    case 'boolean':
      if (typeof value !== 'boolean') out.push({ path: [...path] });
      return;
    default:
      throw new Error(`input schema type ${String(node.type)} is not checked`);
  }
}

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
  const choices = node.enum as readonly unknown[] | undefined;
  if (Array.isArray(choices) && choices.length > 0) return choices.length === 1 ? JSON.stringify(choices[0]) : `one of ${orList(choices.map((c) => JSON.stringify(c)))}`;
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

/** `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/**
 * How a received value reads in a sentence: `0`, `1.5`, `a string`, `nothing`; a string
 * where the field takes one of a few words is repeated (cut short), so the caller sees
 * which word it gave.
 */
function described(value: unknown, node?: JsonSchema): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : String(value);
  if (typeof value === 'string' && value !== '' && Array.isArray(node?.enum)) return quoted(value);
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

/** A tool's input JSON Schema, as listed (generated from its record's zod schema). */
export function inputSchemaOf(tool: Pick<Tool, 'name'>): JsonSchema {
  const schema = inputSchemas[tool.name];
  if (schema === undefined) throw new Error(`@ws/tools: no generated input schema for ${tool.name}; run bun run schemas in packages/tools`);
  return schema;
}

/** Checks `input` for `tool`; on failure, one sentence per problem, joined. */
export function checkInput<T extends Pick<Tool, 'name' | 'input'>>(tool: T, input: unknown): Checked<InputOf<T['input']>> {
  const name = tool.name;
  const schema = inputSchemaOf(tool);
  const value = input === undefined ? {} : input;
  const issues: Issue[] = [];
  issuesOf(schema, value, [], issues);
  if (issues.length === 0) return { ok: true, input: value as InputOf<T['input']> };
  const sentences: string[] = [];
  for (const issue of issues) {
    const path = issue.path;
    if (issue.unknown !== undefined) {
      const node = schemaAt(schema, path);
      const known = Object.keys((node?.properties as object | undefined) ?? {});
      sentences.push(unknownFields(name, path.length ? fieldName(path) : undefined, issue.unknown, known));
      continue;
    }
    if (path.length === 0) {
      sentences.push(invalidInput(name, undefined, 'an object of named fields', described(input)));
      continue;
    }
    const node = schemaAt(schema, path);
    sentences.push(invalidInput(name, fieldName(path), allowed(node), described(valueAt(input, path), node)));
  }
  return { ok: false, message: [...new Set(sentences)].join(' ') };
}
