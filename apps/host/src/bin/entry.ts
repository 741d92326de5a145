#!/usr/bin/env bun
/**
 * The installed bin's first module (`dist/cli.js`). A process runs one command, and the
 * CLI is built as two bundles (`scripts/build-bin.ts`): `ws-server.js` with the MCP
 * server, for `mcp` and `serve`, and `ws-command.js` without it. The SDK, its schema
 * libraries and the review page were most of what every one-shot command loaded and
 * never ran, and a bundle costs start-up by its size whether its code runs or not. This
 * picks one bundle by the command word alone, so no module is loaded twice in a process.
 * A server first starts itself again keeping its allocator's freed pages, and a one-shot
 * grep without JavaScriptCore's top tier (`start-again.ts`).
 */
import { servesMcp } from '../cli-args.ts';
import { startAgainFor } from './start-again.ts';

declare const WS_BIN_DIR: string;

const argv = process.argv.slice(2);
startAgainFor(argv);
const bundle = servesMcp(argv) ? 'ws-server.js' : 'ws-command.js';
const { main } = require(`${WS_BIN_DIR}/${bundle}`) as typeof import('../cli.ts');
void main(argv).then((code) => process.exit(code));
