/**
 * The tools as an MCP server: every `@ws/tools` tool listed from its record (title,
 * schemas, annotations); a result's data as `structuredContent` and the same JSON as
 * text; a tool error as an `isError` result holding its sentence; a call's progress
 * token and cancellation passed to the tool.
 * The one rule: every call carries the configured `resultMaxChars`, so every answer fits
 * what reaches the model.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { handleToolCall, listingOf, type Progress, type ToolListing, tools, type Workspace } from '@ws/tools';
import { CallTracker } from './calls.ts';

/** The server's name and version as clients see them. */
export const SERVER_INFO = { name: 'ws', version: '0.1.0' } as const;

/** What the server tells a client at its start: the mounts by name, as every path begins. */
export function instructionsFor(mounts: readonly string[]): string {
  const named = mounts.length === 0 ? 'no mounts yet' : `the mounts are ${mounts.join(', ')}`;
  return (
    `File tools over named mounts (${named}): every path starts with its mount name (e.g. ${mounts[0] ?? 'work'}/src/a.ts), never an absolute path. ` +
    'Pages and answers that stop early say in their note how to read on.'
  );
}

/** At most this often a call's progress is sent (a few a second). */
const PROGRESS_EVERY_MS = 250;

/** An MCP server (not yet connected to a transport) answering with `workspace`. */
export function createMcpServer(workspace: Workspace, resultMaxChars: number, calls: CallTracker = new CallTracker()): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: instructionsFor(workspace.mounts.map((m) => m.name)) });
  // The listing is derived from the tools' records; the SDK types schemas more narrowly than JSON Schema.
  const listed = tools.map((t) => listingOf(t) as ToolListing & { inputSchema: { type: 'object' } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    let last = 0;
    const progress =
      token === undefined
        ? undefined
        : (p: Progress) => {
            const now = Date.now();
            if (now - last < PROGRESS_EVERY_MS && (p.total === undefined || p.done < p.total)) return;
            last = now;
            const params = { progressToken: token, progress: p.done, ...(p.total === undefined ? {} : { total: p.total }), ...(p.message ? { message: p.message } : {}) };
            extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {});
          };
    const result = await calls.track(
      handleToolCall(workspace, {
        name: request.params.name,
        input: request.params.arguments ?? {},
        resultMaxChars,
        signal: extra.signal,
        ...(progress ? { progress } : {}),
      }),
    );
    if (extra.signal.aborted) {
      // A cancelled call's answer goes to no one (MCP drops it); what it did goes to the log.
      const said = result.success ? JSON.stringify(result.data) : result.error;
      console.error(`ws: ${request.params.name} was cancelled: ${said.length > 500 ? `${said.slice(0, 500)}…` : said}`);
    }
    if (result.success) {
      // The data as structured content, and the same JSON as text for clients that read only text.
      const structuredContent = result.data as Record<string, unknown>;
      const images = (result.images ?? []).map((i) => ({ type: 'image' as const, data: i.data, mimeType: i.mimeType }));
      return { content: [{ type: 'text' as const, text: JSON.stringify(result.data) }, ...images], structuredContent };
    }
    // The error is a sentence for the model; it is shown as is.
    return { content: [{ type: 'text' as const, text: result.error }], isError: true };
  });
  return server;
}
