/**
 * Runs a README's ```ts example and checks the results its comments state, so an example
 * can't rot. Every package's `test/readme.test.ts` calls `readmeExample` on its README
 * (and on its section of the root README). The one rule: a comment that states a result
 * is checked, so it must be true — prose goes on lines of its own.
 *
 * How an example states a result (one statement on one line, then `// →`):
 *
 *     ft.lines; // → ['one', 'two']                  the value, compared with toEqual
 *     const page = linePage(ft, o); // → { toLine: 1 }  a declaration checks what it declares
 *     await search('(', files); // → throws GrepError: 'The pattern `(` …'
 *
 * - The expected value is a JavaScript expression; it may go on over the next comment
 *   lines (`//   …`) until it parses.
 * - An object is matched partially (toMatchObject): it names the fields that matter, and
 *   the result may carry more. Arrays are matched whole, element by element.
 * - `throws Name: 'text'` expects the statement to throw (or reject) an error of that
 *   name whose message is the text; a text ending in ` …` is its message's beginning.
 * - Free names the example uses without defining (a `workspace`, the `store` and `disk`
 *   ports) come from the test's `prelude`, which runs after the example's imports.
 */
import { describe, expect, test } from 'bun:test';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One result a comment states, and where. */
interface Statement {
  /** 1-based line in the README. */
  readonly line: number;
  readonly code: string;
}

/** The ```ts blocks of a markdown text, each with the README line its first code line is on. */
export function tsBlocks(markdown: string): { readonly line: number; readonly code: string }[] {
  const lines = markdown.split('\n');
  const blocks: { line: number; code: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== '```') end++;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** The first ```ts block after the heading line `heading` (or the first of the file), and its line. */
export function exampleOf(markdown: string, heading?: string): { readonly line: number; readonly code: string } {
  let text = markdown;
  let offset = 0;
  if (heading !== undefined) {
    const at = markdown.split('\n').findIndex((l) => l.trim() === heading);
    if (at < 0) throw new Error(`The README has no heading "${heading}".`);
    offset = at;
    text = markdown.split('\n').slice(at).join('\n');
  }
  const first = tsBlocks(text)[0];
  if (first === undefined) throw new Error(`The README has no \`\`\`ts example${heading === undefined ? '' : ` under "${heading}"`}.`);
  return { line: first.line + offset, code: first.code };
}

const ARROW = '// → ';

function parses(expression: string): boolean {
  try {
    new Function(`return (${expression});`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The example as a module: its imports, then the prelude, then its lines, each stated
 * result turned into a check. Exported for the helper's own test.
 */
export function checkedModule(example: { readonly line: number; readonly code: string }, prelude = ''): { module: string; checks: number } {
  const lines = example.code.split('\n');
  const imports: string[] = [];
  const body: string[] = [];
  let checks = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const at = line.indexOf(ARROW);
    if (/^import\s/.test(line.trim())) {
      imports.push(line);
      continue;
    }
    if (at < 0 || line.trimStart().startsWith('//')) {
      body.push(line);
      continue;
    }
    const first = i;
    let expected = line.slice(at + ARROW.length).trim();
    while (!parses(expected.replace(/^throws\s+\w*:?\s*/, '')) && i + 1 < lines.length && /^\s*\/\//.test(lines[i + 1])) {
      i++;
      expected += `\n${lines[i].replace(/^\s*\/\//, '')}`;
    }
    body.push(check({ line: example.line + first, code: line.slice(0, at).trim() }, expected));
    checks++;
  }
  const module = [
    `import { statedResult, statedThrow } from ${JSON.stringify(import.meta.path)};`,
    ...imports,
    prelude,
    ...body,
  ].join('\n');
  return { module, checks };
}

/** One line of the module: the statement, and the check of what its comment states. */
function check(statement: Statement, expected: string): string {
  const code = statement.code.replace(/;$/, '');
  const thrown = /^throws\s+(\w*):?\s*([\s\S]*)$/.exec(expected);
  if (thrown !== null) {
    return `await statedThrow(${statement.line}, async () => { ${code}; }, ${JSON.stringify(thrown[1])}, ${thrown[2]});`;
  }
  const declared = /^(const|let)\s+(\w+)\s*=/.exec(code);
  if (declared !== null) return `${code}; statedResult(${statement.line}, ${declared[2]}, (${expected}));`;
  return `statedResult(${statement.line}, (${code}), (${expected}));`;
}

function where(line: number, err: unknown): Error {
  return new Error(`README line ${line} states a result the example does not give:\n${err instanceof Error ? err.message : String(err)}`);
}

/** Checks a stated result (called by the generated module). */
export function statedResult(line: number, actual: unknown, expected: unknown): void {
  try {
    if (typeof expected === 'object' && expected !== null && !Array.isArray(expected)) expect(actual).toMatchObject(expected as Record<string, unknown>);
    else expect(actual).toEqual(expected);
  } catch (err) {
    throw where(line, err);
  }
}

/** Checks a stated throw (called by the generated module). */
export async function statedThrow(line: number, run: () => Promise<void>, name: string, message: string): Promise<void> {
  let caught: unknown;
  try {
    await run();
  } catch (err) {
    caught = err;
  }
  try {
    expect(caught).toBeInstanceOf(Error);
    const err = caught as Error;
    if (name !== '') expect(err.name).toBe(name);
    if (message.endsWith(' …')) expect(err.message.startsWith(message.slice(0, -2))).toBe(true);
    else expect(err.message).toBe(message);
  } catch (err) {
    throw where(line, err);
  }
}

let runs = 0;

/**
 * Runs the example of `readme` (its first ```ts block, or the first after `heading`) with
 * `prelude`, checking every result it states; resolves to how many it checked. The module
 * is written beside the README's package (so its imports resolve as the package's do) and
 * removed after (each run its own file: a module is imported once per path).
 */
export async function readmeExample(readme: string, options: { heading?: string; prelude?: string; dir?: string } = {}): Promise<number> {
  const example = exampleOf(await Bun.file(readme).text(), options.heading);
  const { module, checks } = checkedModule(example, options.prelude);
  const file = join(options.dir ?? join(dirname(readme), 'test'), `.readme-example-${process.pid}-${++runs}.ts`);
  writeFileSync(file, module);
  try {
    await import(file);
  } finally {
    rmSync(file, { force: true });
  }
  return checks;
}

/** What a package's README test needs: the package, its prelude, and how many results each example states. */
export interface ReadmeTests {
  /** The package's folder (its `test/` holds the generated modules). */
  readonly dir: string;
  /** `@ws/name`: the root README's section is `### @ws/name`. */
  readonly name: string;
  readonly prelude?: string;
  /** How many results the package README's example states, and the root README's. */
  readonly checks: number;
  readonly rootChecks: number;
}

/**
 * The tests of a package's README examples: its own README's first example and its
 * section of the root README each run and give every result they state (and state as
 * many as `checks` says, so a comment the check no longer reads as a result is noticed).
 */
export function describeReadmes(t: ReadmeTests): void {
  const testDir = join(t.dir, 'test');
  describe('the README examples run and give what they say', () => {
    test("the package README's example", async () => {
      expect(await readmeExample(join(t.dir, 'README.md'), { dir: testDir, prelude: t.prelude ?? '' })).toBe(t.checks);
    });
    test(`the root README's ${t.name} example`, async () => {
      const root = join(t.dir, '../../README.md');
      expect(await readmeExample(root, { heading: `### ${t.name}`, dir: testDir, prelude: t.prelude ?? '' })).toBe(t.rootChecks);
    });
  });
}
