/**
 * The store's own files are passed over wherever the store lies in the mount, although a
 * walk asks about them only in the directories that can hold them (`Boundary.mayHoldOwn`):
 * every answer is the one asking `own` of every entry gives.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { boundary, TEMP_PREFIX, WS_DIRECTORY } from '../src/disk/boundary.ts';
import { walkRules } from '../src/disk/rules.ts';
import { newTally, walk } from '../src/disk/walk.ts';
import { STORE_FILE_SUFFIXES } from '../src/store/files.ts';
import { tempDir } from './fixtures.ts';

const PLACES = [undefined, 'store.sqlite', '.ws/store.sqlite', 'sub/.ws/store.sqlite', 'a/b/.ws/s.sqlite', 'data/db.sqlite', 'data/.wsx/db.sqlite', 'sub/.ws/deeper/store.sqlite'];
const NAMES = ['sub', '.ws', 'a', 'b', 'data', 'deeper', '.wsx', 'store.sqlite', 's.sqlite', 'db.sqlite', 'x.txt', `${TEMP_PREFIX}x-1-abc`];

const parentOf = (rel: string) => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');
const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);

/** Every path a store's files and its neighbours make, for the tables below. */
function candidates(storeRel: string | undefined): string[] {
  const paths = new Set<string>(NAMES);
  for (const place of PLACES) {
    if (place === undefined) continue;
    for (const suffix of STORE_FILE_SUFFIXES) paths.add(`${place}${suffix}`);
    for (let at = parentOf(place); at !== ''; at = parentOf(at)) {
      paths.add(at);
      for (const name of NAMES) paths.add(`${at}/${name}`);
    }
  }
  if (storeRel !== undefined) for (const name of NAMES) paths.add(`${parentOf(storeRel)}/${name}`.replace(/^\//, ''));
  return [...paths];
}

/** The reason walkRules gave before a walk asked `own` only where `mayHoldOwn` says: `own` asked of every entry. */
function everyEntry(storeRel: string | undefined, rel: string, isDir: boolean): string | undefined {
  if (nameOf(rel).startsWith(TEMP_PREFIX)) return 'ws temporary file';
  if (boundary(storeRel, []).own(rel) || (isDir && rel === WS_DIRECTORY)) return 'the ws store';
  return undefined;
}

describe("the store's own files, wherever the store lies", () => {
  for (const storeRel of PLACES) {
    test(`store at ${storeRel ?? '(outside the mount)'}: each path's reason is the one asking every entry gives`, () => {
      const rules = walkRules([], storeRel);
      for (const rel of candidates(storeRel)) {
        for (const isDir of [false, true]) {
          const byDirectory: string | undefined = rules.inDirectory(parentOf(rel))(nameOf(rel), rel, isDir);
          expect({ rel, isDir, reason: byDirectory }).toEqual({ rel, isDir, reason: everyEntry(storeRel, rel, isDir) });
          expect({ rel, isDir, reason: rules.passOver(rel, isDir) as string | undefined }).toEqual({ rel, isDir, reason: everyEntry(storeRel, rel, isDir) });
        }
      }
    });
  }

  test('an own path always lies where mayHoldOwn says its directory may hold one (random stores and paths)', () => {
    const segment = fc.constantFrom(...NAMES, 'store.sqlite-wal', 'db.sqlite.lock', '.ws-tmp-');
    const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/'));
    fc.assert(
      fc.property(fc.option(path, { nil: undefined }), path, (storeRel, rel) => {
        const b = boundary(storeRel, []);
        if (b.own(rel) && !nameOf(rel).startsWith(TEMP_PREFIX)) expect({ storeRel, rel, may: b.mayHoldOwn(parentOf(rel)) }).toEqual({ storeRel, rel, may: true });
        const rules = walkRules([], storeRel);
        for (const isDir of [false, true]) expect(rules.inDirectory(parentOf(rel))(nameOf(rel), rel, isDir) as string | undefined).toBe(everyEntry(storeRel, rel, isDir));
      }),
      { numRuns: 2000, seed: Number(process.env.WS_SEED ?? 15) },
    );
  });

  test('a walk passes over a store in a nested .ws directory, and one beside other files with no directory of its own', () => {
    const root = tempDir();
    const files = ['a.txt', 'sub/b.txt', 'sub/.ws/store.sqlite', 'sub/.ws/store.sqlite-wal', 'sub/.ws/notes.txt', 'data/db.sqlite', 'data/db.sqlite-wal', 'data/db.sqlite.lock', 'data/keep.txt', '.ws/other.txt'];
    for (const f of files) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      writeFileSync(join(root, f), f);
    }
    const nested = newTally();
    const inNested = walk({ root, from: '', rules: walkRules([], 'sub/.ws/store.sqlite'), followSymlinks: false, cap: 100 }, nested).map((e) => e.path);
    expect(inNested).toEqual(['a.txt', 'data', 'data/db.sqlite', 'data/db.sqlite-wal', 'data/db.sqlite.lock', 'data/keep.txt', 'sub', 'sub/b.txt']);
    // The top-level .ws is ws's directory whatever the store's place; sub/.ws is the store's own.
    expect(nested.passedOver).toEqual({ 'the ws store': 2 });
    const beside = newTally();
    const besideFiles = walk({ root, from: '', rules: walkRules([], 'data/db.sqlite'), followSymlinks: false, cap: 100 }, beside).map((e) => e.path);
    expect(besideFiles).toEqual(['a.txt', 'data', 'data/keep.txt', 'sub', 'sub/.ws', 'sub/.ws/notes.txt', 'sub/.ws/store.sqlite', 'sub/.ws/store.sqlite-wal', 'sub/b.txt']);
    expect(beside.passedOver).toEqual({ 'the ws store': 4 });
  });
});
