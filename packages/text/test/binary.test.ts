import { describe, expect, test } from 'bun:test';
import { BINARY_SNIFF_BYTES, looksBinary } from '../src/index.ts';

const enc = new TextEncoder();

describe('looksBinary', () => {
  test('a NUL byte in the first 8 KB makes a file binary; one after it does not', () => {
    const at = (k: number) => {
      const b = new Uint8Array(BINARY_SNIFF_BYTES + 10).fill(0x61);
      b[k] = 0;
      return b;
    };
    expect(BINARY_SNIFF_BYTES).toBe(8192);
    expect(looksBinary(at(0))).toBe(true);
    expect(looksBinary(at(8191))).toBe(true);
    expect(looksBinary(at(8192))).toBe(false);
    expect(looksBinary(enc.encode('text \u00e9 \ud83d\ude00\r\n'))).toBe(false);
    expect(looksBinary(new Uint8Array(0))).toBe(false);
  });
});
