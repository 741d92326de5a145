/**
 * A change replaces only the bytes it read, even where timestamps cannot tell: on the
 * real disk port keeping 1 s timestamps, a person's same-size save in place, in the same
 * second as ws's read, keeps inode, size, mtime and ctime. A write or a deletion
 * expecting what that read saw is refused (the file that came out of the exchange, or
 * was moved aside, is compared byte for byte), and the person's save stays.
 */
import { describe, expect, test } from 'bun:test';
import { closeSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { diskPort } from '../src/disk/disk-port.ts';
import { libc } from '../src/disk/libc.ts';
import { walkRules } from '../src/disk/rules.ts';
import { enc, tempDir } from './fixtures.ts';

const TRIALS = 40;
const COARSE_MS = 1000;

/** Waits until the clock is early in a second, so a read and the save after it share it. */
async function earlyInASecond(): Promise<void> {
  while (Date.now() % COARSE_MS > COARSE_MS * 0.3) await Bun.sleep(10);
}

function coarseDisk(root: string) {
  return diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 1000, coarseTimesMs: COARSE_MS });
}

describe('compare-and-swap on the bytes read, on 1 s timestamps', () => {
  for (const effect of ['write', 'delete'] as const) {
    test(`a ${effect} expecting a racy read's fingerprint is refused after a same-size save in place (${TRIALS} trials)`, async () => {
      const root = tempDir('ws-cas-');
      const disk = coarseDisk(root);
      let refused = 0;
      let sameStat = 0;
      for (let i = 0; i < TRIALS; i++) {
        const path = `f${i}.txt`;
        await earlyInASecond();
        writeFileSync(join(root, path), 'the person wrote A\n');
        const read = await disk.read(path, 1 << 20);
        if (read.kind !== 'file' || read.bytes === null) throw new Error(`trial ${i}: not read`);
        expect(read.meta.fingerprint).toContain('~'); // racy: it vouches for nothing
        const ino = statSync(join(root, path)).ino;
        writeFileSync(join(root, path), 'the person wrote B\n'); // in place: same inode, same size
        expect(statSync(join(root, path)).ino).toBe(ino);
        const now = await disk.stat(path);
        if (now.kind === 'file' && now.meta.fingerprint.split('~')[0] === read.meta.fingerprint.split('~')[0]) sameStat++;
        const expectRead = { kind: 'file', fingerprint: read.meta.fingerprint } as const;
        const r = effect === 'write' ? await disk.write(path, enc('ws wrote this\n'), { mode: null, expect: expectRead }) : await disk.unlink(path, { expect: expectRead });
        if (r.kind === 'refused') refused++;
        expect(readFileSync(join(root, path), 'utf8')).toBe('the person wrote B\n');
      }
      console.log(`compare-and-swap (${effect}): ${sameStat} of ${TRIALS} saves kept every coarse stat field, ${refused} refused`);
      // The case the bytes alone catch must have come up, or the test shows nothing.
      expect(sameStat).toBeGreaterThan(TRIALS / 2);
      expect(refused).toBe(TRIALS);
    }, 120_000);
  }

  test("a racy read into the caller's buffer is kept as a copy: the buffer reused for the person's bytes, the write is still refused", async () => {
    const root = tempDir('ws-cas-');
    const disk = coarseDisk(root);
    const buffer = new Uint8Array(64);
    writeFileSync(join(root, 'big.txt'), 'x'.repeat(100));
    const big = await disk.read('big.txt', 1 << 20, buffer);
    if (big.kind !== 'file' || big.bytes === null) throw new Error('not read');
    expect(big.bytes.buffer).not.toBe(buffer.buffer); // too long for it: a buffer of its own
    await earlyInASecond();
    writeFileSync(join(root, 'a.txt'), 'the person wrote A\n');
    const read = await disk.read('a.txt', 1 << 20, buffer);
    if (read.kind !== 'file' || read.bytes === null) throw new Error('not read');
    expect(read.bytes.buffer).toBe(buffer.buffer); // read into it
    expect(new TextDecoder().decode(read.bytes)).toBe('the person wrote A\n');
    expect(read.meta.fingerprint).toContain('~'); // racy: only the bytes kept can tell the save apart
    // The caller is done with the bytes: its buffer takes the next read's, which are what the person saves next.
    buffer.set(enc('the person wrote B\n'));
    writeFileSync(join(root, 'a.txt'), 'the person wrote B\n'); // in place, same size, within the second
    const r = await disk.write('a.txt', enc('ws wrote this\n'), { mode: null, expect: { kind: 'file', fingerprint: read.meta.fingerprint } });
    expect(r.kind).toBe('refused');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('the person wrote B\n');
  });

  test('expectBytes names the bytes outright: a fingerprint from a stat, the bytes from elsewhere', async () => {
    const root = tempDir('ws-cas-');
    const disk = coarseDisk(root);
    await earlyInASecond();
    writeFileSync(join(root, 'a.txt'), 'one\n');
    const seen = await disk.stat('a.txt');
    if (seen.kind !== 'file') throw new Error('no file');
    writeFileSync(join(root, 'a.txt'), 'two\n');
    const expect1 = { kind: 'file', fingerprint: seen.meta.fingerprint } as const;
    expect((await disk.write('a.txt', enc('ws\n'), { mode: null, expect: expect1, expectBytes: enc('one\n') })).kind).toBe('refused');
    expect((await disk.unlink('a.txt', { expect: expect1, expectBytes: enc('one\n') })).kind).toBe('refused');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('two\n');
    const fresh = await disk.stat('a.txt');
    if (fresh.kind !== 'file') throw new Error('no file');
    const r = await disk.write('a.txt', enc('ws\n'), { mode: null, expect: { kind: 'file', fingerprint: fresh.meta.fingerprint }, expectBytes: enc('two\n') });
    expect(r.kind).toBe('done');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('ws\n');
  });
});

