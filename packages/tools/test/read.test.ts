import { describe, expect, test } from 'bun:test';
import { jsonLength } from '@ws/text';
import { handleToolCall } from '../src/index.ts';
import { type MemoryMountOptions, bytesOf, memoryWorkspace } from './memory-workspace.ts';

const files = {
  'src/a.ts': 'export const a = 1;\r\nexport const b = 2;\r\n',
  'src/b.ts': 'b\n',
  'docs/readme.md': '\uFEFF# Title\n',
  'logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]),
  'shot.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, ...new Array(300).fill(7)]),
  'photo.jpg': new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0]),
};

function workspace(backend: 'store' | 'direct', extra: Partial<MemoryMountOptions> = {}) {
  return memoryWorkspace([{ name: 'work', backend, files, ...extra }]);
}

async function call(ws: ReturnType<typeof workspace>, input: unknown, resultMaxChars?: number) {
  return handleToolCall(ws, { name: 'read', input, ...(resultMaxChars === undefined ? {} : { resultMaxChars }) });
}

for (const backend of ['store', 'direct'] as const) {
  describe(`read on a ${backend} mount`, () => {
    test('a CRLF file reads as numbered lines without the CR, with the CRLF note', async () => {
      const r = await call(workspace(backend), { path: 'work/src/a.ts' });
      expect(r).toEqual({
        success: true,
        data: {
          path: 'work/src/a.ts',
          totalLines: 2,
          fromLine: 1,
          toLine: 2,
          note: 'This file has CRLF line ends; lines are shown without their CR.',
          content: '1\texport const a = 1;\n2\texport const b = 2;',
        },
      });
    });

    test('character pages show the text exactly, CRs included', async () => {
      const r = await call(workspace(backend), { path: 'work/src/a.ts', offsetChars: 18, limitChars: 4 });
      expect(r).toEqual({ success: true, data: { path: 'work/src/a.ts', totalChars: 42, offsetChars: 18, nextOffsetChars: 22, content: ';\r\ne' } });
    });

    test('a path is normalized: extra slashes and dots name the same file', async () => {
      const r = await call(workspace(backend), { path: 'work//src/./b.ts' });
      expect(r.success && (r.data as { path: string }).path).toBe('work/src/b.ts');
    });

    test('an image (told by its first bytes) is shown whole, its base64 counted against the budget', async () => {
      const ws = workspace(backend);
      const png = await call(ws, { path: 'work/shot.png' }, 24_000);
      const bytes = files['shot.png'];
      expect(png).toEqual({
        success: true,
        data: { path: 'work/shot.png', mimeType: 'image/png', size: bytes.length },
        images: [{ mimeType: 'image/png', data: Buffer.from(bytes).toString('base64') }],
      });
      const jpg = await call(ws, { path: 'work/photo.jpg' });
      expect(jpg.success && jpg.images?.[0]?.mimeType).toBe('image/jpeg');
      // 312 bytes are 416 characters of base64: a budget of 420 cannot hold them and the data.
      expect(await call(ws, { path: 'work/shot.png' }, 420)).toEqual({
        success: false,
        error: `work/shot.png is an image of 312 bytes: 416 characters as base64, over this call's limit of 420; read shows an image whole or not at all.`,
      });
    });

    test('a mount that offers candidates is asked for them instead of being listed whole', async () => {
      const ws = workspace(backend);
      const mount = ws.mounts[0];
      const asked: string[] = [];
      mount.list = () => Promise.reject(new Error('a typo must not walk the mount'));
      mount.candidates = async (path) => {
        asked.push(path);
        return ['src/a.ts', 'docs/readme.md'];
      };
      expect(await call(ws, { path: 'work/src/c.ts' })).toEqual({ success: false, error: 'work/src/c.ts does not exist. Did you mean work/src/a.ts?' });
      expect(asked).toEqual(['src/c.ts']);
    });

    test('a directory, a binary file and a missing file are sentences', async () => {
      const ws = workspace(backend);
      expect(await call(ws, { path: 'work/src' })).toEqual({ success: false, error: 'work/src is a directory; list it with ls, or read a file inside it.' });
      expect(await call(ws, { path: 'work' })).toEqual({ success: false, error: 'work is a directory; list it with ls, or read a file inside it.' });
      expect(await call(ws, { path: 'work/logo.png' })).toEqual({ success: false, error: 'work/logo.png is a binary file (8 bytes); read shows text only.' });
      expect(await call(ws, { path: 'work/src/c.ts' })).toEqual({ success: false, error: 'work/src/c.ts does not exist. Did you mean work/src/a.ts or work/src/b.ts?' });
      expect(await call(ws, { path: 'work/readme.md' })).toEqual({ success: false, error: 'work/readme.md does not exist. Did you mean work/docs/readme.md?' });
      expect(await call(ws, { path: 'work/zzzzzzzz/qqqq' })).toEqual({ success: false, error: 'work/zzzzzzzz/qqqq does not exist; find files with glob or ls.' });
    });

    test('paths that leave the mount or name no mount are refused before any mount is asked', async () => {
      const ws = workspace(backend);
      const refusals = [
        ['work/../etc/passwd', 'has a ".." part'],
        ['/etc/passwd', 'is absolute'],
        ['C:/x', 'is absolute'],
        ['work\\src\\a.ts', 'has a backslash'],
        ['work/a\0b', 'NUL'],
        ['other/a.ts', 'There is no mount named "other"; the mounts are work: did you mean work/other/a.ts or work/a.ts?'],
        ['a.ts', 'There is no mount named "a.ts"; the mounts are work: did you mean work/a.ts?'],
      ];
      for (const [path, words] of refusals) {
        const r = await call(ws, { path });
        expect(r.success).toBe(false);
        if (!r.success) expect(r.error).toContain(words);
      }
      expect(ws.mounts[0].calls.read ?? 0).toBe(0);
    });

    test('an absolute path inside a mount’s directory is answered with the mount path it names, which reads the file', async () => {
      const ws = memoryWorkspace([
        { name: 'repo', backend, root: '/home/me/proj', files: { 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' } },
        { name: 'docs', backend, root: '/home/me/proj/docs/', files: { 'x.md': 'x\n' } },
      ]);
      const guessed = async (path: string) => {
        const r = await call(ws, { path });
        if (r.success) throw new Error(`${path} was read`);
        return r.error;
      };
      expect(await guessed('/home/me/proj/src/a.ts')).toBe('The path "/home/me/proj/src/a.ts" is absolute; paths begin with a mount name: did you mean repo/src/a.ts?');
      // Inside both mounts' directories: both are offered.
      expect(await guessed('/home/me/proj/docs/x.md')).toBe('The path "/home/me/proj/docs/x.md" is absolute; paths begin with a mount name: did you mean repo/docs/x.md or docs/x.md?');
      for (const guess of ['repo/src/a.ts', 'repo/docs/x.md', 'docs/x.md']) expect((await call(ws, { path: guess })).success).toBe(true);
      // Outside every mount, beside one (a prefix of its name is not inside it), or leaving it by "..": no guess.
      for (const path of ['/etc/passwd', '/home/me/project/src/a.ts', '/home/me/proj/../secret']) {
        expect(await guessed(path)).toBe(`The path ${JSON.stringify(path)} is absolute; paths begin with a mount name, as in repo/src/a.ts.`);
      }
      // Only the guesses followed were read: a refused absolute path reads nothing.
      expect([ws.mounts[0].calls.read ?? 0, ws.mounts[1].calls.read ?? 0]).toEqual([2, 1]);
    });

    test('a path without its mount, or with another mount first, is answered with paths one of which reads the file', async () => {
      const ws = workspace(backend);
      for (const path of ['src/a.ts', 'repo/src/a.ts', 'a.ts/src/a.ts']) {
        const r = await call(ws, { path });
        if (r.success) throw new Error(`${path} was read`);
        const offered = /did you mean (.+)\?$/.exec(r.error)?.[1].split(' or ') ?? [];
        const read = [];
        for (const guess of offered) if ((await call(ws, { path: guess })).success) read.push(guess);
        expect({ path, read }).toEqual({ path, read: ['work/src/a.ts'] });
      }
    });

    test('the paging package’s refusals come back as sentences', async () => {
      const ws = workspace(backend);
      const both = await call(ws, { path: 'work/src/b.ts', offset: 1, offsetChars: 0 });
      expect(both).toEqual({ success: false, error: 'Give offset and limit to read lines, or offsetChars and limitChars to read characters, not both.' });
      const past = await call(ws, { path: 'work/src/b.ts', offset: 5 });
      expect(past.success).toBe(false);
      if (!past.success) expect(past.error).toContain('which has 1 line');
    });

    test('every page with a budget fits it, and a walk following the notes shows every line once', async () => {
      const lines = Array.from({ length: 400 }, (_, i) => `line ${i + 1} ${'x'.repeat(i % 37)}`);
      const ws = memoryWorkspace([{ name: 'work', backend, files: { 'big.txt': `${lines.join('\r\n')}\r\n` } }]);
      for (const budget of [300, 1000, 4000]) {
        const seen: string[] = [];
        let offset = 1;
        for (let guard = 0; guard < 1000; guard++) {
          const r = await call(ws, { path: 'work/big.txt', offset }, budget);
          if (!r.success) throw new Error(r.error);
          const page = r.data as { toLine: number; totalLines: number; content: string; note?: string };
          expect(jsonLength(page)).toBeLessThanOrEqual(budget);
          seen.push(...page.content.split('\n').map((l) => l.slice(l.indexOf('\t') + 1)));
          if (page.toLine === page.totalLines) break;
          const next = /offset=(\d+)/.exec(page.note ?? '');
          expect(Number(next?.[1])).toBe(page.toLine + 1);
          offset = page.toLine + 1;
        }
        expect(seen).toEqual(lines);
      }
    });
  });
}

describe('read on a store-backed mount runs the disk check first', () => {
  test('disk changed and the workspace had not: the note says the read shows disk’s text, and it counts against the budget', async () => {
    const ws = workspace('store');
    ws.mounts[0].disk.set('src/b.ts', bytesOf('changed on disk\n'));
    const r = await call(ws, { path: 'work/src/b.ts' }, 200);
    expect(r).toEqual({
      success: true,
      data: {
        path: 'work/src/b.ts',
        totalLines: 1,
        fromLine: 1,
        toLine: 1,
        note: 'Disk changed this file and the workspace had not: the change was taken in, so this read shows disk’s text.',
        content: '1\tchanged on disk',
      },
    });
  });

  test('the note is measured with the page: a budget that fits the page alone cuts it', async () => {
    const text = Array.from({ length: 50 }, (_, i) => `row ${i}`).join('\n');
    const ws = memoryWorkspace([{ name: 'work', backend: 'store', files: { 'r.txt': text } }]);
    const plain = await call(ws, { path: 'work/r.txt' }, 500);
    ws.mounts[0].disk.set('r.txt', bytesOf(`${text}\n`));
    const checked = await call(ws, { path: 'work/r.txt' }, 500);
    if (!plain.success || !checked.success) throw new Error('expected pages');
    const [a, b] = [plain.data, checked.data] as { toLine: number; note: string }[];
    expect(b.toLine).toBeLessThan(a.toLine);
    expect(b.note).toStartWith('Disk changed this file');
    expect(jsonLength(b)).toBeLessThanOrEqual(500);
  });

  test('disk deleted the file: the answer says so', async () => {
    const ws = workspace('store');
    ws.mounts[0].disk.delete('src/b.ts');
    expect(await call(ws, { path: 'work/src/b.ts' })).toEqual({
      success: false,
      error: 'Disk deleted work/src/b.ts and the deletion was taken in; it is no longer in the workspace.',
    });
  });

  test('a draft that disk changed too: the read shows the draft with the conflict’s ways out', async () => {
    const ws = workspace('store');
    await handleToolCall(ws, { name: 'write', input: { path: 'work/src/b.ts', content: 'draft\n' } });
    ws.mounts[0].disk.set('src/b.ts', bytesOf('disk\n'));
    const r = await call(ws, { path: 'work/src/b.ts' });
    if (!r.success) throw new Error(r.error);
    const page = r.data as { content: string; note: string };
    expect(page.content).toBe('1\tdraft');
    expect(page.note).toContain('conflict');
    expect(page.note).toContain("discard keeps disk’s copy");
  });

  test('a direct mount has no disk check and no such notes', async () => {
    const ws = workspace('direct');
    ws.mounts[0].disk.set('src/b.ts', bytesOf('changed on disk\n'));
    const r = await call(ws, { path: 'work/src/b.ts' });
    expect(r.success && (r.data as { note?: string }).note).toBeUndefined();
  });
});
