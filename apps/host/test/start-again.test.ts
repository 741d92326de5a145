/**
 * A process starts itself again with one option of Bun's runtime (`src/bin/start-again.ts`):
 * `ws mcp` and `ws serve` replace themselves, once, with the same process started with
 * `MIMALLOC_PURGE_DELAY=-1`, and a one-shot `ws call grep` with `BUN_JSC_useFTLJIT=0` —
 * the same id, arguments and environment, byte for byte — unless the user set the option;
 * no other command does. Seen through a preload that writes a line each time a process
 * starts a script, and through `/proc`.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { environmentWith, KEEP_PAGES, NO_TOP_TIER, takesTopTierOption } from '../src/bin/start-again.ts';
import { tempDir } from './fixtures.ts';
import { CLI, makeWorkspace, startServe } from './ws-process.ts';

setDefaultTimeout(60_000);

const RECORDER = join(import.meta.dir, 'exec-recorder.ts');

/** The lines the preload wrote: each start's process id, its `MIMALLOC_PURGE_DELAY` and its `BUN_JSC_useFTLJIT`. */
function starts(out: string): string[] {
  return existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter((l) => l !== '') : [];
}

/** A NUL-separated `/proc` file of `pid`, split. */
function procList(pid: number, name: 'environ' | 'cmdline'): string[] {
  return readFileSync(`/proc/${pid}/${name}`, 'latin1').split('\0').slice(0, -1);
}

