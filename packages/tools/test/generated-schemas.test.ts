/**
 * The generated input schemas against their zod source: the file is what the generator
 * writes today, each schema equals zod's JSON Schema of the record's input, and the
 * checker over the JSON Schemas answers every input exactly as zod's parse (read into
 * the same sentences) does — the same accept or refuse, the same message.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { z } from 'zod';
import { inputSchemasSource } from '../scripts/input-schemas.ts';
import { invalidInput, quoted, unknownFields } from '../src/errors.ts';
import { jsonSchemaOf, zodInput } from '../src/from-zod.ts';
import type { JsonSchema } from '../src/schemas.ts';
import { checkInput, inputSchemaOf, tools } from '../src/index.ts';

type Key = string | number;

/** The checker as it was written over zod: zod's issues, read into the same sentences. */
function zodCheck(name: string, schema: z.ZodType, json: JsonSchema, input: unknown): { ok: boolean; message?: string } {
  const parsed = schema.safeParse(input === undefined ? {} : input);
  if (parsed.success) return { ok: true };
  const at = (path: readonly Key[]): JsonSchema | undefined => {
    let node: JsonSchema | undefined = json;
    for (const k of path) node = node === undefined ? undefined : typeof k === 'number' ? (node.items as JsonSchema) : (node.properties as Record<string, JsonSchema> | undefined)?.[k];
    return node;
  };
  const field = (path: readonly Key[]) => path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
  const valueAt = (path: readonly Key[]) => path.reduce<unknown>((v, k) => (v === null || typeof v !== 'object' ? undefined : (v as Record<Key, unknown>)[k]), input);
  const described = (v: unknown, node?: JsonSchema) =>
    v === undefined
      ? 'nothing'
      : v === null
        ? 'null'
        : typeof v === 'number'
          ? Number.isNaN(v)
            ? 'NaN'
            : String(v)
          : typeof v === 'string'
            ? v === ''
              ? 'an empty string'
              : node?.enum
                ? quoted(v)
                : 'a string'
            : typeof v === 'boolean'
              ? String(v)
              : Array.isArray(v)
                ? 'a list'
                : `a ${typeof v === 'object' ? 'object' : typeof v}`;
  const allowed = (node: JsonSchema | undefined): string => {
    if (node === undefined) return 'nothing (this field is not part of the tool)';
    const words = (node.enum as unknown[] | undefined)?.map((w) => JSON.stringify(w));
    if (words && words.length === 1) return words[0];
    if (words && words.length > 1) return `one of ${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
    if (node.type === 'integer') return node.minimum === undefined ? 'a whole number' : `a whole number, ${node.minimum} or more`;
    if (node.type === 'string') return node.minLength ? 'a non-empty string' : 'a string';
    if (node.type === 'boolean') return 'true or false';
    if (node.type === 'array') {
      const item = node.items as JsonSchema;
      const req = new Set((item.required as string[]) ?? []);
      const shape = Object.keys(item.properties as object).map((f) => (req.has(f) ? f : `${f}?`)).join(', ');
      return `a list${node.minItems ? ` of at least ${node.minItems}` : ''}, each an object { ${shape} }`;
    }
    return node.type === 'object' ? 'an object' : 'a valid value';
  };
  const sentences = parsed.error.issues.map((issue) => {
    const path = issue.path.filter((k): k is Key => typeof k !== 'symbol');
    if (issue.code === 'unrecognized_keys') return unknownFields(name, path.length ? field(path) : undefined, issue.keys, Object.keys((at(path)?.properties as object) ?? {}));
    if (path.length === 0) return invalidInput(name, undefined, 'an object of named fields', described(input));
    return invalidInput(name, field(path), allowed(at(path)), described(valueAt(path), at(path)));
  });
  return { ok: false, message: [...new Set(sentences)].join(' ') };
}

const anything: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(undefined, null, true, false, 0, -0, 1, -1, 2, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 2 ** 60, -(2 ** 60)),
    fc.integer({ min: -5, max: 5 }),
    fc.double(),
    fc.constantFrom('', 'x', 'work', 'work/a.txt', 'path', 'modified', 'content', 'files', 'count', 'PATH'),
    fc.string({ maxLength: 3 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('path', 'oldString', 'newString', 'replaceAll', 'x', 'edits'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Inputs near a schema: its own fields (each valid, absent or anything), sometimes an unknown one, sometimes not an object. */
function near(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const valid = (node: JsonSchema): fc.Arbitrary<unknown> => {
    switch (node.type) {
      case 'string':
        return node.enum ? fc.constantFrom(...(node.enum as string[])) : fc.string({ minLength: (node.minLength as number) ?? 0, maxLength: 4 });
      case 'integer':
        return fc.integer({ min: (node.minimum as number) ?? -3, max: 9 });
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(near(node.items as JsonSchema, depth + 1), { maxLength: 3 });
      default:
        return depth > 2 ? anything : near(node, depth + 1);
    }
  };
  if (schema.type !== 'object') return fc.oneof(valid(schema), anything);
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  const fields = properties.map(([k, node]) => fc.option(fc.oneof({ weight: 3, arbitrary: valid(node) }, { weight: 1, arbitrary: anything }), { nil: undefined }).map((v) => [k, v] as const));
  const object = fc
    .tuple(fc.tuple(...fields), fc.option(fc.constantFrom('extra', 'Path', 'limit'), { nil: undefined }), fc.boolean())
    .map(([entries, extra, shuffle]) => {
      const kept = entries.filter(([, v]) => v !== undefined);
      if (shuffle) kept.reverse();
      const o: Record<string, unknown> = Object.fromEntries(kept);
      if (extra !== undefined) o[extra] = 1;
      return o;
    });
  return fc.oneof({ weight: 6, arbitrary: object }, { weight: 1, arbitrary: anything });
}

describe('generated input schemas', () => {
  test('the generated file is what the generator writes from the records today (run bun run schemas when it is not)', () => {
    const file = readFileSync(join(import.meta.dir, '../src/input-schemas.ts'), 'utf8');
    expect(file).toBe(inputSchemasSource());
  });

  test("each tool's generated schema equals z.toJSONSchema of its record's zod input, as listed", () => {
    for (const t of tools) expect(inputSchemaOf(t)).toEqual(jsonSchemaOf(zodInput(t)));
  });

  for (const t of tools) {
    test(`${t.name}: the checker and zod accept and refuse the same inputs, in the same sentences`, () => {
      const schema = zodInput(t);
      const json = inputSchemaOf(t);
      fc.assert(
        fc.property(near(json), (input) => {
          const ours = checkInput(t, input);
          const theirs = zodCheck(t.name, schema, json, input);
          expect({ ok: ours.ok, message: ours.ok ? undefined : ours.message }).toEqual({ ok: theirs.ok, message: theirs.message });
        }),
        { numRuns: 400, seed: process.env.WS_SEED ? Number(process.env.WS_SEED) : 15 },
      );
    });
  }

  test('a tool call loads no zod: the package index imports without it', async () => {
    const child = Bun.spawnSync(['bun', '-e', "await import('./src/index.ts'); const loaded = Object.keys(require.cache).filter((k) => k.includes('/zod/')); console.log(loaded.length)"], { cwd: join(import.meta.dir, '..') });
    expect(child.stdout.toString().trim()).toBe('0');
  });
});
