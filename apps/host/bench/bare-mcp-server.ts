/**
 * The reference for `ws mcp`'s start-up in mcp.bench.ts: the SDK's low-level server on
 * stdio with one tool and nothing else — no tools package, no store, no disk.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'bare', version: '0.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'noop', description: 'Does nothing.', inputSchema: { type: 'object' as const } }],
}));
await server.connect(new StdioServerTransport());
process.stdin.once('end', () => process.exit(0));
