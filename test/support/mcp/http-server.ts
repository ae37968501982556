import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** A held execution of the `slow` tool: `reached` once the tool runs, and it answers when `release` is called. */
export interface HeldCall {
  reached: Promise<void>;
  release(): void;
}

/**
 * A real MCP server over Streamable HTTP (stateless), in the test process; it counts executions per tool.
 * `slow` answers only when the test releases it (`hold(key)`), so a test can keep a call in flight.
 */
export async function startHttpMcpServer(): Promise<{ url: string; executions: Array<{ tool: string; args: unknown }>; hold(key: string): HeldCall; stop(): Promise<void> }> {
  const executions: Array<{ tool: string; args: unknown }> = [];
  const held = new Map<string, { reached: () => void; released: Promise<void> }>();
  const hold = (key: string): HeldCall => {
    let reached!: () => void;
    let release!: () => void;
    const call = { reached: new Promise<void>((r) => (reached = r)), release: () => release() };
    held.set(key, { reached, released: new Promise<void>((r) => (release = r)) });
    return call;
  };
  const build = () => {
    const server = new McpServer({ name: 'web', version: '1.0.0' });
    server.registerTool('slow', { description: 'Answers when released.', inputSchema: { key: z.string().min(1) } }, async ({ key }) => {
      executions.push({ tool: 'slow', args: { key } });
      const h = held.get(key);
      if (h) {
        h.reached();
        await h.released;
      }
      return { content: [{ type: 'text', text: `slow ${key}` }] };
    });
    server.registerTool('lookup', { description: 'Looks a term up.', inputSchema: { q: z.string().min(1) } }, async ({ q }) => {
      executions.push({ tool: 'lookup', args: { q } });
      return { content: [{ type: 'text', text: `definition of ${q}` }] };
    });
    return server;
  };
  const http: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const server = build();
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on('close', () => void transport.close().then(() => server.close()));
        await server.connect(transport);
        const text = Buffer.concat(chunks).toString('utf8');
        await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
      })().catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, executions, hold, stop: () => new Promise((resolve) => http.close(() => resolve())) };
}
