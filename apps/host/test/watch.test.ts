/**
 * `watch = "always"` under a running `ws serve`: a person's change on disk is taken in
 * without a tool call, and the host's own writes never come back as a person's change.
 * The proof that the watcher (not the status call) did it: `status` on a store-backed
 * mount with `always` or `never` reports from the store without looking at disk, and
 * the `never` mount beside it, changed the same way, still shows nothing.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { tempDir } from './fixtures.ts';
import { connectHttp, makeWorkspace, mcpCall, type Serving, startServe, within, type Workspace } from './ws-process.ts';

// Each test starts real `ws` processes, which takes seconds on a busy machine; as the package's test script allows, even when a file is run alone.
setDefaultTimeout(120_000);

/** The window the issue gives the watcher. */
const WINDOW_MS = 2_000;

type MountStatus = { mount: string; drafts: string[]; conflicts: { path: string; kind: string }[] };

describe('the watcher under ws serve', () => {
  let w: Workspace;
  let serving: Serving;
  let client: Client;

  async function status(mount: string): Promise<MountStatus> {
    const answer = await mcpCall(client, 'status', { mount });
    return answer.data.mounts[0] as MountStatus;
  }

  /** The watcher's log lines on stderr, from the `from`th character on. */
  function watchLines(from = 0): string[] {
    return serving
      .stderr()
      .slice(from)
      .split('\n')
      .filter((l) => l.startsWith('ws: watch: '));
  }

  beforeAll(async () => {
    // The store lives inside the watched mount, under a name the watcher must pass over.
    w = makeWorkspace(
      [
        { name: 'live', backend: 'store', watch: 'always', files: { 'a.txt': 'a, first\n', 'c.txt': 'c, first\n', 'd.txt': 'd, first\n', '.gitignore': 'built/\n*.tmp\n' } },
        { name: 'still', backend: 'store', watch: 'never', files: { 'a.txt': 'a, first\n' } },
      ],
      'live/db/store.sqlite',
    );
    serving = await startServe(w.config, w.dir);
    client = await connectHttp(serving);
    for (const mount of ['live', 'still']) expect((await mcpCall(client, 'sync', { mount })).isError).toBe(false);
  });
  afterAll(async () => {
    await client?.close();
    await serving?.stop();
  });

  test('a disk change to a drafted file shows in status as a conflict within 2 s, with no other tool call', async () => {
    for (const mount of ['live', 'still']) {
      expect((await mcpCall(client, 'write', { path: `${mount}/a.txt`, content: 'a, by the agent\n' })).isError).toBe(false);
      expect(await status(mount)).toMatchObject({ drafts: [`${mount}/a.txt`], conflicts: [] });
    }

    writeFileSync(w.disk('live/a.txt'), 'a, by a person\n');
    writeFileSync(w.disk('still/a.txt'), 'a, by a person\n');
    const seen = await within(WINDOW_MS, async () => {
      const s = await status('live');
      return s.conflicts.length > 0 ? s : undefined;
    });
    expect(seen).toMatchObject({ drafts: [], conflicts: [{ path: 'live/a.txt', kind: 'both-changed' }] });
    // The same change under watch = "never": status alone did not look at disk.
    expect(await status('still')).toMatchObject({ drafts: ['still/a.txt'], conflicts: [] });
    expect(watchLines().some((l) => l.startsWith('ws: watch: live/a.txt: '))).toBe(true);

    // Settle it the way the conflict offers: keep disk's.
    expect((await mcpCall(client, 'sync', { path: 'live/a.txt' })).isError).toBe(false);
    expect(await status('live')).toMatchObject({ drafts: [], conflicts: [] });
  });

  test('new, changed and deleted files are taken in as they happen, each named on stderr', async () => {
    const from = serving.stderr().length;
    writeFileSync(w.disk('live/new.txt'), 'made by a person\n');
    writeFileSync(w.disk('live/d.txt'), 'd, changed by a person\n');
    const taken = await within(WINDOW_MS, async () => {
      const lines = watchLines(from);
      return lines.length >= 2 ? lines : undefined;
    });
    expect(taken?.sort()).toEqual(['ws: watch: live/d.txt: took in a change from disk', 'ws: watch: live/new.txt: took in a new file from disk']);

    const next = serving.stderr().length;
    rmSync(w.disk('live/new.txt'));
    const deleted = await within(WINDOW_MS, async () => (watchLines(next).length > 0 ? watchLines(next) : undefined));
    expect(deleted).toEqual(['ws: watch: live/new.txt: took in a deletion from disk']);
  });

  test('a directory moved in, then out, is taken in and then taken out, though only the directory was named going out', async () => {
    const outside = tempDir('ws-watch-outside-');
    mkdirSync(join(outside, 'pack/inner'), { recursive: true });
    writeFileSync(join(outside, 'pack/one.txt'), 'one\n');
    writeFileSync(join(outside, 'pack/inner/two.txt'), 'two\n');
    const into = serving.stderr().length;
    renameSync(join(outside, 'pack'), w.disk('live/pack'));
    const taken = await within(WINDOW_MS, async () => (watchLines(into).length >= 2 ? watchLines(into) : undefined));
    expect(taken?.sort()).toEqual(['ws: watch: live/pack/inner/two.txt: took in a new file from disk', 'ws: watch: live/pack/one.txt: took in a new file from disk']);

    const out = serving.stderr().length;
    renameSync(w.disk('live/pack'), join(outside, 'gone'));
    const left = await within(WINDOW_MS, async () => (watchLines(out).length >= 2 ? watchLines(out) : undefined));
    expect(left?.sort()).toEqual(['ws: watch: live/pack/inner/two.txt: took in a deletion from disk', 'ws: watch: live/pack/one.txt: took in a deletion from disk']);
  });

  test("the host's own materialize does not come back as a disk change", async () => {
    expect((await mcpCall(client, 'write', { path: 'live/b.txt', content: 'b, by the agent\n' })).isError).toBe(false);
    const from = serving.stderr().length;
    const pushed = await mcpCall(client, 'materialize', { path: 'live/b.txt' });
    expect(pushed.data.mounts[0].written).toEqual(['live/b.txt']);
    expect(readFileSync(w.disk('live/b.txt'), 'utf8')).toBe('b, by the agent\n');

    // A person's change after it: once the watcher has named that one, it has passed over
    // the materialize's writes too (it passes in the order things happen).
    writeFileSync(w.disk('live/c.txt'), 'c, by a person\n');
    const lines = await within(WINDOW_MS, async () => (watchLines(from).length > 0 ? watchLines(from) : undefined));
    expect(lines).toEqual(['ws: watch: live/c.txt: took in a change from disk']);
    expect(await status('live')).toMatchObject({ drafts: [], conflicts: [] });
    const sync = await mcpCall(client, 'sync', { mount: 'live' });
    expect(sync.data.mounts[0].tookIn).toEqual([]);
  });

  test('what the ignore files pass over, the watcher passes over too, an edited .gitignore from its change on', async () => {
    const from = serving.stderr().length;
    mkdirSync(w.disk('live/built'), { recursive: true });
    writeFileSync(w.disk('live/built/out.js'), 'built\n');
    writeFileSync(w.disk('live/scratch.tmp'), 'scratch\n');
    writeFileSync(w.disk('live/kept.txt'), 'kept\n');
    // The kept file's line is the sign the batch with the ignored ones was passed over.
    const first = await within(WINDOW_MS, async () => (watchLines(from).some((l) => l.includes('live/kept.txt')) ? watchLines(from) : undefined));
    expect(first).toEqual(['ws: watch: live/kept.txt: took in a new file from disk']);

    const edit = serving.stderr().length;
    writeFileSync(w.disk('live/.gitignore'), 'built/\n*.tmp\nlater/\n');
    expect(await within(WINDOW_MS, async () => (watchLines(edit).length > 0 ? watchLines(edit) : undefined))).toEqual([
      'ws: watch: live/.gitignore: took in a change from disk',
    ]);
    const next = serving.stderr().length;
    mkdirSync(w.disk('live/later'), { recursive: true });
    writeFileSync(w.disk('live/later/f.txt'), 'later\n');
    writeFileSync(w.disk('live/kept2.txt'), 'kept\n');
    const second = await within(WINDOW_MS, async () => (watchLines(next).some((l) => l.includes('live/kept2.txt')) ? watchLines(next) : undefined));
    expect(second).toEqual(['ws: watch: live/kept2.txt: took in a new file from disk']);

    const listed = await mcpCall(client, 'ls', { path: 'live', recursive: true });
    const paths = (listed.data.entries as { path: string }[]).map((e) => e.path);
    expect(paths.filter((p) => p.includes('built') || p.includes('.tmp') || p.includes('later'))).toEqual([]);
    expect(paths).toContain('live/kept2.txt');
  });

  test("the watcher never passes over the store's own files, nor ws's temporary files", () => {
    const lines = watchLines();
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.includes('live/db/') || l.includes('.ws-tmp-'))).toEqual([]);
  });
});
