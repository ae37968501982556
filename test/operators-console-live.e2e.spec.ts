/**
 * Issue 25: the console's runs list and run page update live (server-sent events, read by the one script the CSP
 * allows by its hash): a run that finishes shows as completed without a reload; and the runs page's bulk cancel
 * (count first, then confirm) cancels each matching open run through rl.runs.cancel. In headless Chromium against a
 * running stack; screenshots in .data/test-output/operators-console/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { RunsListResult } from '@runledger/contracts';
import { RunRepository } from '@runledger/runs';
import { Browser, chromium, Page } from 'playwright-core';
import { ConsoleUnderTest } from './support/console';
import { seedRuns } from './support/seed-runs';
import { TestStack } from './support/stack';

jest.setTimeout(300_000);

const SHOTS = path.join(__dirname, '..', '.data', 'test-output', 'operators-console');

describe('Issue 25 console live updates and bulk cancel, in headless Chromium', () => {
  let stack: TestStack;
  let operatorConsole: ConsoleUnderTest;
  let browser: Browser;
  let page: Page;
  let live: string[] = [];
  let bulk: string[] = [];

  /** The run's outcome, as its worker would record it. */
  const complete = async (runId: string) => {
    const repo = new RunRepository(stack.log);
    const { version } = await repo.load(runId);
    await repo.append({ run_id: runId, root_run_id: runId }, [{ type: 'RunCompleted', data: { output_artifacts: [], result: { done: true } } }], { expectedVersion: version, commandId: `complete:${runId}` });
  };
  /** A mark set in the page's window: still there means the page was never reloaded. */
  const mark = () => page.evaluate(() => ((globalThis as unknown as { __kept: boolean }).__kept = true));
  const kept = () => page.evaluate(() => (globalThis as unknown as { __kept?: boolean }).__kept === true);

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    stack = await TestStack.start({ services: ['decision', 'audit-ledger'] });
    live = await seedRuns(stack, { agent: 'LIVE_AGENT', count: 2, open: [0, 1] });
    bulk = await seedRuns(stack, { agent: 'BULK_CONSOLE_AGENT', count: 4, open: [0, 1, 2] });
    await stack.waitFor(async () => {
      const r = await stack.request<RunsListResult>('rl.runs.list', { text: '_AGENT' });
      return r.ok && r.body.matched === 6;
    }, 60_000);
    operatorConsole = await ConsoleUnderTest.start(stack, ['--approver', 'ops-alice']);
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage();
    await page.goto(operatorConsole.signIn);
  });
  afterAll(async () => {
    await browser?.close();
    await operatorConsole?.stop();
    await stack?.stop();
  });

  it('Issue 25 live: a run that finishes shows as completed on the runs list and on its page without a reload', async () => {
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text())); // a CSP refusal would show here

    await page.goto(`${operatorConsole.base}/?agent=LIVE_AGENT`);
    const row = page.locator('#runs tr', { hasText: live[0] });
    await expect(row.textContent()).resolves.toContain('running');
    await mark();
    await complete(live[0]);
    await row.filter({ hasText: 'completed' }).waitFor({ timeout: 30_000 });
    expect(await kept()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'live-runs-list.png'), fullPage: true });

    await page.goto(`${operatorConsole.base}/runs/${live[1]}`);
    await expect(page.locator('#run-head').textContent()).resolves.toContain('running');
    await mark();
    await complete(live[1]);
    await page.locator('#run-head', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    expect(await kept()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'live-run-page.png'), fullPage: true });
    expect(errors).toEqual([]);
  });

  it('Issue 25 waterfall and dashboards: an agent session\'s model attempts are bars with their tokens and cost; the dashboards show per-agent rates, consumer lag, dead letters and token spend from the stack', async () => {
    // An agent run whose session made two model attempts (one rate-limited), as its accounting records them.
    const [runId] = await seedRuns(stack, { agent: 'LLM_AGENT', count: 1, open: [0] });
    const repo = new RunRepository(stack.log);
    const { version } = await repo.load(runId);
    const llm = (index: number, entry: Record<string, unknown>) => ({ type: 'SessionAccounted', data: { index, entry: { type: 'llm', provider: 'openai', model: 'gpt-test', timestamp: Date.now(), ...entry } } });
    await repo.append({ run_id: runId, root_run_id: runId }, [
      llm(0, { status: 'failed', latency: 200, tokens: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, errorKind: 'rate_limit' }),
      llm(1, { status: 'ok', latency: 800, tokens: { inputTokens: 1200, outputTokens: 300, totalTokens: 1500 }, costUsd: 0.0123 }),
      { type: 'RunCompleted', data: { output_artifacts: [], result: { done: true } } },
    ], { expectedVersion: version, commandId: `llm:${runId}` });

    await page.goto(`${operatorConsole.base}/runs/${runId}`);
    const bars = page.locator('#waterfall .row[data-kind=llm] .label');
    await expect(bars.evaluateAll((els) => els.map((e) => e.getAttribute('title')))).resolves.toEqual([
      'llm openai/gpt-test · 0 in / 0 out tokens · rate_limit',
      'llm openai/gpt-test · 1200 in / 300 out tokens · $0.0123',
    ]);
    await expect(page.locator('#llm-usage').textContent()).resolves.toBe('LLM: 2 attempt(s), 1500 tokens, $0.0123');
    await page.screenshot({ path: path.join(SHOTS, 'waterfall-llm.png'), fullPage: true });

    await stack.waitFor(async () => ((await stack.request<RunsListResult>('rl.runs.list', { agent_name: 'LLM_AGENT' })).body.runs?.[0]?.status === 'completed') || null, 30_000);
    await page.goto(`${operatorConsole.base}/dashboards?window=1h`);
    const row = async (tableId: string, first: string) => (await page.locator(`#${tableId} tr`, { has: page.locator('td', { hasText: new RegExp(`^${first}$`) }) }).locator('td').allTextContents());
    expect(await row('dash-agents', 'LLM_AGENT')).toEqual(['LLM_AGENT', '1', '1.00', expect.any(String), expect.any(String), '0.0%', '0.0%', '0']);
    expect(await row('dash-tokens', 'LLM_AGENT')).toEqual(['LLM_AGENT', 'openai/gpt-test', '2', '1', '1200', '300', '1500', '$0.0123']);
    for (const durable of ['decision-inbox', 'audit-ledger']) expect((await row('dash-lag', durable))[1]).toMatch(/^\d+$/);
    await expect(page.locator('#dash-deadletters').textContent()).resolves.toMatch(/^\d+ dead letter\(s\)$/);
    await page.screenshot({ path: path.join(SHOTS, 'dashboards.png'), fullPage: true });
  });

  it('Issue 25 bulk cancel in the console: the filter\'s open runs are counted first, then each is cancelled with who and why, each shown on the operator actions page as granted by the operators\' roles policy', async () => {
    await page.goto(`${operatorConsole.base}/?agent=BULK_CONSOLE_AGENT`);
    await page.fill('form.bulk-cancel input[name=reason]', 'console drill');
    await page.click('form.bulk-cancel button');
    await expect(page.locator('#bulk-count').textContent()).resolves.toContain('4 run(s) match agent_name=BULK_CONSOLE_AGENT; 3 have no outcome yet');
    for (const i of [0, 1, 2]) expect(await stack.runEvents(bulk[i])).not.toContainEqual(expect.objectContaining({ type: 'RunCancelRequested' }));
    await page.screenshot({ path: path.join(SHOTS, 'bulk-cancel-confirm.png'), fullPage: true });
    // Issue 25 review: an open run of the agent that starts while the confirm page is shown is not one it showed.
    const [late] = await seedRuns(stack, { agent: 'BULK_CONSOLE_AGENT', count: 1, open: [0] });
    await stack.waitFor(async () => {
      const r = await stack.request<{ matched: number }>('rl.runs.list', { agent_name: 'BULK_CONSOLE_AGENT' }, 30_000);
      return r.ok && r.body.matched === 5;
    }, 60_000);

    await page.click('form.bulk-confirm button');
    await expect(page.locator('#result').textContent()).resolves.toContain('cancel recorded for 3 run(s)');
    for (const i of [0, 1, 2]) {
      const requested = (await stack.runEvents(bulk[i])).filter((e) => e.type === 'RunCancelRequested').map((e) => e.data);
      expect(requested).toEqual([expect.objectContaining({ reason: 'console drill', requested_by: 'ops-alice' })]);
    }
    expect((await stack.runEvents(bulk[3])).filter((e) => e.type === 'RunCancelRequested')).toEqual([]);
    expect((await stack.runEvents(late!)).filter((e) => e.type === 'RunCancelRequested')).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'bulk-cancel-done.png'), fullPage: true });

    // Each cancel as decided against the operators' roles policy, on the operator actions page.
    await page.goto(`${operatorConsole.base}/actions`);
    const rows = await page.locator('#operator-actions tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)));
    expect(rows.filter((r) => r[4] === 'console drill').sort()).toEqual([0, 1, 2].map((i) => ['cancel', bulk[i], 'ops-alice', 'operator (operator-admin)', 'console drill', 'operators-2026.11.2', 'granted']).sort());
    await page.screenshot({ path: path.join(SHOTS, 'operator-actions.png'), fullPage: true });
  });
});
