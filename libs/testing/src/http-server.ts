import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, inflateSync } from 'node:zlib';

/** A started loopback HTTP server and a way to stop it. */
export interface LoopbackServer {
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * Starts an HTTP server on an OS-assigned loopback port. Binding to port 0 directly
 * (rather than probing with freePort) cannot race with other processes.
 */
export async function startLoopbackServer(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<LoopbackServer> {
  const server: Server = createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      // A handler bug must surface in the test as a 500, not crash the jest worker.
      const message = err instanceof Error ? err.message : String(err);
      sendJson(res, 500, { error: { message: `test server error: ${message}`, type: 'server_error', code: null } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let stopping: Promise<void> | undefined;
  return {
    port,
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        // Clients with keep-alive or a delayed response pending would keep close() waiting forever.
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}

/** Reads the whole request body, undoing gzip/deflate content-encoding. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'gzip') return gunzipSync(raw);
  if (encoding === 'deflate') return inflateSync(raw);
  return raw;
}

/** Writes a JSON response unless the client has already gone away. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
