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
import { grepsOnce, servesMcp } from '../cli-args.ts';
import { KEEP_PAGES, NO_TOP_TIER, startAgainWith, takesTopTierOption } from './start-again.ts';

declare const WS_BIN_DIR: string;

const argv = process.argv.slice(2);
const serves = servesMcp(argv);
if (serves) startAgainWith(KEEP_PAGES);
else if (grepsOnce(argv) && takesTopTierOption(Bun.version)) startAgainWith(NO_TOP_TIER);
const bundle = serves ? 'ws-server.js' : 'ws-command.js';
const { main } = require(`${WS_BIN_DIR}/${bundle}`) as typeof import('../cli.ts');
void main(argv).then((code) => process.exit(code));
