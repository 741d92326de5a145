/**
 * `readMany` (and `readForSearch`, which grep's Workers read through) holds the directories on the way to its
 * files and opens each new one from the nearest it holds. What that must never do:
 * follow a directory on the way that was swapped for a symlink (or renamed away,
 * deleted, or replaced by a FIFO) between two reads of one batch, mix up directories of
 * deep trees, or keep descriptors — during a batch at most its bound, after it none.
 *
 * A batch is paused between two reads by an empty file written just now: its stat is
 * racy, so `readMany` leaves it to `read`, which waits a few ms to look again — the
 * batch has run up to there synchronously when `readMany` returns its promise, and the
 * test changes the tree before it awaits the rest.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reading } from '@ws/reconcile';
import { diskPort, diskReader } from '../src/disk/disk-port.ts';
import { openDirectory } from '../src/disk/resolve.ts';
import { walkRules } from '../src/disk/rules.ts';
import { dec, repeatedNameTree, seededRandom, tempDir, whileSwapping } from './fixtures.ts';

/** Every stat racy (a granularity of a minute): an empty file pauses a batch (see above). */
const options = (root: string) => ({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 100_000, timestampGranularityMs: 60_000 });
const text = (r: Reading) => (r.kind === 'file' && r.bytes !== null ? dec(r.bytes) : r.kind);
const openFds = () => readdirSync('/proc/self/fd').length;
const PAUSE = 'pause.txt';

/** How a batch is read: by the disk itself, by a reader made from its spec, or as grep's Workers read it (`readForSearch`). */
type How = 'disk' | 'reader' | 'search';
const HOWS: readonly How[] = ['disk', 'reader', 'search'];

/**
 * A batch's reads, as the disk reads them itself, through a reader, or as grep's Workers
 * do (`readForSearch`, asked again for the rest until every path is answered; each file
 * it read whole into the buffer copied out, as a Worker does, before the next call).
 */
function reader(root: string, how: How): (paths: readonly string[], maxBytes: number) => Promise<Reading[]> {
  const disk = diskPort(options(root));
  if (how === 'disk') return disk.readMany;
  const r = diskReader(disk.readerSpec);
  if (how === 'reader') return r.readMany;
  return (paths, maxBytes) => searchRead(r, paths, maxBytes);
}

/**
 * The two swap races below also read each path alone (`read`, a first sync's way), which
 * takes the name's stat for the descriptor's before the read; and as a search in parts
 * reads the files of the directory it just listed (`listed`: the listing's record of a
 * regular file stands for the name's stat, so the name is opened first and its
 * descriptor stated before the read and after it), each file that read leaves to the
 * careful way read by `read`, as the search then reads it.
 */
type SwapHow = How | 'read' | 'listed';
const SWAP_HOWS: readonly SwapHow[] = [...HOWS, 'read', 'listed'];
function swapReader(root: string, how: SwapHow): (paths: readonly string[], maxBytes: number) => Promise<Reading[]> {
  if (how === 'listed') return listedReader(root);
  if (how !== 'read') return reader(root, how);
  const disk = diskPort(options(root));
  return async (paths, maxBytes) => {
    const out: Reading[] = [];
    for (const p of paths) out.push(await disk.read(p, maxBytes));
    return out;
  };
}

/** Each file of the root read as a search in parts reads a file its listing called regular (`HeldDir.readWhole`, listed), the rest by `read`. */
function listedReader(root: string): (names: readonly string[], maxBytes: number) => Promise<Reading[]> {
  const disk = diskPort(options(root));
  const into = new Uint8Array(64 * 1024);
  return async (names, maxBytes) => {
    const opened = openDirectory(root, '', false);
    if (!opened.ok || opened.dir.readWhole === undefined) throw new Error('the root is not held by descriptor here');
    const out: Reading[] = [];
    try {
      for (const name of names) {
        const n = opened.dir.readWhole(name, into, 0, maxBytes, true);
        out.push(n > 0 ? { kind: 'file', meta: { size: n, mtimeMs: 0, ctimeMs: 0, mode: null, fingerprint: '' }, bytes: into.slice(0, n) } : await disk.read(name, maxBytes));
      }
    } finally {
      opened.dir.close();
    }
    return out;
  };
}

