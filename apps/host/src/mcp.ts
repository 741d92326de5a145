/**
 * The tools as an MCP server: every `@ws/tools` tool with its JSON Schema; a result's
 * data as JSON text content; a tool error as an `isError` result holding its sentence.
 * The one rule: every call carries the configured `resultMaxChars`, so every answer fits
 * what reaches the model.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { handleToolCall, type ToolName, tools, type Workspace } from '@ws/tools';

/** The server's name and version as clients see them. */
export const SERVER_INFO = { name: 'ws', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'File tools over named mounts: every path starts with its mount name (e.g. work/src/a.ts). ' +
  'Pages and answers that stop early say in their note how to read on.';

/**
 * Tools that change nothing a person would call a change (a store-backed read may take
 * disk's text into the store, which is the store catching up, not an edit). Clients use
 * the hint to decide what needs a person's approval.
 */
const READ_ONLY: ReadonlySet<ToolName> = new Set(['read', 'grep', 'glob', 'ls', 'status']);

/** Calls in flight, so a stopping server can let them finish before it closes the store. */
export class CallTracker {
  private readonly running = new Set<Promise<unknown>>();

  /** Counts `call` in flight until it settles. */
  track<T>(call: Promise<T>): Promise<T> {
    this.running.add(call);
    const done = () => this.running.delete(call);
    call.then(done, done);
    return call;
  }

  /** How many calls are in flight. */
  get size(): number {
    return this.running.size;
  }

  /** Resolves when every call in flight has settled, or after `maxMs`; true when they all settled. */
  async settled(maxMs: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((done) => {
      timer = setTimeout(() => done(false), maxMs);
    });
    const all = (async () => {
      while (this.running.size > 0) await Promise.allSettled([...this.running]);
      return true as const;
    })();
    try {
      return await Promise.race([all, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** An MCP server (not yet connected to a transport) answering with `workspace`. */
export function createMcpServer(workspace: Workspace, resultMaxChars: number, calls: CallTracker = new CallTracker()): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const listed = tools.map((t) => ({
    name: t.name,
    description: t.description,
    // The tools' schemas are JSON Schema objects; the SDK types them more narrowly.
    inputSchema: t.inputSchema as { type: 'object' },
    annotations: { readOnlyHint: READ_ONLY.has(t.name) },
  }));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const result = await calls.track(
      handleToolCall(workspace, { name: request.params.name, input: request.params.arguments ?? {}, resultMaxChars }),
    );
    if (result.success) {
      return { content: [{ type: 'text' as const, text: JSON.stringify(result.data) }] };
    }
    // The error is a sentence for the model; it is shown as is.
    return { content: [{ type: 'text' as const, text: result.error }], isError: true };
  });
  return server;
}
