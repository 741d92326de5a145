/**
 * The `ws` command's arguments: flags anywhere, `--` ending them, each flag checked against
 * the command it applies to. A module of its own, with no imports, because the installed
 * bin reads the command word before it loads the bundle that runs it (`src/bin/entry.ts`).
 */

/** Bad usage: one line on stderr, exit 2. */
export class UsageError extends Error {}

export interface Parsed {
  readonly command: string | undefined;
  readonly args: string[];
  readonly flags: Map<string, string | true>;
}

const FLAGS_WITH_VALUE = new Set(['--config', '--cwd', '--port', '--result-max-chars']);
const FLAGS_ALONE = new Set(['--force', '--accept-new-root', '--no-auth', '--new', '--help', '-h']);
const GLOBAL_FLAGS = new Set(['--config', '--cwd', '--help', '-h']);
const COMMAND_FLAGS: Record<string, readonly string[]> = {
  serve: ['--port', '--no-auth'],
  token: ['--new'],
  call: ['--result-max-chars'],
  materialize: ['--force'],
  sync: ['--accept-new-root'],
};

/** Flags may come anywhere; `--` ends them, so a later argument may start with "-". */
export function parse(argv: readonly string[]): Parsed {
  const flags = new Map<string, string | true>();
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      rest.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      rest.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq < 0 ? a : a.slice(0, eq);
    const inline = eq < 0 ? undefined : a.slice(eq + 1);
    if (flags.has(name)) throw new UsageError(`ws: ${name} is given twice.`);
    if (FLAGS_WITH_VALUE.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === '') throw new UsageError(`ws: ${name} needs a value.`);
      flags.set(name, value);
    } else if (FLAGS_ALONE.has(name)) {
      if (inline !== undefined) throw new UsageError(`ws: ${name} takes no value.`);
      flags.set(name, true);
    } else {
      throw new UsageError(`ws: unknown flag ${name}; run ws --help for the flags each command takes.`);
    }
  }
  const [command, ...args] = rest;
  for (const name of flags.keys()) {
    if (GLOBAL_FLAGS.has(name)) continue;
    if (command === undefined || !(COMMAND_FLAGS[command] ?? []).includes(name)) {
      throw new UsageError(`ws: ${name} does not apply to ${command === undefined ? 'no command' : `"${command}"`}.`);
    }
  }
  return { command, args, flags };
}

/**
 * Whether `argv` asks for an MCP server (`mcp` or `serve`). Arguments that do not parse
 * are not: the command bundle reports them, as it does every usage error.
 */
export function servesMcp(argv: readonly string[]): boolean {
  try {
    const { command } = parse(argv);
    return command === 'mcp' || command === 'serve';
  } catch {
    return false;
  }
}

/**
 * Whether `argv` asks for one grep and an exit (`ws call grep`), which runs without
 * JavaScriptCore's top tier (`src/bin/start-again.ts`). Arguments that do not parse are not.
 */
export function grepsOnce(argv: readonly string[]): boolean {
  try {
    const { command, args } = parse(argv);
    return command === 'call' && args[0] === 'grep';
  } catch {
    return false;
  }
}
