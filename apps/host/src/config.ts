/**
 * The host's configuration: `ws.toml` (or `--config FILE`, or the embedded default),
 * read and checked into a `HostConfig` with every path made absolute. The one rule: a
 * bad config is refused whole with one sentence that names the file, the key and what
 * is allowed — never half-applied.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { isInside, kindAt, realOrSame, realParents } from './disk/contain.ts';

/** How a mount keeps up with disk between tool calls. */
export type WatchMode = 'on-tool-call' | 'always' | 'never';

/** One mount, checked, with its root made absolute. */
export interface MountConfig {
  readonly name: string;
  readonly root: string;
  readonly backend: 'store' | 'direct';
  readonly readOnly: boolean;
  readonly ignore: readonly string[];
  /** Honour `.gitignore` and `.ignore` files (nested ones too) on every walk. */
  readonly gitignore: boolean;
  readonly maxFileSize: number;
  readonly autoMaterialize: boolean;
  readonly watch: WatchMode;
  readonly followSymlinks: boolean;
  /** Gitignore patterns an agent may read but never change (`mount.protect`). */
  readonly protect: readonly string[];
}

/** The whole host configuration. */
export interface HostConfig {
  /** Where it came from: a file path, or `'embedded default'`. */
  readonly source: string;
  readonly resultMaxChars: number;
  /** `ws serve`: how long an unused HTTP session lives, in seconds. */
  readonly sessionIdleSeconds: number;
  /** `ws serve`: how many HTTP sessions live at once. */
  readonly maxSessions: number;
  /** How long one grep may search before it answers what it found. */
  readonly grepTimeoutMs: number;
  /**
   * Absolute path of the SQLite store; with `storeUrl`, where this host keeps its own
   * files beside (the HTTP server's tokens), though no store is made there.
   */
  readonly storePath: string;
  /** A shared store on PostgreSQL (`[store] url`), instead of the SQLite file. */
  readonly storeUrl?: string;
  /** This host's id on a shared store (`[store] host`, default the machine's hostname). */
  readonly storeHost: string;
  readonly mounts: readonly MountConfig[];
}

/** A config that cannot be used; its message is the one line the CLI prints. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const DEFAULT_RESULT_MAX_CHARS = 24_000;
export const DEFAULT_SESSION_IDLE_SECONDS = 600;
export const DEFAULT_MAX_SESSIONS = 64;
export const DEFAULT_GREP_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_FILE_SIZE = 5 * 1024 * 1024;
export const DEFAULT_STORE_PATH = '.ws/store.sqlite';
/** With `[store] url`: where the host's own files go (the HTTP tokens at `.ws/shared-store.token`); nothing is made at the path itself. */
export const SHARED_STORE_LOCAL = '.ws/shared-store';
export const DEFAULT_IGNORE: readonly string[] = ['node_modules/', '.git/', '*.log'];
/** Paths an agent may read but never change, unless a person says otherwise. */
export const DEFAULT_PROTECT: readonly string[] = ['.git/'];

const TOP_KEYS = ['resultMaxChars', 'sessionIdleSeconds', 'maxSessions', 'grepTimeoutMs', 'store', 'mount'] as const;
const STORE_KEYS = ['path', 'url', 'host'] as const;
const HOST_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;
const MOUNT_KEYS = [
  'name',
  'path',
  'backend',
  'mode',
  'ignore',
  'gitignore',
  'maxFileSize',
  'autoMaterialize',
  'watch',
  'followSymlinks',
  'protect',
] as const;

/** The commented `ws.toml` that `ws init` writes; also documents every key. */
export const SAMPLE_CONFIG = `# ws configuration. Paths are relative to this file.
resultMaxChars = 24000          # most characters of a result's data an MCP call gets whole
sessionIdleSeconds = 600        # ws serve closes an HTTP session unused this long
maxSessions = 64                # ws serve keeps at most this many HTTP sessions (the longest idle closes first)
grepTimeoutMs = 10000           # a grep answers what it found after this long, saying where it stopped

[store]
path = ".ws/store.sqlite"       # the embedded SQLite store (drafts, branches, evidence)
# url = "postgres://ws@db.example/ws"   # or a store shared by several machines (instead of path)
# host = "build-box"            # this machine's id on a shared store (default: its hostname)

[[mount]]
name = "work"                   # the path prefix: work/src/a.ts
path = "."                      # the mount's root directory
backend = "store"               # "store" (drafts until materialized) or "direct" (disk as it is)
mode = "read-write"             # or "read-only"
ignore = ["node_modules/", ".git/", "*.log"]   # gitignore syntax, on top of editors' swap/backup files
gitignore = true                # honour .gitignore and .ignore files, nested ones too
maxFileSize = 5242880           # larger files are read and searched straight from disk, never edited or stored
autoMaterialize = false         # push each agent change to disk at once
watch = "on-tool-call"          # or "always" (a file watcher) or "never" (only sync)
followSymlinks = false          # follow symlinks that stay inside the root
protect = [".git/"]             # gitignore syntax: an agent may read these but never change them
`;

