/**
 * PostgreSQL for tests: a cluster, and a fresh database per store. `WS_TEST_PG_URL` (which
 * `.ci/run` sets) names a running cluster's maintenance database; without it the first
 * test that asks starts a throwaway cluster (initdb in a temporary directory, as an
 * unprivileged user where the tests run as root) and stops it when the process exits.
 * Under CI (`CI=1`) a missing URL is a failure, never a skip.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkConfig, type HostConfig } from '../src/config.ts';

let cluster: OwnCluster | undefined;
let made = 0;
let told = false;

/** The directory of PostgreSQL's server programs (initdb, pg_ctl). */
function serverBin(): string | undefined {
  const onPath = Bun.which('initdb');
  if (onPath !== null) return undefined;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) throw new Error('PostgreSQL is not installed (no initdb on the PATH or under /usr/lib/postgresql): install it (apt-get install postgresql) or set WS_TEST_PG_URL.');
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  return join(base, versions[0], 'bin');
}

/** One of PostgreSQL's programs (initdb, pg_ctl, psql): on the PATH, or beside the newest installed server. */
export function pgProgram(name: string): string {
  const onPath = Bun.which(name);
  if (onPath !== null) return onPath;
  const bin = serverBin();
  return bin === undefined ? name : join(bin, name);
}

/** A throwaway cluster this process started: stop and start it again at will; removed when the process exits. */
export interface OwnCluster {
  readonly url: string;
  /** Stops the server at once, as a crash would (`pg_ctl stop -m immediate`). */
  stop(): void;
  start(): void;
}

/** Starts a throwaway cluster (initdb in a temporary directory, as `nobody` where this runs as root), on a Unix socket only. */
export function startCluster(): OwnCluster {
  const prog = pgProgram;
  const dir = mkdtempSync(join(tmpdir(), 'ws-pg-'));
  chmodSync(dir, 0o777);
  const root = process.getuid?.() === 0;
  const as = (cmd: string[]) => (root ? ['su', '-s', '/bin/sh', 'nobody', '-c', cmd.map((a) => `'${a}'`).join(' ')] : cmd);
  const run = (cmd: string[]) => {
    const r = Bun.spawnSync(as(cmd), { stdout: 'pipe', stderr: 'pipe' });
    if (r.exitCode !== 0) throw new Error(`${cmd[0]} failed: ${(r.stderr.toString() + r.stdout.toString()).slice(0, 500)}`);
  };
  const data = join(dir, 'data');
  run([prog('initdb'), '-D', data, '-U', 'ws', '--auth=trust', '-E', 'UTF8', '--locale=C']);
  const start = () => run([prog('pg_ctl'), '-D', data, '-o', `-k ${dir} -c listen_addresses=''`, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => void Bun.spawnSync(as([prog('pg_ctl'), '-D', data, '-m', 'immediate', 'stop']), { stdout: 'ignore', stderr: 'ignore' });
  start();
  process.on('exit', () => {
    stop();
    rmSync(dir, { recursive: true, force: true });
  });
  // A watchdog stops the cluster once this process is gone, however it ends (bun test
  // runs no exit handlers and ends the processes it knows of, so the watchdog is a
  // grandchild in a session of its own; a killed process runs no handlers either).
  const quote = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;
  const stopCmd = as([prog('pg_ctl'), '-D', data, '-m', 'immediate', 'stop']).map(quote).join(' ');
  const watch = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${stopCmd} >/dev/null 2>&1; rm -rf ${quote(dir)}`;
  Bun.spawnSync(['sh', '-c', `setsid sh -c ${quote(watch)} </dev/null >/dev/null 2>&1 &`], { stdout: 'ignore', stderr: 'ignore' });
  return { url: `postgres://ws@localhost/postgres?host=${dir}`, stop, start };
}

/** The cluster's maintenance database URL. */
export function clusterUrl(): string {
  const given = process.env.WS_TEST_PG_URL;
  if (given !== undefined && given !== '') {
    if (!told) console.log(`pg tests: the cluster at WS_TEST_PG_URL (${given})`);
    told = true;
    return given;
  }
  if (process.env.CI === '1' || process.env.CI === 'true') {
    throw new Error('WS_TEST_PG_URL is not set: under CI the PostgreSQL store tests need the cluster .ci/run starts (it sets WS_TEST_PG_URL).');
  }
  if (cluster === undefined) {
    cluster = startCluster();
    console.log(`pg tests: a throwaway cluster started here (${cluster.url})`);
  }
  return cluster.url;
}

/** The URL of `db` on the cluster at `on` (default: the tests' cluster). */
export function databaseUrl(db: string, on: string = clusterUrl()): string {
  const u = new URL(on);
  u.pathname = `/${db}`;
  return u.toString();
}

/** A new, empty database on the cluster at `on` (default: the tests' cluster); its URL. */
export async function freshDatabase(on: string = clusterUrl()): Promise<string> {
  const name = `ws_t_${process.pid}_${Date.now().toString(36)}_${made++}`;
  const sql = new Bun.SQL(on, { max: 1 });
  try {
    await sql.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await sql.close();
  }
  return databaseUrl(name, on);
}

/** A host config over `base` with these mounts on the shared store at `url`, as host `host`. */
export function pgConfig(base: string, mounts: ({ name: string; path: string } & Record<string, unknown>)[], url: string, host = 'test-host'): HostConfig {
  return checkConfig({ store: { url, host }, mount: mounts }, 'test config', base);
}
