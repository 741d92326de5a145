import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { readmeExample } from '../../../test/readme-examples.ts';

const README = join(import.meta.dir, '../README.md');
const ROOT_README = join(import.meta.dir, '../../../README.md');

describe('the README examples run and give what they say', () => {
  test("the package README's example", async () => {
    expect(await readmeExample(README)).toBe(5);
  });

  test("the root README's @ws/grep example", async () => {
    expect(await readmeExample(ROOT_README, { heading: '### @ws/grep', dir: import.meta.dir })).toBe(1);
  });
});

