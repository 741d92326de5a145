/**
 * The index never changes an answer. Two hosts over two identical trees take the same
 * steps — disk changes, agent edits, pushes, branch switches — and one of them is killed
 * in between (a `ws sync` and a `ws mcp` that is indexing, each SIGKILLed at a seeded
 * moment, then reopened). Host A watches (`watch = "always"`: its greps read the store
 * without a pass) and builds the index in the background; host B passes before each grep
 * and has no index. After every step every pattern gets the same whole answer from A, from
 * A with the index out of play (its mounts asked without the query), and from B; and,
 * where nothing is drafted, the same lines as ripgrep over B's tree. The trees have CRLF,
 * BOM, binary and over-size files (searched from disk); the seed is fixed (WS_SEED changes it).
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Workspace, handleToolCall } from '@ws/tools';
import { type Host, openHost } from '../src/host.ts';
import { seededRandom, tempDir } from './fixtures.ts';
import { storeToml } from './engine.ts';
import { testConfig, writeFiles } from './host-fixtures.ts';
import { CLI } from './ws-process.ts';

setDefaultTimeout(240_000);

const RG = Bun.which('rg');
const MAX_FILE = 6_000;
const WORDS = ['return', 'returned', 'Foo', 'foo12', 'bar', 'a.b(c', 'start', 'end', 'TODO', 'ünï', 'x', '$', 'createThing', 'ThingError', 'Error'];
const DIRS = ['', 'src', 'src/deep', 'docs', 'pkg/lib'];

/** The patterns each answer is compared on: ones the index narrows, and ones it can't. */
const PATTERNS: { input: Record<string, unknown>; rg?: string[] }[] = [
  { input: { pattern: 'return' }, rg: ['-e', 'return'] },
  { input: { pattern: 'createThing' }, rg: ['-e', 'createThing'] },
  { input: { pattern: 'function\\s+\\w+Error' }, rg: ['-e', 'function\\s+\\w+Error'] },
  { input: { pattern: 'foo\\d+$' }, rg: ['-e', 'foo\\d+$'] },
  { input: { pattern: '\\w\\d+ bar' }, rg: ['-e', '\\w\\d+ bar'] },
  { input: { pattern: 'FOO1', caseInsensitive: true }, rg: ['-i', '-e', 'FOO1'] },
  { input: { pattern: 'a.b(c', fixedStrings: true }, rg: ['-F', '-e', 'a.b(c'] },
  { input: { pattern: 'start[^\\n]*\\n[^\\n]*end', multiline: true }, rg: ['-U', '-e', 'start[^\\n]*\\n[^\\n]*end'] },
  { input: { pattern: 'ünï' } },
  { input: { pattern: 'bar\\r$' } },
  { input: { pattern: '\\uFEFFreturn' } },
  { input: { pattern: '^TODO', output: 'count' } },
  { input: { pattern: 'returned', output: 'files' } },
];

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : 1515;
const r = seededRandom(seed);

function text(): string | Uint8Array {
  const kind = r(12);
  if (kind === 0) return new Uint8Array([0x72, 0x65, 0x74, 0, 0x75, 0x72, 0x6e, 0x65]); // binary
  const end = kind <= 3 ? '\r\n' : '\n';
  const lines: string[] = [];
  for (let k = r(kind === 4 ? 900 : 30); k > 0; k--) {
    const words: string[] = [];
    for (let w = r(6); w > 0; w--) words.push(WORDS[r(WORDS.length)]);
    // ASCII names only: ripgrep's \w is Unicode's, JavaScript's (without `u`) ASCII.
    if (r(9) === 0) words.push(`function ${['create', 'Thing', 'foo12', 'a.b(c', 'x_', '9', '', ' '][r(8)]}Error`);
    lines.push(words.join(' '));
  }
  const body = lines.join(end) + (r(2) === 0 ? end : '');
  return kind === 5 ? `\uFEFF${body}` : body;
}

