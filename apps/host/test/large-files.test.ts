import { describe, expect, test } from 'bun:test';
import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileText } from '@ws/text';
import { handleToolCall } from '@ws/tools';
import { diskPort } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';
import { tempDir } from './fixtures.ts';
import { storeHost } from './host-fixtures.ts';

const MAX = 4096;

/** A seeded generator (mulberry32), so the file is the same on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A CRLF file with a BOM over two 1 MiB stretches: short lines, long lines (some with pairs), one own-CR line. */
function generated(lines: number): string {
  const random = seeded(14);
  const out: string[] = ['\uFEFF'];
  for (let i = 1; i <= lines; i++) {
    const r = random();
    const text = r < 0.015 ? `${i} ${'\u{1F600}x'.repeat(1000 + Math.floor(random() * 3000))}` : r < 0.025 ? `${i} own\r` : `${i} ${'log entry '.repeat(Math.floor(random() * 8))}`;
    out.push(text, '\r\n');
  }
  return out.join('');
}

type Page = { fromLine: number; toLine: number; totalLines: number; note?: string; content: string };

async function call(host: Awaited<ReturnType<typeof storeHost>>['host'], name: string, input: Record<string, unknown>, resultMaxChars?: number) {
  return handleToolCall(host.workspace, { name, input, ...(resultMaxChars === undefined ? {} : { resultMaxChars }) });
}