/** Every path read through `readForSearch` with a small buffer (a few files fit at a time), as readings. */
async function searchRead(r: ReturnType<typeof diskReader>, paths: readonly string[], maxBytes: number): Promise<Reading[]> {
  const into = new Uint8Array(64 * 1024);
  const out: Reading[] = [];
  while (out.length < paths.length) {
    for (const g of await r.readForSearch(paths.slice(out.length), maxBytes, into)) {
      if (g.kind === 'read') out.push({ kind: 'file', meta: { size: g.bytes.length, mtimeMs: 0, ctimeMs: 0, mode: null, fingerprint: '' }, bytes: g.bytes.slice() });
      else out.push(g.kind === 'file' && g.bytes !== null ? { ...g, bytes: g.bytes.slice() } : g);
    }
  }
  return out;
}

/** A tree inside (a/b and a/d, each with files and a subdirectory) and one outside with the same names holding a secret. */
function trees(): { root: string; outside: string } {
  const root = tempDir('ws-held-');
  const outside = tempDir('ws-held-out-');
  for (const base of [root, outside]) {
    for (const dir of ['a/b/c', 'a/d/e', 'b/c', 'd/e']) mkdirSync(join(base, dir), { recursive: true });
  }
  const files = ['a/top.txt', 'a/b/one.txt', 'a/b/two.txt', 'a/b/c/three.txt', 'a/d/four.txt', 'a/d/e/five.txt'];
  for (const f of files) writeFileSync(join(root, f), `inside ${f}`);
  // The outside's files sit where a link in place of a/b or a/d would lead.
  for (const f of files) writeFileSync(join(outside, f.replace(/^a\/[bd]\//, (m) => m.slice(2))), 'outside secret');
  for (const f of files) writeFileSync(join(outside, f), 'outside secret');
  writeFileSync(join(root, PAUSE), '');
  return { root, outside };
}

/** The files read after the pause: under a/b (held before it) and under a/d (not yet opened). */
const AFTER = ['a/b/two.txt', 'a/b/c/three.txt', 'a/d/four.txt', 'a/d/e/five.txt'];
const BATCH = ['a/top.txt', 'a/b/one.txt', PAUSE, ...AFTER];

describe('a batch whose directories change between two of its reads', () => {
  test('a directory on the way swapped for a symlink leading out: never read through, the one not yet opened refused', async () => {
    for (const how of HOWS) {
      const { root, outside } = trees();
      const read = reader(root, how);
      const pending = read(BATCH, 1000);
      // a/b is held now (its first file was read); a/d is not.
      renameSync(join(root, 'a/b'), join(root, 'a/b.old'));
      symlinkSync(join(outside, 'b'), join(root, 'a/b'));
      renameSync(join(root, 'a/d'), join(root, 'a/d.old'));
      symlinkSync(join(outside, 'd'), join(root, 'a/d'));
      const got = (await pending).map(text);
      expect(got.slice(0, 3), how).toEqual(['inside a/top.txt', 'inside a/b/one.txt', '']);
      expect(got.join('\n'), how).not.toContain('outside');
      // Through the directory held, wherever it was moved to: its own files, as a read made a moment earlier.
      expect(got[3], how).toBe('inside a/b/two.txt');
      expect(got[4], how).toBe('inside a/b/c/three.txt');
      // a/d was opened only after the swap: the link is refused, never followed.
      expect(got[5], how).toBe('unobservable');
      expect(got[6], how).toBe('unobservable');
      // The next batch holds nothing from this one: a/b is the link now, and refused.
      expect((await read(AFTER, 1000)).map(text), how).toEqual(['unobservable', 'unobservable', 'unobservable', 'unobservable']);
    }
  });

  test('a directory on the way renamed away, or deleted: what is not there is absent, nothing is read from elsewhere', async () => {
    for (const [change, how] of HOWS.flatMap((h) => [['renamed', h], ['deleted', h]] as const)) {
      const { root, outside } = trees();
      const pending = reader(root, how)(BATCH, 1000);
      if (change === 'renamed') {
        // Out of the mount altogether (same file system), and something else made in its place.
        renameSync(join(root, 'a/d'), join(outside, 'moved-d'));
        mkdirSync(join(root, 'a/d'));
        writeFileSync(join(root, 'a/d/four.txt'), 'the new a/d');
        renameSync(join(root, 'a/b'), join(outside, 'moved-b'));
      } else {
        rmSync(join(root, 'a/d'), { recursive: true });
        rmSync(join(root, 'a/b'), { recursive: true });
      }
      const got = (await pending).map(text);
      expect(got.slice(0, 3), change).toEqual(['inside a/top.txt', 'inside a/b/one.txt', '']);
      expect(got.join('\n'), change).not.toContain('outside');
      if (change === 'renamed') {
        // a/b was held: its files as they were a moment ago (the directory moved, its files are the mount's own).
        expect(got.slice(3, 5), change).toEqual(['inside a/b/two.txt', 'inside a/b/c/three.txt']);
        // a/d was opened after: the one there now.
        expect(got.slice(5), change).toEqual(['the new a/d', 'absent']);
      } else {
        // A held directory deleted holds nothing: absent, as a read alone says.
        expect(got.slice(3), change).toEqual(['absent', 'absent', 'absent', 'absent']);
      }
    }
  });

  for (const how of ['reader', 'search'] as const)
  test(`a directory on the way, or a file, replaced by a FIFO: refused from a stat, never opened, nothing waits (${how})`, async () => {
    const { root } = trees();
    const disk = diskPort(options(root));
    const pending = how === 'reader' ? diskReader(disk.readerSpec).readMany([...BATCH, 'a/top.txt'], 1000) : searchRead(diskReader(disk.readerSpec), [...BATCH, 'a/top.txt'], 1000);
    rmSync(join(root, 'a/d'), { recursive: true });
    expect(Bun.spawnSync(['mkfifo', join(root, 'a/d')]).exitCode).toBe(0);
    rmSync(join(root, 'a/b/two.txt'));
    expect(Bun.spawnSync(['mkfifo', join(root, 'a/b/two.txt')]).exitCode).toBe(0);
    const got = await pending;
    expect(got[3].kind).toBe('unobservable');
    expect(got[3].kind === 'unobservable' && got[3].reason).toContain('fifo');
    expect(text(got[4])).toBe('inside a/b/c/three.txt');
    // A FIFO where a directory was: nothing under it (a read alone says the same).
    expect(got.slice(5, 7).map(text)).toEqual([text(await disk.read('a/d/four.txt', 1000)), text(await disk.read('a/d/e/five.txt', 1000))]);
    expect(got.slice(5, 7).map((r) => r.kind)).toEqual(['absent', 'absent']);
    expect(text(got[7])).toBe('inside a/top.txt');
  });
});

describe('many files in deep trees', () => {
  test('directories deeper than the batch holds, with names repeated at every depth, each read finds its own file, in any order', async () => {
    const root = tempDir('ws-held-deep-');
    // Chains up to 45 directories deep (deeper than the 32 a batch holds), branching at random depths.
    const files = repeatedNameTree(root, 4101, 60, 45);
    const disk = diskPort({ ...options(root), timestampGranularityMs: 1 });
    await Bun.sleep(50);
    const random = seededRandom(4102);
    const shuffled = [...files];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = random(i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
    }
    await Bun.sleep(600);
    const before = openFds();
    for (const order of [[...files].sort(), files, shuffled, [...files].reverse()]) {
      const r = diskReader(disk.readerSpec);
      for (const [how, read] of [['disk', disk.readMany], ['reader', r.readMany], ['search', (p: readonly string[], m: number) => searchRead(r, p, m)]] as const) {
        const got = (await read(order, 1000)).map(text);
        expect(got, how).toEqual(order.map((p) => `this is ${p}`));
      }
    }
    expect(openFds()).toBe(before);
  });

  test('a batch across many directories holds at most its bound of descriptors while it runs, and none after it, failures included', async () => {
    const root = tempDir('ws-held-fds-');
    const paths: string[] = [];
    for (let i = 0; i < 120; i++) {
      mkdirSync(join(root, `d${i % 40}/e${i}`), { recursive: true });
      writeFileSync(join(root, `d${i % 40}/e${i}/f.txt`), `file ${i}`);
      paths.push(`d${i % 40}/e${i}/f.txt`);
    }
    // Failures on the way: missing directories, a file as a directory, a link, a FIFO.
    symlinkSync(join(root, 'd1'), join(root, 'link'));
    expect(Bun.spawnSync(['mkfifo', join(root, 'fifo')]).exitCode).toBe(0);
    writeFileSync(join(root, PAUSE), '');
    const failing = ['nope/x.txt', 'd0/e0/f.txt/x', 'link/e1/f.txt', 'fifo/x', 'fifo', 'd0/none/deeper/x.txt'];
    const disk = diskPort(options(root));
    // What earlier reads hold for a moment is let go first.
    await Bun.sleep(600);
    const before = openFds();
    const pending = disk.readMany([...paths, ...failing, PAUSE, ...paths.slice(0, 10)], 1000);
    // Paused after 120 files in 160 directories: what is held now is the batch's bound (32) at most.
    const during = openFds() - before;
    const got = (await pending).map(text);
    expect(during).toBeGreaterThan(0);
    expect(during).toBeLessThanOrEqual(32);
    expect(got.slice(0, 120)).toEqual(paths.map((_, i) => `file ${i}`));
    expect(got.slice(120, 126)).toEqual(['absent', 'absent', 'unobservable', 'absent', 'unobservable', 'absent']);
    // The failures were read as `read` reads them, whose directories are held a moment (READ_DIR_MS) and then let go.
    await Bun.sleep(600);
    expect(openFds()).toBe(before);
  });
});

describe('the quick read of a search', () => {
  test('every plain file comes through it, byte for byte, collection after collection; an empty one, one over the limit, a link and a FIFO the careful way', async () => {
    const root = tempDir('ws-held-quick-');
    const paths: string[] = [];
    for (let i = 0; i < 300; i++) {
      mkdirSync(join(root, `d${i % 7}`), { recursive: true });
      writeFileSync(join(root, `d${i % 7}/f${i}.txt`), `file ${i} `.repeat(1 + (i % 50)));
      paths.push(`d${i % 7}/f${i}.txt`);
    }
    writeFileSync(join(root, 'empty.txt'), '');
    writeFileSync(join(root, 'big.txt'), 'x'.repeat(5000));
    symlinkSync(join(root, 'd0/f0.txt'), join(root, 'link.txt'));
    expect(Bun.spawnSync(['mkfifo', join(root, 'fifo')]).exitCode).toBe(0);
    const disk = diskPort({ ...options(root), timestampGranularityMs: 1 });
    await Bun.sleep(50);
    const r = diskReader(disk.readerSpec);
    const into = new Uint8Array(1 << 20);
    for (let round = 0; round < 5; round++) {
      // A collection (and the garbage before it) between calls moves what a collector may move.
      Bun.gc(true);
      const got = await r.readForSearch(paths, 4000, into);
      expect(got.length).toBe(paths.length);
      got.forEach((g, i) => {
        expect(g.kind).toBe('read');
        expect(g.kind === 'read' && dec(g.bytes)).toBe(`file ${i} `.repeat(1 + (i % 50)));
      });
      const odd = await r.readForSearch(['empty.txt', 'big.txt', 'link.txt', 'fifo'], 4000, into);
      const careful = await r.readMany(['empty.txt', 'big.txt', 'link.txt', 'fifo'], 4000);
      expect(odd).toEqual(careful);
    }
  });
});

describe('files rewritten while a batch reads them', () => {
  // Each version is put in by a rename (as editors and ws save): a name may lead to another
  // file between the stat a batch makes of it and its open, and the file read must then be
  // the one stated, or be read again. (A file written in place is another matter: a write
  // in progress changes no stat a reader can see until it ends, for any reader.)
  for (const asSearch of [false, true])
  test(`a file replaced by a rename between its stat and its read: every reading is one whole version, never the stated size of another (${asSearch ? 'search' : 'reader'})`, async () => {
    const root = tempDir('ws-held-writer-');
    const names = Array.from({ length: 6 }, (_, i) => `w${i % 2}/f${i}.txt`);
    mkdirSync(join(root, 'w0'));
    mkdirSync(join(root, 'w1'));
    // Version k: "k;" over and over, its size growing with k (a size is never seen twice, so any change shows in a stat).
    const version = (k: number) => `${k};`.repeat(4000 + k);
    for (const n of names) writeFileSync(join(root, n), version(0));
    const writer = Bun.spawn(
      [
        'bun',
        '-e',
        `const { renameSync, writeFileSync } = require('node:fs');
         const names = ${JSON.stringify(names.map((n) => join(root, n)))};
         for (let k = 1; ; k++) for (const n of names) { writeFileSync(n + '.new', \`\${k};\`.repeat(4000 + k)); renameSync(n + '.new', n); }`,
      ],
      { stdout: 'ignore', stderr: 'inherit' },
    );
    try {
      const read = reader(root, asSearch ? 'search' : 'reader');
      let whole = 0;
      for (let round = 0; round < 400; round++) {
        for (const r of await read(names, 1 << 20)) {
          if (r.kind !== 'file') {
            expect(r.kind === 'unobservable' && r.reason).toContain('changing');
            continue;
          }
          const got = text(r);
          const k = Number(got.slice(0, got.indexOf(';')));
          expect(got === version(k), `a reading mixes versions: ${got.length} bytes starting ${got.slice(0, 12)}`).toBe(true);
          whole++;
        }
      }
      expect(whole).toBeGreaterThan(0);
    } finally {
      writer.kill();
      await writer.exited;
    }
  });
});

describe('a file and a FIFO swapped while a batch reads them', () => {
  // As grep's Workers read (the quick read first), and as a sync's batches do (`readMany`,
  // whose read takes the name's stat for the descriptor's before the read).
  test.each(SWAP_HOWS)('%s: every reading is the file whole, or the FIFO refused; never a byte of the FIFO, whose reader gets all that was written', async (how) => {
    const root = tempDir('ws-held-fifo-');
    // `sub` and `link` trade places in a tight loop (test/swapper.ts): a name stated as the
    // file may be the FIFO by its open, and the other way about.
    const FILE = 'the file, whole\n'.repeat(50);
    writeFileSync(join(root, 'sub'), FILE);
    expect(Bun.spawnSync(['mkfifo', join(root, 'link')]).exitCode).toBe(0);
    // The FIFO's own side: held open for reading and writing (so opening it never blocks),
    // 4,000 bytes put in at once, and read back when the test says.
    const holder = Bun.spawn(
      [
        'bun',
        '-e',
        `const { constants, openSync, writeSync, readSync } = require('node:fs');
         const fifo = ${JSON.stringify(join(root, 'link'))};
         const fd = openSync(fifo, 'r+');
         writeSync(fd, 'p'.repeat(4000));
         process.stdout.write('ready\\n');
         for await (const _ of console) {
           // What is left in the pipe, read without waiting (the swaps may have moved the FIFO: read through the descriptor).
           const reader = openSync('/proc/self/fd/' + fd, constants.O_RDONLY | constants.O_NONBLOCK);
           let got = 0;
           const buf = Buffer.alloc(8192);
           try { for (;;) { const n = readSync(reader, buf, 0, buf.length, null); if (n <= 0) break; got += n; } } catch {}
           process.stdout.write(got + '\\n');
           process.exit(0);
         }`,
      ],
      { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' },
    );
    const lines = holder.stdout.getReader();
    const dec8 = new TextDecoder();
    expect(dec8.decode((await lines.read()).value)).toBe('ready\n');
    const read = swapReader(root, how);
    const seen = { file: 0, refused: 0 };
    try {
      await whileSwapping(root, async () => {
        // More rounds where the name's stat is the only one before the read: its window
        // (between that stat and the open) is all a swap has to land in.
        for (let round = 0; round < (how === 'search' || how === 'listed' ? 300 : 1000); round++) {
          for (const got of await read(['sub', 'link'], 1 << 20)) {
            if (got.kind === 'file') {
              expect(text(got)).toBe(FILE);
              seen.file++;
            } else {
              expect(got.kind).toBe('unobservable');
              // Said as a FIFO or a file that kept changing, never as a failed system call.
              expect(got.kind === 'unobservable' && got.reason).not.toMatch(/ESPIPE|EISDIR|illegal seek|E[A-Z]+:/);
              seen.refused++;
            }
          }
        }
      });
      holder.stdin.write('read\n');
      await holder.stdin.flush();
      // The 4,000 bytes are all still there for the FIFO's reader.
      expect(dec8.decode((await lines.read()).value)).toBe('4000\n');
      expect(seen.file).toBeGreaterThan(0);
      expect(seen.refused).toBeGreaterThan(0);
    } finally {
      holder.kill();
      await holder.exited;
    }
  });
});

describe('two files swapped while a batch reads them', () => {
  test.each(SWAP_HOWS)('%s: every reading is one of the two whole, as the name stood when read; never one read by the other’s stat', async (how) => {
    const root = tempDir('ws-held-pair-');
    // A short file and a long one trading names in a tight loop: one read by the other's
    // size would be cut short or run past its end.
    const SHORT = 'short\n'.repeat(40);
    const LONG = 'the longer of the two\n'.repeat(300);
    writeFileSync(join(root, 'sub'), SHORT);
    writeFileSync(join(root, 'link'), LONG);
    const read = swapReader(root, how);
    const seen = { whole: 0, refused: 0 };
    // Each reading the swaps disturb waits to look again, so a few rounds are enough (a
    // reading by the other’s stat showed within a few). On a loaded machine every reading
    // of a hundred rounds may be disturbed (a CI run saw it so): the rounds then go on
    // until one is read whole, at most a thousand.
    await whileSwapping(root, async () => {
      for (let round = 0; round < 100 || (seen.whole === 0 && round < 1000); round++) {
        for (const got of await read(['sub', 'link'], 1 << 20)) {
          if (got.kind === 'file') {
            expect([SHORT, LONG]).toContain(text(got));
            seen.whole++;
          } else seen.refused++;
        }
      }
    });
    expect(seen.whole).toBeGreaterThan(0);
  });
});
