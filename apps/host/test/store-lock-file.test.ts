/**
 * The SQLite store's lock file across processes: held by the kernel (a SIGKILLed holder
 * leaves nothing to take over, and never two holders), two locks in one process, and a lock
 * file an older ws left. (A shared store's lock is PostgreSQL's advisory lock:
 * pg-store.test.ts and two-hosts.test.ts.)
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoreLock } from '../src/store/lock.ts';
import { seededRandom, tempDir } from './fixtures.ts';
import { makeWorkspace, wsCall } from './ws-process.ts';

setDefaultTimeout(120_000);

const CONTENDER = join(import.meta.dir, 'lock-contender.ts');

/** Waits until `file` holds `text`. */
async function until(file: string, text: string): Promise<void> {
  for (;;) {
    try {
      if (readFileSync(file, 'utf8').includes(text)) return;
    } catch {
      // not made yet
    }
    await Bun.sleep(2);
  }
}

/** Problems in a spans file: a start before the holder was killed, or a start inside another span. */
function overlaps(lines: readonly string[]): string[] {
  const problems: string[] = [];
  let killed = false;
  let open: string | undefined;
  for (const line of lines) {
    const [event, pid] = line.split(' ');
    if (event === 'kill') killed = true;
    if (event === 'start') {
      if (!killed) problems.push(`${pid} started while the first holder was alive`);
      if (open !== undefined) problems.push(`${pid} started while ${open} held the lock`);
      open = pid;
    }
    if (event === 'end') open = undefined;
  }
  return problems;
}

describe('the SQLite store lock across processes', () => {
  test('50 trials of 6 contenders after a SIGKILLed holder: never two holders, and every contender gets in', async () => {
    const dir = tempDir('ws-lock-');
    const store = join(dir, 'store.sqlite');
    const problems: string[] = [];
    for (let trial = 0; trial < 50; trial++) {
      const spans = join(dir, `spans-${trial}`);
      writeFileSync(spans, '');
      const holder = Bun.spawn(['bun', CONTENDER, store, spans, 'hold'], { stdout: 'ignore', stderr: 'inherit' });
      await until(spans, 'held');
      const contenders = Array.from({ length: 6 }, () => Bun.spawn(['bun', CONTENDER, store, spans, 'span'], { stdout: 'ignore', stderr: 'inherit' }));
      await Bun.sleep(trial % 5 === 0 ? 60 : 15); // some trials kill before the contenders are polling, some after
      writeFileSync(spans, 'kill\n', { flag: 'a' });
      holder.kill('SIGKILL');
      const codes = await Promise.all(contenders.map((c) => c.exited));
      await holder.exited;
      const lines = readFileSync(spans, 'utf8').split('\n').filter((l) => l !== '');
      for (const p of overlaps(lines)) problems.push(`trial ${trial}: ${p}`);
      if (codes.some((c) => c !== 0)) problems.push(`trial ${trial}: a contender exited ${codes.join(',')}`);
      if (lines.filter((l) => l.startsWith('end')).length !== 6) problems.push(`trial ${trial}: ${lines.join(' / ')}`);
    }
    expect(problems).toEqual([]);
  });

  test('two locks on one store in one process exclude each other too (the lock is the open file, not the process)', async () => {
    const store = join(tempDir('ws-lock-'), 'store.sqlite');
    const locks = [new StoreLock(store), new StoreLock(store)];
    const rand = seededRandom(7);
    let inside = 0;
    let most = 0;
    const ops = Array.from({ length: 60 }, (_, i) =>
      locks[i % 2].run(async () => {
        inside++;
        most = Math.max(most, inside);
        await Bun.sleep(rand(3));
        inside--;
      }),
    );
    await Promise.all(ops);
    for (const l of locks) l.close();
    expect(most).toBe(1);
  });

  test("a lock file an older ws left, naming a live pid (PID 1), doesn't hold anyone up", async () => {
    const w = makeWorkspace([{ name: 'work', backend: 'store', files: { 'a.txt': 'one\n' } }]);
    expect((await wsCall(w.dir, 'read', { path: 'work/a.txt' }, ['--config', w.config])).code).toBe(0);
    writeFileSync(join(w.dir, '.ws/store.sqlite.lock'), '1');
    const start = performance.now();
    const ran = await wsCall(w.dir, 'write', { path: 'work/b.txt', content: 'two\n' }, ['--config', w.config]);
    expect(ran.result.success).toBe(true);
    expect(performance.now() - start).toBeLessThan(10_000);
  });
});
