/**
 * A server keeps its allocator's freed pages (`src/bin/keep-pages.ts`): `ws mcp` and
 * `ws serve` replace themselves, once, with the same process started with
 * `MIMALLOC_PURGE_DELAY=-1` — the same id, arguments and environment, byte for byte —
 * unless the user set the option; a one-shot command never does. Seen through a preload
 * that writes a line each time a process starts a script, and through `/proc`.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { environmentKeepingPages } from '../src/bin/keep-pages.ts';
import { tempDir } from './fixtures.ts';
import { CLI, makeWorkspace, startServe } from './ws-process.ts';

setDefaultTimeout(60_000);

const RECORDER = join(import.meta.dir, 'exec-recorder.ts');

/** The lines the preload wrote: each start's process id and its `MIMALLOC_PURGE_DELAY`. */
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

describe('the environment a server starts again with', () => {
  test('is the one it started with and the option, unless the option is there', () => {
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
    expect(starts(out)).toEqual([`${ran.pid} -`, `${ran.pid} -1`]);
    expect(ran.environ).toEqual([...Object.entries(env).map(([k, v]) => Buffer.from(`${k}=${v}`).toString('latin1')), 'MIMALLOC_PURGE_DELAY=-1']);
    expect(ran.cmdline.slice(1)).toEqual(['--preload', RECORDER, CLI, '--config', w.config, 'mcp']);
  });

  test('ws serve does too, and still serves', async () => {
    const out = join(tempDir('ws-exec-'), 'starts.txt');
    const serving = await startServe(w.config, w.dir, ['--no-auth'], ['bun', '--preload', RECORDER, CLI], { ...process.env, WS_EXEC_OUT: out });
    const answer = await fetch(serving.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: initialize });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('"serverInfo"');
    expect(starts(out)).toEqual([`${serving.pid} -`, `${serving.pid} -1`]);
    expect(await serving.stop()).toBe(0);
  });

  test("the user's own value is kept and nothing is replaced", async () => {
    const out = join(tempDir('ws-exec-'), 'starts.txt');
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', WS_EXEC_OUT: out, MIMALLOC_PURGE_DELAY: '10' };
    const ran = await mcpOnce(['--config', w.config], env);
    expect(ran.code).toBe(0);
    expect(starts(out)).toEqual([`${ran.pid} 10`]);
    expect(ran.environ.filter((v) => v.startsWith('MIMALLOC'))).toEqual(['MIMALLOC_PURGE_DELAY=10']);
  });

  test('a one-shot command, a usage error and a server under Bun --cwd are not replaced', () => {
    for (const args of [
      ['--config', w.config, 'call', 'ls', '{}'],
      ['--config', w.config, 'mcp', '--port', '1'],
      ['--help'],
    ]) {
      const out = join(tempDir('ws-exec-'), 'starts.txt');
      const ran = Bun.spawnSync(['bun', '--preload', RECORDER, CLI, ...args], { env: { ...process.env, WS_EXEC_OUT: out }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
      expect({ args, lines: starts(out).map((l) => l.split(' ')[1]) }).toEqual({ args, lines: ['-'] });
      expect(ran.exitCode).not.toBe(null);
    }
    // Bun's --cwd moved the process before the script ran: started again, it would move twice.
    const out = join(tempDir('ws-exec-'), 'starts.txt');
    const ran = Bun.spawnSync(['bun', '--cwd', w.dir, '--preload', RECORDER, CLI, '--config', w.config, 'mcp'], { env: { ...process.env, WS_EXEC_OUT: out }, stdin: new TextEncoder().encode(initialize), stdout: 'pipe', stderr: 'pipe' });
    expect(ran.exitCode).toBe(0);
    expect(JSON.parse(ran.stdout.toString().split('\n')[0] as string)).toMatchObject({ id: 1 });
    expect(starts(out).map((l) => l.split(' ')[1])).toEqual(['-']);
  });
});
