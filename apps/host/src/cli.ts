#!/usr/bin/env bun
/**
 * The `ws` command: wires flags to the host. The one rule: bad usage or a bad config is
 * one clear line on stderr and exit code 2; a tool error from `ws call` is the error
 * JSON on stdout and exit code 1; success is exit code 0. No stack trace reaches a person.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { handleToolCall, tools } from '@ws/tools';
import { ConfigError, type HostConfig, loadConfig, SAMPLE_CONFIG } from './config.ts';
import { type Host, openHost } from './host.ts';
import { DEFAULT_PORT, serveMcpHttp, serveMcpStdio } from './serve.ts';

const USAGE = `usage: ws [--config FILE] COMMAND
  mcp                              MCP server on stdio
  serve [--port N]                 MCP over Streamable HTTP on 127.0.0.1
  call TOOL [JSON] [--result-max-chars N]   one tool call; prints the result JSON
  status | sync [PATH] | materialize [PATH] [--force]
  branch list | branch create NAME | branch switch NAME
  tools                            the tool list
  init                             write a commented ws.toml here`;

/** Bad usage: one line on stderr, exit 2. */
class UsageError extends Error {}

interface Parsed {
  readonly command: string;
  readonly args: string[];
  readonly flags: Map<string, string | true>;
}

const FLAGS_WITH_VALUE = new Set(['--config', '--port', '--result-max-chars']);
const FLAGS_ALONE = new Set(['--force', '--help', '-h']);
const COMMAND_FLAGS: Record<string, readonly string[]> = {
  serve: ['--port'],
  call: ['--result-max-chars'],
  materialize: ['--force'],
};

function parse(argv: readonly string[]): Parsed {
  const flags = new Map<string, string | true>();
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('-') && a !== '-') {
      const [name, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
      if (FLAGS_WITH_VALUE.has(name)) {
        const value = inline ?? argv[++i];
        if (value === undefined) throw new UsageError(`ws: ${name} needs a value.`);
        flags.set(name, value);
      } else if (FLAGS_ALONE.has(name) && inline === undefined) {
        flags.set(name, true);
      } else {
        throw new UsageError(`ws: unknown flag ${a}; run ws --help for the flags each command takes.`);
      }
    } else {
      rest.push(a);
    }
  }
  const [command = 'help', ...args] = rest;
  for (const name of flags.keys()) {
    if (name === '--config' || name === '--help' || name === '-h') continue;
    if (!(COMMAND_FLAGS[command] ?? []).includes(name)) {
      throw new UsageError(`ws: ${name} does not apply to "${command}".`);
    }
  }
  return { command, args, flags };
}

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

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function withHost<T>(config: HostConfig, run: (host: Host) => Promise<T>): Promise<T> {
  const host = await openHost(config, { watch: false });
  try {
    return await run(host);
  } finally {
    host.close();
  }
}

/** Runs one tool call and prints its result; exit 1 when the tool answered an error. */
async function callTool(host: Host, name: string, input: unknown, resultMaxChars: number | undefined): Promise<number> {
  const result = await handleToolCall(host.workspace, { name, input, ...(resultMaxChars ? { resultMaxChars } : {}) });
  print(result);
  return result.success ? 0 : 1;
}

async function run(argv: readonly string[]): Promise<number> {
  const p = parse(argv);
  if (p.command === 'help' || p.flags.has('--help') || p.flags.has('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const cwd = process.cwd();
  switch (p.command) {
    case 'tools':
      expectArgs(p, 0, 0, 'tools');
      print(tools);
      return 0;
    case 'init': {
      expectArgs(p, 0, 0, 'init');
      const file = resolve(cwd, 'ws.toml');
      if (existsSync(file)) throw new UsageError(`ws: ${file} already exists; edit it, or remove it and run ws init again.`);
      writeFileSync(file, SAMPLE_CONFIG);
      process.stdout.write(`wrote ${file}\n`);
      return 0;
    }
    default:
      break;
  }

  const configFlag = p.flags.get('--config');
  const config = await loadConfig(cwd, typeof configFlag === 'string' ? configFlag : undefined);
  switch (p.command) {
    case 'mcp':
      expectArgs(p, 0, 0, 'mcp');
      await serveMcpStdio(config);
      return 0;
    case 'serve': {
      expectArgs(p, 0, 0, 'serve [--port N]');
      await serveMcpHttp(config, { port: portFlag(p.flags) ?? DEFAULT_PORT, announce: true });
      return 0;
    }
    case 'call': {
      expectArgs(p, 1, 2, 'call TOOL [JSON] [--result-max-chars N]');
      let input: unknown = {};
      if (p.args[1] !== undefined) {
        try {
          input = JSON.parse(p.args[1]);
        } catch {
          throw new UsageError(`ws: the input for ${p.args[0]} is not valid JSON: ${p.args[1].slice(0, 80)}`);
        }
      }
      const budget = positiveInt(p.flags, '--result-max-chars');
      return withHost(config, (host) => callTool(host, p.args[0], input, budget));
    }
    case 'status':
      expectArgs(p, 0, 0, 'status');
      return withHost(config, (host) => callTool(host, 'status', {}, undefined));
    case 'sync':
      expectArgs(p, 0, 1, 'sync [PATH]');
      return withHost(config, (host) => callTool(host, 'sync', p.args[0] ? { path: p.args[0] } : {}, undefined));
    case 'materialize': {
      expectArgs(p, 0, 1, 'materialize [PATH] [--force]');
      const input = { ...(p.args[0] ? { path: p.args[0] } : {}), ...(p.flags.has('--force') ? { force: true } : {}) };
      return withHost(config, (host) => callTool(host, 'materialize', input, undefined));
    }
    case 'branch': {
      const [verb, name] = p.args;
      if (verb === 'list' && p.args.length === 1) {
        return withHost(config, async (host) => {
          print(host.branches.list());
          return 0;
        });
      }
      if ((verb === 'create' || verb === 'switch') && p.args.length === 2 && name) {
        return withHost(config, async (host) => {
          const outcome = verb === 'create' ? host.branches.create(name) : await host.branches.switchTo(name);
          print(outcome);
          return outcome.ok ? 0 : 1;
        });
      }
      throw new UsageError('ws: usage: ws branch list | ws branch create NAME | ws branch switch NAME');
    }
    default:
      throw new UsageError(`ws: unknown command "${p.command}"; run ws --help for the commands.`);
  }
}

/** Runs the CLI and returns the exit code (tests call this in-process where they can). */
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
  // mcp and serve resolve only when their transport closes or a signal stops them.
  process.exit(await main(process.argv.slice(2)));
}
