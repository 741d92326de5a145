/**
 * The fixtures make stores on the run's engine (`engine.ts`): a test that passes on the
 * PostgreSQL run must have had a PostgreSQL store, not a SQLite file made by mistake.
 */
import { expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PgStore } from '../src/store/postgres/pg-store.ts';
import { SqliteStore } from '../src/store/sqlite-store.ts';
import { TEST_ENGINE } from './engine.ts';
import { storeHost, testConfig } from './host-fixtures.ts';
import { makeWorkspace, wsCall } from './ws-process.ts';

test(`on this run (${TEST_ENGINE}) a host the fixtures open, a config they write and a ws child use that engine`, async () => {
  const { host, root } = await storeHost({ files: { 'a.txt': 'one\n' } });
  expect(host.store).toBeInstanceOf(TEST_ENGINE === 'postgres' ? PgStore : SqliteStore);
  expect(testConfig(root, [{ name: 'w', path: '.' }]).storeUrl === undefined).toBe(TEST_ENGINE === 'sqlite');
  host.close();

  const w = makeWorkspace([{ name: 'work', backend: 'store', files: { 'a.txt': 'one\n' } }]);
  expect(readFileSync(w.config, 'utf8').includes('url = "postgres://')).toBe(TEST_ENGINE === 'postgres');
  const written = await wsCall(w.dir, 'write', { path: 'work/b.txt', content: 'two\n' }, ['--config', w.config]);
  expect(written.result.success).toBe(true);
  expect(existsSync(join(w.dir, '.ws/store.sqlite'))).toBe(TEST_ENGINE === 'sqlite');
});
