/**
 * A one-shot command keeps its walk's hot code below JavaScriptCore's top tier (FTL),
 * with the same answers: a child walks a tree many times with JavaScriptCore told to
 * compile early and to report each FTL compile, once as a one-shot command and once not.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './fixtures.ts';

/** Functions the walk marks (named ones: JavaScriptCore reports closures without a name). */
const MARKED = ['classify', 'found', 'fileMeta', 'isEditorFile', 'decided', 'info', 'u64', 'cname', 'readDirectory', 'lstat', 'entries'];

function walkChild(root: string, mode: 'one-shot' | 'server'): { files: string; ftl: string[] } {
  const child = Bun.spawnSync(['bun', join(import.meta.dir, 'one-shot-child.ts'), root, '200', mode], {
    env: {
      ...process.env,
      BUN_JSC_reportFTLCompileTimes: '1',
      // Compiles on this thread, as they are asked for (the report is the same each run),
      // and tiers up after a few calls, so a small tree reaches FTL.
      BUN_JSC_useConcurrentJIT: '0',
      BUN_JSC_thresholdForJITAfterWarmUp: '10',
      BUN_JSC_thresholdForJITSoon: '10',
      BUN_JSC_thresholdForOptimizeAfterWarmUp: '20',
      BUN_JSC_thresholdForOptimizeSoon: '20',
      BUN_JSC_thresholdForFTLOptimizeAfterWarmUp: '40',
      BUN_JSC_thresholdForFTLOptimizeSoon: '40',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  expect(child.exitCode).toBe(0);
  const ftl = [...child.stderr.toString().matchAll(/Optimized (\w+)#\w+.*using FTL/g)].map((m) => m[1]);
  return { files: child.stdout.toString(), ftl };
}

describe('a one-shot command', () => {
  test("its walk's functions never reach FTL, and the walk finds the same files", () => {
    const root = tempDir();
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(root, `d${d}`, 'sub'), { recursive: true });
      writeFileSync(join(root, `d${d}`, '.gitignore'), '*.map\n');
      for (let f = 0; f < 15; f++) writeFileSync(join(root, `d${d}`, f % 2 ? `sub/f${f}.ts` : `f${f}.js`), `file ${d} ${f}\n`);
      writeFileSync(join(root, `d${d}`, 'x.map'), 'ignored\n');
    }
    const server = walkChild(root, 'server');
    const oneShot = walkChild(root, 'one-shot');
    expect(oneShot.files).toBe(server.files);
    expect(server.files.trim().split('\n').length).toBe(320);
    // Not a one-shot command: some of them do reach FTL (so the report is read right).
    expect(server.ftl.filter((name) => MARKED.includes(name)).length).toBeGreaterThan(0);
    expect(oneShot.ftl.filter((name) => MARKED.includes(name))).toEqual([]);
  });
});
