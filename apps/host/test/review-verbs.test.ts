/**
 * The review page's verbs on a real store-backed mount, without a browser: hunks applied
 * byte for byte (a seeded property over random texts, CRLF and invalid UTF-8 included),
 * accepting and rejecting through the guarded push, refusals where disk or the draft
 * changed since the page showed them, conflicts settled three ways, deletions, and the
 * note the agent is told once.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiskPort } from '@ws/reconcile';
import { handleToolCall } from '@ws/tools';
import type { Host } from '../src/host.ts';
import type { StoreMount } from '../src/mounts/store-backed/mount.ts';
import { applyHunks, rawLines, reviewHunks } from '../src/review/hunks.ts';
import { storeHost } from './host-fixtures.ts';
import { mulberry32 } from '../../../test/random.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => `${f(i + 1)}\n`).join('');

let open: Host[] = [];
afterEach(() => {
  for (const h of open) h.close();
  open = [];
});

async function setUp(files: Record<string, string | Uint8Array>, mount: Record<string, unknown> = {}, wrapDisk?: (mount: string, disk: DiskPort) => DiskPort) {
  const made = await storeHost({ files, mount, ...(wrapDisk ? { wrapDisk } : {}) });
  open.push(made.host);
  const m = made.mount as StoreMount;
  const call = (name: string, input: unknown) => handleToolCall(made.host.workspace, { name, input });
  return { ...made, m, call, disk: (p: string) => readFileSync(join(made.root, p), 'utf8') };
}


describe('hunks, byte for byte', () => {
  test('raw lines keep every byte, line endings included', () => {
    const bytes = new Uint8Array([0x61, 0x0d, 0x0a, 0xff, 0x62, 0x0a, 0x63]);
    expect(rawLines(bytes)).toEqual(['a\r\n', '\xffb\n', 'c']);
  });

  const seed = Number(process.env.WS_SEED ?? 18);
  test(`applying every hunk gives the draft, none gives disk, a subset only its lines (seed ${seed})`, () => {
    const next = mulberry32(seed);
    const pieces = ['a\n', 'b\n', 'c\r\n', '\xff\xfe\n', 'tail', 'x\n', 'y\n', 'é\n'];
    const text = (n: number) => Array.from({ length: n }, () => pieces[Math.floor(next() * pieces.length)]).join('');
    for (let round = 0; round < 300; round++) {
      const disk = Buffer.from(text(Math.floor(next() * 30)), 'latin1');
      const draft = Buffer.from(text(Math.floor(next() * 30)), 'latin1');
      const hunks = reviewHunks(disk, draft);
      const all = new Set(hunks.map((h) => h.index));
      expect(Buffer.from(applyHunks(disk, draft, hunks, all)).equals(draft)).toBe(true);
      expect(Buffer.from(applyHunks(disk, draft, hunks, new Set())).equals(disk)).toBe(true);
      // Accepting a subset and then the rest, against the new disk, ends at the draft too.
      const some = new Set([...all].filter(() => next() < 0.5));
      const mid = applyHunks(disk, draft, hunks, some);
      const rest = reviewHunks(mid, draft);
      expect(Buffer.from(applyHunks(mid, draft, rest, new Set(rest.map((h) => h.index)))).equals(draft)).toBe(true);
    }
  });
});

describe('accepting and rejecting hunks', () => {
  const base = lines(30, (i) => `line ${i}`);
  const draft = base.replace('line 3\n', 'line three\n').replace('line 15\n', 'line fifteen\n').replace('line 27\n', 'line twenty-seven\n');

  test('disk gets exactly the accepted hunk, the draft keeps the rest without the rejected one, and the agent is told once', async () => {
    const { m, call, disk } = await setUp({ 'a.txt': base });
    await call('read', { path: 'work/a.txt' });
    expect((await call('write', { path: 'work/a.txt', content: draft })).success).toBe(true);
    const shown = await m.review.file('a.txt');
    if (!shown.ok) throw new Error(shown.message);
    expect(shown.file.kind).toBe('draft');
    expect(shown.file.hunks.length).toBe(3);
    const seen = { disk: shown.file.disk.hash, draft: shown.file.draft.hash };
    const done = await m.review.hunks('a.txt', seen, [0], [1]);
    expect(done).toMatchObject({ ok: true });
    expect(disk('a.txt')).toBe(base.replace('line 3\n', 'line three\n'));
    const after = await m.review.file('a.txt');
    if (!after.ok) throw new Error(after.message);
    expect(after.file.draft.text).toBe(base.replace('line 3\n', 'line three\n').replace('line 27\n', 'line twenty-seven\n'));
    expect(after.file.hunks.length).toBe(1);
    const read = await call('read', { path: 'work/a.txt' });
    expect(JSON.stringify(read)).toContain('a person accepted 1 hunk (now on disk) and rejected 1 hunk of your draft of work/a.txt; see history');
    const again = await call('read', { path: 'work/a.txt' });
    expect(JSON.stringify(again)).not.toContain('a person');
  });

  test('status carries the note, then forgets it', async () => {
    const { m, call } = await setUp({ 'a.txt': base });
    await call('read', { path: 'work/a.txt' });
    await call('write', { path: 'work/a.txt', content: draft });
    const shown = await m.review.file('a.txt');
    if (!shown.ok) throw new Error(shown.message);
    await m.review.hunks('a.txt', { disk: shown.file.disk.hash, draft: shown.file.draft.hash }, [], [0, 2]);
    const status = await call('status', {});
    expect(JSON.stringify(status)).toContain('a person rejected 2 hunks of your draft of work/a.txt; see history');
    expect(JSON.stringify(await call('status', {}))).not.toContain('a person');
  });

  test("the agent's next write of the path carries the note in its report", async () => {
    const { m, call } = await setUp({ 'a.txt': base });
    await call('read', { path: 'work/a.txt' });
    await call('write', { path: 'work/a.txt', content: draft });
    const shown = await m.review.file('a.txt');
    if (!shown.ok) throw new Error(shown.message);
    await m.review.hunks('a.txt', { disk: shown.file.disk.hash, draft: shown.file.draft.hash }, [], [1]);
    const wrote = await call('write', { path: 'work/a.txt', content: draft });
    expect(wrote).toMatchObject({ success: true, data: { report: { reviewed: ['a person rejected 1 hunk of your draft of work/a.txt; see history'] } } });
    expect(JSON.stringify(await call('status', {}))).not.toContain('a person');
  });

  test('a file changed on disk since the page showed it is refused, and nothing changes', async () => {
    const { m, call, disk, root } = await setUp({ 'a.txt': base });
    await call('read', { path: 'work/a.txt' });
    await call('write', { path: 'work/a.txt', content: draft });
    const shown = await m.review.file('a.txt');
    if (!shown.ok) throw new Error(shown.message);
    const person = base.replace('line 10\n', 'a person was here\n');
    writeFileSync(join(root, 'a.txt'), person);
    const done = await m.review.hunks('a.txt', { disk: shown.file.disk.hash, draft: shown.file.draft.hash }, [0], []);
    expect(done).toMatchObject({ ok: false, stale: true });
    expect(disk('a.txt')).toBe(person);
    const now = await m.review.file('a.txt');
    if (!now.ok) throw new Error(now.message);
    expect(now.file.draft.text).toBe(draft);
  });

  test("a draft changed by the agent since the page showed it is refused", async () => {
    const { m, call, disk } = await setUp({ 'a.txt': base });
    await call('read', { path: 'work/a.txt' });
    await call('write', { path: 'work/a.txt', content: draft });
    const shown = await m.review.file('a.txt');
    if (!shown.ok) throw new Error(shown.message);
    await call('write', { path: 'work/a.txt', content: `${draft}more\n` });
    const done = await m.review.hunks('a.txt', { disk: shown.file.disk.hash, draft: shown.file.draft.hash }, [0], []);
    expect(done).toMatchObject({ ok: false, stale: true });
    expect(disk('a.txt')).toBe(base);
  });

  test("a person's save landing between the check and the push's write is refused by the push's guard; the draft is kept", async () => {
    const person = base.replace('line 20\n', 'saved just now\n');
    let armed = false;
    let root = '';
    // Just before the push replaces the file, a person's editor saves it.
    const wrap = (_mount: string, disk: DiskPort): DiskPort =>
      new Proxy(disk, {
        get(target, key, receiver) {
          if (key !== 'write') return Reflect.get(target, key, receiver);
          return async (path: string, bytes: Uint8Array, options: Parameters<DiskPort['write']>[2]) => {
            if (armed) {
              armed = false;
              writeFileSync(join(root, path), person);
            }
            return target.write(path, bytes, options);
          };
        },
      });
    const made = await setUp({ 'a.txt': base }, {}, wrap);
    root = made.root;
    await made.call('read', { path: 'work/a.txt' });
    await made.call('write', { path: 'work/a.txt', content: draft });
    const shown = await made.m.review.file('a.txt');
    if (!shown.ok) throw new Error(shown.message);
    armed = true;
    const done = await made.m.review.hunks('a.txt', { disk: shown.file.disk.hash, draft: shown.file.draft.hash }, [0], []);
    expect(done).toMatchObject({ ok: false, stale: true });
    expect(armed).toBe(false);
    expect(made.disk('a.txt')).toBe(person);
    const now = await made.m.review.file('a.txt');
    if (!now.ok) throw new Error(now.message);
    expect(now.file.draft.text).toBe(draft);
    expect(now.file.disk.text).toBe(person);
  });

  test('a draft over a binary disk file has no hunks; it is accepted or rejected whole', async () => {
    const binary = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]);
    const { m, call, root } = await setUp({ 'img.bin': binary, 'other.bin': binary });
    for (const p of ['img.bin', 'other.bin']) await call('read', { path: `work/${p}` });
    await call('write', { path: 'work/img.bin', content: 'now text\n' });
    await call('write', { path: 'work/other.bin', content: 'also text\n' });
    const shown = await m.review.file('img.bin');
    if (!shown.ok) throw new Error(shown.message);
    expect(shown.file).toMatchObject({ kind: 'draft', hunks: [], disk: { notText: expect.stringContaining('binary') } });
    const seen = { disk: shown.file.disk.hash, draft: shown.file.draft.hash };
    expect(await m.review.hunks('img.bin', seen, [0], [])).toMatchObject({ ok: false });
    expect(await m.review.whole('img.bin', seen, 'accept')).toMatchObject({ ok: true });
    expect(readFileSync(join(root, 'img.bin'), 'utf8')).toBe('now text\n');
    const other = await m.review.file('other.bin');
    if (!other.ok) throw new Error(other.message);
    expect(await m.review.whole('other.bin', { disk: other.file.disk.hash, draft: other.file.draft.hash }, 'reject')).toMatchObject({ ok: true });
    expect(new Uint8Array(readFileSync(join(root, 'other.bin')))).toEqual(binary);
    expect(await m.review.list(true)).toEqual({ ok: true, entries: [] });
  });

  test('bytes that are not UTF-8 and CRLF lines survive a partial accept exactly', async () => {
    const diskBytes = Buffer.concat([Buffer.from('one\r\ntwo\r\n', 'latin1'), Buffer.from([0xff, 0x0a]), Buffer.from(lines(12, (i) => `pad ${i}`)), Buffer.from('end\r\n')]);
    const { m, root } = await setUp({});
    writeFileSync(join(root, 'b.txt'), diskBytes);
    const draftBytes = Buffer.concat([Buffer.from('ONE\r\ntwo\r\n', 'latin1'), Buffer.from([0xff, 0x0a]), Buffer.from(lines(12, (i) => `pad ${i}`)), Buffer.from('END\r\n')]);
    await m.read('b.txt');
    // The agent's byte-exact draft, as a commit (write would refuse to carry the stray byte as text).
    expect((await m.commit([{ path: 'b.txt', bytes: draftBytes }])).ok).toBe(true);
    const shown = await m.review.file('b.txt');
    if (!shown.ok) throw new Error(shown.message);
    expect(shown.file.hunks.length).toBe(2);
    await m.review.hunks('b.txt', { disk: shown.file.disk.hash, draft: shown.file.draft.hash }, [1], []);
    const expected = Buffer.concat([Buffer.from('one\r\ntwo\r\n', 'latin1'), Buffer.from([0xff, 0x0a]), Buffer.from(lines(12, (i) => `pad ${i}`)), Buffer.from('END\r\n')]);
    expect(readFileSync(join(root, 'b.txt')).equals(expected)).toBe(true);
  });

  test('a new file rejected whole leaves nothing behind; accepted whole, it is on disk', async () => {
    const { m, call, root } = await setUp({});
    await call('write', { path: 'work/new.txt', content: 'hello\n' });
    await call('write', { path: 'work/other.txt', content: 'there\n' });
    const a = await m.review.file('new.txt');
    const b = await m.review.file('other.txt');
    if (!a.ok || !b.ok) throw new Error('no file');
    expect(await m.review.hunks('new.txt', { disk: 'absent', draft: a.file.draft.hash }, [], [0])).toMatchObject({ ok: true });
    expect(await m.review.hunks('other.txt', { disk: 'absent', draft: b.file.draft.hash }, [0], [])).toMatchObject({ ok: true });
    expect(existsSync(join(root, 'new.txt'))).toBe(false);
    expect(readFileSync(join(root, 'other.txt'), 'utf8')).toBe('there\n');
    const listed = await m.review.list(true);
    expect(listed).toEqual({ ok: true, entries: [] });
  });

  test('bad hunk numbers are refused with a sentence', async () => {
    const { m, call } = await setUp({ 'a.txt': base });
    await call('read', { path: 'work/a.txt' });
    await call('write', { path: 'work/a.txt', content: draft });
    const shown = await m.review.file('a.txt');
    if (!shown.ok) throw new Error(shown.message);
    const seen = { disk: shown.file.disk.hash, draft: shown.file.draft.hash };
    expect(await m.review.hunks('a.txt', seen, [7], [])).toMatchObject({ ok: false });
    expect(await m.review.hunks('a.txt', seen, [1], [1])).toMatchObject({ ok: false, message: expect.stringContaining("can't be both") });
    expect(await m.review.hunks('a.txt', seen, [], [])).toMatchObject({ ok: false });
    expect((await m.review.file('../x')).ok).toBe(false);
  });
});

describe('deletions and conflicts', () => {
  test('a deletion accepted removes the file; rejected, the workspace reads disk again', async () => {
    const { m, call, root } = await setUp({ 'gone.txt': 'bye\n', 'kept.txt': 'stay\n' });
    await call('delete', { path: 'work/gone.txt' });
    await call('delete', { path: 'work/kept.txt' });
    expect((await m.review.list(true)).ok && (await m.review.list(true))).toMatchObject({ entries: [{ path: 'gone.txt', kind: 'deletion' }, { path: 'kept.txt', kind: 'deletion' }] });
    const hash = (await m.review.file('gone.txt')) as { ok: true; file: { disk: { hash: string } } };
    expect(await m.review.whole('gone.txt', { disk: hash.file.disk.hash, draft: 'absent' }, 'accept')).toMatchObject({ ok: true });
    const kept = (await m.review.file('kept.txt')) as { ok: true; file: { disk: { hash: string } } };
    expect(await m.review.whole('kept.txt', { disk: kept.file.disk.hash, draft: 'absent' }, 'reject')).toMatchObject({ ok: true });
    expect(existsSync(join(root, 'gone.txt'))).toBe(false);
    expect(readFileSync(join(root, 'kept.txt'), 'utf8')).toBe('stay\n');
    const read = await call('read', { path: 'work/kept.txt' });
    expect(read).toMatchObject({ success: true });
    expect(JSON.stringify(read)).toContain('a person rejected 1 hunk of your draft of work/kept.txt');
  });

  async function conflicted() {
    const made = await setUp({ 'c.txt': 'one\ntwo\nthree\n' });
    await made.call('read', { path: 'work/c.txt' });
    await made.call('write', { path: 'work/c.txt', content: 'one\nTWO (agent)\nthree\n' });
    writeFileSync(join(made.root, 'c.txt'), 'one\ntwo\nthree (person)\n');
    const shown = await made.m.review.file('c.txt');
    if (!shown.ok) throw new Error(shown.message);
    expect(shown.file.kind).toBe('conflict');
    expect(shown.file.agreed?.text).toBe('one\ntwo\nthree\n');
    expect(shown.file.disk.text).toBe('one\ntwo\nthree (person)\n');
    expect(shown.file.draft.text).toBe('one\nTWO (agent)\nthree\n');
    return { ...made, seen: { disk: shown.file.disk.hash, draft: shown.file.draft.hash } };
  }

  test('a conflict settled with an edited merge: disk holds the merge and nothing is left to review', async () => {
    const { m, seen, disk, call } = await conflicted();
    const merged = 'one\nTWO (agent)\nthree (person)\n';
    expect(await m.review.settle('c.txt', seen, 'merge', enc(merged))).toMatchObject({ ok: true });
    expect(disk('c.txt')).toBe(merged);
    expect(await m.review.list(true)).toEqual({ ok: true, entries: [] });
    expect(JSON.stringify(await call('read', { path: 'work/c.txt' }))).toContain('settled the conflict with a merge');
  });

  test("a conflict settled for disk's copy or the draft", async () => {
    const first = await conflicted();
    expect(await first.m.review.settle('c.txt', first.seen, 'disk')).toMatchObject({ ok: true });
    expect(first.disk('c.txt')).toBe('one\ntwo\nthree (person)\n');
    expect(await first.m.review.list(true)).toEqual({ ok: true, entries: [] });
    const second = await conflicted();
    expect(await second.m.review.settle('c.txt', second.seen, 'draft')).toMatchObject({ ok: true });
    expect(second.disk('c.txt')).toBe('one\nTWO (agent)\nthree\n');
  });

  test('a merge over a disk changed since the page showed it is refused; disk keeps the newer edit', async () => {
    const { m, seen, disk, root } = await conflicted();
    writeFileSync(join(root, 'c.txt'), 'newer\n');
    expect(await m.review.settle('c.txt', seen, 'merge', enc('merge\n'))).toMatchObject({ ok: false, stale: true });
    expect(disk('c.txt')).toBe('newer\n');
  });
});
