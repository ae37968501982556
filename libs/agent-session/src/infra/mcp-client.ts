import type { ToolDefinition } from '@runledger/agent-runtime';

/** One MCP server (stdio child process or Streamable HTTP), as the gateway's RL_MCP_SERVERS and the CLI config name it. */
export type McpServerConfig =
  | { readonly type?: 'stdio'; readonly command: string; readonly args?: readonly string[]; readonly env?: Readonly<Record<string, string>>; readonly queue?: string }
  | { readonly type: 'http'; readonly url: string; readonly headers?: Readonly<Record<string, string>>; readonly queue?: string };

export interface McpConfig {
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  /** `queues.<name>.concurrent` (contract 002 §1): at most that many calls of the queue's tools run at once. */
  readonly queues: Readonly<Record<string, { readonly concurrent: number }>>;
}

/** MCP tools are named `<server>__<tool>` in the gateway, the lanes and the model's tool list. */
export const mcpToolName = (server: string, tool: string): string => `${server}__${tool}`;

/** A counting semaphore: `queues.<name>.concurrent` calls at once, the rest wait in order. */
export class Queue {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(readonly concurrent: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.concurrent) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  get depth(): number {
    return this.waiting.length;
  }
}

export interface McpConnection {
  readonly server: string;
  readonly queue: string;
  readonly tools: ToolDefinition[];
  close(): Promise<void>;
}

/** The SDK is loaded when a server is first connected (~20 MiB resident that a process without MCP servers never needs). */
async function transportOf(config: McpServerConfig) {
  if (config.type === 'http') {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return new StreamableHTTPClientTransport(new URL(config.url), config.headers ? { requestInit: { headers: { ...config.headers } } } : undefined);
  }
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  return new StdioClientTransport({ command: config.command, args: [...(config.args ?? [])], ...(config.env ? { env: { ...process.env, ...config.env } as Record<string, string> } : {}), stderr: 'pipe' });
}

/** MCP's content blocks as the tool's output: structured content when given, else the text blocks joined. */
function outputOf(result: { content?: unknown; structuredContent?: unknown }): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const blocks = Array.isArray(result.content) ? (result.content as Array<{ type: string; text?: string }>) : [];
  return blocks.map((b) => (b.type === 'text' ? (b.text ?? '') : JSON.stringify(b))).join('\n');
}

/**
 * Connects to one MCP server with the official SDK client and turns each of its tools into a gateway tool:
 * the server's input schema is the schema the gateway validates against before calling (INV-TOOL-001), and
 * each call waits for a slot of the server's queue.
 */
export async function connectMcpServer(server: string, config: McpServerConfig, queue: Queue): Promise<McpConnection> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const client = new Client({ name: 'runledger-tool-gateway', version: '0.1.0' });
  await client.connect(await transportOf(config));
  const listed = await client.listTools();
  const tools: ToolDefinition[] = listed.tools.map((tool) => ({
    name: mcpToolName(server, tool.name),
    ...(tool.description ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    execute: (input: unknown) =>
      queue.run(async () => {
        const result = (await client.callTool({ name: tool.name, arguments: input as Record<string, unknown> })) as { content?: unknown; structuredContent?: unknown; isError?: boolean };
        if (result.isError) throw new Error(String(outputOf(result)).slice(0, 500) || 'the MCP tool reported an error');
        return outputOf(result);
      }),
  }));
  return { server, queue: config.queue ?? 'default', tools, close: () => client.close() };
}

/** Connects every configured server; one that fails is reported to `onError` and left out. */
export async function connectMcpServers(config: McpConfig, onError: (server: string, error: Error) => void): Promise<McpConnection[]> {
  const queues = new Map(Object.entries(config.queues).map(([name, q]) => [name, new Queue(q.concurrent)]));
  const connections = await Promise.all(Object.entries(config.mcpServers).map(async ([name, server]) => {
    try {
      return await connectMcpServer(name, server, queues.get(server.queue ?? 'default')!);
    } catch (e) {
      onError(name, e as Error);
      return undefined;
    }
  }));
  return connections.filter((c): c is McpConnection => c !== undefined);
}
