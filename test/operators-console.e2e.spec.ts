/**
 * Issues 25 and 23: the operator console (`runledger console`, served by the CLI process on loopback as the operator
 * identity) in real headless Chromium against a running stack, following the README's steps: sign in with the
 * printed URL, find a failed run by time range and text, open its waterfall, cancel a run, approve a pending
 * campaign item, retry a dead letter, fork a run from a checkpoint under a new policy version and see the fork's
 * outcome; and every request without the session gets 401 and no data.
 * Screenshots are kept in .data/test-output/operators-console/.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import type { DeadLettersListResult, RunsListResult } from '@runledger/contracts';
import { writerHeaders } from '@runledger/event-log';
import { OtlpReceiver, startOtlpReceiver } from '@runledger/testing';
import { Browser, chromium, Page } from 'playwright-core';
import { call, campaignEvents, itemIdOf, ofType, scriptedCampaign } from './support/campaigns';
import { runCli } from './support/cli';
import { ConsoleUnderTest } from './support/console';
import { policyVersionsIn, SHIPPED_POLICY_DIR, START, uploadCase } from './support/governed-runs';
import { seedRuns } from './support/seed-runs';
import { TestStack } from './support/stack';
import { Conversation } from './support/task-assistant';

jest.setTimeout(300_000);

const JAEGER = 'http://jaeger.example:16686';
const SHOTS = path.join(__dirname, '..', '.data', 'test-output', 'operators-console');
/** The stack's policy files: a copy, so that a new version can be rolled out for the fork. */
const POLICY_DIR = mkdtempSync(path.join(tmpdir(), 'rl-console-policy-'));
for (const file of ['lanes.yaml', 'roles.yaml']) copyFileSync(path.join(SHIPPED_POLICY_DIR, file), path.join(POLICY_DIR, file));
/** A datetime-local value (minutes, UTC) `minutes` from `iso`. */
const local = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString().slice(0, 16);