type Table = Record<string, unknown>;

function isTable(v: unknown): v is Table {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (isTable(v)) return 'a table';
  return typeof v === 'string' ? `"${v}"` : String(v);
}

class Checker {
  constructor(readonly file: string) {}

  fail(key: string, problem: string): never {
    throw new ConfigError(`${this.file}: ${key} ${problem}`);
  }

  onlyKeys(table: Table, where: string, allowed: readonly string[]): void {
    for (const key of Object.keys(table)) {
      if (!allowed.includes(key)) {
        const name = where ? `${where}.${key}` : key;
        this.fail(name, `is not a known key; allowed here: ${allowed.join(', ')}.`);
      }
    }
  }

  positiveInteger(table: Table, key: string, where: string, fallback: number): number {
    const v = table[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
      this.fail(`${where}${key}`, `must be a whole number above 0, not ${describe(v)}.`);
    }
    return v;
  }

  oneOf<T extends string>(table: Table, key: string, where: string, allowed: readonly T[], fallback: T): T {
    const v = table[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
      this.fail(`${where}${key}`, `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, not ${describe(v)}.`);
    }
    return v as T;
  }

  boolean(table: Table, key: string, where: string, fallback: boolean): boolean {
    const v = table[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') this.fail(`${where}${key}`, `must be true or false, not ${describe(v)}.`);
    return v;
  }

  string(table: Table, key: string, where: string): string | undefined {
    const v = table[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v === '') this.fail(`${where}${key}`, `must be a non-empty string, not ${describe(v)}.`);
    return v;
  }

  stringList(table: Table, key: string, where: string, fallback: readonly string[]): readonly string[] {
    const v = table[key];
    if (v === undefined) return fallback;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      this.fail(`${where}${key}`, 'must be a list of gitignore patterns (strings).');
    }
    return v as string[];
  }
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** The machine's hostname as a host id (characters a host id can't hold become "-"). */
function defaultHostId(): string {
  const name = (hostname() || 'localhost').replace(/[^A-Za-z0-9_.:-]/g, '-').slice(0, 100);
  return /^[A-Za-z0-9]/.test(name) ? name : `h${name.slice(0, 99)}`;
}

/**
 * Checks a parsed TOML document and makes its paths absolute against `baseDir`.
 * `file` names the source in error sentences.
 */
