/**
 * grep against ripgrep on a generated tree with nested `.gitignore` and `.ignore` files,
 * CRLF and LF files, binary files and file types: the same files and lines for content,
 * files (`rg -l`), count (`rg -c`), fixed strings (`-F`), multiline (`-U`, on patterns
 * both engines read alike) and types (`-t`). ripgrep runs as `rg --crlf --hidden
 * --no-require-git` (ws honours ignore files outside a git repository too, and shows
 * dot-files); the mount's own `ignore` list is empty so both sides follow the same files.
 * The tree comes from a fixed seed (WS_SEED changes it).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { handleToolCall } from '@ws/tools';
import { READ_BATCH } from '../src/grep/prescan.ts';
import type { Host } from '../src/host.ts';
import { openHost } from '../src/host.ts';
import { tempDir } from './fixtures.ts';
import { testConfig, writeFiles } from './host-fixtures.ts';
import { seededBelow } from '../../../test/random.ts';

const RG = Bun.which('rg');

const WORDS = ['return', 'foo12', 'Foo', 'bar', 'import x', 'start', 'end', 'a.b(c', 'TODO', 'x', '  ', 'ünï', '$', 'returned'];
const EXTENSIONS = ['ts', 'tsx', 'js', 'py', 'md', 'txt', 'rs', 'log', 'tmp'];
const DIRS = ['', 'src', 'src/gen', 'docs', 'build', 'pkg', 'pkg/out', 'pkg/src', '.hidden'];

/** The generated tree: file path → content. */
function generatedTree(seed: number): Record<string, string | Uint8Array> {
  const r = seededBelow(seed);
  const files: Record<string, string | Uint8Array> = {
    '.gitignore': 'build/\n*.log\n/pkg/out/\n',
    'src/.gitignore': 'gen/\n!keep.log\n*.tmp\n',
    'pkg/.ignore': '*.md\n',
    'docs/.gitignore': '# notes\n!*.md\n*.txt\n',
  };
  for (let i = 0; i < 160; i++) {
    const dir = DIRS[r(DIRS.length)];
    const name = i % 23 === 0 ? 'keep.log' : `f${i}.${EXTENSIONS[r(EXTENSIONS.length)]}`;
    const path = dir === '' ? name : `${dir}/${name}`;
    if (r(15) === 0) {
      files[path] = new Uint8Array([0x72, 0x65, 0x74, 0, 0x75, 0x72, 0x6e]);
      continue;
    }
    const end = r(3) === 0 ? '\r\n' : '\n';
    const lines: string[] = [];
    for (let k = r(40); k > 0; k--) {
      const words: string[] = [];
      for (let w = r(6); w > 0; w--) words.push(WORDS[r(WORDS.length)]);
      lines.push(words.join(' '));
    }
    files[path] = lines.join(end) + (r(2) === 0 ? end : '');
  }
  return files;
}

const seed = process.env.WS_SEED ? Number(process.env.WS_SEED) : 1414;
let host: Host;
let root: string;

beforeAll(async () => {
  root = tempDir('ws-rg-');
  writeFiles(root, generatedTree(seed));
  host = await openHost(testConfig(root, [{ name: 'work', path: '.', backend: 'direct', ignore: [] }]), { watch: false });
});
afterAll(() => host?.close());

function rg(args: readonly string[]): string[] {
  if (RG === null) throw new Error('ripgrep (rg) is not installed; .ci/run installs it with apt-get.');
  const run = Bun.spawnSync([RG, '--crlf', '--hidden', '--no-require-git', '--no-config', ...args, '.'], { cwd: root, stdout: 'pipe', stderr: 'pipe' });
  if (run.exitCode === 2) throw new Error(`rg ${args.join(' ')} failed: ${run.stderr.toString()}`);
  return run.stdout
    .toString()
    .split(/\r?\n/)
    .filter((l) => l !== '')
    .map((l) => `work/${l.replace(/^\.\//, '')}`)
    .sort();
}

async function grep(input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await handleToolCall(host.workspace, { name: 'grep', input: { path: 'work', ...input } });
  if (!r.success) throw new Error(r.error);
  return r.data as Record<string, unknown>;
}

type Results = { path: string; matches: { line: number; endLine?: number }[] }[];

/** `path:line` for every line a content answer shows as matching (every line of a multiline group). */
function linesOf(data: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const f of data.results as Results) for (const m of f.matches) for (let n = m.line; n <= (m.endLine ?? m.line); n++) out.push(`${f.path}:${n}`);
  return out.sort();
}

