/**
 * Blobs packed again for grep (`src/store/repack.ts`): a repacked frame is the blob's own
 * bytes to Bun's decoder and to grep's Workers' (the arena), its literals are raw, it is
 * only kept where it saves an eighth, and the store's indexer repacks text it indexes in
 * the same transaction — never binary, never a raw row, never without libzstd.
 */
import { describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import fc from 'fast-check';
import { sha256 } from '../src/host.ts';
import { packBlob, unpackBlob } from '../src/store/blob-codec.ts';
import { openStore } from '../src/store/open-store.ts';
import { ptr } from 'bun:ffi';
import { compressionOf, LIBZSTD, libzstd, ZSTD_C_COMPRESSION_LEVEL, ZSTD_C_LITERAL_COMPRESSION_MODE, ZSTD_PS_DISABLE } from '../src/store/libzstd.ts';
import { REPACK_LEVEL, repackBlob } from '../src/store/repack.ts';
import { UnpackArena } from '../src/store/unpack-arena.ts';
import { enc, seededRandom, tempDir } from './fixtures.ts';

/**
 * Each compressed block of a zstd frame (RFC 8878): its literals section's type (0 raw,
 * 1 RLE, 2 Huffman-coded, 3 Huffman-coded with the block before's table) and, where the
 * literals are raw, how many sequences (matches) follow them; raw and RLE blocks have none.
 */
function blocksOf(frame: Uint8Array): { literals: number; sequences?: number }[] {
  const magic = (frame[0] | (frame[1] << 8) | (frame[2] << 16) | (frame[3] << 24)) >>> 0;
  if (magic !== 0xfd2fb528) throw new Error('not a zstd frame');
  const descriptor = frame[4];
  const fcsFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictIdSize = [0, 1, 2, 4][descriptor & 3];
  const fcsSize = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag];
  let at = 5 + (singleSegment ? 0 : 1) + dictIdSize + fcsSize;
  const blocks: { literals: number; sequences?: number }[] = [];
  for (;;) {
    const header = frame[at] | (frame[at + 1] << 8) | (frame[at + 2] << 16);
    const last = header & 1;
    const type = (header >> 1) & 3;
    const size = header >> 3;
    at += 3;
    if (type === 2) blocks.push(compressedBlock(frame, at));
    // An RLE block holds one byte, whatever its size says.
    at += type === 1 ? 1 : size;
    if (last) break;
  }
  return blocks;
}

/** A compressed block at `at`: its literals' type, and its sequences' count where the literals are raw (their size then says where the count is). */
function compressedBlock(frame: Uint8Array, at: number): { literals: number; sequences?: number } {
  const b0 = frame[at];
  const literals = b0 & 3;
  if (literals !== 0) return { literals };
  // Raw literals: a header of one, two or three bytes giving their size, then the literals themselves.
  const format = (b0 >> 2) & 3;
  const [headerSize, count] =
    (format & 1) === 0 ? [1, b0 >> 3] : format === 1 ? [2, (b0 >> 4) + (frame[at + 1] << 4)] : [3, (b0 >> 4) + (frame[at + 1] << 4) + (frame[at + 2] << 12)];
  const s = at + headerSize + count;
  const n0 = frame[s];
  const sequences = n0 < 128 ? n0 : n0 < 255 ? ((n0 - 128) << 8) + frame[s + 1] : frame[s + 1] + (frame[s + 2] << 8) + 0x7f00;
  return { literals, sequences };
}

/** The literals section type of each compressed block of a zstd frame ({@link blocksOf}). */
function literalTypes(frame: Uint8Array): number[] {
  return blocksOf(frame).map((b) => b.literals);
}

/** Source-like text: words from a small list, so it packs. */
const sourceLike = fc
  .array(fc.constantFrom('return', ' ', '\n', '\r\n', 'function', 'x', '\u00e9', '\uFEFF', '{}', '0123456789', 'const value = f(a, b);'), { minLength: 50, maxLength: 6000 })
  .map((words) => enc(words.join('')));

