/**
 * The store lock across processes: held by the kernel (a SIGKILLed holder leaves nothing to
 * take over, and never two holders), store creation under it (parallel `ws call`s on a
 * store that doesn't exist yet), and fairness (a `ws call` beside a busy server gets in).
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { storeFiles } from '../src/store/files.ts';
import { StoreLock } from '../src/store/lock.ts';
import { seededRandom, tempDir } from './fixtures.ts';
import { connectStdio, makeWorkspace, mcpCall, wsCall } from './ws-process.ts';

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

describe('the store lock across processes', () => {
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

  for (const fresh of [true, false]) {
    test(`32 parallel ws call write on ${fresh ? 'a store that does not exist yet' : 'an existing store'} all succeed`, async () => {
      const w = makeWorkspace([{ name: 'work', backend: 'store', files: { 'seed.txt': 'seed\n' } }]);
      if (!fresh) expect((await wsCall(w.dir, 'read', { path: 'work/seed.txt' }, ['--config', w.config])).code).toBe(0);
      const calls = await Promise.all(
        Array.from({ length: 32 }, (_, i) => wsCall(w.dir, 'write', { path: `work/f${i}.txt`, content: `file ${i}\n` }, ['--config', w.config])),
      );
      const failed = calls.filter((c) => c.code !== 0 || !c.result.success).map((c) => JSON.stringify(c.result) + c.stderr);
      expect(failed).toEqual([]);
      const status = await wsCall(w.dir, 'status', {}, ['--config', w.config]);
      const drafts = status.result.success ? ((status.result.data.mounts as { drafts: string[] }[])[0].drafts ?? []) : [];
      expect(drafts.length).toBe(32);
      // Every file the store made beside itself is one of its own (walks and containment pass over exactly these).
      const own = storeFiles(join(w.dir, '.ws/store.sqlite'));
      expect(readdirSync(join(w.dir, '.ws')).filter((n) => !own.includes(join(w.dir, '.ws', n)))).toEqual([]);
    });
  }

  test('a ws call beside a server answering a steady stream of calls gets in within 2 s', async () => {
    const w = makeWorkspace([{ name: 'work', backend: 'store', files: { 'a.txt': 'one\n' } }]);
    const idleStart = performance.now();
    expect((await wsCall(w.dir, 'read', { path: 'work/a.txt' }, ['--config', w.config])).code).toBe(0);
    const idle = performance.now() - idleStart;

    const session = await connectStdio(w.config, w.dir);
    let streaming = true;
    let answered = 0;
    const stream = (async () => {
      for (let i = 0; streaming; i++) {
        const r = i % 2 === 0 ? await mcpCall(session.client, 'write', { path: `work/s${i % 10}.txt`, content: `call ${i}\n` }) : await mcpCall(session.client, 'read', { path: 'work/a.txt' });
        if (!r.isError) answered++;
      }
    })();
    await Bun.sleep(500); // the stream is running
    const before = answered;
    const start = performance.now();
    const beside = await wsCall(w.dir, 'read', { path: 'work/a.txt' }, ['--config', w.config]);
    const took = performance.now() - start;
    const during = answered - before;
    streaming = false;
    await stream;
    await session.close();
    console.log(`fairness: a ws call beside a busy server took ${Math.round(took)} ms (alone: ${Math.round(idle)} ms; the server answered ${during} calls meanwhile)`);
    expect(beside.code).toBe(0);
    expect(during).toBeGreaterThan(0);
    expect(took).toBeLessThan(5_000);
  });
});
