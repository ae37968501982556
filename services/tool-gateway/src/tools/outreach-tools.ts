import type { Page, Request, Response } from 'playwright-core';
import { DbResult, SUBJECTS } from '@runledger/contracts';
import { deterministicUuid, sha256Hex } from '@runledger/kernel';
import type { ToolDefinition } from '@runledger/agent-runtime';
import { childScopeOf, RETRY } from '@runledger/runs';
import { BROWSER_SESSIONS } from './browser-sessions';
import { currentInvocation } from './invocation-context';
import { REFUSED_HEADER } from './guarded-proxy';
import { destinationDenied } from './public-address';

const ACTION_TIMEOUT_MS = 8_000;
const NAVIGATION_GRACE_MS = 1_000;
const leadId = { type: 'string', format: 'uuid' } as const;

/** The session a call acts in: its campaign (case); a call with no case gets a page of its own run. */
function sessionOfCall(): string {
  const ctx = currentInvocation();
  if (ctx.signal?.aborted) throw new Error('invocation abandoned after timeout');
  return ctx.governance.case_id ?? ctx.governance.root_run_id;
}

/**
 * Watches the page's own navigation during an action (a goto and its redirects, a click that follows a link) and
 * returns a check to call after it: it throws TOOL.DESTINATION_DENIED if the session's proxy refused that navigation
 * (a refused http hop is answered with REFUSED_HEADER, a refused tunnel fails the request).
 */
async function refusedNavigationCheck(session: string, page: Page): Promise<() => Promise<void>> {
  await BROWSER_SESSIONS.takeRefusals(session);
  let hit = false;
  const main = (request: Request) => {
    try {
      return request.isNavigationRequest() && request.frame() === page.mainFrame();
    } catch {
      return false; // a service worker's request has no frame
    }
  };
  const onResponse = (response: Response) => void (main(response.request()) && response.headers()[REFUSED_HEADER] && (hit = true));
  const onFailed = (request: Request) => void (main(request) && (hit = true));
  page.on('response', onResponse);
  page.on('requestfailed', onFailed);
  return async () => {
    page.off('response', onResponse);
    page.off('requestfailed', onFailed);
    const refusals = await BROWSER_SESSIONS.takeRefusals(session);
    if (hit && refusals.length > 0) throw destinationDenied(refusals[0]!);
  };
}

/**
 * Contract 003's execute_tool vocabulary (python_execute has no implementation: the shipped policy denies it
 * before any tool code could run). The browser tools drive a real headless Chromium; send_message puts the
 * message into the campaign's outbox through db-write, never out of the process on its own.
 */
export const OUTREACH_TOOLS: Record<string, ToolDefinition> = {
  browser_navigate: {
    name: 'browser_navigate',
    description: 'Open a URL (http or https, public addresses only) in the campaign browser.',
    inputSchema: { type: 'object', required: ['url'], additionalProperties: false, properties: { url: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048 }, lead_id: leadId } },
    execute: async (input) => {
      const { url } = input as { url: string };
      const session = sessionOfCall();
      // Refused before the browser is even asked (SSRF); the session's proxy refuses redirects and sub-resources.
      await BROWSER_SESSIONS.guard.assertAllowed(url);
      const page = await BROWSER_SESSIONS.page(session);
      const checkRefused = await refusedNavigationCheck(session, page);
      let response;
      try {
        response = await page.goto(url, { waitUntil: 'load', timeout: ACTION_TIMEOUT_MS });
      } catch (err) {
        // The failure is this call's answer; the session's next navigation gets a page with nothing pending.
        await BROWSER_SESSIONS.renew(session, page);
        await checkRefused();
        throw err;
      }
      await checkRefused();
      return { url: page.url(), status: response?.status() ?? 0, title: await page.title() };
    },
  },
  browser_click: {
    name: 'browser_click',
    description: 'Click the element a CSS selector names on the current page.',
    inputSchema: { type: 'object', required: ['selector'], additionalProperties: false, properties: { selector: { type: 'string', minLength: 1, maxLength: 500 }, lead_id: leadId } },
    execute: async (input) => {
      const { selector } = input as { selector: string };
      const session = sessionOfCall();
      const page = await BROWSER_SESSIONS.page(session);
      const checkRefused = await refusedNavigationCheck(session, page);
      // A click that submits a form or follows a link navigates: give it a moment to start, then wait for the load.
      const navigation = page.waitForEvent('framenavigated', { timeout: NAVIGATION_GRACE_MS }).catch(() => null);
      await page.click(selector, { timeout: ACTION_TIMEOUT_MS });
      await navigation;
      await page.waitForLoadState('load', { timeout: ACTION_TIMEOUT_MS });
      // A link or form to a non-public address was not followed; the caller learns why.
      await checkRefused();
      return { clicked: true, selector, url: page.url(), title: await page.title() };
    },
  },
  browser_type: {
    name: 'browser_type',
    description: 'Type text into the field a CSS selector names; the field is read back.',
    inputSchema: { type: 'object', required: ['selector', 'text'], additionalProperties: false, properties: { selector: { type: 'string', minLength: 1, maxLength: 500 }, text: { type: 'string', maxLength: 5000 }, lead_id: leadId } },
    execute: async (input) => {
      const { selector, text } = input as { selector: string; text: string };
      const page = await BROWSER_SESSIONS.page(sessionOfCall());
      await page.fill(selector, text, { timeout: ACTION_TIMEOUT_MS });
      return { selector, value: await page.inputValue(selector, { timeout: ACTION_TIMEOUT_MS }) };
    },
  },
  send_message: {
    name: 'send_message',
    description: "Queue a message to a lead in the campaign's outbox.",
    inputSchema: { type: 'object', required: ['to', 'content'], additionalProperties: false, properties: { to: { type: 'string', minLength: 1, maxLength: 2048 }, content: { type: 'string', minLength: 1, maxLength: 300 }, lead_id: leadId } },
    execute: async (input) => {
      const { to, content, lead_id } = input as { to: string; content: string; lead_id?: string };
      const ctx = currentInvocation();
      if (ctx.signal?.aborted) throw new Error('invocation abandoned after timeout');
      // The outbox id derives from the call: a retried call queues nothing twice.
      const outbox_id = deterministicUuid('outbox', ctx.child_run_id);
      const content_sha256 = sha256Hex(content);
      const governance = childScopeOf(ctx.governance, ctx.child_run_id);
      const result = await ctx.bus.requestIdempotent<DbResult>(SUBJECTS.dbWrite, {
        write_id: `${ctx.child_run_id}:outbox`, collection: 'campaign_outbox', operation: 'append', document_id: outbox_id,
        document: { to, content, content_sha256, ...(lead_id ? { lead_id } : {}) }, governance,
      }, { timeoutMs: 3_000, retryDelayMs: RETRY.withinDeadline, signal: ctx.signal });
      if (result.status !== 'ok') throw new Error(`db ${result.status}: ${result.error?.error_code ?? 'unknown'}`);
      return { outbox_id, content_sha256, to };
    },
  },
};
