/**
 * What a one-shot command's grep keeps of its pass (issue 15, target 6): nothing. A pass
 * scans the store's records of every path (tens of MiB on a real tree); a long-running
 * host keeps that scan for the next look, a one-shot host (the CLI's, `watch: false`)
 * lets it go once the pass is done, so the search runs without it. The scan must be
 * unreachable after the grep: kept by the store's cache, or by a closure a hot call site
 * remembered, it would still be there.
 */
import { describe, expect, test } from 'bun:test';
import { handleToolCall } from '@ws/tools';
import type { Store } from '../src/store/store.ts';
import { storeHost } from './host-fixtures.ts';

const FILES = 3000;

function tree(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) files[`d${i % 30}/f${String(i).padStart(5, '0')}.txt`] = `line ${i}\n${i % 97 === 0 ? 'needle here\n' : 'nothing\n'}`;
  return files;
}

/** Records a weak reference to every scan the store hands out. */
function watchScans(store: Store): WeakRef<object>[] {
  const refs: WeakRef<object>[] = [];
  const scan = store.scan.bind(store);
  store.scan = (branch, mount, dir) => {
    const got = scan(branch, mount, dir);
    refs.push(new WeakRef(got as object));
    return got;
  };
  return refs;
}

async function collected(refs: readonly WeakRef<object>[]): Promise<number> {
  for (let k = 0; k < 3; k++) {
    await Bun.sleep(0);
    Bun.gc(true);
  }
  return refs.filter((r) => r.deref() === undefined).length;
}

describe('a one-shot grep on a store-backed mount', () => {
  test('searches, then holds none of the scans its passes made', async () => {
    const { host } = await storeHost({ files: tree() });
    try {
      const store = host.store as Store;
      // The first grep fills the store; the second passes over a full one, as a `ws call grep` does.
      for (let round = 0; round < 2; round++) {
        const refs = watchScans(store);
        const result = await handleToolCall(host.workspace, { name: 'grep', input: { pattern: 'needle', output: 'count' } });
        expect(result.success).toBe(true);
        expect(JSON.stringify(result)).toContain(`${Math.ceil(FILES / 97)}`);
        expect(refs.length).toBeGreaterThan(0);
        expect(await collected(refs)).toBe(refs.length);
      }
    } finally {
      host.close();
    }
  });
});
