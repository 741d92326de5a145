/**
 * The bin's bundle for `ws mcp` and `ws serve` (see `entry.ts`): the CLI with the MCP
 * server in it. The command bundle names this file where the CLI imports the server, so
 * a server command that reached it would still run; the entry sends those here.
 */
export { main } from '../cli.ts';
export { DEFAULT_PORT, serveMcpHttp, serveMcpStdio } from '../serve.ts';
