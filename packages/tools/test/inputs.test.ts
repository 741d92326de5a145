import { describe, expect, test } from 'bun:test';
import { checkInput, handleToolCall, listingOf, toolNamed, tools } from '../src/index.ts';
import { jsonSchemaOf, zodInput } from '../src/from-zod.ts';
import { memoryWorkspace } from './memory-workspace.ts';

const ws = () => memoryWorkspace([{ name: 'work', backend: 'direct', files: { 'a.txt': 'hello\n' } }]);

async function errorOf(name: string, input: unknown, resultMaxChars?: number): Promise<string> {
  const r = await handleToolCall(ws(), { name, input, ...(resultMaxChars === undefined ? {} : { resultMaxChars }) });
  if (r.success) throw new Error(`expected an error, got ${JSON.stringify(r.data)}`);
  return r.error;
}

const read = toolNamed('read')!; // a tool every workspace has

describe('tool records', () => {
  test('every tool lists a title, a fixed description, its hints as annotations and both schemas', () => {
    expect(tools.map((t) => t.name)).toEqual([
      'read', 'grep', 'glob', 'ls', 'diff', 'history', 'write', 'edit', 'edit_many', 'move', 'delete', 'restore', 'discard', 'sync', 'materialize', 'status',
    ]);
    for (const t of tools) {
      const l = listingOf(t);
      expect(l.title.length).toBeGreaterThan(3);
      expect(l.description.length).toBeGreaterThan(10);
      expect(l.inputSchema).toEqual(jsonSchemaOf(zodInput(t)));
      expect([l.inputSchema.type, l.outputSchema.type]).toEqual(['object', 'object']);
      expect(l.annotations).toEqual({ readOnlyHint: t.hints.readOnly, destructiveHint: t.hints.destructive, idempotentHint: t.hints.idempotent, openWorldHint: false });
    }
  });

  test('the listed schemas carry no $schema and no safe-integer bounds, and the whole list stays small', () => {
    const listed = JSON.stringify({ tools: tools.map(listingOf) });
    expect(listed).not.toContain('$schema');
    expect(listed).not.toContain(String(Number.MAX_SAFE_INTEGER));
    const eleven = ['read', 'grep', 'glob', 'ls', 'write', 'edit', 'edit_many', 'delete', 'sync', 'materialize', 'status'];
    expect(JSON.stringify({ tools: tools.filter((t) => eleven.includes(t.name)).map(listingOf) }).length).toBeLessThanOrEqual(6000);
  });

  test('all sixteen tools, the drafts tools with them, list in at most 8,000 characters', () => {
    expect(tools).toHaveLength(16);
    expect(JSON.stringify({ tools: tools.map(listingOf) }).length).toBeLessThanOrEqual(8000);
  });

  test('every description is one short line: what applies to a result is said in the result', () => {
    for (const t of tools) expect({ tool: t.name, fits: t.description.length <= 100 && !t.description.includes('\n') }).toEqual({ tool: t.name, fits: true });
  });

  test('a read-only tool is never destructive, and every tool that can overwrite disk says so', () => {
    for (const t of tools) if (t.hints.readOnly) expect(t.hints.destructive).toBe(false);
    const destructive = tools.filter((t) => t.hints.destructive).map((t) => t.name);
    expect(destructive).toEqual(['write', 'edit', 'edit_many', 'move', 'delete', 'materialize']);
  });

  test('the schema says what validation enforces: read’s offset is an integer from 1, offsetChars from 0', () => {
    const schema = jsonSchemaOf(zodInput(read));
    const props = schema.properties as Record<string, { type: string; minimum: number }>;
    expect([props.offset.type, props.offset.minimum, props.offsetChars.minimum]).toEqual(['integer', 1, 0]);
    expect(schema.required).toEqual(['path']);
  });
});