const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`;

/** `ws mcp` started with `env`, asked to initialize, and read through `/proc` while it answers. */
async function mcpOnce(args: readonly string[], env: Record<string, string>) {
  const proc = Bun.spawn(['bun', '--preload', RECORDER, CLI, ...args, 'mcp'], { env, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' });
  proc.stdin.write(initialize);
  await proc.stdin.flush();
  const reader = proc.stdout.getReader();
  let text = '';
  while (!text.includes('\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const seen = { environ: procList(proc.pid, 'environ'), cmdline: procList(proc.pid, 'cmdline') };
  proc.stdin.end();
  reader.releaseLock();
  const code = await proc.exited;
  return { pid: proc.pid, code, answer: JSON.parse(text.split('\n')[0] as string), ...seen };
}

describe('the environment a process starts again with', () => {
  test('is the one it started with and the option, unless the option is there', () => {
    const environmentKeepingPages = (environ: string) => environmentWith(environ, KEEP_PAGES);
    expect(environmentKeepingPages('A=1\0B=x=y\0')).toEqual(['A=1', 'B=x=y', 'MIMALLOC_PURGE_DELAY=-1']);
    expect(environmentKeepingPages('')).toEqual(['MIMALLOC_PURGE_DELAY=-1']);
    // Any value the user gave, empty too, is theirs.
    expect(environmentKeepingPages('A=1\0MIMALLOC_PURGE_DELAY=10\0')).toBeNull();
    expect(environmentKeepingPages('MIMALLOC_PURGE_DELAY=\0')).toBeNull();
    // A variable named like it is not it.
    expect(environmentKeepingPages('MIMALLOC_PURGE_DELAY_X=1\0')).toEqual(['MIMALLOC_PURGE_DELAY_X=1', 'MIMALLOC_PURGE_DELAY=-1']);
    // Bytes that are not UTF-8 go back as they came (the file is read a character a byte).
    const latin1 = Buffer.from([0x56, 0x3d, 0xff, 0xc3, 0x28]).toString('latin1');
    expect(Buffer.from(environmentKeepingPages(`${latin1}\0`)?.[0] ?? '', 'latin1')).toEqual(Buffer.from([0x56, 0x3d, 0xff, 0xc3, 0x28]));
    // A grep's option likewise: added, or the user's kept.
    expect(environmentWith('A=1\0', NO_TOP_TIER)).toEqual(['A=1', 'BUN_JSC_useFTLJIT=0']);
    expect(environmentWith('BUN_JSC_useFTLJIT=1\0', NO_TOP_TIER)).toBeNull();
    expect(environmentWith('MIMALLOC_PURGE_DELAY=10\0', NO_TOP_TIER)).toEqual(['MIMALLOC_PURGE_DELAY=10', 'BUN_JSC_useFTLJIT=0']);
  });
});

describe('a server keeps its freed pages', () => {
  const w = makeWorkspace([{ name: 'plain', backend: 'direct', files: { 'a.txt': 'one\n' } }]);

  test('ws mcp replaces itself once: the same process, arguments and environment, and the option', async () => {
    const out = join(tempDir('ws-exec-'), 'starts.txt');
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', WS_EXEC_OUT: out, WS_TEST_TEXT: 'é ✓ two  spaces' };
    const ran = await mcpOnce(['--config', w.config], env);
    expect(ran.code).toBe(0);
    expect(ran.answer).toMatchObject({ id: 1, result: { serverInfo: { name: 'ws' } } });
    expect(starts(out)).toEqual([`${ran.pid} - -`, `${ran.pid} -1 -`]);
    expect(ran.environ).toEqual([...Object.entries(env).map(([k, v]) => Buffer.from(`${k}=${v}`).toString('latin1')), 'MIMALLOC_PURGE_DELAY=-1']);
    expect(ran.cmdline.slice(1)).toEqual(['--preload', RECORDER, CLI, '--config', w.config, 'mcp']);
  });

  test('ws serve does too, and still serves', async () => {
    const out = join(tempDir('ws-exec-'), 'starts.txt');
    const serving = await startServe(w.config, w.dir, ['--no-auth'], ['bun', '--preload', RECORDER, CLI], { ...process.env, WS_EXEC_OUT: out });
    const answer = await fetch(serving.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: initialize });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('"serverInfo"');
    expect(starts(out)).toEqual([`${serving.pid} - -`, `${serving.pid} -1 -`]);
    expect(await serving.stop()).toBe(0);
  });

  test("the user's own value is kept and nothing is replaced", async () => {
    const out = join(tempDir('ws-exec-'), 'starts.txt');
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', WS_EXEC_OUT: out, MIMALLOC_PURGE_DELAY: '10' };
    const ran = await mcpOnce(['--config', w.config], env);
    expect(ran.code).toBe(0);
    expect(starts(out)).toEqual([`${ran.pid} 10 -`]);
    expect(ran.environ.filter((v) => v.startsWith('MIMALLOC'))).toEqual(['MIMALLOC_PURGE_DELAY=10']);
  });

  test('a one-shot command other than grep, a usage error and a server under Bun --cwd are not replaced', () => {
    const neither = { ...process.env, MIMALLOC_PURGE_DELAY: undefined, BUN_JSC_useFTLJIT: undefined };
    for (const args of [
      ['--config', w.config, 'call', 'ls', '{}'],
      ['--config', w.config, 'call', 'read', '{"path":"plain/a.txt"}'],
      ['--config', w.config, 'call', 'glob', '{"pattern":"**"}'],
      ['--config', w.config, 'mcp', '--port', '1'],
      ['--config', w.config, 'call', 'grep', '--port', '1'],
      ['--help'],
    ]) {
      const out = join(tempDir('ws-exec-'), 'starts.txt');
      const ran = Bun.spawnSync(['bun', '--preload', RECORDER, CLI, ...args], { env: { ...neither, WS_EXEC_OUT: out }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
      expect({ args, lines: starts(out).map(options) }).toEqual({ args, lines: ['- -'] });
      expect(ran.exitCode).not.toBe(null);
    }
    // Bun's --cwd moved the process before the script ran: started again, it would move twice.
    for (const [args, stdin] of [
      [['mcp'], initialize],
      [['call', 'grep', '{"pattern":"one"}'], ''],
    ] as const) {
      const out = join(tempDir('ws-exec-'), 'starts.txt');
      const ran = Bun.spawnSync(['bun', '--cwd', w.dir, '--preload', RECORDER, CLI, '--config', w.config, ...args], { env: { ...neither, WS_EXEC_OUT: out }, stdin: new TextEncoder().encode(stdin), stdout: 'pipe', stderr: 'pipe' });
      expect(ran.exitCode).toBe(0);
      expect(ran.stdout.toString()).toContain(args[0] === 'mcp' ? '"serverInfo"' : '"totalMatches": 1');
      expect(starts(out).map(options)).toEqual(['- -']);
    }
  });
});

/** A line of the preload's without its process id: the two options as started. */
const options = (line: string) => line.split(' ').slice(1).join(' ');

describe('a one-shot grep runs without the top tier', () => {
  test('the running Bun takes the option (Bun refuses to start with one it does not know), and only Bun 1 is given it', () => {
    expect(takesTopTierOption(Bun.version)).toBe(true);
    const [name, value] = NO_TOP_TIER;
    const ran = Bun.spawnSync(['bun', '-e', 'process.stdout.write("started")'], { env: { ...process.env, [name]: value }, stdout: 'pipe', stderr: 'pipe' });
    expect({ code: ran.exitCode, out: ran.stdout.toString(), err: ran.stderr.toString() }).toEqual({ code: 0, out: 'started', err: '' });
    // One it does not know: the failure the version check keeps a grep from.
    const unknown = Bun.spawnSync(['bun', '-e', 'process.stdout.write("started")'], { env: { ...process.env, BUN_JSC_wsNoSuchOption: '0' }, stdout: 'pipe', stderr: 'pipe' });
    expect(unknown.exitCode).not.toBe(0);
    expect(unknown.stdout.toString()).toBe('');
    for (const v of ['1.4.4', '1.10.0-canary.1']) expect(takesTopTierOption(v)).toBe(true);
    for (const v of ['2.0.0', '0.9.1', '11.0.0', '']) expect(takesTopTierOption(v)).toBe(false);
  });

  const w = makeWorkspace([
    { name: 'plain', backend: 'direct', files: { 'a.txt': 'one\ntwo\n', 'b.txt': 'two\n' } },
    { name: 'kept', backend: 'store', files: { 'c.txt': 'two three\n', 'd.txt': 'é ✓ four\n' } },
  ]);

  /** `ws call grep` run with `env` (and the preload), with what `/proc` showed of it while it ran. */
  async function grepOnce(env: Record<string, string>) {
    // A pattern beyond ASCII: the arguments go back byte for byte.
    const proc = Bun.spawn(['bun', '--preload', RECORDER, CLI, '--config', w.config, 'call', 'grep', '{"pattern":"two|é ✓"}'], { env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { pid: proc.pid, code, stdout, stderr };
  }

  test('ws call grep replaces itself once: the same process and arguments, the option added, the same answer', async () => {
    const out = join(tempDir('ws-exec-'), 'starts.txt');
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', WS_EXEC_OUT: out, WS_TEST_TEXT: 'é ✓ two  spaces' };
    const ran = await grepOnce(env);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(starts(out)).toEqual([`${ran.pid} - -`, `${ran.pid} - 0`]);
    const answer = JSON.parse(ran.stdout);
    expect(answer.success).toBe(true);
    expect(answer.data.totalMatches).toBe(4);
    expect(answer.data.results.map((r: { path: string }) => r.path).sort()).toEqual(['kept/c.txt', 'kept/d.txt', 'plain/a.txt', 'plain/b.txt']);
    // The user's value of the option is theirs: kept, and the answer the same.
    const out2 = join(tempDir('ws-exec-'), 'starts.txt');
    const kept = await grepOnce({ ...env, WS_EXEC_OUT: out2, BUN_JSC_useFTLJIT: '1' });
    expect(kept.code).toBe(0);
    expect(starts(out2)).toEqual([`${kept.pid} - 1`]);
    expect(JSON.parse(kept.stdout)).toEqual(answer);
  });
});
