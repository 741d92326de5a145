import { describe, expect, test } from 'bun:test';
import { handleToolCall } from '@ws/tools';
import { storeHost } from './host-fixtures.ts';

const files = { '.gitignore': 'build/\n', 'build/a.js': 'needle in build\n', 'build/sub/b.js': 'needle deep\n', 'src/c.js': 'needle src\n' };

for (const backend of ['store', 'direct'] as const) {
  describe(`grep named a directory the walk passes over, on a ${backend} mount`, () => {
    test('says the rule that passed it over (and beneath it), and how to search it; a file named in it is searched', async () => {
      const { host } = await storeHost({ mount: { backend }, files });
      const reason =
        "a directory the walk passes over (ignored by .gitignore: build/), so nothing beneath it was searched: name a file in it to search that file, or change the rule (the mount's ignore, or gitignore = false)";
      for (const path of ['work/build', 'work/build/sub']) {
        const r = await handleToolCall(host.workspace, { name: 'grep', input: { pattern: 'needle', path } });
        expect(r).toEqual({ success: true, data: { results: [], totalMatches: 0, filesSearched: 0, skipped: [{ reason, count: 1, paths: [path] }] } });
      }
      const all = await handleToolCall(host.workspace, { name: 'grep', input: { pattern: 'needle' } });
      expect(all.success && (all.data as { totalMatches: number; skipped: unknown[] })).toMatchObject({ totalMatches: 1, skipped: [] });
      const named = await handleToolCall(host.workspace, { name: 'grep', input: { pattern: 'needle', path: 'work/build/a.js' } });
      expect(named.success && (named.data as { totalMatches: number }).totalMatches).toBe(1);
      host.close();
    });
  });
}
