#!/usr/bin/env bun
/**
 * The `ws` command: wires flags to the host. The one rule: bad usage or a bad config is
 * one clear line on stderr and exit code 2; a tool error from `ws call` is the error
 * JSON on stdout and exit code 1; success is exit code 0. No stack trace reaches a person.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { handleToolCall, listingOf, tools } from '@ws/tools';
import { ConfigError, type HostConfig, loadConfig, SAMPLE_CONFIG } from './config.ts';
import { type Host, openHost } from './host.ts';
import { collector } from './collector.ts';
import { oneShotCommand } from './disk/one-shot.ts';
import { printJson } from './pretty-json.ts';
import { type Parsed, UsageError, parse } from './cli-args.ts';
import { startAgainFor } from './bin/start-again.ts';

const USAGE = `usage: ws [--config FILE] [--cwd DIR] COMMAND

  mcp                          an MCP server on stdio (for clients that start it)
  serve [--port N] [--no-auth] MCP over Streamable HTTP on 127.0.0.1 (default port 7357; 0: any free port);
                               clients send the token (--no-auth: any local process may connect)
  token [--new]                print the token ws serve asks for (--new: add another and print it)
  call TOOL [JSON|-] [--result-max-chars N]
                               one tool call; prints the result JSON ("-": read the JSON from stdin)
  tools                        the tools with their input schemas
  status                       each mount's drafts, conflicts and what was passed over
  sync [PATH]                  take disk's changes in
  sync --accept-new-root [MOUNT]  accept a moved or re-created mount root as the mount
  materialize [PATH] [--force] write drafts to disk
  branch list | branch create NAME | branch switch NAME
  init                         write a commented ws.toml here (or at --config FILE)

--config FILE: the configuration; else ws.toml in the working directory; else the
working directory mounted as "work" (store-backed, store at .ws/store.sqlite).
--cwd DIR: run as if started in DIR.
Exit codes: 0 success, 1 a tool error or a failure, 2 bad usage or a bad config.`;

function positiveInt(flags: Parsed['flags'], name: string): number | undefined {
  const v = flags.get(name);
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^[0-9]+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`ws: ${name} must be a whole number above 0, not "${v}".`);
  return n;
}

function portFlag(flags: Parsed['flags']): number | undefined {
  const v = flags.get('--port');
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^[0-9]+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isInteger(n) || n > 65535) throw new UsageError(`ws: --port must be a port number from 0 (any free port) to 65535, not "${v}".`);
  return n;
}

function expectArgs(p: Parsed, min: number, max: number, shape: string): void {
  if (p.args.length < min || p.args.length > max) throw new UsageError(`ws: usage: ws ${shape}`);
}

/**
 * Writes to stdout and resolves once the bytes are handed on, so exiting cannot cut them
 * off. Through `Bun.stdout`, not `process.stdout`: the latter loads Node's streams, about
 * 9 ms of a one-shot command's start. A closed stdout loses the text and nothing else.
 */
function writeOut(text: string): Promise<void> {
  return Bun.write(Bun.stdout, text).then(
    () => undefined,
    () => undefined,
  );
}

/**
 * Prints `value` as `JSON.stringify(value, null, 2)` and a line end, a chunk at a time,
 * the young garbage collected as it goes: a first sync's answer lists every file taken
 * in (6.7 MB for 42,000 files), and one string of it, with its UTF-8 copy, cost tens of
 * MiB at the sync's peak.
 */
function print(value: unknown): Promise<void> {
  const reclaim = collector();
  return printJson(value, writeOut, () => reclaim(false));
}

/** The input of `ws call`: JSON from the argument, or from stdin for "-", or `{}`. */
function callInput(tool: string, arg: string | undefined): unknown {
  if (arg === undefined) return {};
  const text = arg === '-' ? readFileSync(0, 'utf8') : arg;
  try {
    return JSON.parse(text);
  } catch {
    const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    throw new UsageError(`ws: the input for ${tool} is not valid JSON: ${shown.replace(/\s+/g, ' ')}`);
  }
}