for (const backend of ['store', 'direct'] as const) {
  describe(`a file over maxFileSize on a ${backend} mount`, () => {
    test('walking its pages by their notes shows every line once, with true numbers, each page within budget', async () => {
      const text = generated(6000);
      const { host, root } = await storeHost({ mount: { backend, maxFileSize: MAX } });
      writeFileSync(join(root, 'big.log'), text);
      const ft = fileText(text);
      expect(new TextEncoder().encode(text).length).toBeGreaterThan(1 << 20);
      for (const budget of [8000, 24_000]) {
        const seen: string[] = [];
        let offset = 1;
        let pages = 0;
        for (;;) {
          const r = await call(host, 'read', { path: 'work/big.log', offset }, budget);
          if (!r.success) throw new Error(r.error);
          const page = r.data as Page;
          pages++;
          expect(JSON.stringify(page).length).toBeLessThanOrEqual(budget);
          expect(page.totalLines).toBe(ft.lines.length);
          expect(page.fromLine).toBe(offset);
          expect(page.note).toContain('This file has CRLF line ends');
          expect(page.note).toContain('The file starts with a UTF-8 BOM');
          expect(page.note).toContain('too large to store or edit');
          const shown = page.content.split('\n');
          shown.forEach((numbered, i) => {
            const tab = numbered.indexOf('\t');
            expect(Number(numbered.slice(0, tab))).toBe(page.fromLine + i);
            seen.push(numbered.slice(tab + 1));
          });
          // A cut line is read back by its rest, a character page followed by its own notes.
          const last = seen[seen.length - 1];
          const rest = /\[… read the rest with offsetChars=(\d+) and limitChars=(\d+)\]$/.exec(last);
          if (rest) {
            let [offsetChars, limitChars] = [Number(rest[1]), Number(rest[2])];
            let restText = '';
            for (;;) {
              const c = await call(host, 'read', { path: 'work/big.log', offsetChars, limitChars }, budget);
              if (!c.success) throw new Error(c.error);
              const cp = c.data as { content: string; nextOffsetChars: number; note?: string };
              restText += cp.content;
              const more = /offsetChars=(\d+) and limitChars=(\d+)\.$/.exec(cp.note ?? '');
              if (!more) break;
              [offsetChars, limitChars] = [Number(more[1]), Number(more[2])];
            }
            seen[seen.length - 1] = last.slice(0, rest.index) + restText;
          }
          for (const [i, line] of seen.slice(seen.length - shown.length).entries()) {
            const n = page.fromLine + i;
            if (!/\[… read the rest/.test(line)) expect(line).toBe(ft.lines[n - 1]);
          }
          const next = /continue with offset=(\d+)/.exec(page.note ?? '');
          if (!next) break;
          offset = Number(next[1]);
        }
        expect(seen.length).toBe(ft.lines.length);
        // Long lines cut mid-page are checked by their number only; whole lines must all match.
        seen.forEach((line, i) => {
          if (!line.includes('[… read the rest')) expect(line).toBe(ft.lines[i]);
        });
        expect(pages).toBeGreaterThan(10);
      }
    }, 120_000);

    test('an edit, a write and a delete are refused with the sentence; the file is unchanged and no draft is made', async () => {
      const { host, root } = await storeHost({ mount: { backend, maxFileSize: 100 } });
      const text = 'one line\n'.repeat(50);
      writeFileSync(join(root, 'big.log'), text);
      const edit = await call(host, 'edit', { path: 'work/big.log', oldString: 'one', newString: 'two' });
      expect(edit).toEqual({ success: false, error: "work/big.log is 450 bytes, over the mount's limit of 100: read pages it straight from disk, but it is too large to store or edit." });
      for (const [name, input] of [
        ['write', { path: 'work/big.log', content: 'x' }],
        ['delete', { path: 'work/big.log' }],
      ] as const) {
        expect(await call(host, name, input)).toEqual({
          success: false,
          error: "work/big.log is 450 bytes, over the mount's limit of 100: read pages it straight from disk, but it is too large to store or edit.",
        });
      }
      expect(await Bun.file(join(root, 'big.log')).text()).toBe(text);
      // No draft and no conflict: the file reads as before.
      const status = await call(host, 'status', {});
      expect(status.success && JSON.stringify(status.data)).not.toContain('big.log');
      const page = await call(host, 'read', { path: 'work/big.log', limit: 1 });
      expect(page.success && (page.data as Page).content).toBe('1\tone line');
      if (backend === 'store') {
        // disk's version is the same pages, with the version's note.
        const disk = await call(host, 'read', { path: 'work/big.log', version: 'disk', offset: 50 });
        expect(disk.success && disk.data).toMatchObject({ totalLines: 50, fromLine: 50, content: '50\tone line' });
        expect(disk.success && (disk.data as Page).note).toContain('This page shows disk’s copy, read-only');
        expect(disk.success && (disk.data as Page).note).toContain('too large to store or edit');
      }
    });

    test('a large binary file stays refused as binary', async () => {
      const { host, root } = await storeHost({ mount: { backend, maxFileSize: 100 } });
      writeFileSync(join(root, 'dump.bin'), new Uint8Array(1000).fill(7).fill(0, 500, 501));
      const r = await call(host, 'read', { path: 'work/dump.bin' });
      expect(r).toEqual({ success: false, error: 'work/dump.bin is a binary file (1000 bytes); read shows text only.' });
    });

    test('a file that changes between two stretches is reported, not mixed', async () => {
      const { host, root, mount } = await storeHost({ mount: { backend, maxFileSize: 100 } });
      writeFileSync(join(root, 'big.log'), 'line\n'.repeat(100));
      const got = await mount.read('big.log');
      if (got.kind !== 'large') throw new Error(`expected a large file, got ${got.kind}`);
      expect(new TextDecoder().decode((await got.range(0, 10)) ?? undefined)).toBe('line\nline\n');
      appendFileSync(join(root, 'big.log'), 'more\n');
      expect(await got.range(10, 10)).toBeNull();
      // A read after the change pages the new file whole.
      const r = await call(host, 'read', { path: 'work/big.log', offset: 101 });
      expect(r.success && (r.data as Page).content).toBe('101\tmore');
    });
  });
}

test('a 60 MB file is paged in a child process with peak RSS well under its size', async () => {
  const child = Bun.spawn(['bun', `${import.meta.dir}/large-file-child.ts`], { stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(err).toBe('');
  expect(code).toBe(0);
  const r = JSON.parse(out) as { size: number; totalLines: number; lastLine: string; maxRssMb: number; baseRssMb: number; ms: number };
  console.log(`60 MB file: peak RSS ${r.maxRssMb} MB (${r.baseRssMb} MB before its first page), ${r.ms} ms for three pages`);
  expect(r.size).toBeGreaterThan(60_000_000);
  expect(r.totalLines).toBe(1_500_000);
  expect(r.lastLine).toBe(`1500000\tline 1500000 ${'.'.repeat(27)}`);
  // Reading the file whole would take its 60 MB as bytes, and as much again as text.
  expect(r.maxRssMb - r.baseRssMb).toBeLessThan(0.6 * (r.size / 1e6));
}, 120_000);

describe("the disk port's ranged read", () => {
  test('reads a stretch with the metadata; refuses a FIFO unopened, a symlink on a mount that follows none, ws’s own file and a path leaving the root', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'big.log'), 'abcdefghij');
    Bun.spawnSync(['mkfifo', join(root, 'fifo')]);
    symlinkSync(join(root, 'big.log'), join(root, 'link'));
    mkdirSync(join(root, '.ws'));
    writeFileSync(join(root, '.ws/store.sqlite'), 'x');
    const disk = diskPort({ root, rules: walkRules([], '.ws/store.sqlite'), followSymlinks: false, walkCap: 100, storeRel: '.ws/store.sqlite', mount: 'work' });
    const got = await disk.readRange('big.log', 3, 4);
    expect(got.kind === 'file' && new TextDecoder().decode(got.bytes)).toBe('defg');
    expect(got.kind === 'file' && got.meta.size).toBe(10);
    // Past the end: what there is, then nothing.
    const tail = await disk.readRange('big.log', 8, 100);
    expect(tail.kind === 'file' && new TextDecoder().decode(tail.bytes)).toBe('ij');
    // Into a buffer: a view of it.
    const into = new Uint8Array(16);
    const viewed = await disk.readRange('big.log', 0, 3, into);
    expect(viewed.kind === 'file' && viewed.bytes.buffer).toBe(into.buffer);
    expect(await disk.readRange('missing.log', 0, 4)).toEqual({ kind: 'absent' });
    for (const path of ['fifo', 'link', '.ws/store.sqlite', '../x']) {
      const r = await disk.readRange(path, 0, 4);
      expect(r.kind).toBe('unobservable');
    }
  });
});