/** A long run of code lines of many words: several of zstd's 128 KiB blocks, Huffman-coded where Bun packs it. */
function longSource(bytes: number): Uint8Array {
  const random = seededRandom(11);
  const words = ['function', 'return', 'const', 'value', 'Error', 'throw', 'new', 'if', 'else', 'for', 'let', 'await', 'async', 'index', 'length'];
  let text = '';
  while (text.length < bytes) {
    const n = 3 + random(8);
    const line: string[] = [];
    for (let i = 0; i < n; i++) line.push(words[random(words.length)] + (random(4) === 0 ? String(random(1000)) : ''));
    text += `${'  '.repeat(random(4))}${line.join(' ')};\n`;
  }
  return enc(text.slice(0, bytes));
}

describe('a blob packed again', () => {
  test('is the blob’s own bytes to Bun’s decoder and to the arena, saves an eighth, and keeps its literals raw', () => {
    const arena = new UnpackArena();
    let repacked = 0;
    fc.assert(
      fc.property(sourceLike, (text) => {
        const frame = repackBlob(text);
        if (frame === undefined) return;
        repacked++;
        expect(new Uint8Array(Bun.zstdDecompressSync(frame))).toEqual(text);
        expect(arena.unpack('zstd', frame)).toEqual(text);
        expect(frame.length).toBeLessThanOrEqual(text.length - (text.length >> 3));
        for (const type of literalTypes(frame)) expect(type).toBe(0);
      }),
      { numRuns: 200 },
    );
    // Most such texts pack well: the property was not met by handing every one back.
    expect(repacked).toBeGreaterThan(150);
  });

  test('a text of many blocks: Bun’s frame codes its literals, the repacked one keeps them raw, and both unpack to it', () => {
    const text = longSource(1 << 20);
    const first = packBlob(text);
    expect(first.codec).toBe('zstd');
    // The parser sees coded literals where there are some (so the check below can fail).
    expect(literalTypes(first.bytes).some((t) => t === 2 || t === 3)).toBe(true);
    const frame = repackBlob(text);
    if (frame === undefined) throw new Error('a megabyte of code was not repacked');
    const types = literalTypes(frame);
    expect(types.length).toBeGreaterThan(4);
    expect(types.every((t) => t === 0)).toBe(true);
    expect(Buffer.from(unpackBlob('zstd', frame)).equals(Buffer.from(text))).toBe(true);
  });

  test('keeps to long matches: fewer sequences than zstd’s own at the same level, so fewer copies to unpack', () => {
    const text = longSource(1 << 20);
    const frame = repackBlob(text);
    if (frame === undefined) throw new Error('a megabyte of code was not repacked');
    const compression = compressionOf(LIBZSTD);
    const cctx = compression?.cctx() ?? null;
    if (compression === null || cctx === null) throw new Error('libzstd compresses nothing here');
    // The same level and raw literals, zstd's own shortest match: the frame the rule is measured against.
    const out = new Uint8Array(Number(compression.compressBound(text.length)));
    compression.reset(cctx);
    compression.setParameter(cctx, ZSTD_C_COMPRESSION_LEVEL, REPACK_LEVEL);
    compression.setParameter(cctx, ZSTD_C_LITERAL_COMPRESSION_MODE, ZSTD_PS_DISABLE);
    const n = Number(compression.compress(cctx, ptr(out), out.length, text, text.length));
    expect(compression.isError(n)).toBe(false);
    const sequences = (f: Uint8Array) => blocksOf(f).reduce((sum, b) => sum + (b.sequences ?? 0), 0);
    const own = out.slice(0, n);
    expect(Buffer.from(Bun.zstdDecompressSync(own)).equals(Buffer.from(text))).toBe(true);
    // The count is read right: a frame of a megabyte of code holds thousands of matches.
    expect(sequences(own)).toBeGreaterThan(10_000);
    expect(sequences(frame)).toBeLessThan(sequences(own) * 0.9);
  });

  test('a library without the compression calls binds none, and libzstd’s unpacking stands alone', () => {
    // The C library has no ZSTD_compress2: bound apart, its lack leaves unpacking alone (a libzstd older than 1.4).
    expect(compressionOf('libc.so.6')).toBeNull();
    expect(compressionOf(LIBZSTD)).not.toBeNull();
    const z = libzstd();
    expect(z).not.toBeNull();
    expect(z?.dctx()).not.toBeNull();
  });

  test('is not made where raw literals would not save an eighth, nor of nothing', () => {
    // 64 letters, evenly drawn: Huffman-coded, 6 bits a character (zstd saves a quarter); raw, none.
    const random = seededRandom(5);
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const text = enc(Array.from({ length: 20_000 }, () => letters[random(64)]).join(''));
    expect(packBlob(text).codec).toBe('zstd');
    expect(repackBlob(text)).toBeUndefined();
    expect(repackBlob(new Uint8Array(0))).toBeUndefined();
  });
});