function pathAt(i: number): string {
  const dir = DIRS[i % DIRS.length];
  return `${dir === '' ? '' : `${dir}/`}f${i}.${['ts', 'md', 'txt'][i % 3]}`;
}

const rootA = tempDir('ws-index-a-');
const rootB = tempDir('ws-index-b-');
const initial: Record<string, string | Uint8Array> = { '.gitignore': '*.log\n' };
for (let i = 0; i < 60; i++) initial[pathAt(i)] = text();
writeFiles(rootA, initial);
writeFiles(rootB, initial);
const storeA = join(tempDir('ws-store-'), 'store.sqlite');
const configA = testConfig(rootA, [{ name: 'work', path: '.', ignore: [], watch: 'always', maxFileSize: MAX_FILE }], storeA);
const configB = testConfig(rootB, [{ name: 'work', path: '.', ignore: [], maxFileSize: MAX_FILE }]);
const configFileA = join(tempDir('ws-index-config-'), 'ws.toml');
writeFileSync(
  configFileA,
  `${storeToml(storeA)}\n[[mount]]\nname = "work"\npath = ${JSON.stringify(rootA)}\nignore = []\nwatch = "always"\nmaxFileSize = ${MAX_FILE}\n`,
);

let hostA: Host;
let hostB: Host;
let ruledOut = 0;
afterAll(() => {
  hostA?.close();
  hostB?.close();
});

/** A's workspace, counting the files its index rules out. */
function counted(workspace: Workspace): Workspace {
  return {
    ...workspace,
    mounts: workspace.mounts.map((m) => ({
      ...m,
      async *searchFiles(path, query) {
        for await (const f of m.searchFiles(path, query)) {
          if ('noMatch' in f) ruledOut++;
          else if ('noMatches' in f) ruledOut += f.noMatches.paths.length;
          yield f;
        }
      },
    })),
  };
}

/** A's workspace with the index out of play: its mounts are never told the query. */
function scanning(workspace: Workspace): Workspace {
  return { ...workspace, mounts: workspace.mounts.map((m) => ({ ...m, searchFiles: (path: string) => m.searchFiles(path) })) };
}

async function call(workspace: Workspace, name: string, input: Record<string, unknown>): Promise<unknown> {
  const answer = await handleToolCall(workspace, { name, input });
  return answer;
}

