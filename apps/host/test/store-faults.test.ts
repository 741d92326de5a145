/**
 * A store that fails says so in one sentence and is left as it was: refused stores
 * (damaged, empty, not SQLite, newer) keep every byte and get no `-wal` or `-shm`; a
 * damaged page found mid-call, and a full disk, are one sentence naming the store.
 */
import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import { Database, constants } from 'bun:sqlite';
import { existsSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handleToolCall } from '@ws/tools';
import { openHost } from '../src/host.ts';
import { SCHEMA_VERSION } from '../src/store/schema.ts';
import { seededRandom, tempDir } from './fixtures.ts';
import { testConfig, writeFiles } from './host-fixtures.ts';
import { makeWorkspace, ws } from './ws-process.ts';

/** A store's page size, from its header (bytes 16–17, big-endian). */
const pageOf = (bytes: Buffer) => bytes.readUInt16BE(16);

/** The store's directory as a refusal must leave it: every file but the lock files, with its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    if (name.endsWith('.lock') || name.endsWith('.lock-wait')) continue;
    out[name] = new Bun.CryptoHasher('sha256').update(readFileSync(join(dir, name))).digest('hex');
  }
  return out;
}

/** A workspace whose store holds a few files (made by `ws call`, so closed cleanly: no `-wal`). */
async function storedWorkspace(files: Record<string, string> = { 'a.txt': 'one\n' }) {
  const w = makeWorkspace([{ name: 'work', backend: 'store', files }]);
  // Written an hour ago: a stat taken as the file was written is racy, its fingerprint
  // unique, and the next call would record the file's evidence again (a write where
  // these tests expect none; a loaded machine made that happen now and then).
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const path of Object.keys(files)) utimesSync(join(w.dir, 'work', path), hourAgo, hourAgo);
  for (const path of Object.keys(files)) {
    const ran = await ws(w.dir, ['--config', w.config, 'call', 'read', JSON.stringify({ path: `work/${path}` })]);
    expect(ran.code).toBe(0);
  }
  const storeDir = join(w.dir, '.ws');
  const store = join(storeDir, 'store.sqlite');
  expect(existsSync(`${store}-wal`)).toBe(false);
  return { w, storeDir, store };
}

/** Expects `ws call read` to be refused with one line matching `sentence`, leaving the store's files as they were. */
async function expectRefused(w: { dir: string; config: string }, storeDir: string, sentence: RegExp): Promise<void> {
  const before = snapshot(storeDir);
  const ran = await ws(w.dir, ['--config', w.config, 'call', 'read', JSON.stringify({ path: 'work/a.txt' })]);
  expect(ran.code).toBe(1);
  const lines = ran.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(sentence);
  expect(ran.stderr).not.toMatch(/\n\s+at |\d+ \|/); // no stack trace, no source excerpt
  expect(snapshot(storeDir)).toEqual(before);
  expect(readdirSync(storeDir).filter((n) => n.endsWith('-wal') || n.endsWith('-shm'))).toEqual([]);
}

describe('a refused store is left byte for byte as it was', () => {
  test('a damaged page', async () => {
    const { w, storeDir, store } = await storedWorkspace();
    const bytes = readFileSync(store);
    const PAGE = pageOf(bytes);
    for (let at = PAGE; at < bytes.length; at += PAGE) bytes.fill(0xa5, at, at + PAGE); // every page but the first
    writeFileSync(store, bytes);
    await expectRefused(w, storeDir, /^ws: The store .*store\.sqlite is damaged \(.*\); ws will not use it\. Stop ws, move the file away/);
  });

  test('a 0-byte file', async () => {
    const { w, storeDir, store } = await storedWorkspace();
    writeFileSync(store, '');
    await expectRefused(w, storeDir, /store\.sqlite is an empty file, not a ws store; remove it/);
    expect(readFileSync(store).length).toBe(0);
  });

  test('a file that is not SQLite', async () => {
    const { w, storeDir, store } = await storedWorkspace();
    writeFileSync(store, 'my notes, not a database\n');
    await expectRefused(w, storeDir, /store\.sqlite is not a ws store \(not an SQLite database\)/);
  });

  test('a store made by a newer ws', async () => {
    const { w, storeDir, store } = await storedWorkspace();
    const db = new Database(store);
    db.run('INSERT INTO migrations (version, applied_at) VALUES (?, 0)', [SCHEMA_VERSION + 1]);
    db.close();
    expect(existsSync(`${store}-wal`)).toBe(false);
    await expectRefused(w, storeDir, new RegExp(`was made by a newer ws \\(store schema ${SCHEMA_VERSION + 1}; this ws knows up to ${SCHEMA_VERSION}\\)`));
  });
});

