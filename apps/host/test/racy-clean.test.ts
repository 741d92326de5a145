/**
 * A person's save is never overwritten unseen on a coarse-clock file system: the real
 * disk port on a real directory, keeping times as a file system with 1 s and 2 s
 * timestamps would (same-size saves in the same second keep every stat field), under the
 * real store (SQLite, or PostgreSQL on the second run) and @ws/reconcile. A save made in
 * the same second as ws's read, then an agent edit and a materialize: the save is on disk
 * at the end, or the path is a conflict that holds it.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createReconciler, looksBinary } from '@ws/reconcile';
import { diskPort } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';
import { sha256 } from '../src/host.ts';
import { freshStore } from './engine.ts';
import { enc, tempDir } from './fixtures.ts';

const TRIALS = 200;

for (const coarse of [1000, 2000]) {
  describe(`timestamps kept to ${coarse / 1000} s`, () => {
    test(`a same-size save in the same second as ws's read is never lost (${TRIALS} trials)`, async () => {
      const root = tempDir('ws-racy-');
      const store = await freshStore();
      const disk = diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 10_000, coarseTimesMs: coarse });
      const reconciler = createReconciler({ store, disk, hash: sha256, mount: 'work', readOnly: false, maxFileSize: 1 << 20, isBinary: looksBinary });
      let lost = 0;
      let conflicts = 0;
      for (let i = 0; i < TRIALS; i++) {
        const path = `f${i}.txt`;
        writeFileSync(join(root, path), `person save 0 of ${String(i).padStart(4, '0')}\n`);
        // ws reads the file (a pass takes it in), then the person saves again: same size, same second.
        const read = await reconciler.pass({ scope: { kind: 'paths', paths: [path] } });
        expect(read.kind).toBe('done');
        const save = `person save 1 of ${String(i).padStart(4, '0')}\n`;
        writeFileSync(join(root, path), save);
        // The agent edits what it read and materializes (never forced).
        reconciler.recordDrafts([{ path, bytes: enc(`agent edit of ${i}\n`) }]);
        const pushed = await reconciler.push({ scope: { kind: 'paths', paths: [path] } });
        if (pushed.kind !== 'done') throw new Error(`trial ${i}: the push gave up (${pushed.reason})`);
        const onDisk = readFileSync(join(root, path), 'utf8');
        const conflict = pushed.pass.paths.find((p) => p.path === path)?.conflict ?? null;
        if (conflict !== null) conflicts++;
        if (onDisk !== save) lost++;
      }
      store.close();
      console.log(`racy clean at ${coarse} ms: ${lost} saves lost, ${conflicts} conflicts in ${TRIALS} trials`);
      expect(lost).toBe(0);
      expect(conflicts).toBe(TRIALS);
    }, 120_000);
  });
}
