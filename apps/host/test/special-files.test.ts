/**
 * Only regular files are read or written, through the real host (one long-running
 * `ws mcp` per mount kind): a FIFO, a socket and a character device in the mount are
 * refused by every tool within a second, without a blocking open, while the server
 * answers another call meanwhile; a listing shows them as passed over, never opened.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './fixtures.ts';
import { connectStdio, mcpCall, type StdioSession } from './ws-process.ts';
import { storeToml } from './engine.ts';

const sessions: StdioSession[] = [];
const servers: Server[] = [];
afterAll(async () => {
  for (const s of sessions) await s.close();
  for (const s of servers) s.close();
});

/** The one bound the issue sets: every tool answers within a second. */
const ANSWER_MS = 1000;

function run(cmd: string[]): void {
  const r = Bun.spawnSync(cmd);
  if (r.exitCode !== 0) throw new Error(`${cmd.join(' ')} failed: ${r.stderr.toString()}`);
}

async function specialMount(backend: 'store' | 'direct') {
  const dir = tempDir('ws-special-');
  const root = join(dir, 'm');
  mkdirSync(join(root, 'sub'), { recursive: true });
  writeFileSync(join(root, 'a.txt'), 'alpha\n');
  run(['mkfifo', join(root, 'fifo')]);
  // A character device reading zeros forever (CI runs as root, so mknod works there).
  run(['mknod', join(root, 'zero'), 'c', '1', '5']);
  const server = createServer();
  servers.push(server);
  await new Promise<void>((done) => server.listen(join(root, 'sock'), done));
  const config = join(dir, 'ws.toml');
  writeFileSync(config, `${storeToml('.ws/store.sqlite', dir)}[[mount]]\nname = "m"\npath = "m"\nbackend = "${backend}"\n`);
  const s = await connectStdio(config, dir);
  sessions.push(s);
  return { root, s };
}

/** Calls `tool` while a plain read runs beside it; both must answer, the first within {@link ANSWER_MS}. */
async function answersPromptly(s: StdioSession, tool: string, input: Record<string, unknown>) {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((done) => {
    timer = setTimeout(() => done('late'), ANSWER_MS);
  });
  const [answer, beside] = await Promise.all([
    Promise.race([mcpCall(s.client, tool, input), late]),
    Promise.race([mcpCall(s.client, 'read', { path: 'm/a.txt' }), late]),
  ]);
  clearTimeout(timer);
  return { answer, beside, ms: performance.now() - started };
}

for (const backend of ['direct', 'store'] as const) {
  describe(`a FIFO, a socket and a device on a ${backend} mount`, () => {
    test('every tool answers within a second, refusing them as not regular files, and the server answers beside it', async () => {
      const { root, s } = await specialMount(backend);
      const cases: [string, (p: string) => Record<string, unknown>][] = [
        ['read', (p) => ({ path: p })],
        ['grep', (p) => ({ pattern: 'x', path: p })],
        ['ls', (p) => ({ path: p })],
        ['write', (p) => ({ path: p, content: 'agent\n' })],
        ['edit', (p) => ({ path: p, oldString: 'x', newString: 'y' })],
        ['edit_many', (p) => ({ edits: [{ path: p, oldString: 'x', newString: 'y' }] })],
        ['delete', (p) => ({ path: p })],
        ['sync', (p) => ({ path: p })],
        ['materialize', (p) => ({ path: p, force: true })],
      ];
      let answered = 0;
      for (const name of ['fifo', 'zero', 'sock']) {
        for (const [tool, input] of cases) {
          const r = await answersPromptly(s, tool, input(`m/${name}`));
          const context = `${tool} on ${name}`;
          expect({ context, answer: r.answer === 'late' ? 'late' : 'answered' }).toEqual({ context, answer: 'answered' });
          expect({ context, beside: r.beside === 'late' ? 'late' : 'answered' }).toEqual({ context, beside: 'answered' });
          // A direct mount refuses each outright; a store-backed one refuses to read it (a
          // draft made over it is never pushed: disk's side there cannot be observed).
          const refusing = backend === 'direct' ? ['read', 'write', 'edit', 'edit_many', 'delete'] : ['read', 'edit', 'edit_many'];
          if (r.answer !== 'late' && refusing.includes(tool)) {
            expect({ context, isError: r.answer.isError }).toEqual({ context, isError: true });
          }
          answered++;
        }
      }
      expect(answered).toBe(27);
      // Whole-mount calls walk past them without opening them.
      for (const [tool, input] of [
        ['ls', { path: 'm', recursive: true }],
        ['grep', { pattern: 'alpha', path: 'm' }],
        ['glob', { pattern: '**', path: 'm' }],
        ['status', {}],
        ['sync', {}],
        ['materialize', {}],
      ] as const) {
        const r = await answersPromptly(s, tool, input);
        expect({ tool, answer: r.answer === 'late' ? 'late' : 'answered' }).toEqual({ tool, answer: 'answered' });
      }
      const ls = await mcpCall(s.client, 'ls', { path: 'm' });
      expect(ls.text).toContain('not a regular file or directory');
      const grep = await mcpCall(s.client, 'grep', { pattern: 'alpha', path: 'm' });
      expect(grep.data.totalMatches).toBe(1);
      // Still a FIFO and a device: nothing replaced them.
      expect(statSync(join(root, 'fifo')).isFIFO()).toBe(true);
      expect(statSync(join(root, 'zero')).isCharacterDevice()).toBe(true);
      expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('alpha\n');
    }, 120_000);
  });
}
