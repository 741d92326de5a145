/**
 * The SQLite store's scan reads tree and evidence a page of rows at a time: all its pages
 * are one snapshot (one read transaction), so a writer on another connection, committing
 * between two pages, never makes a scan see a path twice or miss one. The writer moves a
 * path's rows from the first page to the last and back, each move one commit that keeps
 * the number of paths; every scan must give exactly that number, each path once, each with
 * both its rows.
 */
import { afterAll, expect, setDefaultTimeout, test } from 'bun:test';
import { join } from 'node:path';
import { openStore } from '../src/store/open-store.ts';
import type { SqliteStore } from '../src/store/sqlite-store.ts';
import { tempDir } from './fixtures.ts';

setDefaultTimeout(120_000);

const opened: SqliteStore[] = [];
afterAll(() => {
  for (const s of opened) s.close();
});

test("a scan's pages are one snapshot while another connection moves paths between its first and last pages", async () => {
  const file = join(tempDir('ws-scan-snapshot-'), 'store.sqlite');
  const store = await openStore(file);
  opened.push(store);
  const branch = store.selectedBranch();
  // Four pages a table (2,048 rows each) and some: the moved paths sort first ("a/") or last ("z/").
  const paths = 9000;
  const moved = 200;
  for (let i = 0; i < paths; i++) {
    const path = i < moved ? `a/${String(i).padStart(5, '0')}` : `m/${String(i).padStart(5, '0')}`;
    store.setTree(branch, 'work', path, { hash: `h${i}`, size: i, mode: 0o644 }, { source: 'disk' });
    store.setEvidence('work', path, { kind: 'text', hash: `h${i}`, size: i, mode: 0o644, fingerprint: `fp${i}` });
  }
  store.barrier();
  const writer = Bun.spawn(['bun', join(import.meta.dir, 'scan-mover.ts'), file, String(moved)], { stdout: 'pipe', stderr: 'inherit' });
  try {
    const reader = writer.stdout.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('ready');
    let seenMoves = 0;
    let last = '';
    for (let round = 0; round < 150; round++) {
      const got = [...store.scan(branch, 'work', '')];
      const unique = new Set(got.map((s) => s.path));
      expect(got.length).toBe(paths);
      expect(unique.size).toBe(paths);
      expect(got.filter((s) => s.tree === null || s.evidence === null).map((s) => s.path)).toEqual([]);
      // The writer is really moving paths while the scans run.
      const where = got.filter((s) => s.path.startsWith('z/')).length.toString();
      if (where !== last) seenMoves++;
      last = where;
      await Bun.sleep(1);
    }
    expect(seenMoves).toBeGreaterThan(10);
  } finally {
    writer.kill();
    await writer.exited;
  }
});
