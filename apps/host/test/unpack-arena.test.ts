/**
 * A grep Worker's unpacking into one buffer (`src/store/unpack-arena.ts`): the bytes are
 * `unpackBlob`'s, byte for byte, for blobs that fit the buffer, blobs that make it grow
 * and blobs too large for it; damaged frames fail as `unpackBlob` fails; and without
 * libzstd the answers are the same.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { packBlob, unpackBlob } from '../src/store/blob-codec.ts';
import { UnpackArena } from '../src/store/unpack-arena.ts';

/** Text that packs (zstd where it saves an eighth): words from a small list, so repeats abound. */
const packable = fc
  .array(fc.constantFrom('return', ' ', '\n', '\r\n', 'function', 'x', '\u00e9', '\uFEFF', '{}', '0123456789'), { minLength: 100, maxLength: 4000 })
  .map((words) => new TextEncoder().encode(words.join('')));

describe('unpacking into one buffer', () => {
  test('gives unpackBlob’s bytes for every blob, one after another in one arena; what libzstd unpacked is a view of its buffer', () => {
    const arena = new UnpackArena();
    fc.assert(
      fc.property(fc.array(packable, { minLength: 1, maxLength: 8 }), (blobs) => {
        for (const b of blobs) {
          const p = packBlob(b);
          const got = arena.unpack(p.codec, p.bytes);
          expect(got).toEqual(unpackBlob(p.codec, p.bytes));
          expect(got).toEqual(b);
          // Unpacked by libzstd into the buffer (a raw blob is its own bytes).
          expect(arena.holds(got)).toBe(p.codec === 'zstd');
        }
      }),
      { numRuns: 300 },
    );
  });

  test('grows for a blob larger than its buffer, and gives one past its largest bytes of their own', () => {
    const arena = new UnpackArena();
    const line = 'const value = compute(input) + 1; // a line of code\n';
    for (const size of [1 << 20, (1 << 20) + 1, 3 << 20, 16 << 20, (16 << 20) + 1]) {
      const text = new TextEncoder().encode(line.repeat(Math.ceil(size / line.length)).slice(0, size));
      const p = packBlob(text);
      expect(p.codec).toBe('zstd');
      const got = arena.unpack(p.codec, p.bytes);
      expect(got.length).toBe(size);
      expect(Buffer.from(got).equals(Buffer.from(text))).toBe(true);
      expect(arena.holds(got)).toBe(size <= 16 << 20);
    }
  });

  test('a damaged frame fails as unpackBlob fails, and the arena unpacks the next blob right', () => {
    const arena = new UnpackArena();
    const good = packBlob(new TextEncoder().encode('function f() { return 1; }\n'.repeat(200)));
    const cut = good.bytes.subarray(0, good.bytes.length - 7);
    const flipped = good.bytes.slice();
    flipped[flipped.length >> 1] ^= 0xff;
    for (const bad of [cut, flipped, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])]) {
      let expected: unknown;
      try {
        unpackBlob('zstd', bad);
      } catch (err) {
        expected = err;
      }
      if (expected === undefined) {
        // The frame's checksum-free damage unpacked anyway: both give the same bytes.
        expect(arena.unpack('zstd', bad)).toEqual(unpackBlob('zstd', bad));
      } else expect(() => arena.unpack('zstd', bad)).toThrow();
      expect(arena.unpack(good.codec, good.bytes)).toEqual(unpackBlob(good.codec, good.bytes));
    }
    expect(() => arena.unpack('lz4', good.bytes)).toThrow('codec "lz4"');
  });

  test('without libzstd (WS_ZSTD_FALLBACK=1) the same bytes, each of its own', async () => {
    const script = `
      import { packBlob } from ${JSON.stringify(`${import.meta.dir}/../src/store/blob-codec.ts`)};
      import { UnpackArena } from ${JSON.stringify(`${import.meta.dir}/../src/store/unpack-arena.ts`)};
      const arena = new UnpackArena();
      const text = new TextEncoder().encode('return x;\\n'.repeat(5000));
      const p = packBlob(text);
      const got = arena.unpack(p.codec, p.bytes);
      console.log(JSON.stringify({ codec: p.codec, same: Buffer.from(got).equals(Buffer.from(text)), held: arena.holds(got) }));
    `;
    const run = (env: Record<string, string>) => {
      const r = Bun.spawnSync(['bun', '-e', script], { env: { ...process.env, ...env } });
      if (r.exitCode !== 0) throw new Error(r.stderr.toString());
      return JSON.parse(r.stdout.toString());
    };
    expect(run({ WS_ZSTD_FALLBACK: '1' })).toEqual({ codec: 'zstd', same: true, held: false });
    expect(run({ WS_ZSTD_FALLBACK: '0' })).toEqual({ codec: 'zstd', same: true, held: true });
  });
});