describe('a writer holding the file open', () => {
  test('a write or a deletion is refused while another process could still write into the file it would replace', async () => {
    expect(libc).not.toBeNull(); // Linux: the lease is what tells
    const root = tempDir('ws-cas-');
    // Where this file system gives no lease, the README's fallback holds instead (pinned below).
    writeFileSync(join(root, 'probe'), '');
    const probe = openSync(join(root, 'probe'), 'r');
    const leases = libc!.leaseRead(probe) === 'held';
    closeSync(probe);
    const disk = diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 1000 });
    writeFileSync(join(root, 'log.txt'), 'start\n');
    const fd = openSync(join(root, 'log.txt'), 'a');
    try {
      writeSync(fd, 'held 1\n');
      const read = await disk.read('log.txt', 1 << 20);
      if (read.kind !== 'file' || read.bytes === null) throw new Error('not read');
      const expectRead = { kind: 'file', fingerprint: read.meta.fingerprint } as const;
      const wrote = await disk.write('log.txt', enc('start\nheld 1\nws\n'), { mode: null, expect: expectRead, expectBytes: read.bytes });
      if (!leases) {
        // No lease: the write lands, and what the writer writes after it goes to the file that came out.
        expect(wrote.kind).toBe('done');
        writeSync(fd, 'held 2\n');
        expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('start\nheld 1\nws\n');
        return;
      }
      expect(wrote.kind).toBe('refused');
      expect((await disk.unlink('log.txt', { expect: expectRead, expectBytes: read.bytes })).kind).toBe('refused');
      // The writer goes on writing, into the file still at the name.
      writeSync(fd, 'held 2\n');
      expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('start\nheld 1\nheld 2\n');
    } finally {
      closeSync(fd);
    }
    // Closed: nothing can write into it unseen any more.
    const read = await disk.read('log.txt', 1 << 20);
    if (read.kind !== 'file' || read.bytes === null) throw new Error('not read');
    const done = await disk.write('log.txt', enc('ws\n'), { mode: null, expect: { kind: 'file', fingerprint: read.meta.fingerprint }, expectBytes: read.bytes });
    expect(done.kind).toBe('done');
    expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('ws\n');
  });

  test('a reader holding the file open does not stop a write', async () => {
    const root = tempDir('ws-cas-');
    const disk = diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 1000 });
    writeFileSync(join(root, 'a.txt'), 'one\n');
    const fd = openSync(join(root, 'a.txt'), 'r');
    try {
      const read = await disk.read('a.txt', 1 << 20);
      if (read.kind !== 'file' || read.bytes === null) throw new Error('not read');
      const r = await disk.write('a.txt', enc('two\n'), { mode: null, expect: { kind: 'file', fingerprint: read.meta.fingerprint }, expectBytes: read.bytes });
      expect(r.kind).toBe('done');
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('two\n');
  });
});