describe('a busy store', () => {
  test('a store another connection keeps write-locked for a second is waited for, and never called damaged', async () => {
    const { w, store } = await storedWorkspace();
    const script = `
      import { Database, constants } from 'bun:sqlite';
      const db = new Database(${JSON.stringify(store)});
      db.run('BEGIN IMMEDIATE');
      db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', 'x')");
      console.log('locked');
      await Bun.sleep(1000);
      db.run('COMMIT');
      db.close();
    `;
    const holder = Bun.spawn(['bun', '-e', script], { stdout: 'pipe', stderr: 'inherit' });
    const reader = holder.stdout.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('locked');
    const ran = await ws(w.dir, ['--config', w.config, 'call', 'write', JSON.stringify({ path: 'work/b.txt', content: 'two\n' })]);
    expect(await holder.exited).toBe(0);
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toMatchObject({ success: true });
  });
});

describe('a store failing mid-call is one sentence', () => {
  test('a damaged page found by a read is the read\'s error, and the store is left as it was', async () => {
    // 130 KB of seeded random hex: even packed, the blob spans overflow pages.
    const random = seededRandom(7);
    const hex = () => '0123456789abcdef'[random(16)];
    const big = Array.from({ length: 2_000 }, () => `${Array.from({ length: 64 }, hex).join('')}\n`).join('');
    const { w, storeDir, store } = await storedWorkspace({ 'a.txt': big });
    // immutable: reading the page list makes no -wal or -shm.
    const stat = new Database(`file:${store}?immutable=1`, constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI);
    const overflow = stat.query("SELECT pageno FROM dbstat WHERE name = 'blob' AND pagetype = 'overflow'").all() as { pageno: number }[];
    stat.close();
    const bytes = readFileSync(store);
    const PAGE = pageOf(bytes);
    let damaged = 0;
    for (const { pageno } of overflow) {
      // An overflow page starts with a 4-byte pointer to the next one.
      bytes.writeUInt32BE(0xfffffff0, (pageno - 1) * PAGE);
      damaged++;
    }
    expect(damaged).toBeGreaterThan(0);
    writeFileSync(store, bytes);
    const before = snapshot(storeDir);
    const ran = await ws(w.dir, ['--config', w.config, 'call', 'read', JSON.stringify({ path: 'work/a.txt' })]);
    const result = JSON.parse(ran.stdout) as { success: boolean; error?: string };
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/^The store .*store\.sqlite is damaged \(.*\); ws will not use it\./);
    expect(ran.stderr).toBe('');
    expect(snapshot(storeDir)).toEqual(before);
    expect(readdirSync(storeDir).filter((n) => n.endsWith('-wal') || n.endsWith('-shm'))).toEqual([]);
    // grep reads the same blob after its plan: that file is skipped with the sentence, the call answers.
    const grep = await ws(w.dir, ['--config', w.config, 'call', 'grep', JSON.stringify({ pattern: 'abc', path: 'work' })]);
    expect(grep.stderr).toBe('');
    expect(grep.stdout).toMatch(/The store .*store\.sqlite is damaged/);
    expect(snapshot(storeDir)).toEqual(before);
  });

  let spy: ReturnType<typeof spyOn> | undefined;
  afterEach(() => spy?.mockRestore());

  test('a full disk names the store, stores nothing of the call, and the next call that fits works', async () => {
    const root = tempDir();
    writeFiles(root, { 'a.txt': 'one\n' });
    const config = testConfig(root, [{ name: 'work', path: '.' }]);
    const host = await openHost(config, { watch: false, store: { maxPageCount: 40 } });
    spy = spyOn(console, 'error');
    try {
      // Seeded random letters: 400 KB that no codec packs under the store's 160 KB cap.
      const random = seededRandom(11);
      const letter = () => String.fromCharCode(97 + random(26));
      const content = Array.from({ length: 400_000 }, letter).join('');
      const full = await handleToolCall(host.workspace, { name: 'write', input: { path: 'work/big.txt', content } });
      expect(full).toEqual({
        success: false,
        error: `The disk is full: the store ${config.storePath} could not be written, so this change was not stored. Free some space and try again.`,
      });
      expect(spy).not.toHaveBeenCalled();
      const read = await handleToolCall(host.workspace, { name: 'read', input: { path: 'work/big.txt' } });
      expect(read.success).toBe(false);
      const small = await handleToolCall(host.workspace, { name: 'write', input: { path: 'work/small.txt', content: 'fits\n' } });
      expect(small.success).toBe(true);
    } finally {
      host.close();
    }
  });
});
