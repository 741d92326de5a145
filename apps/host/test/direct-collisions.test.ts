/**
 * A direct mount's commit is a compare-and-swap: a person's save that lands between the
 * commit's look and its effect (put there by wrapping the mount's disk port) is never
 * replaced. A change planned on what disk held is refused so the tools plan again; a
 * write or deletion (planned on nothing) looks again and lands on the new file; a file
 * that changes at every attempt is refused with a sentence after the last.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handleToolCall } from '@ws/tools';
import type { MountConfig } from '../src/config.ts';
import type { HostDisk } from '../src/disk/disk-port.ts';
import { COMMIT_ATTEMPTS, directMount } from '../src/mounts/direct.ts';
import { enc, tempDir } from './fixtures.ts';

function config(root: string): MountConfig {
  return { name: 'work', root, backend: 'direct', readOnly: false, ignore: [], maxFileSize: 1 << 20, autoMaterialize: false, watch: 'never', followSymlinks: false, protect: [], gitignore: false };
}

/** A direct mount over `root` whose first `times` effects each come just after a person's save of `file`. */
function collidingMount(root: string, file: string, times: number) {
  let saves = 0;
  const save = () => {
    if (saves >= times) return;
    saves++;
    const text = readFileSync(join(root, file), 'utf8');
    writeFileSync(join(root, file), `${text}person ${saves}\n`);
  };
  const mount = directMount(config(root), undefined, (disk): HostDisk => ({
    ...disk,
    write: async (path, bytes, options) => {
      save();
      return disk.write(path, bytes, options);
    },
    unlink: async (path, options) => {
      save();
      return disk.unlink(path, options);
    },
  }));
  return { mount, saves: () => saves };
}

describe('a direct mount, a save between its look and its effect', () => {
  test('an edit is planned again on the new text and applies there; the save stays', async () => {
    const root = tempDir('ws-direct-cas-');
    writeFileSync(join(root, 'a.txt'), 'title\n');
    const { mount } = collidingMount(root, 'a.txt', 1);
    const r = await handleToolCall({ mounts: [mount], hasDirectMount: true }, { name: 'edit', input: { path: 'work/a.txt', oldString: 'title', newString: 'TITLE' } });
    expect(r.success).toBe(true);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('TITLE\nperson 1\n');
    expect(r.success && (r.data as { replanned?: string }).replanned).toContain('work/a.txt changed after it was read');
  });

  test('a commit planned on bytes disk no longer holds is refused, and nothing is written', async () => {
    const root = tempDir('ws-direct-cas-');
    writeFileSync(join(root, 'a.txt'), 'one\n');
    const { mount } = collidingMount(root, 'a.txt', 1);
    const r = await mount.commit([{ path: 'a.txt', bytes: enc('two\n'), expected: enc('one\n') }]);
    expect(r).toEqual({ ok: false, message: 'work/a.txt changed while the call was being planned; nothing was stored. Read it again and retry.' });
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\nperson 1\n');
  });

  test('a write looks again and lands on the new file, counting the collision', async () => {
    const root = tempDir('ws-direct-cas-');
    writeFileSync(join(root, 'a.txt'), 'one\n');
    const { mount, saves } = collidingMount(root, 'a.txt', 2);
    const r = await mount.commit([{ path: 'a.txt', bytes: enc('written\n') }]);
    expect(r).toEqual({ ok: true, report: { collisions: 2 } });
    expect(saves()).toBe(2);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('written\n');
  });

  test(`a file that changes before each of ${COMMIT_ATTEMPTS} attempts is refused with a sentence, the person's saves kept`, async () => {
    const root = tempDir('ws-direct-cas-');
    writeFileSync(join(root, 'a.txt'), 'one\n');
    const { mount, saves } = collidingMount(root, 'a.txt', Number.POSITIVE_INFINITY);
    const r = await mount.commit([{ path: 'a.txt', bytes: null }]);
    expect(r).toEqual({
      ok: false,
      message: `work/a.txt changed on disk, or another process held it open for writing, each of the ${COMMIT_ATTEMPTS} times this call was about to store its change; nothing was stored. Try again when it is quiet, or close the program writing to it.`,
    });
    expect(saves()).toBe(COMMIT_ATTEMPTS);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe(`one\n${Array.from({ length: COMMIT_ATTEMPTS }, (_, i) => `person ${i + 1}\n`).join('')}`);
  });
});

describe('a direct mount and a directory where a file is named', () => {
  test('delete of a directory is refused with the sentence saying delete removes one file; nothing is removed', async () => {
    const root = tempDir('ws-direct-dir-');
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src/a.ts'), 'a\n');
    const mount = directMount(config(root), undefined);
    const r = await handleToolCall({ mounts: [mount], hasDirectMount: true }, { name: 'delete', input: { path: 'work/src' } });
    expect(r).toEqual({ success: false, error: 'work/src is a directory; delete removes one file: name a file inside it (work/src/…).' });
    // The mount's own commit, asked to put a file where the directory is, says so too.
    expect(await mount.commit([{ path: 'src', bytes: enc('x') }])).toEqual({
      ok: false,
      message: 'work/src is a directory, so no file can take its place; nothing was stored. Name a file inside it (work/src/…).',
    });
    expect(readFileSync(join(root, 'src/a.ts'), 'utf8')).toBe('a\n');
  });
});
