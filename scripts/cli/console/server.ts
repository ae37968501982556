/**
 * The console's HTTP server (node:http, loopback only): authentication first, then the pages and actions.
 * Nothing is answered before the session check but the login exchange and a bare 401.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { printableLines } from '../format';
import { CliError } from '../operator';
import type { ConsoleApi } from './api';
import { ConsoleAuth, sessionCookie, type Session } from './auth';
import { result } from './html';
import { approvalsPage, auditPage, deadLettersPage, operatorActionsLog, operatorActionsPage } from './ops-pages';
import { runBody, runPage, runsPage, runsResults, treeIds } from './runs-pages';
import { bulkCancel } from './bulk-pages';
import { LIVE_SCRIPT_HASH, LiveRuns, serveFeed } from './live';
import { dashboardsPage, TokenSpend } from './dashboards';
const { loadTable } = require('../../lib/permissions') as { loadTable: () => unknown };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_FORM_BYTES = 16 * 1024;

/** No script runs but the live-update one (by its hash), nothing loads from elsewhere, no page frames it, nothing is cached, no address leaks to another site. */
const HEADERS = {
  'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; script-src ${LIVE_SCRIPT_HASH}; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'x-content-type-options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on our own form posts.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
};

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...HEADERS, 'content-type': status < 300 ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8', ...extra }).end(body);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (!/^application\/x-www-form-urlencoded\b/.test(req.headers['content-type'] ?? '')) throw new HttpError(415, 'forms only (application/x-www-form-urlencoded)');
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new HttpError(413, `a form is at most ${MAX_FORM_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export interface ConsoleServer {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function startConsoleServer(api: ConsoleApi, port: number, auth = new ConsoleAuth()): Promise<ConsoleServer> {
  let origin = '';
  // A DNS-rebinding page reaches 127.0.0.1 under its own host name: only our own host names are served.
  const hostOk = (req: IncomingMessage) => [`127.0.0.1:${port}`, `localhost:${port}`].includes(req.headers.host ?? '');

  const liveRuns = new LiveRuns(api.nc);
  const spend = new TokenSpend(api.nc);
  const actions = operatorActionsLog(api.nc);
  // The durable consumers of the permissions table (deploy/nats/permissions.yaml), whose lag the dashboards show.
  const durables = Object.keys((loadTable() as { log: { durables: Record<string, unknown> } }).log.durables);
  /** GET /live?view=runs&<search> or ?view=run&id=<run>: the page's live block as server-sent events. */
  async function live(res: ServerResponse, q: URLSearchParams): Promise<void> {
    if (q.get('view') === 'runs') return serveFeed(res, liveRuns, HEADERS, () => runsResults(api, q));
    const id = q.get('id') ?? '';
    if (q.get('view') !== 'run' || !UUID.test(id)) throw new HttpError(400, 'view=runs or view=run&id=RUN_ID');
    let ids = new Set([id]);
    return serveFeed(res, liveRuns, HEADERS, async () => {
      const tree = await api.tree(id);
      ids = treeIds(tree);
      return runBody(tree);
    }, (runId) => ids.has(runId));
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL, session: Session): Promise<void> {
    const path = url.pathname;
    if (req.method === 'GET') {
      if (path === '/') return send(res, 200, await runsPage(api, url.searchParams, session.csrf));
      const run = /^\/runs\/([^/]+)$/.exec(path);
      if (run && UUID.test(run[1])) return send(res, 200, await runPage(api, run[1], session.csrf));
      if (path === '/live') return live(res, url.searchParams);
      if (path === '/approvals') return send(res, 200, await approvalsPage(api, session.csrf));
      if (path === '/deadletters') return send(res, 200, await deadLettersPage(api, session.csrf));
      if (path === '/audit') return send(res, 200, await auditPage(api));
      if (path === '/actions') return send(res, 200, await operatorActionsPage(actions));
      if (path === '/dashboards') return send(res, 200, await dashboardsPage(api, spend, durables, url.searchParams));
      throw new HttpError(404, 'not found');
    }
    if (req.method !== 'POST') throw new HttpError(405, 'GET or POST only');
    // Only forms of our own pages: a cross-site POST is refused by its Origin, and without the session's token.
    if (req.headers.origin !== undefined && req.headers.origin !== origin && req.headers.origin !== origin.replace('127.0.0.1', 'localhost')) throw new HttpError(403, 'a form from another site');
    const form = await readForm(req);
    if (!auth.csrfOk(session, form.get('csrf'))) throw new HttpError(403, 'the form is not from this console session (reload the page)');
    if (path === '/runs/cancel-matching') {
      const done = await bulkCancel(api, form, session.csrf);
      return send(res, 200, 'page' in done ? done.page : await runsPage(api, done.query, session.csrf, done.banner));
    }
    const cancel = /^\/runs\/([^/]+)\/cancel$/.exec(path);
    if (cancel && UUID.test(cancel[1])) {
      const banner = await outcome(async () => {
        const r = await api.cancel(cancel[1], form.get('reason')?.trim() || undefined);
        return r.outcome === 'already_ended' ? `run already ended (${r.status}); nothing to cancel` : `cancel recorded (status ${r.status}); its worker stops the run at its next step`;
      });
      return send(res, 200, await runPage(api, cancel[1], session.csrf, banner));
    }
    const fork = /^\/runs\/([^/]+)\/fork$/.exec(path);
    if (fork && UUID.test(fork[1])) {
      const lanes = form.get('lanes')?.trim();
      const roles = form.get('roles')?.trim();
      const request = { run_id: fork[1], from_step: form.get('from_step') ?? '', request_id: form.get('request_id') ?? '', ...(lanes || roles ? { policy_versions: { lanes: lanes ?? '', roles: roles ?? '' } } : {}) };
      let forked: string | null = null;
      const banner = await outcome(async () => {
        if (!!lanes !== !!roles) throw new CliError('name both the lanes and the roles version, or neither (the current ones)', 2);
        const f = await api.fork(request);
        forked = f.run_id;
        return `fork ${f.run_id} of run ${f.forked_from.run_id} from step ${f.forked_from.checkpoint} under lanes ${f.policy_versions.lanes} / roles ${f.policy_versions.roles}${f.outcome === 'existing' ? ' (forked before by this request)' : ''}: ${f.status}${f.error ? ` ${f.error.error_code}: ${f.error.message}` : ''}`;
      });
      // The fork's own page (its outcome, waterfall and pins), or the source's with the refusal.
      return send(res, 200, await runPage(api, forked ?? fork[1], session.csrf, banner));
    }
    if (path === '/deadletters/retry') {
      const id = form.get('id') ?? '';
      const banner = await outcome(async () => {
        const letter = await api.retry(id);
        return `re-published ${letter.id} on ${letter.subject} as log message ${letter.retries[letter.retries.length - 1]?.new_seq} (retry ${letter.retries.length})`;
      });
      return send(res, 200, await deadLettersPage(api, session.csrf, banner));
    }
    if (path === '/approvals/answer') {
      const decision = form.get('decision');
      if (decision !== 'approved' && decision !== 'rejected' && decision !== 'answered') throw new HttpError(400, 'decision must be approved, rejected or answered');
      const item = { campaign_id: form.get('campaign_id') ?? '', item_id: form.get('item_id') ?? '', decision, ...(form.get('answer')?.trim() ? { answer: form.get('answer')!.trim() } : {}) } as const;
      const banner = await outcome(async () => {
        await api.answer(item);
        return `${decision} item ${item.item_id} of campaign ${item.campaign_id} as ${api.approver.id}`;
      });
      return send(res, 200, await approvalsPage(api, session.csrf, banner));
    }
    throw new HttpError(404, 'not found');
  }

  const server = createServer((req, res) => {
    const handle = async () => {
      if (!hostOk(req)) throw new HttpError(421, 'unknown host');
      const url = new URL(req.url ?? '/', origin);
      if (req.method === 'GET' && url.pathname === '/login') {
        const session = auth.login(url.searchParams.get('token'));
        if (!session) throw new HttpError(401, 'unauthorized: that is not this console\'s token; open the URL runledger console printed');
        // The token leaves the address bar at once (303 to a clean URL); from now on the cookie is the credential.
        res.writeHead(303, { ...HEADERS, location: '/', 'set-cookie': sessionCookie(session) }).end();
        return;
      }
      const session = auth.session(req);
      if (!session) throw new HttpError(401, 'unauthorized: open the URL runledger console printed');
      await route(req, res, url, session);
    };
    handle().catch((err: unknown) => {
      if (res.headersSent) return void res.end();
      if (err instanceof HttpError) return send(res, err.status, `${err.message}\n`);
      // Never a stack trace to the browser; the operator's terminal gets the message.
      process.stderr.write(`runledger console: ${printableLines((err as Error)?.message ?? String(err))}\n`);
      send(res, 500, 'internal error (see the terminal running runledger console)\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return {
    server, port, url: `${origin}/login?token=${auth.token}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections(); // a browser's kept-alive connection must not hold Ctrl-C up
    }),
  };
}

/** An action's outcome as a banner: what happened, or the stack's refusal with its stable code. */
async function outcome(action: () => Promise<string>): Promise<string> {
  try {
    return result(true, await action());
  } catch (err) {
    if (err instanceof CliError) return result(false, err.message);
    throw err;
  }
}
