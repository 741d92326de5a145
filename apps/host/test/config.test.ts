import { describe, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError, DEFAULT_MAX_FILE_SIZE, checkConfig, defaultConfig, loadConfig } from '../src/config.ts';
import { tempDir } from './fixtures.ts';

function configError(doc: unknown, base: string): string {
  try {
    checkConfig(doc, 'ws.toml', base);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  test('the embedded default mounts the working directory as store-backed work', () => {
    const dir = tempDir();
    const c = defaultConfig(dir);
    expect(c.mounts).toHaveLength(1);
    expect(c.mounts[0]).toMatchObject({ name: 'work', root: dir, backend: 'store', readOnly: false, maxFileSize: DEFAULT_MAX_FILE_SIZE });
    expect(c.storePath).toBe(join(dir, '.ws/store.sqlite'));
    expect(c.resultMaxChars).toBe(24_000);
  });

  test('ws.toml in the working directory is used, paths relative to it', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'src'));
    writeFileSync(
      join(dir, 'ws.toml'),
      'resultMaxChars = 5000\n[store]\npath = "db/s.sqlite"\n[[mount]]\nname = "src"\npath = "src"\nbackend = "direct"\nmode = "read-only"\n',
    );
    const c = await loadConfig(dir);
    expect(c.resultMaxChars).toBe(5000);
    expect(c.storePath).toBe(join(dir, 'db/s.sqlite'));
    expect(c.mounts[0]).toMatchObject({ name: 'src', root: join(dir, 'src'), backend: 'direct', readOnly: true });
  });

  test('sessionIdleSeconds and maxSessions default to 600 and 64, and take whole numbers above 0', () => {
    const dir = tempDir();
    expect(defaultConfig(dir)).toMatchObject({ sessionIdleSeconds: 600, maxSessions: 64 });
    expect(checkConfig({ sessionIdleSeconds: 30, maxSessions: 2, mount: [{ name: 'w', path: '.' }] }, 'ws.toml', dir)).toMatchObject({ sessionIdleSeconds: 30, maxSessions: 2 });
    expect(configError({ maxSessions: -1, mount: [{ name: 'w', path: '.' }] }, dir)).toBe('ws.toml: maxSessions must be a whole number above 0, not -1.');
    expect(configError({ sessionIdleSeconds: 0.5, mount: [{ name: 'w', path: '.' }] }, dir)).toBe('ws.toml: sessionIdleSeconds must be a whole number above 0, not 0.5.');
  });

  test('mount.protect is .git/ by default, a person can clear it, and it must be a list of patterns', () => {
    const dir = tempDir();
    expect(defaultConfig(dir).mounts[0].protect).toEqual(['.git/']);
    const cleared = checkConfig({ mount: [{ name: 'w', path: '.', protect: [] }] }, 'ws.toml', dir);
    expect(cleared.mounts[0].protect).toEqual([]);
    const mine = checkConfig({ mount: [{ name: 'w', path: '.', protect: ['.git/', 'secrets/**'] }] }, 'ws.toml', dir);
    expect(mine.mounts[0].protect).toEqual(['.git/', 'secrets/**']);
    expect(configError({ mount: [{ name: 'w', path: '.', protect: '.git/' }] }, dir)).toBe(
      'ws.toml: mount[0].protect must be a list of gitignore patterns (strings).',
    );
  });

  test('an unknown key is named with what is allowed', () => {
    const dir = tempDir();
    const msg = configError({ mount: [{ name: 'w', path: '.', colour: 'red' }] }, dir);
    expect(msg).toStartWith('ws.toml: mount[0].colour is not a known key; allowed here: name, path,');
    expect(configError({ resultMaxChar: 5, mount: [{ name: 'w', path: '.' }] }, dir)).toContain('resultMaxChar is not a known key');
  });

  test('a missing mount path is refused', () => {
    const dir = tempDir();
    expect(configError({ mount: [{ name: 'w', path: 'nope' }] }, dir)).toContain('mount[0].path "nope"');
  });

  test('a duplicate mount name is refused', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    const msg = configError({ mount: [{ name: 'w', path: 'a' }, { name: 'w', path: 'b' }] }, dir);
    expect(msg).toContain('mount[1].name "w" is already the name of another mount');
  });

  test('a mount nested inside another is refused', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'a/b'), { recursive: true });
    const msg = configError({ mount: [{ name: 'outer', path: 'a' }, { name: 'inner', path: 'a/b' }] }, dir);
    expect(msg).toContain('puts mount "inner" inside mount "outer"');
  });

  test('wrong types and values name the key and what is allowed', () => {
    const dir = tempDir();
    expect(configError({ mount: [{ name: 'w', path: '.', backend: 'cloud' }] }, dir)).toContain('must be one of "store", "direct"');
    expect(configError({ mount: [{ name: 'w', path: '.', maxFileSize: -1 }] }, dir)).toContain('must be a whole number above 0');
    expect(configError({ mount: [{ name: 'w', path: '.', autoMaterialize: 'yes' }] }, dir)).toContain('must be true or false');
    expect(configError({ mount: [{ name: 'a/b', path: '.' }] }, dir)).toContain('mount[0].name');
    expect(configError({ resultMaxChars: 1.5, mount: [{ name: 'w', path: '.' }] }, dir)).toContain('resultMaxChars must be a whole number');
    expect(configError({}, dir)).toContain('mount is missing');
  });

  test('a config file that is not TOML is one clear line', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ws.toml'), '[[mount]\nname = ');
    const err = await loadConfig(dir).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('not valid TOML');
    expect(err.message.split('\n')).toHaveLength(1);
  });

  test('--config naming a missing file is refused', async () => {
    const err = await loadConfig(tempDir(), 'missing.toml').catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('does not exist');
  });

  test('--config naming a directory is refused as one line', async () => {
    const dir = tempDir();
    const err = await loadConfig(dir, '.').catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe(`${dir}: is a directory; name the config file, e.g. ws.toml.`);
  });

  test('[store] url makes a shared store: one of path and url, a PostgreSQL URL, and a host id defaulting to the hostname', () => {
    const dir = tempDir();
    const mount = [{ name: 'w', path: '.' }];
    const shared = checkConfig({ store: { url: 'postgres://ws@db/ws', host: 'ci-3' }, mount }, 'ws.toml', dir);
    expect(shared).toMatchObject({ storeUrl: 'postgres://ws@db/ws', storeHost: 'ci-3', storePath: join(dir, '.ws/shared-store') });
    const local = checkConfig({ mount }, 'ws.toml', dir);
    expect(local.storeUrl).toBeUndefined();
    expect(local.storeHost).toBe(hostname().replace(/[^A-Za-z0-9_.:-]/g, '-') || 'localhost');
    expect(configError({ store: { url: 'postgres://ws@db/ws', path: 's.sqlite' }, mount }, dir)).toContain('store.url and store.path are both set');
    const badUrl = configError({ store: { url: 'mysql://root:hunter2@db/ws' }, mount }, dir);
    expect(badUrl).toContain('store.url must be a PostgreSQL URL');
    expect(badUrl).not.toContain('hunter2');
    expect(configError({ store: { url: 'postgres://db/ws', host: 'a b' }, mount }, dir)).toContain('store.host "a b" must be');
    expect(configError({ store: { url: 'postgres://db/ws', hosts: 'x' }, mount }, dir)).toContain('allowed here: path, url, host');
  });

  test('a store path that is a directory is refused', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'db'));
    expect(configError({ store: { path: 'db' }, mount: [{ name: 'w', path: '.' }] }, dir)).toContain('store.path');
  });

  test("the store's path is made real like the mounts' roots, so a store inside a mount is seen inside it", () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'real/.ws'), { recursive: true });
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    const c = checkConfig({ store: { path: 'link/.ws/store.sqlite' }, mount: [{ name: 'w', path: 'link' }] }, 'ws.toml', dir);
    expect(c.mounts[0].root).toBe(join(dir, 'real'));
    expect(c.storePath).toBe(join(dir, 'real/.ws/store.sqlite'));
    const later = checkConfig({ store: { path: 'link/not-yet/s.sqlite' }, mount: [{ name: 'w', path: 'link' }] }, 'ws.toml', dir);
    expect(later.storePath).toBe(join(dir, 'real/not-yet/s.sqlite'));
  });
});
