import { describe, expect, test } from 'bun:test';
import { handleToolCall, MAX_PLANS } from '../src/index.ts';
import { bytesOf, type MemoryMount, memoryWorkspace } from './memory-workspace.ts';

const dec = new TextDecoder();

type Backend = 'store' | 'direct';

function workspace(backend: Backend, files: Record<string, string>) {
  return memoryWorkspace([{ name: 'work', backend, files }]);
}

/** What the mount holds for a path: the workspace copy on a store, disk on a direct mount. */
function held(m: MemoryMount, path: string): string | undefined {
  const bytes = m.backend === 'store' ? m.store.get(path) : m.disk.get(path);
  return bytes ? dec.decode(bytes) : undefined;
}

/** A person's save of `path`, as the mount would take it in (disk, and the workspace copy a read check takes in). */
function personSaves(m: MemoryMount, path: string, text: string): void {
  m.disk.set(path, bytesOf(text));
  if (m.backend === 'store') m.store.set(path, bytesOf(text));
}

/** Makes `m` see a person's save just before each of its first `times` commits (`save` gives the text from the current one). */
function savesBeforeCommit(m: MemoryMount, path: string, times: number, save: (now: string) => string): { commits: () => number } {
  const commit = m.commit.bind(m);
  let commits = 0;
  m.commit = async (changes, intent) => {
    if (commits++ < times) personSaves(m, path, save(held(m, path) ?? ''));
    return commit(changes, intent);
  };
  return { commits: () => commits };
}

for (const backend of ['store', 'direct'] as const) {
  describe(`planning again on a ${backend} mount`, () => {
    test('a save that lands between the read and the commit is kept, and the edit applies on the new text', async () => {
      const ws = workspace(backend, { 'a.txt': 'title\nbody\n' });
      const m = ws.mounts[0];
      const seen = savesBeforeCommit(m, 'a.txt', 1, (now) => `${now}person 1\n`);
      const r = await handleToolCall(ws, { name: 'edit', input: { path: 'work/a.txt', oldString: 'title', newString: 'TITLE' } });
      expect(r.success).toBe(true);
      expect(held(m, 'a.txt')).toBe('TITLE\nbody\nperson 1\n');
      expect(seen.commits()).toBe(2);
      expect(r.success && (r.data as Record<string, unknown>).replanned).toBe(
        'work/a.txt changed after it was read (someone saved), so the edits were planned again on the new text and applied there; read again to see the other changes.',
      );
    });

    test('edit_many plans every file again when one of them changed, and stores all', async () => {
      const ws = workspace(backend, { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
      const m = ws.mounts[0];
      savesBeforeCommit(m, 'b.txt', 2, (now) => `${now}person\n`);
      const r = await handleToolCall(ws, {
        name: 'edit_many',
        input: {
          edits: [
            { path: 'work/a.txt', oldString: 'alpha', newString: 'ALPHA' },
            { path: 'work/b.txt', oldString: 'beta', newString: 'BETA' },
          ],
        },
      });
      expect(r.success).toBe(true);
      expect(held(m, 'a.txt')).toBe('ALPHA\n');
      expect(held(m, 'b.txt')).toBe('BETA\nperson\nperson\n');
    });

    test('where the new text no longer has oldString exactly once, nothing is stored and the sentence says why', async () => {
      const ws = workspace(backend, { 'a.txt': 'x = 1\n' });
      const m = ws.mounts[0];
      savesBeforeCommit(m, 'a.txt', 1, (now) => `${now}x = 1\n`);
      const r = await handleToolCall(ws, { name: 'edit', input: { path: 'work/a.txt', oldString: 'x = 1', newString: 'x = 2' } });
      expect(r.success).toBe(false);
      expect(!r.success && r.error).toStartWith(
        'work/a.txt changed while the call was being stored (someone saved), so it was planned again on the new text: oldString occurs 2 times in work/a.txt',
      );
      expect(held(m, 'a.txt')).toBe('x = 1\nx = 1\n');
    });

    test(`a file that changes before every commit is planned ${MAX_PLANS} times, then refused, the person's text kept`, async () => {
      const ws = workspace(backend, { 'a.txt': 'head\n' });
      const m = ws.mounts[0];
      let n = 0;
      const seen = savesBeforeCommit(m, 'a.txt', Number.POSITIVE_INFINITY, (now) => `${now}person ${++n}\n`);
      const r = await handleToolCall(ws, { name: 'edit', input: { path: 'work/a.txt', oldString: 'head', newString: 'HEAD' } });
      expect(r.success).toBe(false);
      expect(!r.success && r.error).toContain('work/a.txt changed after it was read');
      expect(seen.commits()).toBe(MAX_PLANS);
      expect(held(m, 'a.txt')).toBe(`head\n${Array.from({ length: MAX_PLANS }, (_, i) => `person ${i + 1}\n`).join('')}`);
    });

    test('a refusal that is not a change under the edit is not planned again', async () => {
      const ws = workspace(backend, { 'a.txt': 'one\n' });
      const m = ws.mounts[0];
      let commits = 0;
      m.commit = async () => {
        commits++;
        return { ok: false, message: 'The disk is full.' };
      };
      const r = await handleToolCall(ws, { name: 'edit', input: { path: 'work/a.txt', oldString: 'one', newString: 'two' } });
      expect(r.success).toBe(false);
      expect(!r.success && r.error).toBe('Nothing was stored: The disk is full.');
      expect(commits).toBe(1);
    });
  });
}