/**
 * Opens the host for one command. No watcher runs for it, so a mount that counts on one
 * (`watch = "always"`) settles the paths the command touches itself, as `on-tool-call`
 * does: a one-shot `ws status` never reports from a store nobody kept current. Its walk's
 * hot code stays below JavaScriptCore's top tier (see `disk/one-shot.ts`).
 */
async function withHost<T>(config: HostConfig, run: (host: Host) => Promise<T>): Promise<T> {
  oneShotCommand();
  const mounts = config.mounts.map((m) => (m.watch === 'always' ? { ...m, watch: 'on-tool-call' as const } : m));
  const host = await openHost({ ...config, mounts }, { watch: false });
  try {
    return await run(host);
  } finally {
    host.close();
  }
}

/** Runs one tool call and prints its result; exit 1 when the tool answered an error. */
async function callTool(host: Host, name: string, input: unknown, resultMaxChars: number | undefined): Promise<number> {
  const result = await handleToolCall(host.workspace, { name, input, ...(resultMaxChars ? { resultMaxChars } : {}) });
  await print(result);
  return result.success ? 0 : 1;
}

/** `ws token [--new]`: the token `ws serve` asks for (made where there is none), or a new one added. */
async function printToken(config: HostConfig, fresh: boolean): Promise<number> {
  // Loaded here only, as the MCP SDK is for serving: no other command needs node:crypto.
  const [{ addToken, ensureTokens }, { tokenPath }] = await Promise.all([import('./auth.ts'), import('./disk/token-file.ts')]);
  const file = tokenPath(config.storePath);
  if (fresh) {
    const added = addToken(file);
    if (!added.ok) throw new Error(added.message);
    process.stderr.write(`ws: added a token to ${file}; a running ws serve accepts it from now on\n`);
    await writeOut(`${added.token}\n`);
    return 0;
  }
  const tokens = ensureTokens(file);
  if (!tokens.ok) throw new Error(tokens.message);
  if (tokens.made) process.stderr.write(`ws: made a new token in ${file}\n`);
  await writeOut(`${tokens.tokens[0]}\n`);
  return 0;
}