describe('input checks answer a sentence naming the field and what is allowed', () => {
  const cases: [string, unknown, string][] = [
    ['read', {}, 'read needs "path": a non-empty string.'],
    ['read', { path: 3 }, `read's "path" must be a non-empty string; it got 3.`],
    ['read', { path: '' }, `read's "path" must be a non-empty string; it got an empty string.`],
    ['read', { path: 'work/a.txt', offset: 0 }, `read's "offset" must be a whole number, 1 or more; it got 0.`],
    ['read', { path: 'work/a.txt', offset: -2 }, `read's "offset" must be a whole number, 1 or more; it got -2.`],
    ['read', { path: 'work/a.txt', limit: 1.5 }, `read's "limit" must be a whole number, 1 or more; it got 1.5.`],
    ['read', { path: 'work/a.txt', offsetChars: -1 }, `read's "offsetChars" must be a whole number, 0 or more; it got -1.`],
    ['read', { path: 'work/a.txt', offset: '3' }, `read's "offset" must be a whole number, 1 or more; it got a string.`],
    ['read', { path: 'work/a.txt', colour: 'red' }, 'read has no field "colour"; it takes path, offset, limit, offsetChars, limitChars and version.'],
    ['read', null, 'read takes an object of named fields; it got null.'],
    ['read', [], 'read takes an object of named fields; it got a list.'],
    ['grep', { pattern: 'x', caseInsensitive: 'yes' }, `grep's "caseInsensitive" must be true or false; it got a string.`],
    ['grep', { pattern: 'x', contextAfter: -1 }, `grep's "contextAfter" must be a whole number, 0 or more; it got -1.`],
    // A word another tool's grep takes: the sentence names the words this one takes, and the one given.
    ['grep', { pattern: 'x', output: 'files_with_matches' }, `grep's "output" must be one of "content", "files" or "count"; it got "files_with_matches".`],
    ['grep', { pattern: 'x', output: 3 }, `grep's "output" must be one of "content", "files" or "count"; it got 3.`],
    ['glob', { pattern: '*', sort: 'x'.repeat(300) }, `glob's "sort" must be one of "path" or "modified"; it got "${'x'.repeat(200)}…".`],
    ['edit_many', { edits: [] }, `edit_many's "edits" must be a list of at least 1, each an object { path, oldString, newString, replaceAll? }; it got a list.`],
    ['edit_many', { edits: [{ path: 'work/a.txt', oldString: 'a', newString: 1 }] }, `edit_many's "edits[0].newString" must be a string; it got 1.`],
    ['edit_many', { edits: [{ path: 'work/a.txt', oldString: 'a', newString: 'b', why: 1 }] }, `edit_many's "edits[0]" has no field "why"; it takes path, oldString, newString and replaceAll.`],
    ['edit', { path: 'work/a.txt', oldString: '', newString: 'b' }, `edit's "oldString" must be a non-empty string; it got an empty string.`],
    ['write', { path: 'work/a.txt' }, 'write needs "content": a string.'],
  ];
  for (const [name, input, sentence] of cases) {
    test(`${name} ${JSON.stringify(input)}`, async () => {
      expect(await errorOf(name, input)).toBe(sentence);
    });
  }

  test('several problems are all named', async () => {
    const e = await errorOf('read', { offset: 0, extra: true });
    expect(e).toContain('"extra"');
    expect(e).toContain('"offset"');
    expect(e).toContain('"path"');
  });

  test('an unknown tool names the tools', async () => {
    expect(await errorOf('cat', {})).toBe(
      'There is no tool named "cat"; the tools are read, grep, glob, ls, diff, history, write, edit, edit_many, move, delete, restore, discard, sync, materialize and status.',
    );
  });

  test('a budget that is not a whole number of 1 or more is refused', async () => {
    expect(await errorOf('read', { path: 'work/a.txt' }, 0)).toContain('resultMaxChars must be a whole number, 1 or more');
    expect(await errorOf('read', { path: 'work/a.txt' }, 2.5)).toContain('2.5');
  });

  test('checkInput passes a valid input through', () => {
    expect(checkInput(read, { path: 'work/a.txt', offset: 2 })).toEqual({ ok: true, input: { path: 'work/a.txt', offset: 2 } });
  });

  test('a missing input is an empty object', async () => {
    const r = await handleToolCall(ws(), { name: 'status' });
    expect(r.success).toBe(true);
  });
});

describe('handleToolCall never throws', () => {
  test('a mount that throws becomes a sentence, logged for the operator', async () => {
    const w = ws();
    const mount = w.mounts[0];
    mount.read = () => Promise.reject(new Error('disk on fire'));
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      const r = await handleToolCall(w, { name: 'read', input: { path: 'work/a.txt' } });
      expect(r).toEqual({ success: false, error: 'read failed inside ws (the details were logged for the operator); nothing more is known. Try again, or try another way.' });
      expect(JSON.stringify(logged.map(String))).toContain('disk on fire');
    } finally {
      console.error = original;
    }
  });

  test('a malformed call is a sentence', async () => {
    const r = await handleToolCall(ws(), null as never);
    expect(r.success).toBe(false);
  });
});

describe('a sentence repeats at most 200 characters of any input', () => {
  const huge = 'z'.repeat(300_000);
  const calls: [string, unknown][] = [
    ['read', { path: `work/${huge}/a` }],
    ['read', { path: huge }],
    ['read', { path: `work/${'n'.repeat(300)}` }],
    ['write', { path: `/${huge}`, content: 'x' }],
    ['diff', { path: `work/${huge}` }],
    ['move', { from: `work/${huge}`, to: 'work/b' }],
    ['status', { mount: huge }],
    ['read', { [huge]: 1 }],
    ['read', { path: 'work/a.txt', version: huge }],
    ['grep', { pattern: `(${huge}` }],
    ['grep', { pattern: 'x', type: huge }],
    ['glob', { pattern: `work/${huge}` }],
    [huge, {}],
  ];
  for (const [name, input] of calls) {
    test(`${name.slice(0, 20)} ${JSON.stringify(input).slice(0, 40)}`, async () => {
      const r = await handleToolCall(ws(), { name, input });
      const said = r.success ? JSON.stringify(r.data) : r.error;
      expect(said.length).toBeLessThan(r.success ? 1_000_000 : 1_000);
      if (!r.success) expect(said).not.toContain('z'.repeat(201));
    });
  }
});
