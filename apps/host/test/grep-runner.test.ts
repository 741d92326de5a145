import { afterAll, expect, test } from 'bun:test';
import { grepWorkers } from '../src/grep/runner.ts';

const workers = grepWorkers();
afterAll(() => workers.close());
const enc = new TextEncoder();
const options = { caseInsensitive: false, fixedStrings: false, multiline: false };

test('a scan answers from its Worker, its hit lists moved back', async () => {
  const r = await workers.runner({ pattern: 'b', options, bytes: enc.encode('a\nb\nab\n'), lineEnds: false, timeLimitMs: 5000 });
  expect([...r.hits]).toEqual([2, 3]);
  expect(r.lost).toBeUndefined();
});

test('a Worker stuck in one line past its deadline is ended and replaced: the answer says where it was, and the next scan runs', async () => {
  const evil = enc.encode(`${'a'.repeat(40)}b\n`.repeat(5));
  const started = performance.now();
  // 50 ms is far less than one line of this pattern costs, so only ending the Worker can answer in time.
  const r = await workers.runner({ pattern: '(a+)+(?=$)', options, bytes: evil, lineEnds: false, timeLimitMs: 50 });
  const ms = performance.now() - started;
  expect(r.lost).toBe(true);
  expect(r.stoppedAt).toBe(1);
  expect(ms).toBeLessThan(50 + 250 + 400);
  const next = await workers.runner({ pattern: 'x', options, bytes: enc.encode('x\n'), lineEnds: false, timeLimitMs: 5000 });
  expect([...next.hits]).toEqual([1]);
});

test('scans from several callers at once each get their own answer', async () => {
  const jobs = Array.from({ length: 10 }, (_, i) => workers.runner({ pattern: `n${i}$`, options, bytes: enc.encode(Array.from({ length: 10 }, (_, k) => `n${k}`).join('\n')), lineEnds: false, timeLimitMs: 5000 }));
  const answers = await Promise.all(jobs);
  answers.forEach((r, i) => expect([...r.hits]).toEqual([i + 1]));
});
