/**
 * Issue 11: the operator console (server-rendered by audit-ledger on its HTTP port) in real headless Chromium
 * against a running stack: runs list and search, a run's timeline with child runs and its Jaeger link, audit
 * chain status and coverage, dead letters, pending approvals.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import { OtlpReceiver, startOtlpReceiver } from '@runledger/testing';
import { Browser, chromium, Page } from 'playwright-core';
import { policyVersionsIn, SHIPPED_POLICY_DIR, START, uploadCase } from './support/governed-runs';
import { seedRuns } from './support/seed-runs';
import { TestStack } from './support/stack';

jest.setTimeout(300_000);

const JAEGER = 'http://jaeger.example:16686';

describe('Issue 11 console: the operator console in headless Chromium', () => {
  let stack: TestStack;
  let otlp: OtlpReceiver;
  let browser: Browser;
  let page: Page;
  let base = '';
  let failedId = '';
  let intakeId = '';

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    stack = await TestStack.start({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', JAEGER_UI_URL: JAEGER } });
    base = `http://127.0.0.1:${stack.httpPorts.get('audit-ledger')}`;
    const ids = await seedRuns(stack, { agent: 'CONSOLE_AGENT', count: 30, failing: [12] });
    failedId = ids[12];
    const caseId = `case-${randomUUID().slice(0, 8)}`;
    const inputs = await uploadCase(stack, caseId, policyVersionsIn(SHIPPED_POLICY_DIR));
    const intake = await stack.request<{ run_id: string; outcome: string }>(START, { agent_name: 'INTAKE_AGENT', case_id: caseId, input_artifacts: [inputs.form], parameters: {} }, 90_000);
    expect(intake.body.outcome).toBe('success');
    intakeId = intake.body.run_id;
    await jetstream(stack.nc).publish('rl.log.inbox.decision', new TextEncoder().encode('not an event'));
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${mkdtempSync(join(tmpdir(), 'rl-chromium-'))}`],
    });
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await otlp?.stop();
  });

  it('Issue 11 console: the runs list searches by agent and "failed only", and links to the run', async () => {
    await stack.waitFor(async () => {
      await page.goto(`${base}/console?agent_name=CONSOLE_AGENT&include_children=1`);
      return (await page.textContent('#matched')) === '30 matching run(s)';
    }, 60_000);
    await page.goto(`${base}/console`);
    await page.fill('input[name=agent_name]', 'CONSOLE_AGENT');
    await page.check('input[name=failed_only]');
    await page.click('#search button[type=submit]');
    await page.waitForURL(/failed_only=1/);
    expect(await page.textContent('#matched')).toBe('1 matching run(s)');
    const rows = await page.$$eval('#runs tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toEqual([[failedId, 'CONSOLE_AGENT', 'agent', 'failed', expect.any(String), expect.stringMatching(/ms|s$/), '-', 'TOOL.FAILED']]);
    const perAgent = await page.$$eval('#per-agent tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(perAgent).toContainEqual(['CONSOLE_AGENT', '30', '29', '1', '0', '0']);
    await page.click(`#runs a[href="/console/runs/${failedId}"]`);
    await page.waitForURL(new RegExp(`/console/runs/${failedId}$`));
    expect(await page.textContent('h3.run')).toContain('failed');
  });

  it('Issue 11 console: a run\'s timeline shows its events, its child runs and a link to its trace in Jaeger', async () => {
    await stack.waitFor(async () => {
      await page.goto(`${base}/console/runs/${intakeId}`);
      return (await page.$$('.child h3.run')).length > 0 && (await page.textContent('h3.run'))?.includes('completed');
    }, 60_000);
    const events = await page.$$eval('.node > table tbody tr td:nth-child(2)', (tds) => tds.map((td) => td.textContent));
    expect(events.slice(0, 3)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted']);
    expect(events).toContain('RunCompleted');
    const childRuns = await page.$$eval('.child h3.run', (hs) => hs.map((h) => h.getAttribute('data-run')));
    expect(childRuns.length).toBeGreaterThan(0);
    const trace = (await stack.runEvents(intakeId))[0].metadata.traceparent!.split('-')[1];
    expect(await page.getAttribute('a.trace', 'href')).toBe(`${JAEGER}/trace/${trace}`);
  });

  it('Issue 11 console: audit chain status and coverage, dead letters and pending approvals', async () => {
    await page.goto(`${base}/console/audit`);
    expect(await page.textContent('#chain')).toMatch(/^audit chain OK: \d+ entries, head [0-9a-f]{64}$/);
    expect(await page.textContent('#coverage')).toMatch(/^coverage OK: \d+ runs/);
    const letters = await stack.waitFor(async () => {
      await page.goto(`${base}/console/deadletters`);
      const cells = await page.$$eval('#deadletters tbody tr td:nth-child(3)', (tds) => tds.map((td) => td.textContent));
      return cells.length ? cells : null;
    }, 60_000);
    expect(letters).toContain('rl.log.inbox.decision');
    await page.goto(`${base}/console/approvals`);
    expect(await page.textContent('h1')).toBe('Pending approvals');
    expect(await page.textContent('p.empty')).toBe('none');
  });
});