async function run(argv: readonly string[]): Promise<number> {
  const p = parse(argv);
  if (p.command === 'help' || p.flags.has('--help') || p.flags.has('-h')) {
    await writeOut(`${USAGE}\n`);
    return 0;
  }
  if (p.command === undefined) throw new UsageError('ws: no command given; run ws --help for the commands.');
  const cwdFlag = p.flags.get('--cwd');
  if (typeof cwdFlag === 'string') {
    const dir = resolve(cwdFlag);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`ws: --cwd ${cwdFlag} is not a directory.`);
    process.chdir(dir);
  }
  const cwd = process.cwd();
  const configFlag = p.flags.get('--config');
  const configFile = typeof configFlag === 'string' ? configFlag : undefined;
  switch (p.command) {
    case 'tools':
      expectArgs(p, 0, 0, 'tools');
      await print(tools.map(listingOf));
      return 0;
    case 'init': {
      expectArgs(p, 0, 0, 'init');
      const file = resolve(cwd, configFile ?? 'ws.toml');
      if (existsSync(file)) throw new UsageError(`ws: ${file} already exists; edit it, or remove it and run ws init again.`);
      writeFileSync(file, SAMPLE_CONFIG);
      await writeOut(`wrote ${file}\n`);
      return 0;
    }
    case 'call': {
      expectArgs(p, 1, 2, 'call TOOL [JSON|-] [--result-max-chars N]');
      const [name, arg] = p.args;
      if (!tools.some((t) => t.name === name)) {
        throw new UsageError(`ws: there is no tool named "${name}"; the tools are ${tools.map((t) => t.name).join(', ')}.`);
      }
      const budget = positiveInt(p.flags, '--result-max-chars');
      const input = callInput(name, arg);
      const config = await loadConfig(cwd, configFile);
      return withHost(config, (host) => callTool(host, name, input, budget));
    }
    case 'mcp': {
      expectArgs(p, 0, 0, 'mcp');
      const config = await loadConfig(cwd, configFile);
      // Loaded here only: the MCP SDK takes most of the start-up time.
      const { serveMcpStdio } = await import('./serve.ts');
      await serveMcpStdio(config);
      return 0;
    }
    case 'serve': {
      expectArgs(p, 0, 0, 'serve [--port N] [--no-auth]');
      const port = portFlag(p.flags);
      const config = await loadConfig(cwd, configFile);
      const { DEFAULT_PORT, serveMcpHttp } = await import('./serve.ts');
      const auth = p.flags.has('--no-auth') ? ({ kind: 'none' } as const) : ({ kind: 'token' } as const);
      await serveMcpHttp(config, { port: port ?? DEFAULT_PORT, auth, cwd }, writeOut);
      return 0;
    }
    case 'token':
      expectArgs(p, 0, 0, 'token [--new]');
      return printToken(await loadConfig(cwd, configFile), p.flags.has('--new'));
    case 'status': {
      expectArgs(p, 0, 0, 'status');
      const config = await loadConfig(cwd, configFile);
      return withHost(config, (host) => callTool(host, 'status', {}, undefined));
    }
    case 'sync': {
      if (p.flags.has('--accept-new-root')) {
        expectArgs(p, 0, 1, 'sync --accept-new-root [MOUNT]');
        const config = await loadConfig(cwd, configFile);
        return withHost(config, async (host) => {
          const outcome = await host.acceptNewRoots(p.args[0]);
          await print(outcome.ok ? { success: true, data: outcome.data } : { success: false, error: outcome.error });
          return outcome.ok ? 0 : 1;
        });
      }
      expectArgs(p, 0, 1, 'sync [PATH] [--accept-new-root]');
      const config = await loadConfig(cwd, configFile);
      return withHost(config, (host) => callTool(host, 'sync', p.args[0] ? { path: p.args[0] } : {}, undefined));
    }
    case 'materialize': {
      expectArgs(p, 0, 1, 'materialize [PATH] [--force]');
      const input = { ...(p.args[0] ? { path: p.args[0] } : {}), ...(p.flags.has('--force') ? { force: true } : {}) };
      const config = await loadConfig(cwd, configFile);
      return withHost(config, (host) => callTool(host, 'materialize', input, undefined));
    }
    case 'branch': {
      const [verb, name] = p.args;
      const listing = verb === 'list' && p.args.length === 1;
      const naming = (verb === 'create' || verb === 'switch') && p.args.length === 2;
      if (!listing && !naming) throw new UsageError('ws: usage: ws branch list | ws branch create NAME | ws branch switch NAME');
      const config = await loadConfig(cwd, configFile);
      return withHost(config, async (host) => {
        if (listing) {
          await print(host.branches.list());
          return 0;
        }
        const outcome = verb === 'create' ? await host.branches.create(name) : await host.branches.switchTo(name);
        await print(outcome);
        return outcome.ok ? 0 : 1;
      });
    }
    default:
      throw new UsageError(`ws: unknown command "${p.command}"; run ws --help for the commands.`);
  }
}

/** Runs the CLI and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    return await run(argv);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    const why = err instanceof Error ? err.message : String(err);
    process.stderr.write(`ws: ${why.split('\n')[0]}\n`);
    return 1;
  }
}

if (import.meta.main) {
  // mcp and serve resolve only when their transport closes or a signal stops them. No
  // top-level await: the bin's bundles are CommonJS (see scripts/build-bin.ts). The bin's
  // entry (src/bin/entry.ts) requires this module and runs main itself, as it starts a
  // server again keeping its freed pages, and a one-shot grep without JavaScriptCore's top
  // tier (src/bin/start-again.ts); so does this.
  const argv = process.argv.slice(2);
  startAgainFor(argv);
  void main(argv).then((code) => process.exit(code));
}