function rgLines(args: readonly string[]): string[] {
  if (RG === null) throw new Error('ripgrep (rg) is not installed; .ci/run installs it with apt-get.');
  // Files over the limit are searched straight from disk, as ripgrep searches them; with
  // multiline they are passed over (the tools README's "Large files").
  const limit = args.includes('-U') ? ['--max-filesize', String(MAX_FILE)] : [];
  const run = Bun.spawnSync([RG, '--crlf', '--hidden', '--no-require-git', '--no-config', ...limit, '-n', '--no-heading', '--with-filename', ...args, '.'], {
    cwd: rootB,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  if (run.exitCode === 2) throw new Error(`rg failed: ${run.stderr.toString()}`);
  return run.stdout
    .toString()
    .split(/\r?\n/)
    .filter((l) => l !== '')
    .map((l) => `work/${l.replace(/^\.\//, '').split(':').slice(0, 2).join(':')}`)
    .sort();
}

type Results = { path: string; matches: { line: number; endLine?: number }[] }[];
function linesOf(answer: unknown): string[] {
  const out: string[] = [];
  const data = (answer as { data: { results: Results } }).data;
  for (const f of data.results) for (const m of f.matches) for (let n = m.line; n <= (m.endLine ?? m.line); n++) out.push(`${f.path}:${n}`);
  return out.sort();
}

async function drafted(host: Host): Promise<boolean> {
  const s = (await call(host.workspace, 'status', {})) as { data: { mounts: { drafts: string[]; conflicts: unknown[]; pendingDeletions: string[] }[] } };
  const m = s.data.mounts[0];
  return m.drafts.length + m.conflicts.length + m.pendingDeletions.length > 0;
}

/** Every pattern's answer from A (indexed), A (scanned) and B (passed, no index); ripgrep's lines where nothing is drafted. */
async function compare(step: string): Promise<void> {
  if (r(2) === 0) await hostA.indexer?.current();
  const withRg = !(await drafted(hostB));
  for (const p of PATTERNS) {
    const input = { path: 'work', ...p.input };
    const indexed = await call(counted(hostA.workspace), 'grep', input);
    const scanned = await call(scanning(hostA.workspace), 'grep', input);
    const passed = await call(hostB.workspace, 'grep', input);
    const what = `${step}: ${JSON.stringify(p.input)}`;
    expect({ what, answer: indexed }).toEqual({ what, answer: passed });
    expect({ what, answer: scanned }).toEqual({ what, answer: passed });
    if (withRg && p.rg !== undefined) {
      const ws = linesOf(passed);
      const rg = rgLines(p.rg);
      if (process.env.WS_DEBUG_INDEX) console.log(what, JSON.stringify(passed).slice(0, 300), rg.filter((l) => !ws.includes(l)).slice(0, 5));
      expect({ what, lines: ws }).toEqual({ what, lines: rg });
    }
  }
}

/** The same disk change in both trees: edits, new files, deletions, a file made binary or CRLF. */
function changeDisk(): void {
  for (let k = 1 + r(5); k > 0; k--) {
    const path = pathAt(r(80));
    if (r(5) === 0) {
      rmSync(join(rootA, path), { force: true });
      rmSync(join(rootB, path), { force: true });
    } else {
      const content = text();
      writeFiles(rootA, { [path]: content });
      writeFiles(rootB, { [path]: content });
    }
  }
}

async function openA(): Promise<Host> {
  return openHost(configA, { watch: true });
}

/** Runs `ws ARGS` on A's store and SIGKILLs it after `ms`. */
async function killedAfter(args: readonly string[], ms: number): Promise<void> {
  const child = Bun.spawn(['bun', CLI, '--config', configFileA, ...args], { stdin: 'pipe', stdout: 'ignore', stderr: 'ignore' });
  await Bun.sleep(ms);
  child.kill('SIGKILL');
  await child.exited;
}

describe('grep answers the same with the index, without it, and as ripgrep does', () => {
  test('over seeded steps: disk changes, edits, pushes, branch switches and kills', async () => {
    hostA = await openA();
    hostB = await openHost(configB, { watch: false });
    await call(hostA.workspace, 'sync', {});
    await call(hostB.workspace, 'sync', {});
    await compare('start');
    let branches = 0;
    for (let step = 0; step < 14; step++) {
      const kind = ['disk', 'edit', 'materialize', 'branch', 'kill'][r(5)];
      if (kind === 'disk') {
        changeDisk();
        // A watches; a sync makes sure its store holds the change before it greps without a pass.
        await call(hostA.workspace, 'sync', {});
      } else if (kind === 'edit') {
        const path = `work/${pathAt(r(80))}`;
        const content = text();
        if (typeof content === 'string') {
          for (const host of [hostA, hostB]) await call(host.workspace, 'write', { path, content });
        } else {
          for (const host of [hostA, hostB]) await call(host.workspace, 'delete', { path });
        }
      } else if (kind === 'materialize') {
        for (const host of [hostA, hostB]) await call(host.workspace, 'materialize', {});
      } else if (kind === 'branch') {
        const name = r(2) === 0 || branches === 0 ? `b${++branches}` : 'main';
        for (const host of [hostA, hostB]) {
          if (name !== 'main') await host.branches.create(name);
          await host.branches.switchTo(name);
        }
      } else {
        // A crash: disk changed, then a sync of A killed mid-way, and a server of A killed while it indexes.
        changeDisk();
        hostA.close();
        await killedAfter(['sync'], 40 + r(400));
        await killedAfter(['mcp'], 100 + r(600));
        hostA = await openA();
      }
      await compare(`step ${step} (${kind})`);
    }
    await hostA.indexer?.current();
    await compare('the index current');
    // The index was in play: some files were ruled out unread.
    expect(ruledOut).toBeGreaterThan(0);
  });
});
