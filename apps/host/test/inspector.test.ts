/**
 * A client nobody here wrote: the MCP Inspector's CLI mode (a devDependency at an exact
 * version), run with `node`, lists ws's tools and calls read, grep and edit — over stdio
 * (it starts `ws mcp` itself) and over HTTP to a running `ws serve` with the token.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { tools } from '@ws/tools';
import { CLI, makeWorkspace, type Serving, startServe, type Workspace } from './ws-process.ts';

setDefaultTimeout(120_000);

/** The Inspector's `mcp-inspector` bin, wherever the install put the package. */
const INSPECTOR = (() => {
  const manifest = Bun.resolveSync('@modelcontextprotocol/inspector/package.json', import.meta.dir);
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin['mcp-inspector'];
  return resolve(dirname(manifest), bin);
})();

/** Runs `node INSPECTOR --cli ARGS` to the end. */
async function inspector(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(['node', INSPECTOR, '--cli', ...args], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** A tool result as the Inspector prints it: the data parsed from its JSON text. */
// biome-ignore lint/suspicious/noExplicitAny: each tool's data has its own shape
function data(printed: { code: number; stdout: string; stderr: string }): any {
  expect({ code: printed.code, stderr: printed.stderr.includes('"error"') ? printed.stderr : '' }).toEqual({ code: 0, stderr: '' });
  const result = JSON.parse(printed.stdout) as { content: { type: string; text: string }[]; isError?: boolean };
  expect(result.isError).toBeUndefined();
  return JSON.parse(result.content[0].text);
}

/** What the Inspector does on each transport: list, read, grep, edit (checked on disk after materialize). */
async function drive(target: readonly string[], w: Workspace): Promise<void> {
  const call = (tool: string, ...args: string[]) => inspector([...target, '--method', 'tools/call', '--tool-name', tool, '--tool-arg', ...args]);
  const listed = await inspector([...target, '--method', 'tools/list']);
  expect(listed.code).toBe(0);
  const names = (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
  expect(names).toEqual(tools.map((t) => t.name));
  expect(names).toContain('edit');

  expect(data(await call('read', 'path=work/win.txt')).content).toBe('1\tone\n2\ttwo\n3\tthree');
  const found = data(await call('grep', 'pattern=two$'));
  expect(found.results).toEqual([{ path: 'work/win.txt', lineEndings: 'CRLF', matches: [{ line: 2, text: 'two' }] }]);
  expect(data(await call('edit', 'path=work/win.txt', 'oldString=two', 'newString=deux')).edits).toHaveLength(1);
  expect(data(await call('read', 'path=work/win.txt')).content).toBe('1\tone\n2\tdeux\n3\tthree');
  // A tool error comes back as one: exit code 5, the sentence in the result.
  const missing = await call('read', 'path=work/nope.txt');
  expect(missing.code).not.toBe(0);
  expect(missing.stdout).toContain('work/nope.txt does not exist');
  data(await call('materialize', 'mount=work'));
  expect(readFileSync(w.disk('work/win.txt'), 'utf8')).toBe('one\r\ndeux\r\nthree\r\n');
}

function workspace(): Workspace {
  return makeWorkspace([{ name: 'work', backend: 'store', files: { 'win.txt': 'one\r\ntwo\r\nthree\r\n' } }]);
}

describe('the MCP Inspector CLI under node', () => {
  test('runs on this machine\u2019s node', async () => {
    const version = await inspector(['--version']);
    expect(version.code).toBe(0);
    console.log(`MCP Inspector ${version.stdout.trim()} on node ${Bun.spawnSync(['node', '--version']).stdout.toString().trim()}`);
  });

  test('over stdio: it starts ws mcp, lists the tools, calls read, grep and edit', async () => {
    const w = workspace();
    // ws finds ws.toml in the directory the Inspector starts it in.
    await drive(['--cwd', w.dir, 'bun', CLI, 'mcp'], w);
  });

  describe('over HTTP', () => {
    let w: Workspace;
    let serving: Serving;
    beforeAll(async () => {
      w = workspace();
      serving = await startServe(w.config, w.dir);
    });
    afterAll(async () => {
      await serving?.stop();
    });

    test('with the token: it lists the tools, calls read, grep and edit', async () => {
      await drive([serving.url, '--transport', 'http', '--header', `Authorization: Bearer ${serving.token}`], w);
    });

    test('without the token, or with a wrong one, it gets nothing', async () => {
      for (const header of [[], ['--header', `Authorization: Bearer ${'x'.repeat(43)}`]]) {
        const refused = await inspector([serving.url, '--transport', 'http', ...header, '--method', 'tools/list']);
        expect(refused.code).not.toBe(0);
        expect(refused.stdout).not.toContain('"tools"');
      }
    });
  });
});
