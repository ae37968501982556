/**
 * Helpers for the contract-003 controller e2e tests: drive a campaign over agents.campaign.*, read its events
 * and its cycle runs back from the log, and serve loopback pages for the browser tools.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CampaignView } from '@runledger/contracts';
import type { StoredEvent } from '@runledger/event-log';
import { aggregateRef } from '@runledger/event-log';
import { deterministicUuid } from '@runledger/kernel';
import { decodeReply, encodeJson } from '@runledger/messaging';
import type { TestStack } from './stack';

export const CAMPAIGN_SERVICES = ['decision', 'tool-gateway', 'db-write', 'audit-ledger'];
export const OPERATOR = { id: 'ops-alice', role: 'CAMPAIGN_OPERATOR' };

export const taskIdOf = (campaignId: string, cycle: number) => deterministicUuid('campaign-task', campaignId, cycle);
export const itemIdOf = (campaignId: string, cycle: number) => deterministicUuid('campaign-item', campaignId, cycle);
export const leadIdOf = (campaignId: string, index: number) => deterministicUuid('campaign-lead', campaignId, 'first', index);
export const cycleRunOf = (campaignId: string, cycle: number) => deterministicUuid('campaign-cycle', campaignId, cycle);

/**
 * agents.campaign.<op>; `answer` as the operator identity, whose role in policy/operators.yaml decision checks
 * (issue 25: the harness's own identity has none).
 */
async function ask<T>(stack: TestStack, op: string, body: unknown, timeoutMs: number): Promise<{ ok: boolean; body: T }> {
  if (op !== 'answer') return stack.request<T>(`agents.campaign.${op}`, body, timeoutMs);
  const nc = await stack.connectAs('operator');
  try {
    const msg = await nc.request(`agents.campaign.${op}`, encodeJson(body), { timeout: timeoutMs });
    const decoded = decodeReply(msg.data, msg.headers);
    return decoded.ok ? { ok: true, body: decoded.body as T } : { ok: false, body: decoded.error as unknown as T };
  } finally {
    await nc.close();
  }
}

export async function call(stack: TestStack, op: string, body: unknown, timeoutMs = 60_000): Promise<CampaignView> {
  const r = await ask<CampaignView>(stack, op, body, timeoutMs);
  if (!r.ok) throw new Error(`agents.campaign.${op} failed: ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function callError(stack: TestStack, op: string, body: unknown): Promise<{ code: string; message: string; details?: string[] }> {
  const r = await ask<{ code: string; message: string; details?: string[] }>(stack, op, body, 60_000);
  if (r.ok) throw new Error(`agents.campaign.${op} unexpectedly succeeded`);
  return r.body;
}

/** A started campaign with a scripted agent (and two leads), ready for cycles. */
export async function scriptedCampaign(stack: TestStack, script: unknown[] | ((campaignId: string) => unknown[]), settings: Record<string, unknown> = {}): Promise<string> {
  const campaign_id = randomUUID();
  const proposals = typeof script === 'function' ? script(campaign_id) : script;
  await call(stack, 'create', { campaign_id, name: 'Q1 2026 Outreach', agent: { kind: 'scripted', proposals }, settings });
  await call(stack, 'leads.import', {
    campaign_id, import_id: 'first',
    leads: [
      { full_name: 'Jane Doe', profile_url: 'https://example.org/in/jane', job_title: 'Senior Engineer', company: 'TechCorp', weight_score: 87.5 },
      { full_name: 'John Roe', profile_url: 'https://example.org/in/john', weight_score: 40 },
    ],
  });
  await call(stack, 'start', { campaign_id });
  return campaign_id;
}

export function campaignEvents(stack: TestStack, campaignId: string): Promise<StoredEvent[]> {
  return stack.log.read(aggregateRef('campaign', campaignId));
}

export const ofType = <T = Record<string, unknown>>(events: StoredEvent[], type: string): T[] => events.filter((e) => e.type === type).map((e) => e.data as T);

export interface LoopbackSite {
  url: string;
  /** Every form submission the page received, in order. */
  submissions: URLSearchParams[];
  /** Every request that reached the server (path and query), in order. */
  requests: string[];
  /** How many times /held was asked for: it answers only once release() is called (a tool call caught mid-flight). */
  readonly heldVisits: number;
  /** /held waits again (until the next release()). */
  hold(): void;
  release(): void;
  stop(): Promise<void>;
}

/** A profile page with a form, served on 127.0.0.1: what the browser tools act on. */
export async function startLoopbackSite(): Promise<LoopbackSite> {
  const submissions: URLSearchParams[] = [];
  const requests: string[] = [];
  let heldVisits = 0;
  let released = false;
  const waiting: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '/');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
      return;
    }
    if (url.pathname === '/held') {
      heldVisits++;
      const answer = () => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Held page</title></head><body>held</body></html>');
      if (released) answer();
      else waiting.push(answer);
      return;
    }
    if (url.pathname === '/submit') {
      submissions.push(url.searchParams);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Thanks</title></head><body>sent</body></html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(
      '<html><head><title>Jane Doe - Senior Engineer</title></head><body><form action="/submit" method="get">' +
        '<input id="note" name="note"><button id="send" type="submit">Send</button></form></body></html>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    submissions,
    requests,
    get heldVisits() {
      return heldVisits;
    },
    hold() {
      released = false;
    },
    release() {
      released = true;
      waiting.splice(0).forEach((answer) => answer());
    },
    stop: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
