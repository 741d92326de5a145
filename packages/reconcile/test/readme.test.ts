import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { readmeExample } from '../../../test/readme-examples.ts';

const README = join(import.meta.dir, '../README.md');
const ROOT_README = join(import.meta.dir, '../../../README.md');

/** What the examples take as given: the two ports (the tests' fakes), a hash, and a person at the disk. */
const PRELUDE = `
import { FakeDisk as __Disk } from ${JSON.stringify(join(import.meta.dir, 'fakes/disk.ts'))};
import { FakeStore as __Store } from ${JSON.stringify(join(import.meta.dir, 'fakes/store.ts'))};
const store = new __Store();
const disk = new __Disk();
const sha256Hex = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
const hash = sha256Hex;
const personSaves = (path: string, text: string) => disk.personWrite(path, new TextEncoder().encode(text));
personSaves('src/a.ts', 'a\\n');
personSaves('src/b.ts', 'b\\n');
`;

describe('the README examples run and give what they say', () => {
  test("the package README's example", async () => {
    expect(await readmeExample(README, { prelude: PRELUDE })).toBe(5);
  });

  test("the root README's @ws/reconcile example", async () => {
    expect(await readmeExample(ROOT_README, { heading: '### @ws/reconcile', dir: import.meta.dir, prelude: PRELUDE })).toBe(3);
  });
});