/** A store file's blob rows: codec and bytes by hash. */
function rowsOf(path: string): Map<string, { codec: string; bytes: Uint8Array; indexed: number }> {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.query('SELECT hash, codec, bytes, indexed FROM blob').all() as { hash: string; codec: string; bytes: Uint8Array; indexed: number }[];
    return new Map(rows.map((r) => [r.hash, { codec: r.codec, bytes: r.bytes, indexed: r.indexed }]));
  } finally {
    db.close();
  }
}

/** The texts the store tests below put: packed text, short raw text, text that packs with coded literals only, and binary. */
function blobs(): { text: Uint8Array[]; short: Uint8Array; dense: Uint8Array; binary: Uint8Array } {
  const random = seededRandom(7);
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return {
    text: [longSource(300_000), enc('function thrown() { throw new TypeError("x"); }\r\n'.repeat(400)), enc(`\uFEFF${'é résumé naïve\n'.repeat(300)}`)],
    // Under packBlob's least size, so kept raw, though it would pack: never rewritten as a frame.
    short: enc('tiny text, '.repeat(40)),
    dense: enc(Array.from({ length: 20_000 }, () => letters[random(64)]).join('')),
    binary: Uint8Array.from({ length: 9_000 }, (_, i) => (i % 7 === 0 ? 0 : 65 + (i % 3))),
  };
}

