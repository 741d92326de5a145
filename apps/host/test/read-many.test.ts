/**
 * `readMany` holds each directory once for the files in it, and answers every path as
 * `read` answers it alone: regular files (in nested directories, visited out of order),
 * over-size files, FIFOs, directories, missing paths and parents, symlinks to files and
 * to directories (followed or not, inside and out of the root), ws's own store, paths
 * that leave the root or hold a NUL — in this thread and through `diskReader` (as grep's
 * Workers read), on mounts that follow symlinks and mounts that don't.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { diskPort, diskReader } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';
import { tempDir } from './fixtures.ts';
import { writeFiles } from './host-fixtures.ts';

const STORE = '.ws/store.sqlite';

function tree(): { root: string; outside: string } {
  const root = tempDir('ws-read-many-');
  const outside = tempDir('ws-read-many-out-');
  writeFiles(root, {
    'a.txt': 'a\n',
    'big.txt': 'x'.repeat(200),
    'empty.txt': '',
    'src/b.txt': 'b\r\n',
    'src/deep/c.txt': '\uFEFFc\n',
    'src/d.bin': new Uint8Array([0, 1, 2]),
    [STORE]: 'not a store',
  });
  writeFiles(outside, { 'secret.txt': 'secret\n' });
  Bun.spawnSync(['mkfifo', join(root, 'src', 'fifo')]);
  mkdirSync(join(root, 'dir'));
  symlinkSync('a.txt', join(root, 'link-in.txt'));
  symlinkSync(join(outside, 'secret.txt'), join(root, 'link-out.txt'));
  symlinkSync('src/deep', join(root, 'deeplink'));
  symlinkSync('nowhere', join(root, 'dangling.txt'));
  return { root, outside };
}

const PATHS = [
  'src/deep/c.txt', 'a.txt', 'src/b.txt', 'big.txt', 'src/deep/c.txt', 'empty.txt', 'src/d.bin', 'src/fifo', 'dir', 'missing.txt',
  'nope/x.txt', 'a.txt/x', 'link-in.txt', 'link-out.txt', 'deeplink/c.txt', 'dangling.txt', STORE, '.ws', '../x.txt', 'src/../a.txt',
  '/etc/passwd', 'src//b.txt', './a.txt', 'a\0.txt', 'src/b.txt',
];

/** A reading as compared: its kind, bytes, size and fingerprint, or reason. */
function shape(r: Awaited<ReturnType<ReturnType<typeof diskPort>['read']>>): unknown {
  if (r.kind !== 'file') return r;
  return { kind: r.kind, size: r.meta.size, fingerprint: r.meta.fingerprint, bytes: r.bytes === null ? null : [...r.bytes] };
}

describe('readMany answers each path as read does', () => {
  for (const follow of [false, true]) {
    test(`followSymlinks = ${follow}`, async () => {
      const { root } = tree();
      const options = { root, rules: walkRules([], STORE), followSymlinks: follow, walkCap: 100, storeRel: STORE, mount: 'work', timestampGranularityMs: 1 };
      const disk = diskPort(options);
      // Past any racy-stat window, so every read is final at once.
      await Bun.sleep(60);
      const alone = [];
      for (const p of PATHS) alone.push(shape(await disk.read(p, 100)));
      const many = (await disk.readMany(PATHS, 100)).map(shape);
      expect(many).toEqual(alone);
      const elsewhere = (await diskReader(disk.readerSpec).readMany(PATHS, 100)).map(shape);
      expect(elsewhere).toEqual(alone);
      // The answers are not all alike: files read, one too large, and refusals.
      const text = JSON.stringify(alone);
      expect(text).toContain('"bytes":[97,10]');
      expect(text).toContain('"bytes":null');
      expect(text).toContain('unobservable');
      expect(text).toContain('absent');
    });
  }
});

describe('readMany into a buffer (as grep Workers read a batch)', () => {
  for (const room of [0, 3, 7, 64, 4096]) {
    test(`${room} bytes of room: the same answers, files that fit read into it one after another`, async () => {
      const { root } = tree();
      const options = { root, rules: walkRules([], STORE), followSymlinks: false, walkCap: 100, storeRel: STORE, mount: 'work', timestampGranularityMs: 1 };
      const disk = diskPort(options);
      await Bun.sleep(60);
      const alone = [];
      for (const p of PATHS) alone.push(shape(await disk.read(p, 100)));
      const into = new Uint8Array(room).fill(0xee);
      const got = await diskReader(disk.readerSpec).readMany(PATHS, 100, into);
      expect(got.map(shape)).toEqual(alone);
      // The files in the buffer sit one after another from its start, none overlapping another.
      let end = 0;
      let inside = 0;
      for (const r of got) {
        if (r.kind !== 'file' || r.bytes === null || r.bytes.length === 0) continue;
        if (r.bytes.buffer !== into.buffer) continue;
        expect(r.bytes.byteOffset).toBe(into.byteOffset + end);
        end += r.bytes.length;
        inside++;
      }
      expect(end).toBeLessThanOrEqual(room);
      // Where the buffer holds every file that fits, the files that don't have bytes of their own.
      if (room >= 4096) expect(inside).toBe(got.filter((r) => r.kind === 'file' && r.bytes !== null && r.bytes.length > 0).length);
      if (room === 0) expect(inside).toBe(0);
      if (room === 7) expect(inside).toBeGreaterThan(0);
    });
  }

});
