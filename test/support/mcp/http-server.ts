import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** A real MCP server over Streamable HTTP (stateless), in the test process; it counts executions per tool. */
export async function startHttpMcpServer(): Promise<{ url: string; executions: Array<{ tool: string; args: unknown }>; stop(): Promise<void> }> {
  const executions: Array<{ tool: string; args: unknown }> = [];
  const build = () => {
    const server = new McpServer({ name: 'web', version: '1.0.0' });
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
  return { url: `http://127.0.0.1:${port}/mcp`, executions, stop: () => new Promise((resolve) => http.close(() => resolve())) };
}
