/**
 * The contract suite: one answer whatever the mount. Every tool runs against a
 * store-backed mount and a direct mount over the same files, and the answers must be
 * identical — except for the wording a host with a direct mount adds (the README's "grep's CR and BOM notes"), and the
 * state that `ls` shows on a store-backed mount only. Every page with a budget fits it.
 *
 * The one rule: this file knows nothing about how a mount is made. It takes a factory,
 * so `apps/host` runs the same suite against its real mounts:
 *
 *   import { contractSuite } from '../../../packages/tools/test/contract.ts';
 *   contractSuite('host mounts', async (backend, files) => makeHostWorkspace(backend, files));
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { fileText, jsonLength } from '@ws/text';
import { type ToolResult, type Workspace, handleToolCall } from '../src/index.ts';
import { directHasNoDrafts, directNothingToCompare, notOnThisMount, versionNote } from '../src/errors.ts';

/**
 * Makes a workspace of one read-write mount named `work`, of the given kind, whose disk
 * holds exactly `files` (mount-relative paths). A store-backed mount starts knowing
 * nothing of them, or agreeing with disk on each: either way, it answers as disk says.
 * `dispose`, where given, is called once the suite is done with the workspace.
 */
export type MakeWorkspace = (
  backend: 'store' | 'direct',
  files: Readonly<Record<string, Uint8Array>>,
) => Promise<Workspace | Made>;

/** A made workspace, what to do when the suite is done with it, and how a person saves a file on its disk. */
export interface Made {
  readonly workspace: Workspace;
  readonly dispose?: () => Promise<void> | void;
  /** Writes (or, with `null`, deletes) a mount-relative path on the mount's disk, as a person's editor would, behind ws's back. */
  readonly personSaves?: (path: string, bytes: Uint8Array | null) => Promise<void> | void;
}

/** What the mounts under test offer beyond the tools every mount serves. */
export interface ContractOptions {
  /**
   * The store-backed mount implements `Mount`'s draft methods (`drafts`, `readVersion`,
   * `history`, `discard`) and the factory gives `personSaves`. Where false, the suite
   * checks instead that each tool needing them answers `notOnThisMount`.
   */
  readonly draftMethods: boolean;
}

const enc = new TextEncoder();
const BOM = '\uFEFF';

function emojiLine(length: number): string {
  const unit = 'abc\ud83d\ude00 "q" \\ é\t';
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length).replace(/\ud83d$/, 'x');
}

/** The files every contract test starts from. */
export const contractFiles: Readonly<Record<string, Uint8Array>> = {
  'crlf.txt': enc.encode('one\r\ntwo\r\nthree\r\n'),
  'bom.txt': enc.encode(`${BOM}first\nsecond\n`),
  'win.bat': enc.encode(`${BOM}@echo off\r\nset A=1\r\nset B=2\r\n`),
  'invalid.txt': new Uint8Array([0x6f, 0x6b, 0x0a, 0xff, 0xfe, 0x0a, 0x61, 0x0a]),
  'mixed.cfg': enc.encode('a=1\r\nown\r\r\nb=2\nc=\r3\r\nlast'),
  'long.txt': enc.encode(`before\n${emojiLine(60_000)}\nafter\n`),
  'big.txt': enc.encode(Array.from({ length: 3000 }, (_, i) => `line ${i + 1}: ${'word '.repeat(i % 13)}`).join('\n') + '\n'),
  'lf.txt': enc.encode('plain\nlines\ntwo\n'),
  'src/app.ts': enc.encode('export const two = 2;\n'),
  'src/deep/util.ts': enc.encode('export function one() {\n  return 1;\n}\n'),
  'logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]), // binary, but not an image read would show
};

/** The budgets pages are read at: none (an in-process caller), 24,000 and 1,000. */
export const contractBudgets: readonly (number | undefined)[] = [undefined, 24_000, 1_000];

type Call = { name: string; input: unknown; resultMaxChars?: number };

/**
 * What may differ between the two answers, taken out: `ls`'s state (a store-backed
 * mount's alone) and grep's "or in disk's file on a direct mount".
 */
