/**
 * No note suggests a field a tool doesn't take: every note and error a battery of calls
 * produces (every tool, pages cut at small budgets, each grep mode, cut reports) is
 * scanned for the fields it tells the caller to give — `offset=N`, `offsetChars=K`,
 * `recursive: true`, "with path or glob" — and each must be a field of the tool the
 * sentence names (the called tool where it names none).
 */
import { describe, expect, test } from 'bun:test';
import { type Mount, type Workspace, handleToolCall, inputSchemaOf, toolNamed, tools } from '../src/index.ts';
import { memoryWorkspace } from './memory-workspace.ts';

const fieldsOf = (tool: string) => Object.keys((inputSchemaOf(toolNamed(tool)!).properties ?? {}) as object);
const FIELDS = new Set(tools.flatMap((t) => fieldsOf(t.name)));
const TOOL_NAMES = tools.map((t) => t.name);
/** Words that are call parameters, not fields of a tool's input. */
const CALL_PARAMETERS = new Set(['resultMaxChars']);

/** The fields a sentence tells its reader to give, and the tool it names (if any). */
function suggested(sentence: string): { fields: string[]; tool?: string } {
  const fields = new Set<string>();
  for (const m of sentence.matchAll(/\b([A-Za-z]+)=/g)) fields.add(m[1]);
  for (const m of sentence.matchAll(/\b([A-Za-z]+): (?:true|false)\b/g)) fields.add(m[1]);
  // "with path or glob", "with a path, glob or type", "Narrow with path": field words after "with".
  for (const m of sentence.matchAll(/\bwith ((?:an? )?[A-Za-z]+(?:(?:, | or | and )(?:an? )?[A-Za-z]+)*)/g)) {
    const words = m[1].split(/, | or | and /).map((w) => w.replace(/^an? /, ''));
    // "find files with glob or ls": a list naming tools (one that is no field) names tools, not fields.
    if (words.some((w) => TOOL_NAMES.includes(w) && !FIELDS.has(w))) continue;
    for (const word of words) if (FIELDS.has(word)) fields.add(word);
  }
  const tool = TOOL_NAMES.find((name) => new RegExp(`\\b(with|use|run) ${name}\\b`).test(sentence));
  return { fields: [...fields].filter((f) => !CALL_PARAMETERS.has(f)), ...(tool ? { tool } : {}) };
}

/** A mount whose sync, materialize and status reports list many paths, so they are cut. */
function chattyWorkspace(): Workspace {
  const list = Array.from({ length: 500 }, (_, i) => ({ path: `dir/file-${i}.txt`, took: 'change' }));
  const report = { tookIn: list, counts: { synced: 500 } };
  const mount = { name: 'work', backend: 'store', readOnly: false, maxFileSize: 1000, sync: async () => ({ ok: true, report }), materialize: async () => ({ ok: true, report }), status: async () => report };
  return { mounts: [mount as unknown as Mount], hasDirectMount: false };
}

const long = `${'x'.repeat(3000)} hit ${'y'.repeat(3000)}`;
const files: Record<string, string | Uint8Array> = {
  'a.txt': Array.from({ length: 400 }, (_, i) => `line ${i} hit`).join('\r\n'),
  'bom.txt': '\uFEFFhit\n',
  'long.txt': `${long}\n${long}\n`,
  'bin.dat': new Uint8Array([1, 0, 2]),
  ...Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`many/f${i}.txt`, `hit ${i}\n`])),
};

const calls: [string, Record<string, unknown>, number | undefined][] = [
  ['read', { path: 'work/a.txt' }, 1000],
  ['read', { path: 'work/long.txt' }, 1000],
  ['read', { path: 'work/long.txt', offsetChars: 0, limitChars: 5000 }, 1000],
  ['read', { path: 'work/nope.txt' }, undefined],
  ['read', { path: 'work/bin.dat' }, undefined],
  ['read', { path: 'work/many' }, undefined],
  ['grep', { pattern: 'hit' }, 1000],
  ['grep', { pattern: 'hit', contextBefore: 3, contextAfter: 3 }, 1000],
  ['grep', { pattern: 'hit', output: 'files' }, 1000],
  ['grep', { pattern: 'hit', output: 'count' }, 1000],
  ['grep', { pattern: 'hit', offset: 5000 }, 1000],
  ['grep', { pattern: '\\r|\\uFEFF' }, 24_000],
  ['grep', { pattern: '(' }, undefined],
  ['grep', { pattern: 'x', type: 'nope' }, undefined],
  ['glob', { pattern: 'work/**' }, 1000],
  ['glob', { pattern: 'work/none/*.ts' }, 1000],
  ['ls', { path: 'work', recursive: true }, 1000],
  ['ls', { path: 'work/many', offset: 100 }, 1000],
  ['edit', { path: 'work/a.txt', oldString: 'hit', newString: 'miss' }, undefined],
  ['edit', { path: 'work/nope.txt', oldString: 'a', newString: 'b' }, undefined],
  ['write', { path: 'work/many', content: 'x' }, undefined],
  ['sync', {}, 300],
  ['materialize', {}, 300],
  ['status', {}, 300],
];

describe('no note suggests a field its tool does not take', () => {
  for (const backend of ['store', 'direct'] as const) {
    test(`every note and error of the battery, on ${backend} mounts`, async () => {
      const ws = memoryWorkspace([{ name: 'work', backend, files }]);
      let checked = 0;
      const reports = [['sync', {}, 1000], ['materialize', {}, 1000], ['status', {}, 1000]] as const;
      for (const [tool, input, resultMaxChars] of [...calls, ...reports.map(([t, i, m]) => [`chatty:${t}`, i, m] as const)]) {
        const chatty = tool.startsWith('chatty:');
        const name = chatty ? tool.slice('chatty:'.length) : tool;
        const r = await handleToolCall(chatty ? chattyWorkspace() : ws, { name, input, ...(resultMaxChars === undefined ? {} : { resultMaxChars }) });
        const text = r.success ? ((r.data as { note?: string }).note ?? '') : r.error;
        for (const sentence of text.split(/(?<=[.;])\s+/)) {
          const { fields, tool: named } = suggested(sentence);
          const who = named ?? name;
          const takes = fieldsOf(who);
          for (const field of fields) {
            checked++;
            expect({ tool: who, field, sentence, takes: takes.includes(field) }).toEqual({ tool: who, field, sentence, takes: true });
          }
        }
      }
      // The battery must reach the sentences that name fields, or it proves little.
      expect(checked).toBeGreaterThan(10);
    });
  }

  test('the scan finds what a note suggests', () => {
    expect(suggested('Showing files 1-3 of 9; continue with offset=3.').fields).toEqual(['offset']);
    expect(suggested('read its rest with offsetChars=4 and limitChars=5').fields).toEqual(['offsetChars', 'limitChars']);
    expect(suggested('list the mount with ls and recursive: true (each entry shows its state)')).toEqual({ fields: ['recursive'], tool: 'ls' });
    expect(suggested('Narrow with path or glob.').fields).toEqual(['path', 'glob']);
    expect(suggested('Narrow with path or mount to see the rest.').fields).toEqual(['path', 'mount']);
  });
});