describe('the indexer packs text again', () => {
  test('each zstd text blob it indexes, in the same transaction: read back byte for byte; raw, binary and dense rows kept as they were', async () => {
    const path = join(tempDir('ws-repack-'), 'store.sqlite');
    const store = await openStore(path);
    const { text, short, dense, binary } = blobs();
    const all = [...text, short, dense, binary];
    for (const b of all) store.putBlob(sha256(b), b);
    store.barrier();
    const before = rowsOf(path);
    expect(before.get(sha256(binary))?.codec).toBe('zstd');
    while (store.indexSome(1000) > 0);
    const after = rowsOf(path);
    for (const t of text) {
      const was = before.get(sha256(t));
      const now = after.get(sha256(t));
      expect(was?.codec).toBe('zstd');
      expect(now?.codec).toBe('zstd');
      expect(now?.indexed).toBe(1);
      expect(literalTypes(now?.bytes as Uint8Array).every((type) => type === 0)).toBe(true);
      expect(store.getBlob(sha256(t))).toEqual(t);
    }
    // The long text's first packing coded its literals: a row rewritten, not one that was raw already.
    expect(literalTypes(before.get(sha256(text[0]))?.bytes as Uint8Array).some((type) => type === 2 || type === 3)).toBe(true);
    for (const b of [short, dense, binary]) expect(after.get(sha256(b))?.bytes).toEqual(before.get(sha256(b))?.bytes as Uint8Array);
    expect(after.get(sha256(binary))?.indexed).toBe(2);
    // The index names what it names by the same bytes: a term of the long text finds it.
    const lookup = store.blobsMayHold(['TypeError']);
    expect(lookup.may.has(sha256(text[1]))).toBe(true);
    for (const b of all) expect(store.getBlob(sha256(b))).toEqual(b);
    store.close();
  });

  test('without libzstd (WS_ZSTD_FALLBACK=1) the indexer indexes and keeps every blob’s bytes as they were', async () => {
    const dir = tempDir('ws-repack-');
    const path = join(dir, 'store.sqlite');
    // Text whose first packing codes its literals: a repacking would show.
    const textFile = join(dir, 'text');
    await Bun.write(textFile, longSource(200_000));
    const script = `
      import { openStore } from ${JSON.stringify(`${import.meta.dir}/../src/store/open-store.ts`)};
      import { sha256 } from ${JSON.stringify(`${import.meta.dir}/../src/host.ts`)};
      const store = await openStore(${JSON.stringify(path)});
      const text = new Uint8Array(await Bun.file(${JSON.stringify(textFile)}).arrayBuffer());
      store.putBlob(sha256(text), text);
      store.barrier();
      const { Database } = await import('bun:sqlite');
      const read = () => { const db = new Database(${JSON.stringify(path)}, { readonly: true }); const r = db.query('SELECT bytes, indexed FROM blob').get(); db.close(); return r; };
      const before = read();
      while (store.indexSome(1000) > 0);
      const after = read();
      console.log(JSON.stringify({ same: Buffer.from(before.bytes).equals(Buffer.from(after.bytes)), indexed: after.indexed, named: store.blobsMayHold(['function']).may.has(sha256(text)) }));
      store.close();
    `;
    const r = Bun.spawnSync(['bun', '-e', script], { env: { ...process.env, WS_ZSTD_FALLBACK: '1' } });
    if (r.exitCode !== 0) throw new Error(r.stderr.toString());
    expect(JSON.parse(r.stdout.toString())).toEqual({ same: true, indexed: 1, named: true });
  });

  test('an indexer SIGKILLed at seeded moments as it repacks leaves every blob its own bytes, and the next one finishes', async () => {
    const dir = tempDir('ws-repack-kill-');
    const path = join(dir, 'store.sqlite');
    const store = await openStore(path);
    const random = seededRandom(23);
    const texts: Uint8Array[] = [];
    for (let k = 0; k < 240; k++) texts.push(longSource(2_000 + random(60_000)).map((b, i) => (i === k ? 35 : b)));
    for (const t of texts) store.putBlob(sha256(t), t);
    store.barrier();
    store.close();
    const script = `
      import { openStore } from ${JSON.stringify(`${import.meta.dir}/../src/store/open-store.ts`)};
      const store = await openStore(${JSON.stringify(path)});
      console.log('open');
      while (store.indexSome(3) > 0);
      console.log('done');
    `;
    /** Every blob's row unpacks (Bun's decoder, and the store's read) to the bytes its hash names. */
    const intact = async () => {
      for (const [hash, row] of rowsOf(path)) expect(sha256(unpackBlob(row.codec, row.bytes))).toBe(hash);
      const reopened = await openStore(path);
      for (const t of texts) expect(reopened.getBlob(sha256(t))).toEqual(t);
      reopened.close();
    };
    for (let kill = 0; kill < 4; kill++) {
      const child = Bun.spawn(['bun', '-e', script], { stdout: 'pipe', stderr: 'ignore' });
      // Killed once it has the store open, some way into its slices.
      const reader = child.stdout.getReader();
      await reader.read();
      await Bun.sleep(20 + random(120));
      child.kill('SIGKILL');
      await child.exited;
      await intact();
    }
    const rest = await openStore(path);
    while (rest.indexSome(1000) > 0);
    rest.close();
    await intact();
    const rows = rowsOf(path);
    expect([...rows.values()].every((r) => r.indexed === 1)).toBe(true);
    // The kills fell among rows repacked and rows not yet: all of them repacked in the end.
    for (const t of texts) expect(literalTypes(rows.get(sha256(t))?.bytes as Uint8Array).every((type) => type === 0)).toBe(true);
  });
});