export function comparable(result: ToolResult): ToolResult {
  if (!result.success) return result;
  const data = JSON.stringify(result.data, (key, value) => {
    if (key === 'state') return undefined;
    if (key === 'note' && typeof value === 'string') return value.replaceAll(DIRECT_HOST_WORDS, '');
    return value;
  });
  return { success: true, data: JSON.parse(data) };
}

/** The words a direct mount adds to grep's CR and BOM notes on a host with a direct mount. */
export const DIRECT_HOST_WORDS = ', or in disk\u2019s file on a direct mount';

/** Runs the contract suite against workspaces from `make`. */
export function contractSuite(label: string, make: MakeWorkspace, options: ContractOptions = { draftMethods: false }): void {
  const disposals: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const dispose of disposals) await dispose();
  });

  async function one(backend: 'store' | 'direct'): Promise<Made> {
    const m = await make(backend, contractFiles);
    if (!('workspace' in m)) return { workspace: m };
    if (m.dispose) disposals.push(m.dispose);
    return m;
  }

  async function pair(): Promise<{ store: Workspace; direct: Workspace }> {
    const [store, direct] = await Promise.all([one('store'), one('direct')]);
    return { store: store.workspace, direct: direct.workspace };
  }

  /** Runs one call on both workspaces; the answers must agree; with a budget, the data must fit it. */
  async function both(ws: { store: Workspace; direct: Workspace }, call: Call): Promise<ToolResult> {
    const [a, b] = await Promise.all([handleToolCall(ws.store, call), handleToolCall(ws.direct, call)]);
    expect({ call, answer: comparable(a) }).toEqual({ call, answer: comparable(b) });
    if (a.success && call.resultMaxChars !== undefined && ['read', 'grep', 'glob', 'ls'].includes(call.name)) {
      const length = jsonLength(a.data);
      expect({ call, length, fits: length <= call.resultMaxChars }).toEqual({ call, length, fits: true });
    }
    return b;
  }

  type LinePageData = { toLine: number; totalLines: number; note?: string; content: string };
  type CharPageData = { content: string; note?: string };

  /** Follows a character page's notes to the end of what was asked; the text it read. */
  async function walkChars(ws: { store: Workspace; direct: Workspace }, path: string, offsetChars: number, limitChars: number, budget: number | undefined): Promise<string> {
    let text = '';
    let at: { offsetChars: number; limitChars: number } | undefined = { offsetChars, limitChars };
    for (let guard = 0; at && guard < 10_000; guard++) {
      const r = await both(ws, { name: 'read', input: { path, ...at }, ...(budget === undefined ? {} : { resultMaxChars: budget }) });
      if (!r.success) throw new Error(r.error);
      const page = r.data as CharPageData;
      text += page.content;
      const next = /read the rest of what you asked for with offsetChars=(\d+) and limitChars=(\d+)/.exec(page.note ?? '');
      at = next ? { offsetChars: Number(next[1]), limitChars: Number(next[2]) } : undefined;
    }
    return text;
  }

  /** Follows line pages' notes (and cut lines' rests) from line 1 to the end; the lines it read. */
  async function walkLines(ws: { store: Workspace; direct: Workspace }, path: string, budget: number | undefined): Promise<string[]> {
    const lines: string[] = [];
    let offset: number | undefined = 1;
    for (let guard = 0; offset !== undefined && guard < 10_000; guard++) {
      const r = await both(ws, { name: 'read', input: { path, offset }, ...(budget === undefined ? {} : { resultMaxChars: budget }) });
      if (!r.success) throw new Error(r.error);
      const page = r.data as LinePageData;
      for (const shown of page.content === '' ? [] : page.content.split('\n')) {
        const text = shown.slice(shown.indexOf('\t') + 1);
        const cut = /\[… read the rest with offsetChars=(\d+) and limitChars=(\d+)\]$/.exec(text);
        lines.push(cut ? text.slice(0, cut.index) + (await walkChars(ws, path, Number(cut[1]), Number(cut[2]), budget)) : text);
      }
      const next = /continue with offset=(\d+)/.exec(page.note ?? '');
      offset = next ? Number(next[1]) : undefined;
    }
    return lines;
  }

  const textFiles = ['crlf.txt', 'bom.txt', 'win.bat', 'invalid.txt', 'mixed.cfg', 'long.txt', 'big.txt', 'lf.txt'];

  describe(`contract: ${label}`, () => {
    for (const budget of contractBudgets) {
      test(`line pages at budget ${budget ?? 'none'} agree, fit, and following their notes shows every line once`, async () => {
        const ws = await pair();
        for (const file of textFiles) {
          const lines = await walkLines(ws, `work/${file}`, budget);
          expect({ file, lines }).toEqual({ file, lines: [...fileText(contractFiles[file]).lines] });
        }
      });

      test(`character pages at budget ${budget ?? 'none'} agree, fit, and rebuild the text exactly`, async () => {
        const ws = await pair();
        for (const file of textFiles) {
          const text = fileText(contractFiles[file]).text;
          const read = budget === 1_000 && text.length > 20_000 ? 3_000 : text.length;
          expect({ file, text: await walkChars(ws, `work/${file}`, 0, read, budget) }).toEqual({ file, text: text.slice(0, read) });
        }
      });
    }

    test('refusals agree: a directory, a binary file, a missing file, paths that leave the mount, bad inputs', async () => {
      const ws = await pair();
      const calls: Call[] = [
        { name: 'read', input: { path: 'work/src' } },
        { name: 'read', input: { path: 'work/logo.png' } },
        { name: 'read', input: { path: 'work/src/app.js' } },
        { name: 'read', input: { path: 'work/../x' } },
        { name: 'read', input: { path: 'nope/x' } },
        { name: 'read', input: { path: 'work/lf.txt', offset: 99 } },
        { name: 'read', input: { path: 'work/lf.txt', offset: 0 } },
        { name: 'read', input: { path: 'work/lf.txt', offset: 1, offsetChars: 0 } },
        { name: 'edit', input: { path: 'work/invalid.txt', oldString: '\uFFFD', newString: 'no' } },
        { name: 'edit', input: { path: 'work/logo.png', oldString: 'PNG', newString: 'GIF' } },
        { name: 'edit', input: { path: 'work/missing.txt', oldString: 'a', newString: 'b' } },
        { name: 'edit', input: { path: 'work/big.txt', oldString: 'line 1', newString: 'x' } },
        { name: 'edit', input: { path: 'work/big.txt', oldString: 'line 7: wrod', newString: 'x' } },
        { name: 'grep', input: { pattern: 'x', path: 'work/nope/missing' } },
        { name: 'grep', input: { pattern: 'x', path: 'work/src/app.js' } },
        { name: 'nothing', input: {} },
      ];
      for (const call of calls) expect({ call, success: (await both(ws, call)).success }).toEqual({ call, success: false });
    });

    test('grep agrees over CRLF, mixed, LF and BOM files, with CR and U+FEFF patterns, held to its budgets', async () => {
      const ws = await pair();
      const patterns = ['\\r', '\r', '\\x0d', '[\\r]', '\\uFEFF', '\uFEFF', '\\\\r', 'two$', 'e', '^', 'A=\\d'];
      let noted = 0;
      for (const resultMaxChars of [undefined, 24_000, 1_000]) {
        const b = resultMaxChars === undefined ? {} : { resultMaxChars };
        for (const pattern of patterns) {
          const r = await both(ws, { name: 'grep', input: { pattern }, ...b });
          if (r.success && (r.data as { note?: string }).note?.includes('This pattern names')) noted++;
        }
        await both(ws, { name: 'grep', input: { pattern: 'E', caseInsensitive: true, contextBefore: 1, contextAfter: 2, path: 'work/mixed.cfg' }, ...b });
        await both(ws, { name: 'grep', input: { pattern: '\\r', glob: '*.{txt,cfg}' }, ...b });
        await both(ws, { name: 'grep', input: { pattern: 'line 2\\d', path: 'work/big.txt' }, ...b });
      }
      expect(noted).toBeGreaterThan(0);
      for (const pattern of ['(', '[z-a]']) await both(ws, { name: 'grep', input: { pattern } });
      // A path that names nothing is refused as read refuses it; one that names a file the filters leave out is not.
      const missing = await both(ws, { name: 'grep', input: { pattern: 'e', path: 'work/nope.txt' } });
      expect(missing).toMatchObject({ success: false });
      expect(missing.success ? '' : missing.error).toContain('work/nope.txt does not exist');
      const filtered = await both(ws, { name: 'grep', input: { pattern: 'e', path: 'work/big.txt', type: 'py' } });
      expect(filtered).toMatchObject({ success: true, data: { filesSearched: 0 } });
    });

    test('glob and ls agree, held to their budgets', async () => {
      const ws = await pair();
      for (const resultMaxChars of [undefined, 24_000, 200]) {
        const b = resultMaxChars === undefined ? {} : { resultMaxChars };
        await both(ws, { name: 'glob', input: { pattern: 'work/**/*.ts' }, ...b });
        await both(ws, { name: 'glob', input: { pattern: 'work/*.txt' }, ...b });
        await both(ws, { name: 'glob', input: { pattern: '*.ts', path: 'work/src' }, ...b });
      }
      // A store-backed ls names each entry's state, so under a tight budget it shows fewer entries: the same ones, first.
      for (const [resultMaxChars, recursive] of [[undefined, false], [undefined, true], [24_000, true], [300, false], [300, true]] as const) {
        const call = { name: 'ls', input: { path: 'work', recursive }, ...(resultMaxChars === undefined ? {} : { resultMaxChars }) };
        const [a, b] = await Promise.all([handleToolCall(ws.store, call), handleToolCall(ws.direct, call)]);
        if (!a.success || !b.success) throw new Error('ls failed');
        const [sa, sb] = [comparable(a), comparable(b)].map((r) => (r.success ? (r.data as { entries: unknown[] }).entries : []));
        const shorter = Math.min(sa.length, sb.length);
        expect(sa.slice(0, shorter)).toEqual(sb.slice(0, shorter));
        if (resultMaxChars === undefined) expect(sa).toEqual(sb);
        else for (const d of [a.data, b.data]) expect(jsonLength(d)).toBeLessThanOrEqual(resultMaxChars);
      }
    });

    test('edits, writes and deletions agree, and leave the same bytes', async () => {
      const ws = await pair();
      const copy = async (path: string, offset: number, limit: number) => {
        const r = await both(ws, { name: 'read', input: { path, offset, limit } });
        if (!r.success) throw new Error(r.error);
        return (r.data as LinePageData).content
          .split('\n')
          .map((l) => l.slice(l.indexOf('\t') + 1))
          .join('\n');
      };
      const calls: Call[] = [
        { name: 'edit', input: { path: 'work/win.bat', oldString: await copy('work/win.bat', 2, 3), newString: 'set A=10\nset B=20' } },
        { name: 'edit', input: { path: 'work/mixed.cfg', oldString: await copy('work/mixed.cfg', 2, 2), newString: 'OWN' } },
        { name: 'edit', input: { path: 'work/crlf.txt', oldString: 'two', newString: 'TWO\nTWO-B' } },
        { name: 'edit', input: { path: 'work/invalid.txt', oldString: 'ok', newString: 'fine' } },
        {
          name: 'edit_many',
          input: {
            edits: [
              { path: 'work/bom.txt', oldString: 'first', newString: 'FIRST' },
              { path: 'work/big.txt', oldString: 'line', newString: 'row', replaceAll: true },
              { path: 'work/lf.txt', oldString: 'plain', newString: 'PLAIN' },
            ],
          },
        },
        { name: 'edit_many', input: { edits: [{ path: 'work/lf.txt', oldString: 'lines', newString: 'x' }, { path: 'work/lf.txt', oldString: 'lines\ntwo', newString: 'y' }] } },
        { name: 'write', input: { path: 'work/new/dir/file.txt', content: 'made\r\nhere' } },
        { name: 'delete', input: { path: 'work/src/app.ts' } },
        { name: 'delete', input: { path: 'work/src/app.ts' } },
      ];
      for (const call of calls) await both(ws, call);
      for (const file of [...textFiles, 'new/dir/file.txt', 'src/app.ts']) {
        await both(ws, { name: 'read', input: { path: `work/${file}`, offsetChars: 0, limitChars: 100_000 } });
      }
    });
    test('read with version "disk" shows disk’s pages on both kinds; other versions are the store’s alone', async () => {
      const ws = await pair();
      for (const file of textFiles) {
        for (const budget of [undefined, 1_000]) {
          const b = budget === undefined ? {} : { resultMaxChars: budget };
          const call = { name: 'read', input: { path: `work/${file}`, version: 'disk' }, ...b };
          const [a, d] = await Promise.all([handleToolCall(ws.store, call), handleToolCall(ws.direct, call)]);
          expect({ call, d }).toEqual({ call, d: await handleToolCall(ws.direct, { name: 'read', input: { path: `work/${file}` }, ...b }) });
          if (!options.draftMethods) {
            expect(a).toEqual({ success: false, error: notOnThisMount('work', 'read with version') });
            continue;
          }
          if (budget === undefined) {
            expect({ call, a: withoutVersionNote(a) }).toEqual({ call, a: d });
            continue;
          }
          // Under a budget the version's note takes room: the same lines from the top, perhaps fewer.
          if (!a.success || !d.success) throw new Error('read failed');
          const [shown, all] = [a, d].map((r) => (r.data as { content: string }).content.split('\n'));
          expect({ call, lines: shown.slice(0, -1) }).toEqual({ call, lines: all.slice(0, shown.length - 1) });
          expect(jsonLength(a.data)).toBeLessThanOrEqual(budget);
        }
      }
      const agreed = { name: 'read', input: { path: 'work/lf.txt', version: 'agreed' } };
      expect(await handleToolCall(ws.direct, agreed)).toEqual({ success: false, error: directHasNoDrafts('work', 'read with version "agreed"') });
    });

    test('move agrees on both kinds: a file, a directory, an existing target refused unless overwrite', async () => {
      const ws = await pair();
      const calls: Call[] = [
        { name: 'move', input: { from: 'work/lf.txt', to: 'work/moved/plain.txt' } },
        { name: 'move', input: { from: 'work/src', to: 'work/lib' } },
        { name: 'move', input: { from: 'work/crlf.txt', to: 'work/bom.txt' } },
        { name: 'move', input: { from: 'work/crlf.txt', to: 'work/bom.txt', overwrite: true } },
        { name: 'move', input: { from: 'work/lib', to: 'work/lib/inner' } },
        { name: 'move', input: { from: 'work/logo.png', to: 'work/logo2.png' } },
        { name: 'move', input: { from: 'work/nothing.txt', to: 'work/n.txt' } },
        { name: 'move', input: { from: 'work/win.bat', to: 'work/lib' } },
      ];
      const answers = [];
      for (const call of calls) answers.push((await both(ws, call)).success);
      expect(answers).toEqual([true, true, false, true, false, false, false, false]);
      for (const file of ['moved/plain.txt', 'lib/app.ts', 'lib/deep/util.ts', 'bom.txt']) {
        await both(ws, { name: 'read', input: { path: `work/${file}`, offsetChars: 0 } });
      }
      for (const gone of ['lf.txt', 'src/app.ts', 'crlf.txt']) {
        for (const w of [ws.store, ws.direct]) expect((await handleToolCall(w, { name: 'read', input: { path: `work/${gone}` } })).success).toBe(false);
      }
      const moved = await both(ws, { name: 'read', input: { path: 'work/bom.txt', offsetChars: 0 } });
      expect(moved.success && (moved.data as { content: string }).content).toBe('one\r\ntwo\r\nthree\r\n');
    });

    test('diff: a direct mount has nothing to compare; a store-backed one shows each draft against disk', async () => {
      const ws = await pair();
      for (const call of [
        { name: 'edit', input: { path: 'work/big.txt', oldString: 'line 1500: ', newString: 'LINE 1500: ' } },
        { name: 'edit', input: { path: 'work/invalid.txt', oldString: 'ok', newString: 'fine' } },
        { name: 'write', input: { path: 'work/crlf.txt', content: 'one\ntwo\nthree\n' } },
        { name: 'write', input: { path: 'work/new.txt', content: 'new\n' } },
        { name: 'delete', input: { path: 'work/src/app.ts' } },
      ]) {
        await both(ws, call);
      }
      expect(await handleToolCall(ws.direct, { name: 'diff', input: { mount: 'work' } })).toEqual({ success: true, data: { diff: '', note: directNothingToCompare('work') } });
      const whole = await handleToolCall(ws.store, { name: 'diff', input: {} });
      if (!options.draftMethods) {
        expect(whole).toEqual({ success: false, error: notOnThisMount('work', 'diff') });
        return;
      }
      if (!whole.success) throw new Error(whole.error);
      const { diff, note } = whole.data as { diff: string; note?: string };
      const headers = diff.split('\n').filter((l) => l.startsWith('--- '));
      expect(headers).toEqual(['--- work/big.txt (disk)', '--- work/invalid.txt (disk)', '--- work/new.txt (disk: none)', '--- work/src/app.ts (disk)']);
      expect(diff).toContain('@@ -1497,7 +1497,7 @@\n line 1497: ');
      expect(diff).toContain('-line 1500: ');
      expect(diff).toContain('+LINE 1500: ');
      expect(note).toContain('work/crlf.txt: disk’s copy has CRLF line ends and the workspace’s copy LF line ends');
      // Held to 300 characters, the pages, followed by their notes, hold the same hunks once each.
      const hunks: string[] = [];
      let offset: number | undefined = 1;
      for (let guard = 0; offset !== undefined && guard < 100; guard++) {
        const page = await handleToolCall(ws.store, { name: 'diff', input: { offset }, resultMaxChars: 300 });
        if (!page.success) throw new Error(page.error);
        expect(jsonLength(page.data)).toBeLessThanOrEqual(300);
        const data = page.data as { diff: string; note?: string };
        hunks.push(...data.diff.split('\n').filter((l) => l.startsWith('@@')));
        const next = /continue with offset=(\d+)/.exec(data.note ?? '');
        offset = next ? Number(next[1]) : undefined;
      }
      expect(hunks).toEqual(diff.split('\n').filter((l) => l.startsWith('@@')));
    });

    test('history, restore and discard: the store’s versions, byte for byte; a direct mount says it keeps none', async () => {
      const ws = await pair();
      for (const name of ['history', 'discard']) {
        expect(await handleToolCall(ws.direct, { name, input: { path: 'work/win.bat' } })).toEqual({ success: false, error: directHasNoDrafts('work', name) });
      }
      const tools = [
        ['history', { path: 'work/win.bat' }],
        ['discard', { path: 'work/win.bat' }],
        ['restore', { path: 'work/win.bat', version: 'agreed' }],
      ] as const;
      if (!options.draftMethods) {
        for (const [name, input] of tools) expect(await handleToolCall(ws.store, { name, input })).toEqual({ success: false, error: notOnThisMount('work', name) });
        return;
      }
      const edit = (oldString: string, newString: string) => handleToolCall(ws.store, { name: 'edit', input: { path: 'work/win.bat', oldString, newString } });
      const bytes = async (version?: string) => {
        const r = await handleToolCall(ws.store, { name: 'read', input: { path: 'work/win.bat', offsetChars: 0, ...(version ? { version } : {}) } });
        if (!r.success) throw new Error(r.error);
        return (r.data as { content: string }).content;
      };
      await edit('set A=1', 'set A=one');
      const afterFirst = await bytes();
      await edit('set B=2', 'set B=two');
      const listed = await handleToolCall(ws.store, { name: 'history', input: { path: 'work/win.bat' } });
      if (!listed.success) throw new Error(listed.error);
      const versions = (listed.data as { versions: { id: string; source: string; linesChanged: number }[] }).versions;
      expect(versions.slice(0, 2).map((v) => [v.source, v.linesChanged])).toEqual([['edit', 2], ['edit', 2]]);
      expect(await bytes(versions[1].id)).toBe(afterFirst);
      expect(await handleToolCall(ws.store, { name: 'restore', input: { path: 'work/win.bat', version: versions[1].id } })).toMatchObject({ success: true });
      expect(await bytes()).toBe(afterFirst);
      const discarded = await handleToolCall(ws.store, { name: 'discard', input: { path: 'work/win.bat' } });
      expect(discarded).toEqual({ success: true, data: { path: 'work/win.bat', discarded: ['work/win.bat'] } });
      expect(await bytes()).toBe(new TextDecoder('utf-8', { ignoreBOM: true }).decode(contractFiles['win.bat']));
      const after = await handleToolCall(ws.store, { name: 'history', input: { path: 'work/win.bat' } });
      const sources = after.success ? (after.data as { versions: { source: string }[] }).versions.map((v) => v.source) : [];
      expect(sources.slice(0, 4)).toEqual(['discard', 'restore', 'edit', 'edit']);
    });

    test('a conflict end to end: the agent drafts, a person saves, the agent reads both sides and the diff, merges and forces; disk holds the merge', async () => {
      const made = await one('store');
      const ws = made.workspace;
      const call = async (name: string, input: unknown) => {
        const r = await handleToolCall(ws, { name, input });
        if (!r.success) throw new Error(`${name}: ${r.error}`);
        return r.data as Record<string, unknown>;
      };
      if (!options.draftMethods) {
        expect(await handleToolCall(ws, { name: 'diff', input: { path: 'work/lf.txt' } })).toEqual({ success: false, error: notOnThisMount('work', 'diff') });
        return;
      }
      if (made.personSaves === undefined) throw new Error('the factory must give personSaves where draftMethods is true');
      await call('read', { path: 'work/lf.txt' });
      await call('edit', { path: 'work/lf.txt', oldString: 'plain', newString: 'agent' });
      await made.personSaves('lf.txt', enc.encode('plain\nlines\ntwo\nperson\n'));
      const read = await call('read', { path: 'work/lf.txt' });
      expect(read.content).toBe('1\tagent\n2\tlines\n3\ttwo');
      expect(read.note).toContain('conflict');
      expect(read.note).toContain('discard');
      const disk = await call('read', { path: 'work/lf.txt', version: 'disk' });
      expect(disk.content).toBe('1\tplain\n2\tlines\n3\ttwo\n4\tperson');
      const diff = (await call('diff', { path: 'work/lf.txt' })).diff as string;
      expect(diff).toBe(
        [
          '--- work/lf.txt (agreed)',
          '+++ work/lf.txt (workspace)',
          '@@ -1,3 +1,3 @@',
          '-plain',
          '+agent',
          ' lines',
          ' two',
          '--- work/lf.txt (agreed)',
          '+++ work/lf.txt (disk)',
          '@@ -1,3 +1,4 @@',
          ' plain',
          ' lines',
          ' two',
          '+person',
        ].join('\n'),
      );
      await call('write', { path: 'work/lf.txt', content: 'agent\nlines\ntwo\nperson\n' });
      const pushed = await call('materialize', { path: 'work/lf.txt', force: true });
      expect(JSON.stringify(pushed)).toContain('lf.txt'); // a mount's report may name paths within the mount it names
      expect((await call('read', { path: 'work/lf.txt', version: 'disk' })).content).toBe('1\tagent\n2\tlines\n3\ttwo\n4\tperson');
      expect((await call('diff', { path: 'work/lf.txt' })).diff).toBe('');
    });
  });
}

/** An answer with the note a store-backed read of disk's version adds taken out (a direct mount's disk is its only version). */
function withoutVersionNote(result: ToolResult): ToolResult {
  if (!result.success) return result;
  const data = { ...(result.data as { note?: string }) };
  const note = data.note?.replace(` ${versionNote('disk')}`, '').replace(versionNote('disk'), '').trim();
  if (note) data.note = note;
  else delete data.note;
  return { success: true, data };
}
