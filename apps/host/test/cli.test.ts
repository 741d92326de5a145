/**
 * The `ws` command as a person runs it: `ws call` for every tool, exit codes 0/1/2,
 * bad configs and bad flags as one line, and the commands for people.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './fixtures.ts';
import { CLI, makeWorkspace, type Ran, ws, wsCall } from './ws-process.ts';

// Each test starts real `ws` processes, which takes seconds on a busy machine; as the package's test script allows, even when a file is run alone.
setDefaultTimeout(120_000);

/** A bad-usage answer: exit 2, nothing on stdout, one line on stderr, no stack trace. */
function expectOneLine(ran: Ran): string {
  expect({ code: ran.code, stdout: ran.stdout }).toEqual({ code: 2, stdout: '' });
  const lines = ran.stderr.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  expect(ran.stderr).not.toMatch(/^\s+at /m);
  return lines[0];
}

describe('ws call round trips every tool', () => {
  const w = makeWorkspace([
    { name: 'work', backend: 'store', files: { 'src/a.ts': 'export const a = 1;\r\nexport const b = 2;\r\n', 'notes.md': '# notes\n' } },
    { name: 'plain', backend: 'direct', files: { 'p.txt': 'plain text\n' } },
  ]);
  const call = (tool: string, input: unknown, extra: readonly string[] = []) => wsCall(w.dir, tool, input, extra);

  test('read prints the page as {success, data} and exits 0', async () => {
    const { code, result } = await call('read', { path: 'work/src/a.ts' });
    expect(code).toBe(0);
    expect(result).toMatchObject({ success: true, data: { path: 'work/src/a.ts', totalLines: 2, content: '1\texport const a = 1;\n2\texport const b = 2;' } });
  });

  test('grep finds lines on both mounts', async () => {
    const { code, result } = await call('grep', { pattern: 'const b|plain' });
    expect(code).toBe(0);
    expect(result.success && (result.data.results as { path: string }[]).map((r) => r.path)).toEqual(['work/src/a.ts', 'plain/p.txt']);
  });

  test('glob lists mount-prefixed paths', async () => {
    const { code, result } = await call('glob', { pattern: 'work/**/*.ts' });
    expect(code).toBe(0);
    expect(result).toMatchObject({ success: true, data: { files: ['work/src/a.ts'] } });
  });

  test('ls lists a store-backed directory with states', async () => {
    const { code, result } = await call('ls', { path: 'work' });
    expect(code).toBe(0);
    expect(result.success && result.data.entries).toEqual([
      { path: 'work/notes.md', kind: 'file', size: 8, state: 'synced' },
      { path: 'work/src', kind: 'directory' },
    ]);
  });

  test('write stores a draft that later calls read, and disk does not have yet', async () => {
    expect((await call('write', { path: 'work/new/b.txt', content: 'one\ntwo\n' })).code).toBe(0);
    expect((await call('read', { path: 'work/new/b.txt' })).result).toMatchObject({ success: true, data: { content: '1\tone\n2\ttwo' } });
    expect(existsSync(w.disk('work/new/b.txt'))).toBe(false);
  });

  test('edit changes the draft; a CRLF file stays CRLF', async () => {
    expect((await call('edit', { path: 'work/new/b.txt', oldString: 'two', newString: 'deux' })).code).toBe(0);
    expect((await call('edit', { path: 'work/src/a.ts', oldString: 'a = 1;\nexport', newString: 'a = 10;\nexport' })).code).toBe(0);
    expect((await call('read', { path: 'work/new/b.txt' })).result).toMatchObject({ data: { content: '1\tone\n2\tdeux' } });
  });

  test('edit_many stores edits across mounts together', async () => {
    const { code, result } = await call('edit_many', {
      edits: [
        { path: 'work/notes.md', oldString: '# notes', newString: '# Notes' },
        { path: 'plain/p.txt', oldString: 'plain', newString: 'direct' },
      ],
    });
    expect(code).toBe(0);
    expect(result.success && (result.data.edits as unknown[]).length).toBe(2);
    expect(readFileSync(w.disk('plain/p.txt'), 'utf8')).toBe('direct text\n');
  });

  test('materialize writes the drafts to disk, CRLF kept', async () => {
    const { code, result } = await call('materialize', { mount: 'work' });
    expect(code).toBe(0);
    expect(result.success && (result.data.mounts as { written: string[] }[])[0].written).toEqual(['work/new/b.txt', 'work/notes.md', 'work/src/a.ts']);
    expect(readFileSync(w.disk('work/src/a.ts'), 'utf8')).toBe('export const a = 10;\r\nexport const b = 2;\r\n');
    expect(readFileSync(w.disk('work/new/b.txt'), 'utf8')).toBe('one\ndeux\n');
  });

  test('sync takes a change made on disk in', async () => {
    writeFileSync(w.disk('work/notes.md'), '# Notes, by a person\n');
    const { code, result } = await call('sync', { mount: 'work' });
    expect(code).toBe(0);
    expect(result.success && (result.data.mounts as { tookIn: unknown[] }[])[0].tookIn).toEqual([{ path: 'work/notes.md', took: 'change' }]);
  });

  test('delete removes a file on a direct mount from disk', async () => {
    expect((await call('delete', { path: 'plain/p.txt' })).code).toBe(0);
    expect(existsSync(w.disk('plain/p.txt'))).toBe(false);
  });

  test('status reports each mount', async () => {
    const { code, result } = await call('status', {});
    expect(code).toBe(0);
    const mounts = result.success ? (result.data.mounts as { mount: string; backend: string; drafts?: string[] }[]) : [];
    expect(mounts.map((m) => [m.mount, m.backend, m.drafts])).toEqual([
      ['work', 'store', []],
      ['plain', 'direct', undefined],
    ]);
  });

  test('a tool error prints the error JSON and exits 1', async () => {
    const ran = await ws(w.dir, ['call', 'read', '{"path":"work/nope.txt"}']);
    expect(ran.code).toBe(1);
    const printed = JSON.parse(ran.stdout);
    expect(printed.success).toBe(false);
    expect(printed.error).toContain('work/nope.txt');
    expect(ran.stderr).toBe('');
  });

  test('--result-max-chars holds the answer to the budget; without it the page is whole', async () => {
    writeFileSync(w.disk('plain/long.txt'), Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join('\n'));
    const held = await call('read', { path: 'plain/long.txt' }, ['--result-max-chars', '300']);
    expect(held.code).toBe(0);
    expect(JSON.stringify(held.result.success && held.result.data).length).toBeLessThanOrEqual(300);
    expect(held.result).toMatchObject({ data: { fromLine: 1 } });
    const whole = await call('read', { path: 'plain/long.txt' });
    expect(whole.result).toMatchObject({ data: { toLine: 400 } });
  });

  test('a large result reaches a reader that is slow to read it, whole', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1} ${'y'.repeat(40)}`);
    writeFileSync(w.disk('plain/big.txt'), `${lines.join('\n')}\n`);
    const proc = Bun.spawn(['bun', CLI, 'call', 'read', '{"path":"plain/big.txt","limit":20000}'], { cwd: w.dir, stdout: 'pipe', stderr: 'pipe' });
    // Nothing reads the pipe until well after ws has printed; ws must wait for it, not exit.
    await Bun.sleep(1500);
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(JSON.parse(out).data.toLine).toBe(20_000);
  });

  test('"-" reads the input JSON from stdin', async () => {
    const ran = await ws(w.dir, ['call', 'write', '-'], JSON.stringify({ path: 'plain/from-stdin.txt', content: 'piped\n' }));
    expect(ran.code).toBe(0);
    expect(readFileSync(w.disk('plain/from-stdin.txt'), 'utf8')).toBe('piped\n');
  });

  test('ws status, ws sync PATH and ws materialize PATH --force print their reports', async () => {
    const status = await ws(w.dir, ['status']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).success).toBe(true);
    const sync = await ws(w.dir, ['sync', 'work/notes.md']);
    expect(sync.code).toBe(0);
    expect(JSON.parse(sync.stdout).data.mounts[0].scope).toBe('work/notes.md');
    expect((await call('write', { path: 'work/forced.txt', content: 'f\n' })).code).toBe(0);
    const pushed = await ws(w.dir, ['materialize', 'work/forced.txt', '--force']);
    expect(pushed.code).toBe(0);
    expect(readFileSync(w.disk('work/forced.txt'), 'utf8')).toBe('f\n');
  });

  test('ws sync --accept-new-root MOUNT syncs that mount, accepting its root; a mount that is not store-backed is exit 1', async () => {
    const accepted = await ws(w.dir, ['sync', '--accept-new-root', 'work']);
    expect(accepted.code).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({ success: true, data: { mounts: [{ mount: 'work', scope: '(whole mount)' }] } });
    const refused = await ws(w.dir, ['sync', '--accept-new-root', 'plain']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toContain('no store-backed mount named "plain"');
    expect((await ws(w.dir, ['status', '--accept-new-root'])).code).toBe(2);
  });
});

describe('one-shot commands and watching', () => {
  test('ws status on a watch = "always" mount looks at disk itself, since no watcher runs for it', async () => {
    const w = makeWorkspace([{ name: 'live', backend: 'store', watch: 'always', files: { 'a.txt': 'first\n' } }]);
    expect((await wsCall(w.dir, 'read', { path: 'live/a.txt' })).code).toBe(0);
    expect((await wsCall(w.dir, 'write', { path: 'live/a.txt', content: 'by the agent\n' })).code).toBe(0);
    writeFileSync(w.disk('live/a.txt'), 'by a person\n');
    const status = await ws(w.dir, ['status']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).data.mounts[0]).toMatchObject({ drafts: [], conflicts: [{ path: 'live/a.txt', kind: 'both-changed' }] });
  });
});

describe('bad usage is one line on stderr and exit 2', () => {
  const w = makeWorkspace([{ name: 'work', backend: 'direct', files: { 'a.txt': 'a\n' } }]);
  const cases: [string, string[], string][] = [
    ['no command', [], 'no command given'],
    ['an unknown command', ['serv'], 'unknown command "serv"'],
    ['an unknown flag', ['status', '--verbose'], 'unknown flag --verbose'],
    ['a flag of another command', ['status', '--force'], '--force does not apply to "status"'],
    ['a flag given twice', ['call', 'status', '--result-max-chars', '5', '--result-max-chars=6'], '--result-max-chars is given twice'],
    ['a flag without its value', ['serve', '--port'], '--port needs a value'],
    ['a port that is not a port', ['serve', '--port', '70000'], '--port must be a port number'],
    ['a budget that is not a whole number', ['call', 'status', '{}', '--result-max-chars', '1.5'], '--result-max-chars must be a whole number above 0'],
    ['an unknown tool', ['call', 'cat', '{}'], 'there is no tool named "cat"'],
    ['input that is not JSON', ['call', 'read', '{path:'], 'the input for read is not valid JSON'],
    ['too many arguments', ['call', 'read', '{}', 'extra'], 'usage: ws call TOOL'],
    ['a branch verb it does not know', ['branch', 'delete', 'x'], 'usage: ws branch list'],
    ['a config file that does not exist', ['--config', 'missing.toml', 'status'], 'missing.toml: the config file does not exist'],
    ['--no-auth on another command', ['mcp', '--no-auth'], '--no-auth does not apply to "mcp"'],
    ['--new on another command', ['serve', '--new'], '--new does not apply to "serve"'],
    ['an argument to ws token', ['token', 'x'], 'usage: ws token [--new]'],
    ['a --cwd that is not a directory', ['--cwd', 'a.txt', 'status'], '--cwd a.txt is not a directory'],
  ];
  for (const [what, args, says] of cases) {
    test.concurrent(what, async () => {
      expect(expectOneLine(await ws(w.dir, args))).toContain(says);
    });
  }

  test('--help prints the commands on stdout and exits 0', async () => {
    const ran = await ws(w.dir, ['--help']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('usage: ws [--config FILE] [--cwd DIR] COMMAND');
    for (const command of ['mcp', 'serve', '--no-auth', 'token', 'call TOOL', 'tools', 'status', 'sync', 'materialize', 'branch list', 'init']) expect(ran.stdout).toContain(command);
  });

  test('-- ends the flags, so a path may start with a dash', async () => {
    writeFileSync(w.disk('work/-dash.txt'), 'dash\n');
    const ran = await ws(w.dir, ['--config', w.config, 'call', '--', 'read', '{"path":"work/-dash.txt"}']);
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout).data.content).toBe('1\tdash');
  });
});

describe('a bad config is one line naming the file and the key, exit 2', () => {
  function configured(toml: string, dirs: readonly string[] = []): string {
    const dir = tempDir('ws-cli-config-');
    for (const d of dirs) mkdirSync(join(dir, d), { recursive: true });
    writeFileSync(join(dir, 'ws.toml'), toml);
    return dir;
  }

  test('an unknown key', async () => {
    const dir = configured('[[mount]]\nname = "w"\npath = "."\nreadonly = true\n');
    const line = expectOneLine(await ws(dir, ['status']));
    expect(line).toBe(
      `${join(dir, 'ws.toml')}: mount[0].readonly is not a known key; allowed here: name, path, backend, mode, ignore, gitignore, maxFileSize, autoMaterialize, watch, followSymlinks, protect.`,
    );
  });

  test('a mount path that does not exist', async () => {
    const dir = configured('[[mount]]\nname = "w"\npath = "gone"\n');
    expect(expectOneLine(await ws(dir, ['status']))).toBe(`${join(dir, 'ws.toml')}: mount[0].path "gone" (${join(dir, 'gone')}) does not exist; create it or fix the path.`);
  });

  test('a duplicate mount name', async () => {
    const dir = configured('[[mount]]\nname = "w"\npath = "a"\n[[mount]]\nname = "w"\npath = "b"\n', ['a', 'b']);
    expect(expectOneLine(await ws(dir, ['status']))).toBe(`${join(dir, 'ws.toml')}: mount[1].name "w" is already the name of another mount; mount names must be unique.`);
  });

  test('a mount nested inside another', async () => {
    const dir = configured('[[mount]]\nname = "outer"\npath = "a"\n[[mount]]\nname = "inner"\npath = "a/b"\n', ['a/b']);
    expect(expectOneLine(await ws(dir, ['status']))).toBe(
      `${join(dir, 'ws.toml')}: mount[1].path puts mount "inner" inside mount "outer" (${join(dir, 'a')}); mounts must not nest.`,
    );
  });

  test('a value of the wrong kind, and a file that is not TOML', async () => {
    const wrong = configured('[[mount]]\nname = "w"\npath = "."\nwatch = "sometimes"\n');
    expect(expectOneLine(await ws(wrong, ['status']))).toContain('mount[0].watch must be one of "on-tool-call", "always", "never", not "sometimes".');
    const broken = configured('[[mount]\nname = ');
    expect(expectOneLine(await ws(broken, ['mcp']))).toContain('ws.toml: not valid TOML');
  });
});

describe('commands for people', () => {
  test('ws tools lists every tool with its input schema', async () => {
    const ran = await ws(tempDir(), ['tools']);
    expect(ran.code).toBe(0);
    const listed = JSON.parse(ran.stdout) as { name: string; description: string; inputSchema: { type: string } }[];
    expect(listed.map((t) => t.name)).toEqual(['read', 'grep', 'glob', 'ls', 'diff', 'history', 'write', 'edit', 'edit_many', 'move', 'delete', 'restore', 'discard', 'sync', 'materialize', 'status']);
    for (const t of listed) {
      expect(t.description.length).toBeGreaterThan(0);
      expect(t.inputSchema.type).toBe('object');
    }
  });

  test('ws init writes a commented ws.toml that loads, and will not overwrite it', async () => {
    const dir = tempDir();
    const first = await ws(dir, ['init']);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`wrote ${join(dir, 'ws.toml')}\n`);
    const written = readFileSync(join(dir, 'ws.toml'), 'utf8');
    for (const key of ['resultMaxChars', 'path', 'name', 'backend', 'mode', 'ignore', 'maxFileSize', 'autoMaterialize', 'watch', 'followSymlinks']) {
      expect(written).toMatch(new RegExp(`^${key} = .* # `, 'm'));
    }
    const status = await ws(dir, ['status']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).data.mounts[0]).toMatchObject({ mount: 'work', backend: 'store', root: dir });
    expect(expectOneLine(await ws(dir, ['init']))).toContain('already exists');
  });

  test('ws init --config FILE writes there', async () => {
    const dir = tempDir();
    expect((await ws(dir, ['init', '--config', 'other.toml'])).code).toBe(0);
    expect(existsSync(join(dir, 'other.toml'))).toBe(true);
  });

  test('ws branch create, list and switch: each branch keeps its own drafts', async () => {
    const w = makeWorkspace([{ name: 'work', backend: 'store', files: { 'a.txt': 'main text\n' } }]);
    const run = (...args: string[]) => ws(w.dir, args);
    expect((await wsCall(w.dir, 'read', { path: 'work/a.txt' })).code).toBe(0);

    const created = await run('branch', 'create', 'feature');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ ok: true, branch: 'feature' });
    const listed = JSON.parse((await run('branch', 'list')).stdout) as { name: string; selected: boolean }[];
    expect(listed.map((b) => [b.name, b.selected])).toEqual([
      ['main', true],
      ['feature', false],
    ]);

    expect((await run('branch', 'switch', 'feature')).code).toBe(0);
    expect((await wsCall(w.dir, 'write', { path: 'work/a.txt', content: 'feature text\n' })).code).toBe(0);
    expect((await run('branch', 'switch', 'main')).code).toBe(0);
    expect((await wsCall(w.dir, 'read', { path: 'work/a.txt' })).result).toMatchObject({ data: { content: '1\tmain text' } });

    const missing = await run('branch', 'switch', 'nope');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false });
    expect((await run('branch', 'create', 'main')).code).toBe(1);
  });
});