describe('Issue 25 console: runledger console in headless Chromium, as the operator', () => {
  let stack: TestStack;
  let otlp: OtlpReceiver;
  let operatorConsole: ConsoleUnderTest;
  let browser: Browser;
  let page: Page;
  let signIn = '';
  let base = '';
  let failedId = '';
  let failedAt = '';
  let intakeId = '';
  let taskRunId = '';
  let campaignId = '';
  let poisonSeq = 0;
  let cliCampaignId = '';

  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    otlp = await startOtlpReceiver();
    stack = await TestStack.start({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', POLICY_DIR } });
    const ids = await seedRuns(stack, { agent: 'CONSOLE_AGENT', count: 30, failing: [12] });
    failedId = ids[12];
    const caseId = `case-${randomUUID().slice(0, 8)}`;
    const inputs = await uploadCase(stack, caseId, policyVersionsIn(POLICY_DIR));
    const intake = await stack.request<{ run_id: string; outcome: string }>(START, { agent_name: 'INTAKE_AGENT', case_id: caseId, input_artifacts: [inputs.form], parameters: {} }, 90_000);
    expect(intake.body.outcome).toBe('success');
    intakeId = intake.body.run_id;
    // A task-assistant run: its tool call is a bar of its own.
    taskRunId = (await new Conversation(stack).say('add task call the console team')).run_id;
    // A campaign message waiting for a person.
    campaignId = await scriptedCampaign(stack, [{ action_type: 'generate_message', message: { type: 'connection_request', content: 'Hi Jane, shall we connect?' } }]);
    expect((await call(stack, 'cycle', { campaign_id: campaignId })).pending_items).toEqual([expect.objectContaining({ item_id: itemIdOf(campaignId, 1), status: 'pending' })]);
    cliCampaignId = await scriptedCampaign(stack, [{ action_type: 'generate_message', message: { type: 'connection_request', content: 'Hi John, shall we connect?' } }]);
    expect((await call(stack, 'cycle', { campaign_id: cliCampaignId })).pending_items).toEqual([expect.objectContaining({ status: 'pending' })]);
    // A command the decision inbox cannot decode: a dead letter whose retry can succeed (it is re-published as it was).
    // A writer's message (it carries the header every append sets): one the server stored itself is never re-published.
    poisonSeq = (await jetstream(stack.nc).publish('rl.log.inbox.decision', new TextEncoder().encode(`not an event ${randomUUID()}`), { headers: writerHeaders('AgentRequested') })).seq;
    failedAt = await stack.waitFor(async () => {
      const r = await stack.request<RunsListResult>('rl.runs.list', { root_run_id: failedId });
      return r.body.runs?.[0]?.status === 'failed' ? r.body.runs[0].created_at : null;
    }, 60_000) as string;

    operatorConsole = await ConsoleUnderTest.start(stack, ['--approver', 'ops-alice'], { JAEGER_UI_URL: JAEGER });
    ({ signIn, base } = operatorConsole);
    // Playwright gives the browser a fresh temporary profile of its own.
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await operatorConsole?.stop();
    await stack?.stop();
    await otlp?.stop();
    rmSync(POLICY_DIR, { recursive: true, force: true });
  });

  /** A plain HTTP request (no browser, no cookie unless given): what anyone on the machine can send. */
  const raw = (method: string, urlPath: string, headers: Record<string, string> = {}, body?: string) => new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = httpRequest(`${base}${urlPath}`, { method, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });

  it('Issue 23 console authentication: every page and action without the session cookie is 401 with no data; a wrong token signs nobody in', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const attempts = [
      await raw('GET', '/'), await raw('GET', `/?text=${failedId}`), await raw('GET', `/runs/${failedId}`), await raw('GET', '/approvals'),
      await raw('GET', '/deadletters'), await raw('GET', '/audit'), await raw('GET', '/no-such-page'),
      await raw('POST', '/deadletters/retry', form, `id=decision-inbox:${poisonSeq}`),
      await raw('POST', `/runs/${failedId}/cancel`, form, 'reason=x'),
      await raw('POST', '/approvals/answer', form, `campaign_id=${campaignId}&item_id=${itemIdOf(campaignId, 1)}&decision=approved`),
      await raw('GET', '/login?token=not-the-token'), await raw('GET', '/login'),
      await raw('GET', '/', { cookie: 'rl_console=forged' }),
    ];
    for (const a of attempts) {
      expect(a.status).toBe(401);
      expect(a.headers['set-cookie']).toBeUndefined();
      expect(a.body).not.toMatch(/CONSOLE_AGENT|decision-inbox|<table|[0-9a-f]{8}-[0-9a-f]{4}-/);
    }
    // Nothing was done: the dead letter was not retried, the item is still pending.
    const letters = await stack.request<DeadLettersListResult>('rl.deadletters.list', {});
    expect(letters.body.dead_letters.find((l) => l.stream_seq === poisonSeq)?.retries).toEqual([]);
    expect(ofType(await campaignEvents(stack, campaignId), 'ApprovalDecided')).toEqual([]);
    // A page of another host name (DNS rebinding onto 127.0.0.1) is not served, token or not.
    expect((await raw('GET', new URL(signIn).pathname + new URL(signIn).search, { host: `evil.example:${new URL(base).port}` })).status).toBe(421);
    // In the browser too: an unauthenticated visit shows the refusal and nothing else.
    const stranger = await browser.newPage();
    const res = await stranger.goto(`${base}/runs/${failedId}`);
    expect(res?.status()).toBe(401);
    expect(await stranger.textContent('body')).not.toContain(failedId);
    await stranger.close();
  });

  it('Issue 23 console CSRF: with the session cookie, a POST without the session\'s form token, or from another origin, is refused and changes nothing', async () => {
    const login = await raw('GET', new URL(signIn).pathname + new URL(signIn).search);
    expect(login.status).toBe(303);
    const cookie = String((login.headers['set-cookie'] as string[])[0]).split(';')[0];
    expect(String((login.headers['set-cookie'] as string[])[0])).toMatch(/HttpOnly; SameSite=Strict/);
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie };
    expect((await raw('GET', '/deadletters', { cookie })).status).toBe(200);
    expect((await raw('POST', '/deadletters/retry', form, `id=decision-inbox:${poisonSeq}`)).status).toBe(403);
    expect((await raw('POST', '/deadletters/retry', form, `id=decision-inbox:${poisonSeq}&csrf=guessed`)).status).toBe(403);
    expect((await raw('POST', '/deadletters/retry', { ...form, origin: 'http://evil.example' }, `id=decision-inbox:${poisonSeq}`)).status).toBe(403);
    const letters = await stack.request<DeadLettersListResult>('rl.deadletters.list', {});
    expect(letters.body.dead_letters.find((l) => l.stream_seq === poisonSeq)?.retries).toEqual([]);
  });

  it('Issue 25 console: signed in by the printed URL, an operator finds the failed run by time range and text and opens its waterfall', async () => {
    await page.goto(signIn);
    expect(new URL(page.url()).pathname).toBe('/');
    expect(page.url()).not.toContain('token');
    await page.fill('input[name=text]', 'seeded failure 12');
    await page.fill('input[name=since]', local(failedAt, -1));
    await page.fill('input[name=until]', local(failedAt, 2));
    await page.click('#search button[type=submit]');
    await page.waitForURL(/text=seeded/);
    expect(await page.textContent('#matched')).toBe('1 matching run(s)');
    const rows = await page.$$eval('#runs tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toEqual([[failedId, 'CONSOLE_AGENT', 'agent', 'failed', expect.any(String), expect.any(String), '-', 'TOOL.FAILED: seeded failure 12']]);
    await shot('1-search');
    // The same text before the run was created finds nothing: the time range filters.
    await page.fill('input[name=since]', local(failedAt, -120));
    await page.fill('input[name=until]', local(failedAt, -60));
    await page.click('#search button[type=submit]');
    await page.waitForURL(/since=/);
    expect(await page.textContent('#matched')).toBe('0 matching run(s)');

    // Every run the search matches, counted per agent by outcome.
    await page.goto(`${base}/?agent=CONSOLE_AGENT&limit=5`);
    expect(await page.textContent('#matched')).toBe('30 matching run(s)');
    expect(await page.$$eval('#per-agent tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)))).toEqual([['CONSOLE_AGENT', '30', '29', '1', '0', '0', '0', expect.stringMatching(/^\d+(\.\d)? m?s$/), expect.stringMatching(/^\d+(\.\d)? m?s$/)]]);
    await page.goto(`${base}/?text=seeded+failure+12`);
    await page.click(`#runs a[href="/runs/${failedId}"]`);
    await page.waitForURL(new RegExp(`/runs/${failedId}$`));
    expect(await page.textContent('#run-head')).toContain('TOOL.FAILED: seeded failure 12');
    expect(await page.$$eval('#waterfall .row[data-kind=run]', (rs) => rs.map((r) => r.getAttribute('data-run')))).toEqual([failedId]);
  });

  it('Issue 25 console: a run\'s waterfall draws the run, its steps and its child runs on one time axis, with its trace link and pinned policy versions', async () => {
    await page.goto(`${base}/runs/${intakeId}`);
    const bars = await page.$$eval('#waterfall .row', (rs) => rs.map((r) => ({ kind: r.getAttribute('data-kind'), run: r.getAttribute('data-run'), style: r.querySelector('.bar')?.getAttribute('style') ?? '' })));
    const runs = bars.filter((b) => b.kind === 'run');
    expect(runs[0].run).toBe(intakeId);
    expect(runs.length).toBeGreaterThan(1); // child runs: tool gateway, db-write …
    // One step bar per StepCompleted and one tool bar per tool call, over the whole tree.
    const treeEvents = (await Promise.all(runs.map((r) => stack.runEvents(r.run!)))).flat();
    expect(bars.filter((b) => b.kind === 'step')).toHaveLength(treeEvents.filter((e) => e.type === 'StepCompleted').length);
    expect(bars.filter((b) => b.kind === 'tool')).toHaveLength(treeEvents.filter((e) => e.type === 'ToolCallRequested').length);
    expect(bars.filter((b) => b.kind === 'step').length).toBeGreaterThanOrEqual(4);
    for (const b of bars.filter((x) => x.kind)) expect(b.style).toMatch(/^left:\d+(\.\d+)?%;width:\d+(\.\d+)?%$/);
    expect(runs[0].style).toMatch(/^left:0\.000%;width:100\.000%$/);
    const trace = (await stack.runEvents(intakeId))[0].metadata.traceparent!.split('-')[1];
    expect(await page.getAttribute('a.trace', 'href')).toBe(`${JAEGER}/trace/${trace}`);
    const pinned = (await stack.runEvents(intakeId))[0].data as { policy_versions: { lanes: string; roles: string } };
    expect(await page.textContent('#policies')).toBe(`${pinned.policy_versions.lanes}, ${pinned.policy_versions.roles}`);
    await shot('2-waterfall');
  });

  it('Issue 25 console: a tool call is a bar from its request to its recorded outcome, beside the tool run it started', async () => {
    const events = await stack.runEvents(taskRunId);
    const calls = events.filter((e) => e.type === 'ToolCallRequested').map((e) => (e.data as { tool_name: string }).tool_name);
    expect(calls.length).toBeGreaterThan(0);
    // The runs index has the whole tree, ended (it follows the log within a moment).
    const tree = await stack.waitFor(async () => {
      const r = await stack.request<RunsListResult>('rl.runs.list', { root_run_id: taskRunId, include_children: true });
      return r.body.matched > calls.length && r.body.runs.every((x) => ['completed', 'failed', 'denied', 'cancelled'].includes(x.status)) ? r.body : null;
    }, 30_000);
    await page.goto(`${base}/runs/${taskRunId}`);
    const tools = await page.$$eval('#waterfall .row[data-kind=tool]', (rs) => rs.map((r) => ({ label: r.querySelector('.label')?.textContent?.trim(), text: r.querySelector('.bar')?.textContent })));
    expect(tools.map((t) => t.label)).toEqual(calls.map((name) => `tool ${name}`));
    for (const t of tools) expect(t.text).toMatch(/^\d+(\.\d)? m?s ok$/);
    // Every run of the tree (the tool runs and the writes they made) is a run bar.
    expect(await page.$$eval('#waterfall .row[data-kind=run]', (rs) => rs.map((r) => r.getAttribute('data-run')).sort())).toEqual(tree!.runs.map((r) => r.run_id).sort());
  });

  it('Issue 25 console: an operator cancels an open run and sees the outcome', async () => {
    const [runId] = await seedRuns(stack, { agent: 'CONSOLE_AGENT', count: 1, open: [0] });
    await page.goto(`${base}/runs/${runId}`);
    await page.fill('form.cancel input[name=reason]', 'stuck, per ticket 42');
    await page.click('form.cancel button[type=submit]');
    expect(await page.textContent('#result.ok')).toMatch(/^cancel recorded \(status running\)/);
    const requested = (await stack.runEvents(runId)).find((e) => e.type === 'RunCancelRequested');
    expect(requested?.data).toMatchObject({ reason: 'stuck, per ticket 42', requested_by: 'ops-alice' });
  });

  it('Issue 25 console: an operator approves a pending campaign item with a reason, and sees it decided', async () => {
    const item = itemIdOf(campaignId, 1);
    await page.goto(`${base}/approvals`);
    const row = page.locator('#approvals tbody tr', { hasText: item });
    expect(await row.locator('td').nth(2).textContent()).toBe('generate_message');
    await shot('3-approvals');
    await row.locator('input[name=answer]').fill('reviewed the wording');
    await row.locator('button[value=approved]').click();
    expect(await page.textContent('#result.ok')).toBe(`approved item ${item} of campaign ${campaignId} as ops-alice`);
    expect(await page.locator('#approvals tbody tr', { hasText: item }).count()).toBe(0);
    expect(ofType(await campaignEvents(stack, campaignId), 'ApprovalDecided')).toEqual([
      expect.objectContaining({ item_id: item, decision: 'approved', approver: { id: 'ops-alice', role: 'CAMPAIGN_OPERATOR' }, answer: 'reviewed the wording' }),
    ]);
  });

  it('Issue 25 console: an operator retries a dead letter and sees the retry recorded', async () => {
    const id = `decision-inbox:${poisonSeq}`;
    await stack.waitFor(async () => {
      await page.goto(`${base}/deadletters`);
      return (await page.locator('#deadletters tbody tr', { hasText: id }).count()) === 1;
    }, 60_000);
    const row = page.locator('#deadletters tbody tr', { hasText: id });
    expect(await row.locator('td').nth(7).textContent()).toBe('yes');
    await row.locator('button', { hasText: 'Retry' }).click();
    expect(await page.textContent('#result.ok')).toMatch(new RegExp(`^re-published ${id} on rl\\.log\\.inbox\\.decision as log message \\d+ \\(retry 1\\)$`));
    await shot('4-deadletters');
    const letters = await stack.request<DeadLettersListResult>('rl.deadletters.list', {});
    expect(letters.body.dead_letters.find((l) => l.id === id)?.retries).toEqual([expect.objectContaining({ requested_by: 'ops-alice' })]);
  });

  it('Issue 25 console: the audit page shows the chain\'s verdict and coverage', async () => {
    await page.goto(`${base}/audit`);
    expect(await page.textContent('#chain')).toMatch(/^audit chain OK: \d+ entries, head [0-9a-f]{64}$/);
    expect(await page.textContent('#coverage')).toMatch(/^coverage OK: \d+ runs \(\d+ in progress\)$/);
  });

  it('Issue 25 console: an operator forks a run from a checkpoint under a new policy version and sees the fork\'s outcome', async () => {
    // A new lanes version is rolled out (same rules, new version): decision and db-write load it at start.
    const old = policyVersionsIn(POLICY_DIR);
    const next = `lanes-console-${randomUUID().slice(0, 8)}`;
    writeFileSync(path.join(POLICY_DIR, 'lanes.yaml'), readFileSync(path.join(POLICY_DIR, 'lanes.yaml'), 'utf8').replace(`version: ${old.lanes}`, `version: ${next}`));
    await Promise.all([stack.restart('decision'), stack.restart('db-write')]);
    await page.goto(`${base}/runs/${intakeId}`);
    await page.selectOption('form.fork select[name=from_step]', 'assess');
    await page.fill('form.fork input[name=lanes]', next);
    await page.fill('form.fork input[name=roles]', old.roles);
    await page.click('form.fork button[type=submit]');
    const banner = await page.textContent('#result.ok');
    const forkId = new RegExp(`^fork (\\S+) of run ${intakeId} from step assess under lanes ${next} / roles ${old.roles}: completed$`).exec(banner ?? '')?.[1];
    expect(forkId).toBeDefined();
    // The page is the fork's: its origin, its new pin, and only the steps after the checkpoint ran again.
    expect(await page.textContent('h1')).toBe(`Run ${forkId}`);
    expect(await page.textContent('#run-head')).toMatch(/^completed · INTAKE_AGENT · agent/);
    expect(await page.textContent('#forked-from')).toBe(`forked from run ${intakeId} at step assess`);
    expect(await page.textContent('#policies')).toBe(`${next}, ${old.roles}`);
    const steps = (await stack.runEvents(forkId!)).filter((e) => e.type === 'StepCompleted').map((e) => (e.data as { step_id: string }).step_id);
    expect(steps).not.toContain('read');
    expect(steps).not.toContain('assess');
    expect(await page.$$eval('#waterfall .row[data-kind=step] .label', (ls) => ls.map((l) => l.textContent?.trim()))).toEqual(steps.map((id) => `step ${id}`));
    await shot('5-fork');
  });

  it('Issue 25 CLI: runs list finds the same failed run by time range and text, and counts runs per agent by outcome', async () => {
    const r = await runCli(stack.url, ['runs', 'list', '--text', 'SEEDED FAILURE 12', '--since', new Date(Date.parse(failedAt) - 60_000).toISOString(), '--until', new Date(Date.parse(failedAt) + 60_000).toISOString()], stack.cliEnv('operator'));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(new RegExp(`^${failedId}\\s+CONSOLE_AGENT\\s+agent\\s+failed\\s`, 'm'));
    expect(r.stdout).toContain('1 of 1 matching run(s)');
    // One run was left open and asked to cancel (above): per agent, by outcome.
    const counted = await runCli(stack.url, ['runs', 'list', '--agent', 'CONSOLE_AGENT', '--by-agent', '--limit', '1'], stack.cliEnv('operator'));
    expect(counted.stdout).toMatch(/^AGENT\s+RUNS\s+COMPLETED\s+FAILED\s+DENIED\s+CANCELLED\s+OPEN\s+P50\s+P95\nCONSOLE_AGENT\s+31\s+29\s+1\s+0\s+0\s+1\s+\d+ ms\s+\d+ ms$/m);
  });

  it('Issue 25 CLI: runs show --waterfall draws the same bars as text: the run first, whole width, then its steps and child runs', async () => {
    const r = await runCli(stack.url, ['runs', 'show', intakeId, '--waterfall'], stack.cliEnv('operator'));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(new RegExp(`^INTAKE_AGENT · agent\\s+\\|█{50}\\| \\d+(\\.\\d)? m?s completed  ${intakeId}$`));
    expect(lines.filter((l) => /^\s+step \S+\s+\|[ █]{50}\|/.test(l)).length).toBeGreaterThanOrEqual(4);
    const children = (await stack.request<RunsListResult>('rl.runs.list', { root_run_id: intakeId, include_children: true })).body.runs.filter((c) => c.run_id !== intakeId);
    expect(children.length).toBeGreaterThan(0);
    for (const c of children) expect(r.stdout).toContain(`  ${c.run_id}\n`);
  });

  it('Issue 25 CLI: approvals list shows a pending item, and approvals answer rejects it with a reason, recorded with the approver', async () => {
    const item = itemIdOf(cliCampaignId, 1);
    const operator = stack.cliEnv('operator');
    const listed = await runCli(stack.url, ['approvals', 'list'], operator);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout).toMatch(new RegExp(`^${cliCampaignId}\\s+${item}\\s+generate_message\\s+1\\s`, 'm'));
    const answered = await runCli(stack.url, ['approvals', 'answer', cliCampaignId, item, '--reject', '--reason', 'off-brand', '--approver', 'ops-bob'], operator);
    expect(answered).toMatchObject({ code: 0, stderr: '', stdout: `rejected item ${item} of campaign ${cliCampaignId} as ops-bob\n` });
    expect(ofType(await campaignEvents(stack, cliCampaignId), 'ApprovalDecided')).toEqual([
      expect.objectContaining({ item_id: item, decision: 'rejected', approver: { id: 'ops-bob', role: 'CAMPAIGN_OPERATOR' }, answer: 'off-brand' }),
    ]);
    const again = await runCli(stack.url, ['approvals', 'answer', cliCampaignId, item, '--approve'], operator);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toContain('APPROVAL.ALREADY_DECIDED');
  });

  it('Issue 25 CLI: console and approvals answer --help (exit 0) and usage errors (exit 2) before any connection', async () => {
    const nowhere = 'nats://127.0.0.1:1';
    for (const [args, usage] of [[['console', '--help'], 'runledger console [--port N]'], [['approvals', '--help'], 'runledger approvals list'], [['approvals', 'answer', '-h'], 'runledger approvals answer']] as const) {
      const r = await runCli(nowhere, [...args]);
      expect({ args, code: r.code, stderr: r.stderr, usage: r.stdout.includes(usage) }).toEqual({ args, code: 0, stderr: '', usage: true });
    }
    for (const args of [['console', '--port', 'x'], ['console', '--port', '70000'], ['console', '--role', 'nope'], ['approvals', 'answer', 'c', 'i'], ['approvals', 'answer', 'c', 'i', '--approve', '--reject']]) {
      const r = await runCli(nowhere, args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
    }
  });
});