const CASES: { name: string; rg: string[]; ws: Record<string, unknown> }[] = [
  { name: 'a word', rg: ['-e', 'return'], ws: { pattern: 'return' } },
  { name: 'a regex with $ over CRLF files', rg: ['-e', 'foo\\d+$'], ws: { pattern: 'foo\\d+$' } },
  { name: 'anchored, case-insensitive', rg: ['-i', '-e', '^foo'], ws: { pattern: '^foo', caseInsensitive: true } },
  { name: 'fixed strings', rg: ['-F', '-e', 'a.b(c'], ws: { pattern: 'a.b(c', fixedStrings: true } },
  { name: 'fixed strings with $', rg: ['-F', '-e', '$ x'], ws: { pattern: '$ x', fixedStrings: true } },
  { name: 'multiline', rg: ['-U', '-e', 'start[^\\n]*\\n[^\\n]*end'], ws: { pattern: 'start[^\\n]*\\n[^\\n]*end', multiline: true } },
  { name: 'type ts', rg: ['-t', 'ts', '-e', 'bar'], ws: { pattern: 'bar', type: 'ts' } },
  { name: 'type py', rg: ['-t', 'py', '-e', 'x'], ws: { pattern: 'x', type: 'py' } },
  { name: 'type md', rg: ['-t', 'md', '-e', 'TODO'], ws: { pattern: 'TODO', type: 'md' } },
];

describe('grep agrees with ripgrep on a tree with nested ignore files', () => {
  for (const c of CASES) {
    test(`content: ${c.name}`, async () => {
      const expected = rg(['-n', '--no-heading', '--with-filename', ...c.rg]).map((l) => l.split(':').slice(0, 2).join(':')).sort();
      const got = linesOf(await grep(c.ws));
      expect(expected.length).toBeGreaterThan(0);
      expect(got).toEqual(expected);
    });

    test(`files (-l): ${c.name}`, async () => {
      const expected = rg(['-l', ...c.rg]);
      const got = ((await grep({ ...c.ws, output: 'files' })).files as { path: string }[]).map((f) => f.path).sort();
      expect(got).toEqual(expected);
    });

    if (c.ws.multiline === undefined) {
      test(`count (-c): ${c.name}`, async () => {
        const expected = rg(['-c', '--with-filename', ...c.rg]);
        const counts = (await grep({ ...c.ws, output: 'count' })).counts as Record<string, number>;
        expect(Object.entries(counts).map(([p, n]) => `${p}:${n}`).sort()).toEqual(expected);
      });
    }
  }

  // Paged: past each page the files come counted (their scans without their bytes), and the totals must still be ripgrep's.
  for (const c of CASES.filter((k) => k.ws.multiline === undefined).slice(0, 4)) {
    test(`content, a page at a time: ${c.name}`, async () => {
      const expected = rg(['-n', '--no-heading', '--with-filename', ...c.rg]).map((l) => l.split(':').slice(0, 2).join(':')).sort();
      const got: string[] = [];
      let offset = 0;
      let pages = 0;
      // Batches of a few files: most are sent once the page is full.
      const saved = { ...READ_BATCH };
      READ_BATCH.files = 4;
      try {
        for (;;) {
          const r = await handleToolCall(host.workspace, { name: 'grep', input: { path: 'work', ...c.ws, offset }, resultMaxChars: 1500 });
          if (!r.success) throw new Error(r.error);
          const data = r.data as Record<string, unknown>;
          expect(data.totalMatches).toBe(expected.length);
          got.push(...linesOf(data));
          pages++;
          const next = /offset=(\d+)/.exec(String(data.note ?? ''));
          if (next === null) break;
          offset = Number(next[1]);
        }
      } finally {
        Object.assign(READ_BATCH, saved);
      }
      expect(got.sort()).toEqual(expected);
      if (c.name === 'a word') expect(pages).toBeGreaterThan(3);
    });
  }

  test('the files passed over by the ignore files are named with their rule', async () => {
    const r = await handleToolCall(host.workspace, { name: 'glob', input: { pattern: 'work/**/*.log' } });
    if (!r.success) throw new Error(r.error);
    const files = (r.data as { files: string[] }).files;
    expect(files.every((f) => f.endsWith('/keep.log') && f.startsWith('work/src/'))).toBe(true);
    const ls = await handleToolCall(host.workspace, { name: 'ls', input: { path: 'work', recursive: true } });
    if (!ls.success) throw new Error(ls.error);
    expect((ls.data as { note: string }).note).toContain('ignored by .gitignore: build/');
  });
});
