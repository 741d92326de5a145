/**
 * The tools as an MCP server: every `@ws/tools` tool with its JSON Schema; a result's
 * data as JSON text content; a tool error as an `isError` result holding its sentence. The one rule: every call
 * carries the configured `resultMaxChars`, so every answer fits what reaches the model.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { handleToolCall, tools, type Workspace } from '@ws/tools';

/** The server's name and version as clients see them. */
export const SERVER_INFO = { name: 'ws', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'File tools over named mounts: every path starts with its mount name (e.g. work/src/a.ts). ' +
  'Pages and answers that stop early say in their note how to read on.';

/** An MCP server (not yet connected to a transport) answering with `workspace`. */
export function createMcpServer(workspace: Workspace, resultMaxChars: number): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as never })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const result = await handleToolCall(workspace, {
      name: request.params.name,
      input: request.params.arguments ?? {},
      resultMaxChars,
    });
    if (result.success) {
      return { content: [{ type: 'text' as const, text: JSON.stringify(result.data) }] };
    }
    // The error is a sentence for the model; it is shown as is.
    return { content: [{ type: 'text' as const, text: result.error }], isError: true };
  });
  return server;
}
