/**
 * The bin's entry picks the bundle that runs a command by `servesMcp` (src/bin/entry.ts):
 * it must read the command word exactly as the CLI's parser does, or a server command
 * would reach the bundle without the server, and a one-shot command load the server's.
 */
import { describe, expect, test } from 'bun:test';
import { parse, servesMcp } from '../src/cli-args.ts';

describe('the command word the bin picks its bundle by', () => {
  test('mcp and serve, wherever the flags put them, and nothing else', () => {
    const cases: [readonly string[], boolean][] = [
      [['mcp'], true],
      [['serve', '--port', '0'], true],
      [['--config', 'ws.toml', 'serve', '--no-auth'], true],
      [['--cwd=/tmp', 'mcp'], true],
      [['--', 'mcp'], true],
      // A flag's value is not the command, though it reads like one.
      [['--config', 'mcp', 'call', 'ls'], false],
      [['--cwd', 'serve', 'status'], false],
      [['call', 'read', '{"path":"mcp"}'], false],
      [['sync', 'serve'], false],
      [['--help'], false],
      [[], false],
      // Usage errors go to the command bundle, which reports them.
      [['mcp', '--port', '1'], false],
      [['serve', '--port'], false],
      [['--bogus', 'mcp'], false],
    ];
    for (const [argv, serves] of cases) {
      expect({ argv, serves: servesMcp(argv) }).toEqual({ argv, serves });
      let command: string | undefined;
      try {
        command = parse(argv).command;
      } catch {
        command = undefined;
      }
      expect({ argv, serves: command === 'mcp' || command === 'serve' }).toEqual({ argv, serves });
    }
  });
});