export function checkConfig(doc: unknown, file: string, baseDir: string): HostConfig {
  const c: Checker = new Checker(file);
  if (!isTable(doc)) c.fail('the document', 'must be a TOML table.');
  c.onlyKeys(doc, '', TOP_KEYS);
  const resultMaxChars = c.positiveInteger(doc, 'resultMaxChars', '', DEFAULT_RESULT_MAX_CHARS);
  const sessionIdleSeconds = c.positiveInteger(doc, 'sessionIdleSeconds', '', DEFAULT_SESSION_IDLE_SECONDS);
  const maxSessions = c.positiveInteger(doc, 'maxSessions', '', DEFAULT_MAX_SESSIONS);
  const grepTimeoutMs = c.positiveInteger(doc, 'grepTimeoutMs', '', DEFAULT_GREP_TIMEOUT_MS);

  const store = doc.store ?? {};
  if (!isTable(store)) c.fail('store', 'must be a table ([store]).');
  c.onlyKeys(store, 'store', STORE_KEYS);
  const storeUrl = c.string(store, 'url', 'store.');
  if (storeUrl !== undefined) {
    if (store.path !== undefined) c.fail('store.url', 'and store.path are both set; a store is one or the other (a SQLite file, or a PostgreSQL URL).');
    if (!/^postgres(ql)?:\/\/./.test(storeUrl)) c.fail('store.url', 'must be a PostgreSQL URL ("postgres://user@host/database", or postgresql://).');
  }
  const storeHost = c.string(store, 'host', 'store.') ?? defaultHostId();
  if (!HOST_ID.test(storeHost)) {
    c.fail('store.host', `"${storeHost}" must be up to 100 letters, digits, "_", ".", ":" or "-" (it names this machine on a shared store).`);
  }
  // Symlinks of existing directories resolved, so the store compares with the (real) roots.
  const storePath = realParents(resolve(baseDir, c.string(store, 'path', 'store.') ?? (storeUrl === undefined ? DEFAULT_STORE_PATH : SHARED_STORE_LOCAL)));
  if (kindAt(storePath) === 'directory') {
    c.fail('store.path', `"${storePath}" is a directory; name the store's file, e.g. ".ws/store.sqlite".`);
  }

  const rawMounts = doc.mount;
  if (rawMounts === undefined) c.fail('mount', 'is missing; add at least one [[mount]] with a name and a path.');
  if (!Array.isArray(rawMounts) || rawMounts.length === 0 || !rawMounts.every(isTable)) {
    c.fail('mount', 'must be one or more [[mount]] tables.');
  }

  const mounts: MountConfig[] = [];
  rawMounts.forEach((m: Table, i) => {
    const where = `mount[${i}].`;
    c.onlyKeys(m, `mount[${i}]`, MOUNT_KEYS);
    const name = c.string(m, 'name', where);
    if (name === undefined) c.fail(`${where}name`, 'is missing; every mount needs a name (its path prefix).');
    if (!NAME.test(name)) {
      c.fail(`${where}name`, `"${name}" must be letters, digits, "_", "." or "-" (it becomes a path prefix).`);
    }
    if (mounts.some((other) => other.name === name)) {
      c.fail(`${where}name`, `"${name}" is already the name of another mount; mount names must be unique.`);
    }
    const path = c.string(m, 'path', where);
    if (path === undefined) c.fail(`${where}path`, `is missing; mount "${name}" needs a directory.`);
    const root = resolve(baseDir, path);
    const rootKind = kindAt(root);
    if (rootKind === 'missing') c.fail(`${where}path`, `"${path}" (${root}) does not exist; create it or fix the path.`);
    if (rootKind !== 'directory') c.fail(`${where}path`, `"${path}" (${root}) is not a directory.`);
    const mode = c.oneOf(m, 'mode', where, ['read-write', 'read-only'] as const, 'read-write');
    mounts.push({
      name,
      root: realOrSame(root),
      backend: c.oneOf(m, 'backend', where, ['store', 'direct'] as const, 'store'),
      readOnly: mode === 'read-only',
      ignore: c.stringList(m, 'ignore', where, DEFAULT_IGNORE),
      gitignore: c.boolean(m, 'gitignore', where, true),
      maxFileSize: c.positiveInteger(m, 'maxFileSize', where, DEFAULT_MAX_FILE_SIZE),
      autoMaterialize: c.boolean(m, 'autoMaterialize', where, false),
      watch: c.oneOf(m, 'watch', where, ['on-tool-call', 'always', 'never'] as const, 'on-tool-call'),
      followSymlinks: c.boolean(m, 'followSymlinks', where, false),
      protect: c.stringList(m, 'protect', where, DEFAULT_PROTECT),
    });
  });

  for (const a of mounts) {
    for (const b of mounts) {
      if (a !== b && isInside(a.root, b.root)) {
        const i = mounts.indexOf(b);
        c.fail(`mount[${i}].path`, `puts mount "${b.name}" inside mount "${a.name}" (${a.root}); mounts must not nest.`);
      }
    }
  }
  return {
    source: file,
    resultMaxChars,
    sessionIdleSeconds,
    maxSessions,
    grepTimeoutMs,
    storePath,
    ...(storeUrl === undefined ? {} : { storeUrl }),
    storeHost,
    mounts,
  };
}

/**
 * The embedded default: the working directory as store-backed `work`, watched
 * (`watch = "always"`: a server's greps then read the store without a pass — the host
 * README, "Watching"), store at `.ws/store.sqlite`. One-shot commands don't watch.
 */
export function defaultConfig(cwd: string): HostConfig {
  return checkConfig({ mount: [{ name: 'work', path: '.', watch: 'always' }] }, 'embedded default', cwd);
}

/**
 * Loads `--config FILE` when given, else `ws.toml` in `cwd`, else the embedded default.
 * Throws `ConfigError` with one line to print.
 */
export async function loadConfig(cwd: string, configFile?: string): Promise<HostConfig> {
  const file = configFile === undefined ? resolve(cwd, 'ws.toml') : resolve(cwd, configFile);
  if (configFile === undefined && !existsSync(file)) return defaultConfig(cwd);
  if (!existsSync(file)) throw new ConfigError(`${file}: the config file does not exist; run ws init to write one.`);
  if (statSync(file).isDirectory()) throw new ConfigError(`${file}: is a directory; name the config file, e.g. ws.toml.`);
  let doc: unknown;
  try {
    // Read at once, not awaited: a one-shot command's event loop, idle while a read it
    // waits on is done elsewhere, let Bun collect garbage there (4–5 ms of its start).
    doc = Bun.TOML.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ConfigError(`${file}: not valid TOML (${why.split('\n')[0]}).`);
  }
  return checkConfig(doc, file, dirname(file));
}
