import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { DestinationGuard } from './public-address';

/** Marks the answer the proxy gives instead of a refused plain-http request (a redirect hop or a sub-resource). */
export const REFUSED_HEADER = 'x-runledger-destination-refused';

/**
 * The one way out of a browser context (SSRF guard): Chromium sends every request of the context here (navigations,
 * each redirect hop, sub-resources, frames, popups, workers, WebSockets; Playwright also sends loopback here), and
 * this proxy resolves the host itself, refuses a non-public one and connects to the very address it checked, so a
 * second DNS answer (rebinding) is never used. Plain http arrives as absolute-form requests, everything else as
 * CONNECT tunnels. One proxy per context, so a refusal is known to be that session's.
 */
export class GuardedProxy {
  private readonly refusals: string[] = [];

  private constructor(private readonly server: Server, private readonly guard: DestinationGuard) {}

  static async start(guard: DestinationGuard): Promise<GuardedProxy> {
    const server = createServer();
    const proxy = new GuardedProxy(server, guard);
    server.on('request', (req, res) => void proxy.forward(req, res));
    server.on('connect', (req, socket, head) => void proxy.tunnel(req, socket, head));
    // A plain-http upgrade (Chromium tunnels its WebSockets through CONNECT instead) is not forwarded.
    server.on('upgrade', (_req, socket: Duplex) => socket.end('HTTP/1.1 501 Not Implemented\r\n\r\n'));
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The refusals since the last call (the reasons, for the tool's error and our logs). */
  takeRefusals(): string[] {
    return this.refusals.splice(0);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
      if (url.protocol !== 'http:') throw new Error('not http');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const to = await this.guard.destination(url.hostname, url.port || '80');
    if (to.refused !== undefined) {
      this.refusals.push(to.refused);
      res.writeHead(403, { 'content-type': 'text/plain', [REFUSED_HEADER]: '1' }).end('destination refused');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const upstream = httpRequest({ host: to.connectTo, port: Number(url.port || 80), method: req.method, path: url.pathname + url.search, headers, setHost: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(upstream);
  }

  private async tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => undefined);
    let url: URL;
    try {
      url = new URL(`https://${req.url ?? ''}`);
    } catch {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const to = await this.guard.destination(url.hostname, url.port || '443');
    if (to.refused !== undefined) {
      this.refusals.push(to.refused);
      client.end(`HTTP/1.1 403 Forbidden\r\n${REFUSED_HEADER}: 1\r\n\r\n`);
      return;
    }
    const upstream: Socket = connect(Number(url.port || 443), to.connectTo, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => (upstream.readyState === 'opening' ? client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n') : client.destroy()));
    client.on('close', () => upstream.destroy());
  }
}
