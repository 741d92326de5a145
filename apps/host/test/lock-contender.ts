/**
 * One process contending for the store lock, for `store-lock.test.ts`:
 * `bun lock-contender.ts STORE SPANS hold` takes the lock, says so and holds it until killed;
 * `bun lock-contender.ts STORE SPANS span` takes it, records its span's start and end in SPANS
 * (appended, so the file's order is the order of events) and lets go.
 */
import { appendFileSync } from 'node:fs';
import { StoreLock } from '../src/store/lock.ts';

const [storePath, spans, mode] = process.argv.slice(2);
const lock = new StoreLock(storePath);
await lock.run(async () => {
  if (mode === 'hold') {
    appendFileSync(spans, `held ${process.pid}\n`);
    await new Promise(() => {}); // until SIGKILL
  }
  appendFileSync(spans, `start ${process.pid}\n`);
  await Bun.sleep(3);
  appendFileSync(spans, `end ${process.pid}\n`);
});
lock.close();
