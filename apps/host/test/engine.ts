/**
 * Which store engine the host's tests run on. `bun run test` runs the host suite twice:
 * once on SQLite (the default), and once with `WS_TEST_STORE=postgres`, where every store a
 * fixture makes (`testConfig`, `storeHost`, `makeWorkspace`, `storeToml`) is a fresh
 * database on the tests' PostgreSQL cluster instead of a SQLite file (`test/run-on-postgres.ts`
 * says which files, and why the others don't run twice).
 */
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import type { Lock } from '../src/store/lock.ts';
import { openConfiguredStore } from '../src/store/open-store.ts';
import type { Store } from '../src/store/store.ts';
import { clusterUrl, databaseUrl, pgProgram } from './pg-fixtures.ts';
import { STORE_ENGINES } from './store-engines.ts';

/** The engine this run's fixtures make stores on. */
export const TEST_ENGINE: 'sqlite' | 'postgres' = process.env.WS_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** The host id every test store on PostgreSQL names this machine by. */
export const TEST_HOST_ID = 'test-host';

const byPlace = new Map<string, string>();
let made = 0;

/**
 * The URL of the database that stands for the SQLite store at `place` in this run: made
 * (empty) the first time a place is named, the same database after, so a test that opens
 * one store twice by its path opens one database twice.
 */
export function databaseFor(place: string): string {
  const known = byPlace.get(place);
  if (known !== undefined) return known;
  const cluster = clusterUrl();
  const name = `ws_e_${process.pid}_${Date.now().toString(36)}_${made++}`;
  const r = Bun.spawnSync([pgProgram('psql'), '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', cluster, '-c', `CREATE DATABASE ${name}`], { stdout: 'pipe', stderr: 'pipe' });
  if (r.exitCode !== 0) throw new Error(`could not make a test database on ${cluster}: ${r.stderr.toString().slice(0, 300)}`);
  const url = databaseUrl(name, cluster);
  byPlace.set(place, url);
  return url;
}

/** A config's `store` table for the store at `place` (a SQLite path) on this run's engine. */
export function storeTable(place: string): { path: string } | { url: string; host: string } {
  return TEST_ENGINE === 'postgres' ? { url: databaseFor(place), host: TEST_HOST_ID } : { path: place };
}

/** The `[store]` lines of a `ws.toml` for the store at `place` (as the file names it, relative to the file or absolute) on this run's engine. */
export function storeToml(place: string, base?: string): string {
  const key = base === undefined || place.startsWith('/') ? place : join(base, place);
  return TEST_ENGINE === 'postgres'
    ? `[store]\nurl = ${JSON.stringify(databaseFor(key))}\nhost = ${JSON.stringify(TEST_HOST_ID)}\n`
    : `[store]\npath = ${JSON.stringify(place)}\n`;
}

/** Something a test opened that holds a connection (a host, a store). */
interface Closable {
  close(): void;
}

const opened: Closable[] = [];
let inTest = false;

/**
 * Closes, after each test, what the fixtures opened during it: on PostgreSQL every open
 * host holds a connection and a Worker, and one process runs the whole suite. What a
 * `beforeAll` opened stays open for the tests that share it.
 */
export function keepForClosing<T extends Closable>(thing: T): T {
  if (inTest) opened.push(thing);
  return thing;
}

/** The preload's hooks: a test begins, a test ended. */
export function testBegins(): void {
  inTest = true;
}

export function testEnded(): void {
  inTest = false;
  for (const thing of opened.splice(0)) {
    try {
      thing.close();
    } catch {
      // closed already by the test
    }
  }
}

/** The store a workspace's `ws.toml` names, opened as the host would (either engine), and its lock; close both when done. */
export async function openConfigured(dir: string, configFile: string): Promise<{ store: Store; lock: Lock; close(): void }> {
  const { store, lock } = await openConfiguredStore(await loadConfig(dir, configFile), { open: true });
  if (store === undefined) throw new Error(`${configFile} has no store-backed mount, so no store to open`);
  return {
    store,
    lock,
    close() {
      lock.close();
      store.close();
    },
  };
}

/** A fresh, empty store on this run's engine, opened in this process. */
export async function freshStore(): Promise<Store> {
  const engine = STORE_ENGINES.find((e) => e.name === (TEST_ENGINE === 'postgres' ? 'PostgreSQL' : 'SQLite'));
  if (engine === undefined) throw new Error(`no store engine for ${TEST_ENGINE}`);
  return (await engine.fresh()).open();
}
