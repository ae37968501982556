import 'reflect-metadata';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GovernanceScope } from '@runledger/contracts';
import type { ToolRegistry } from '@runledger/agent-runtime';
import type { Bus } from '@runledger/messaging';
import type { Clock } from '@runledger/kernel';
import { waitUntil } from '@runledger/testing';

jest.setTimeout(120_000);

interface Site {
  port: number;
  origin: string;
  /** Every request and WebSocket upgrade that reached the server (path), in order. */
  hits: string[];
  stop(): Promise<void>;
}

async function startSite(page: (req: IncomingMessage) => { status?: number; headers?: Record<string, string>; body?: string }): Promise<Site> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '/');
    const answer = page(req);
    res.writeHead(answer.status ?? 200, { 'content-type': 'text/html', ...answer.headers }).end(answer.body ?? '');
  });
  server.on('upgrade', (req, socket) => {
    hits.push(`upgrade ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port, origin: `http://127.0.0.1:${port}`, hits,
    stop: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const html = (title: string, body = '') => `<html><head><title>${title}</title></head><body>${body}</body></html>`;

describe('Security SSRF: the browser tools, on a real Chromium, never reach a non-public address', () => {
  // The internal service a caller must not reach (the probe's http://127.0.0.1:4399/admin).
  let internal: Site;
  // A site the operator allowed (RL_BROWSER_ALLOWED_HOSTS) that points the browser at the internal service.
  let allowed: Site;
  let registry: ToolRegistry;
  let sessions: typeof import('./browser-sessions').BROWSER_SESSIONS;
  let run: typeof import('./invocation-context').withInvocation;
  let execute: typeof import('@runledger/agent-runtime').executeTool;

  beforeAll(async () => {
    internal = await startSite(() => ({ body: html('Internal admin') }));
    allowed = await startSite((req) => {
      const target = `${internal.origin}/admin`;
      if (req.url === '/redirect') return { status: 302, headers: { location: target } };
      if (req.url === '/subresources') {
        return { body: html('Public page', `<img src="${target}.png"><script src="${target}.js"></script><iframe src="${target}"></iframe>` +
          `<script>const done = () => fetch('/done'); fetch('${target}').then(done, done);` +
          `const ws = new WebSocket('ws://127.0.0.1:${internal.port}/socket'); ws.onerror = ws.onclose = () => fetch('/ws-done');</script>`) };
      }
      if (req.url === '/link') return { body: html('Links', `<a id="go" href="${target}">admin</a>`) };
      return { body: html('Allowed page') };
    });
    // The gateway reads its settings as the module loads: set before the browser tools are loaded (the port is known only now).
    process.env.RL_BROWSER_ALLOWED_HOSTS = `127.0.0.1:${allowed.port}`;
    /* eslint-disable @typescript-eslint/no-require-imports */
    registry = (require('./index') as typeof import('./index')).buildToolRegistry();
    sessions = (require('./browser-sessions') as typeof import('./browser-sessions')).BROWSER_SESSIONS;
    run = (require('./invocation-context') as typeof import('./invocation-context')).withInvocation;
    execute = (require('@runledger/agent-runtime') as typeof import('@runledger/agent-runtime')).executeTool;
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
  afterAll(async () => {
    await sessions?.close();
    await internal?.stop();
    await allowed?.stop();
    delete process.env.RL_BROWSER_ALLOWED_HOSTS;
  });

  const invoke = (tool: string, parameters: Record<string, unknown>) => run(
    { child_run_id: 'child', call_id: 'call', governance: { case_id: 'case-ssrf', root_run_id: 'root' } as GovernanceScope, bus: {} as Bus, clock: {} as Clock },
    () => execute(registry, tool, parameters),
  );
  const denied = expect.objectContaining({ success: false, error: expect.objectContaining({ code: 'TOOL.DESTINATION_DENIED' }) });

  it('Security SSRF: browser_navigate to a loopback address, in any spelling, is refused with TOOL.DESTINATION_DENIED and the server receives no request', async () => {
    for (const url of [`${internal.origin}/admin`, `http://2130706433:${internal.port}/admin`, `http://0x7f.1:${internal.port}/admin`, `http://localhost:${internal.port}/admin`, `http://[::ffff:127.0.0.1]:${internal.port}/admin`]) {
      expect({ url, result: await invoke('browser_navigate', { url }) }).toEqual({ url, result: denied });
    }
    expect(internal.hits).toEqual([]);
  });

  it('Security SSRF: an allowed site that redirects to the internal address gets the navigation refused; the internal server receives nothing', async () => {
    const result = await invoke('browser_navigate', { url: `${allowed.origin}/redirect` });
    expect(result).toEqual(denied);
    expect(allowed.hits).toContain('/redirect');
    expect(internal.hits).toEqual([]);
  });

  it('Security SSRF: an allowed page loads, but its images, scripts, frames, fetches and WebSockets to the internal address are aborted', async () => {
    const result = await invoke('browser_navigate', { url: `${allowed.origin}/subresources` });
    expect(result).toMatchObject({ success: true, output: { url: `${allowed.origin}/subresources`, status: 200, title: 'Public page' } });
    // The page reports back once its fetch and WebSocket have failed: by then every attempt was made.
    await waitUntil(() => allowed.hits.includes('/done') && allowed.hits.includes('/ws-done'), { timeoutMs: 20_000, description: 'the page reporting back' });
    expect(internal.hits).toEqual([]);
  });

  it('Security SSRF: browser_click on a link to the internal address is refused with TOOL.DESTINATION_DENIED; the session goes on browsing allowed pages', async () => {
    expect(await invoke('browser_navigate', { url: `${allowed.origin}/link` })).toMatchObject({ success: true, output: { title: 'Links' } });
    expect(await invoke('browser_click', { selector: '#go' })).toEqual(denied);
    expect(internal.hits).toEqual([]);
    expect(await invoke('browser_navigate', { url: `${allowed.origin}/again` })).toMatchObject({ success: true, output: { title: 'Allowed page', status: 200 } });
  });
});

