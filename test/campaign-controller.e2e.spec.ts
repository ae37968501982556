import { randomUUID } from 'node:crypto';
import type { CampaignView } from '@runledger/contracts';
import { canonicalJson } from '@runledger/governance';
import { deterministicUuid, sha256Hex } from '@runledger/kernel';
import type { CoverageReport } from '@runledger/governance';
import { freePort, waitUntil } from '@runledger/testing';
import {
  call, callError, CAMPAIGN_SERVICES, campaignEvents, cycleRunOf, itemIdOf, leadIdOf, LoopbackSite, ofType, OPERATOR, scriptedCampaign, startLoopbackSite, taskIdOf,
} from './support/campaigns';
import { runCli } from './support/cli';
import { TestStack } from './support/stack';

jest.setTimeout(240_000);

const MESSAGE = { type: 'connection_request', content: 'Hi Jane, I noticed your work at TechCorp on cloud infrastructure. Would love to connect.' };

describe('Issue 8: the contract-003 controller runs campaigns over the bus', () => {
  let stack: TestStack;
  let site: LoopbackSite;
  // An internal service the browser must not reach: loopback, not allow-listed (the SSRF probe's 127.0.0.1:4399/admin).
  let internal: LoopbackSite;
  let unreachablePort: number;

  beforeAll(async () => {
    site = await startLoopbackSite();
    internal = await startLoopbackSite();
    unreachablePort = await freePort();
    // A short ack wait: a cycle request whose carrier died is redelivered within seconds, not half a minute.
    // The loopback test site (and the port Issue 26 finds closed) are allowed by the operator's setting; nothing else on loopback is.
    const RL_BROWSER_ALLOWED_HOSTS = `${new URL(site.url).host},127.0.0.1:${unreachablePort}`;
    stack = await TestStack.start({ services: CAMPAIGN_SERVICES, env: { RL_INBOX_ACK_WAIT_MS: '2000', RL_BROWSER_ALLOWED_HOSTS } });
  });
  afterAll(async () => {
    await stack?.stop();
    await site?.stop();
    await internal?.stop();
  });

  const childRun = async (cycleRunId: string, type: string) => {
    const events = await stack.runEvents(cycleRunId);
    return events.filter((e) => e.type === type);
  };

  it('Issue 8 campaign end to end: ten cycles of a scripted model, every proposal type that acts, effects only through choke points, a complete audit trail', async () => {
    const campaign = await scriptedCampaign(stack, (id) => [
      { action_type: 'analyze_leads', analysis_type: 'prioritize' },
      { action_type: 'create_task', task: { description: 'Visit the profile of the current lead' }, justification: 'Research before outreach' },
      { action_type: 'select_next_task', task_id: taskIdOf(id, 2), reasoning: 'Only task' },
      { action_type: 'execute_tool', tool_name: 'browser_navigate', parameters: { url: `${site.url}/in/jane` }, expected_outcome: 'Jane profile' },
      { action_type: 'execute_tool', tool_name: 'browser_type', parameters: { selector: '#note', text: 'Hello Jane' } },
      { action_type: 'execute_tool', tool_name: 'browser_click', parameters: { selector: '#send' } },
      { action_type: 'execute_tool', tool_name: 'send_message', parameters: { to: 'https://example.org/in/jane', content: 'Thanks for connecting, Jane.', lead_id: leadIdOf(id, 0) } },
      { action_type: 'execute_tool', tool_name: 'python_execute', parameters: { code: 'print(1)' } },
      { action_type: 'persist_artifact', artifact: { artifact_type: 'scoring_algorithm', artifact_key: 'algorithm_v1', content: { weights: { title: 0.5 } } }, requires_approval: false },
      { action_type: 'generate_message', message: MESSAGE },
      { action_type: 'no_op', reason: 'campaign_complete', details: 'All leads contacted' },
    ]);

    const first = await call(stack, 'run', { campaign_id: campaign }, 180_000);
    // Probe finding: the denied python_execute is `failed` (with its code), never `executed`; the run goes on after it.
    expect(first.ran!.map((r) => r.outcome)).toEqual([...Array(7).fill('executed'), 'failed', 'executed', 'awaiting_approval']);
    expect(first.ran![7]).toMatchObject({ action_type: 'execute_tool', errors: ['LANE.ACTION_DENIED'] });
    expect(first.current_lead_id).toBe(leadIdOf(campaign, 0));

    // FR-007: the task moved to done only on the controller's verified navigation.
    expect(first.tasks).toEqual([expect.objectContaining({ id: taskIdOf(campaign, 2), status: 'done' })]);
    // The browser was real: the page received what browser_type typed, submitted by browser_click.
    await waitUntil(() => site.submissions.length > 0, { timeoutMs: 10_000, description: 'the form submission' });
    expect(site.submissions.map((s) => s.get('note'))).toEqual(['Hello Jane']);
    expect(first.leads.find((l) => l.id === leadIdOf(campaign, 0))?.status).toBe('contacted');
    expect(first.artifacts).toEqual([{ artifact_type: 'scoring_algorithm', artifact_key: 'algorithm_v1' }]);

    const events = await campaignEvents(stack, campaign);
    expect(ofType(events, 'TaskStatusChanged')).toEqual([expect.objectContaining({ to: 'done', verified_by: expect.objectContaining({ tool_name: 'browser_navigate', cycle: 4 }) })]);
    const tools = ofType<{ tool_name: string; status: string; verified: boolean; error_code?: string; child_run_id: string }>(events, 'ToolExecuted');
    expect(tools.map((t) => [t.tool_name, t.status, t.verified])).toEqual([
      ['browser_navigate', 'ok', true], ['browser_type', 'ok', true], ['browser_click', 'ok', true], ['send_message', 'ok', true], ['python_execute', 'denied', false],
    ]);
    // python_execute is denied by the shipped policy; the denial is an audited child run, and no tool code ran.
    const python = await stack.runEvents(tools[4]!.child_run_id);
    expect(python.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    expect(python[1]!.data).toMatchObject({ decision: 'deny', code: 'LANE.ACTION_DENIED', action: 'python_execute' });

    // Every cycle recorded its snapshot with its hash, the raw proposal and the verdict.
    const started = ofType<{ cycle: number; snapshot: unknown; snapshot_sha256: string; run_id: string }>(events, 'CycleStarted');
    expect(started).toHaveLength(10);
    for (const s of started) expect(s.snapshot_sha256).toBe(sha256Hex(canonicalJson(s.snapshot)));
    const proposals = ofType<{ verdict: string; raw: { action_type: string } }>(events, 'ProposalRecorded');
    expect(proposals.map((p) => p.verdict)).toEqual(Array(10).fill('valid'));
    expect(proposals[9]!.raw).toMatchObject({ action_type: 'generate_message', requires_approval: true });

    // The message waits for an operator; approving it executes it through db-write under an audited decision run.
    const item = itemIdOf(campaign, 10);
    expect(first.pending_items).toEqual([expect.objectContaining({ item_id: item, kind: 'generate_message', status: 'pending' })]);
    const approved = await call(stack, 'answer', { campaign_id: campaign, item_id: item, decision: 'approved', approver: OPERATOR });
    const executed = approved.pending_items[0]!.executed as { status: string; child_run_id: string };
    expect(executed.status).toBe('ok');
    const write = await stack.runEvents(executed.child_run_id);
    expect(write.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'DbWriteAudited', 'RunCompleted']);
    expect(write[3]!.data).toMatchObject({ collection: 'campaign_messages', operation: 'append', status: 'ok' });

    const last = await call(stack, 'run', { campaign_id: campaign });
    expect(last.ran!.map((r) => r.action_type)).toEqual(['no_op']);
    expect(last.status).toBe('completed');

    // FR-006: every cycle is a governed run with its authorisation and outcome, every effect a child run;
    // the audit ledger covers them all and its hash chain verifies.
    const cycleRuns = Array.from({ length: 11 }, (_, i) => cycleRunOf(campaign, i + 1));
    for (const id of cycleRuns) {
      const types = (await stack.runEvents(id)).map((e) => e.type);
      expect(types.slice(0, 3)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted']);
      expect(types[types.length - 1]).toBe('RunCompleted');
    }
    const report = await stack.waitFor(async () => {
      const r = await stack.request<CoverageReport>('rl.audit.coverage', {});
      return r.body.in_progress.length === 0 ? r.body : undefined;
    }, 30_000);
    expect(report.violations).toEqual([]);
    const verify = await stack.request<{ ok: boolean }>('rl.audit.verify', {});
    expect(verify.body.ok).toBe(true);
    expect((await childRun(cycleRunOf(campaign, 4), 'RunCompleted'))[0]!.data).toMatchObject({ result: { action_type: 'execute_tool', success: true } });
  });

  it('Issue 26 a failed navigation leaves the browser session usable: after browser_navigate to an unreachable address, the same campaign\'s next navigations succeed', async () => {
    // A loopback port nothing listens on (allowed): the connection is refused at once, no network needed.
    const unreachable = `http://127.0.0.1:${unreachablePort}/in/nobody`;
    const navigate = (url: string) => ({ action_type: 'execute_tool', tool_name: 'browser_navigate', parameters: { url } });
    const campaign = await scriptedCampaign(stack, [navigate(unreachable), navigate(`${site.url}/in/jane`), navigate(`${site.url}/in/jane?again=1`)]);
    for (let i = 0; i < 3; i++) await call(stack, 'cycle', { campaign_id: campaign });
    const tools = ofType<{ tool_name: string; status: string; child_run_id: string }>(await campaignEvents(stack, campaign), 'ToolExecuted');
    expect(tools.map((t) => [t.tool_name, t.status])).toEqual([['browser_navigate', 'failed'], ['browser_navigate', 'ok'], ['browser_navigate', 'ok']]);
    // What the gateway's runs recorded: the pages really loaded.
    const resultOf = async (runId: string) => (await childRun(runId, 'RunCompleted'))[0]?.data as { result?: unknown } | undefined;
    expect((await resultOf(tools[1]!.child_run_id))?.result).toMatchObject({ output: { url: `${site.url}/in/jane`, title: 'Jane Doe - Senior Engineer', status: 200 } });
    expect((await resultOf(tools[2]!.child_run_id))?.result).toMatchObject({ output: { url: `${site.url}/in/jane?again=1`, status: 200 } });
  });

  it('Security SSRF: a campaign\'s browser_navigate to an internal address (127.0.0.1, its decimal form, localhost, a redirect from an allowed site) fails TOOL.DESTINATION_DENIED and the internal server gets no request', async () => {
    const navigate = (url: string) => ({ action_type: 'execute_tool', tool_name: 'browser_navigate', parameters: { url } });
    const port = new URL(internal.url).port;
    const urls = [`${internal.url}/admin`, `http://2130706433:${port}/admin`, `http://localhost:${port}/admin`, `${site.url}/redirect?to=${encodeURIComponent(`${internal.url}/admin`)}`];
    const campaign = await scriptedCampaign(stack, [...urls.map(navigate), navigate(`${site.url}/in/jane`)]);
    for (let i = 0; i < urls.length + 1; i++) await call(stack, 'cycle', { campaign_id: campaign });
    const tools = ofType<{ tool_name: string; status: string; error_code?: string; child_run_id: string }>(await campaignEvents(stack, campaign), 'ToolExecuted');
    expect(tools.map((t) => [t.status, t.error_code])).toEqual([...urls.map(() => ['failed', 'TOOL.DESTINATION_DENIED']), ['ok', undefined]]);
    // The refusal is the gateway's audited outcome of the call; no page title of the internal service is in the log.
    const failed = (await stack.runEvents(tools[0]!.child_run_id)).find((e) => e.type === 'RunFailed');
    expect(failed?.data).toMatchObject({ error: { error_code: 'TOOL.DESTINATION_DENIED', retryable: false } });
    expect(internal.requests).toEqual([]);
  });

  it('Probe finding: agents.campaign.leads.import with an import_id already used for other leads is REQUEST.CONFLICT (they were dropped unseen, the answer ok); the same import again is a retry', async () => {
    const campaignId = await scriptedCampaign(stack, []);
    const again = { campaign_id: campaignId, import_id: 'first', leads: [{ full_name: 'Jane Doe', profile_url: 'https://example.org/in/jane', job_title: 'Senior Engineer', company: 'TechCorp', weight_score: 87.5 }, { full_name: 'John Roe', profile_url: 'https://example.org/in/john', weight_score: 40 }] };
    expect((await call(stack, 'leads.import', again)).campaign_id).toBe(campaignId);
    const other = { ...again, leads: [{ full_name: 'Mallory Moe', profile_url: 'https://example.org/in/mallory', weight_score: 99 }] };
    expect(await callError(stack, 'leads.import', other)).toMatchObject({ code: 'REQUEST.CONFLICT' });
    expect(ofType(await campaignEvents(stack, campaignId), 'LeadsImported')).toHaveLength(1);
  });

  it('README "Run ids": a campaign_id in upper case names the same campaign (get, and the same leads import again is its retry, not a conflict or another campaign)', async () => {
    const campaignId = await scriptedCampaign(stack, []);
    const upper = campaignId.toUpperCase();
    const import_id = `case-${randomUUID()}`;
    const leads = { campaign_id: campaignId, import_id, leads: [{ full_name: 'Jill Poe', profile_url: 'https://example.org/in/jill' }] };
    const first = await call(stack, 'leads.import', leads);
    expect(first.campaign_id).toBe(campaignId);
    expect(await call(stack, 'leads.import', { ...leads, campaign_id: upper })).toEqual(first);
    expect(await call(stack, 'get', { campaign_id: upper })).toEqual(await call(stack, 'get', { campaign_id: campaignId }));
    expect(ofType<{ import_id: string }>(await campaignEvents(stack, campaignId), 'LeadsImported').filter((e) => e.import_id === import_id)).toHaveLength(1);
  });

  it('Probe finding: a lead whose profile_url is not http: or https: (javascript:, data:, file:) is REQUEST.INVALID naming the field; nothing is imported', async () => {
    const campaignId = await scriptedCampaign(stack, []);
    for (const profile_url of ['javascript:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd']) {
      const leads = [{ full_name: 'Jane Doe', profile_url: 'https://example.org/in/jane' }, { full_name: 'Mallory Moe', profile_url }];
      const refused = await callError(stack, 'leads.import', { campaign_id: campaignId, import_id: `bad-${randomUUID()}`, leads });
      expect(refused).toMatchObject({ code: 'REQUEST.INVALID', details: ['leads.1.profile_url must be an absolute http: or https: URL with a host'] });
    }
    expect((await call(stack, 'get', { campaign_id: campaignId })).leads.map((l) => l.profile_url)).toEqual(['https://example.org/in/jane', 'https://example.org/in/john']);
  });

  it('Issue 8 approvals: a rejected message is never executed', async () => {
    const campaign = await scriptedCampaign(stack, [{ action_type: 'generate_message', message: MESSAGE }]);
    await call(stack, 'cycle', { campaign_id: campaign });
    const item = itemIdOf(campaign, 1);
    const rejected = await call(stack, 'answer', { campaign_id: campaign, item_id: item, decision: 'rejected', approver: OPERATOR });
    expect(rejected.pending_items[0]).toMatchObject({ status: 'rejected' });
    expect(rejected.pending_items[0]).not.toHaveProperty('executed');
    const again = await callError(stack, 'answer', { campaign_id: campaign, item_id: item, decision: 'approved', approver: OPERATOR });
    expect(again.code).toBe('APPROVAL.ALREADY_DECIDED');
    expect(ofType(await campaignEvents(stack, campaign), 'ApprovalDecided')).toEqual([expect.objectContaining({ decision: 'rejected', approver: OPERATOR })]);
  });

  it('Issue 8 approvals: only CAMPAIGN_OPERATOR may decide; a refused approver is an audited denial and the item stays pending', async () => {
    const campaign = await scriptedCampaign(stack, [{ action_type: 'generate_message', message: MESSAGE }]);
    await call(stack, 'cycle', { campaign_id: campaign });
    const item = itemIdOf(campaign, 1);
    const intruder = { id: 'mallory', role: 'TASK_ASSISTANT' };
    const refused = await callError(stack, 'answer', { campaign_id: campaign, item_id: item, decision: 'approved', approver: intruder });
    expect(refused.code).toBe('APPROVAL.ROLE_DENIED');
    const view = await call(stack, 'get', { campaign_id: campaign });
    expect(view.pending_items[0]).toMatchObject({ status: 'pending' });
    const refusal = ofType<{ approver: unknown; code: string }>(await campaignEvents(stack, campaign), 'ApprovalRefused');
    expect(refusal).toEqual([expect.objectContaining({ approver: intruder, code: 'APPROVAL.ROLE_DENIED' })]);
    // Probe finding: the same approver, now in a role that may approve, is approved and the message is written (its
    // answer ran under the refused answer's finished run before, and the write was refused as that run's child).
    const approved = await call(stack, 'answer', { campaign_id: campaign, item_id: item, decision: 'approved', approver: { id: intruder.id, role: OPERATOR.role } });
    expect(approved.pending_items[0]).toMatchObject({ status: 'approved', executed: { status: 'ok' } });
  });

  it('Issue 8 approvals: an item past its expiry is expired, never executed', async () => {
    const campaign = await scriptedCampaign(stack, [
      { action_type: 'persist_artifact', artifact: { artifact_type: 'analysis_result', artifact_key: 'late', content: {} } },
    ], { approval_ttl_seconds: 1 });
    const view = await call(stack, 'cycle', { campaign_id: campaign });
    const expiresAt = Date.parse(view.pending_items[0]!.expires_at);
    await waitUntil(() => Date.now() > expiresAt + 50, { timeoutMs: 5_000, description: 'the item expiry' });
    const late = await callError(stack, 'answer', { campaign_id: campaign, item_id: itemIdOf(campaign, 1), decision: 'approved', approver: OPERATOR });
    expect(late.code).toBe('APPROVAL.EXPIRED');
    const after = await call(stack, 'get', { campaign_id: campaign });
    expect(after.pending_items[0]).toMatchObject({ status: 'expired' });
    expect(after.pending_items[0]).not.toHaveProperty('executed');
    expect(after.artifacts).toEqual([]);
  });

  it('Issue 8 questions: request_user_input waits for an answer, which the agent sees in the next snapshot; a wrong decision is refused naming its field', async () => {
    const campaign = await scriptedCampaign(stack, [
      { action_type: 'request_user_input', question: 'This lead has no company. Proceed or skip?', options: ['Proceed', 'Skip'] },
      { action_type: 'no_op', reason: 'preconditions_not_met' },
    ]);
    const asked = await call(stack, 'run', { campaign_id: campaign });
    expect(asked.ran!.map((r) => r.outcome)).toEqual(['awaiting_approval']);
    const item = itemIdOf(campaign, 1);
    const wrong = await callError(stack, 'answer', { campaign_id: campaign, item_id: item, decision: 'approved', approver: OPERATOR });
    expect(wrong).toMatchObject({ code: 'REQUEST.INVALID', details: ['decision must be answered for a question (it is approved)'] });
    const unanswered = await callError(stack, 'answer', { campaign_id: campaign, item_id: item, decision: 'answered', approver: OPERATOR });
    expect(unanswered).toMatchObject({ code: 'REQUEST.INVALID', details: ['answer is required to answer a question'] });
    await call(stack, 'answer', { campaign_id: campaign, item_id: item, decision: 'answered', answer: 'Skip', approver: OPERATOR });
    await call(stack, 'cycle', { campaign_id: campaign });
    const snapshots = ofType<{ snapshot: { recent_audit_log: { action_type: string; payload?: Record<string, unknown> }[] } }>(await campaignEvents(stack, campaign), 'CycleStarted');
    expect(snapshots[1]!.snapshot.recent_audit_log[0]).toMatchObject({ action_type: 'approval_answered', payload: { item_id: item, answer: 'Skip' } });
  });

  it('Issue 8 approvals survive a crash: decision is killed while an approval is pending, restarted, and the approval executes', async () => {
    const campaign = await scriptedCampaign(stack, [{ action_type: 'generate_message', message: MESSAGE }]);
    await call(stack, 'cycle', { campaign_id: campaign });
    await stack.kill('decision');
    await stack.startService('decision');
    const approved: CampaignView = await call(stack, 'answer', { campaign_id: campaign, item_id: itemIdOf(campaign, 1), decision: 'approved', approver: OPERATOR });
    expect(approved.pending_items[0]).toMatchObject({ status: 'approved', executed: { status: 'ok' } });
  });

  it('Issue 21 a campaign cycle crashed mid-call, an approval pending: SIGKILL decision while the cycle\'s tool call runs; the cycle resumes from the inbox without anyone asking again and the page is visited once', async () => {
    const campaign = await scriptedCampaign(stack, [
      { action_type: 'generate_message', message: MESSAGE },
      { action_type: 'execute_tool', tool_name: 'browser_navigate', parameters: { url: `${site.url}/held` } },
    ]);
    const first = await call(stack, 'cycle', { campaign_id: campaign });
    expect(first.pending_items).toEqual([expect.objectContaining({ status: 'pending' })]);
    // The second cycle's navigation is held by the page; its caller's reply is lost with decision.
    const asked = stack.request('agents.campaign.cycle', { campaign_id: campaign }, 5_000).catch(() => undefined);
    await waitUntil(() => site.heldVisits > 0, { timeoutMs: 60_000, description: 'the held navigation' });
    const cycleRun = cycleRunOf(campaign, 2);
    expect((await stack.runEvents(cycleRun)).map((e) => e.type)).toContain('ToolCallRequested');
    await stack.kill('decision', 'SIGKILL');
    site.release();
    await asked;
    await stack.startService('decision');

    // Nobody asks again: the inbox redelivers the cycle request to the restarted decision, which finishes the cycle.
    const ended = await stack.waitFor(async () => (await stack.runEvents(cycleRun)).find((e) => e.type === 'RunCompleted'), 90_000);
    expect(ended.data).toMatchObject({ result: { action_type: 'execute_tool', success: true } });
    expect(site.heldVisits).toBe(1);
    const types = (await stack.runEvents(cycleRun)).map((e) => e.type);
    expect(types.filter((t) => t === 'ToolCallRequested')).toHaveLength(1);
    expect(types.filter((t) => t === 'ToolCallRecorded')).toHaveLength(1);
    expect(types.indexOf('ToolCallRequested')).toBeLessThan(types.indexOf('ToolCallRecorded'));
    expect(ofType(await campaignEvents(stack, campaign), 'ToolExecuted')).toEqual([expect.objectContaining({ tool_name: 'browser_navigate', status: 'ok' })]);

    // The approval pending before the crash is still pending, and executes once when approved.
    const approved = await call(stack, 'answer', { campaign_id: campaign, item_id: itemIdOf(campaign, 1), decision: 'approved', approver: OPERATOR });
    expect(approved.pending_items[0]).toMatchObject({ status: 'approved', executed: { status: 'ok' } });
  });

  it('Probe finding: a cycle request cancelled while its cycle runs ends that cycle too (CycleAborted, the cycle run RunCancelled) instead of leaving it in progress until the next request', async () => {
    site.hold();
    const visits = site.heldVisits;
    const campaign = await scriptedCampaign(stack, [
      { action_type: 'execute_tool', tool_name: 'browser_navigate', parameters: { url: `${site.url}/held` } },
      { action_type: 'no_op', reason: 'campaign_complete', details: 'done' },
    ]);
    const asked = stack.request('agents.campaign.run', { campaign_id: campaign, request_id: 'cancel-me', max_cycles: 2 }, 5_000).catch(() => undefined);
    await waitUntil(() => site.heldVisits > visits, { timeoutMs: 60_000, description: 'the held navigation' });
    const requestRun = deterministicUuid('campaign-cycles', campaign, 'cancel-me');
    expect(await runCli(stack.url, ['runs', 'cancel', requestRun, '--reason', 'operator stop'], stack.cliEnv('operator'))).toMatchObject({ code: 0 });
    // The request's carrier dies mid-cycle; the redelivered request finds the cancel and ends, with its open cycle.
    await stack.kill('decision', 'SIGKILL');
    site.release();
    await asked;
    await stack.startService('decision');
    await stack.waitFor(async () => (await stack.runEvents(requestRun)).find((e) => e.type === 'RunCancelled'), 90_000);
    const cycleTypes = (await stack.runEvents(cycleRunOf(campaign, 1))).map((e) => e.type);
    expect(cycleTypes.at(-1)).toBe('RunCancelled');
    expect(ofType(await campaignEvents(stack, campaign), 'CycleAborted')).toEqual([expect.objectContaining({ cycle: 1, reason: expect.stringContaining('operator stop') })]);
    const cycleRun = cycleRunOf(campaign, 1);
    const report = await stack.waitFor(async () => {
      const r = await stack.request<CoverageReport>('rl.audit.coverage', {});
      return r.body.in_progress.includes(cycleRun) ? undefined : r.body;
    }, 30_000);
    expect(report.violations.filter((v) => v.run_id === cycleRun)).toEqual([]);
  });

  it('Issue 21 a repeated cycle request (same request_id) joins the cycles it queued and answers their outcome; it never runs another cycle', async () => {
    const campaign = await scriptedCampaign(stack, [
      { action_type: 'create_task', task: { description: 'Visit the profile of the current lead' } },
      { action_type: 'no_op', reason: 'campaign_complete', details: 'done' },
    ]);
    const first = await call(stack, 'cycle', { campaign_id: campaign, request_id: 'cycle-once' });
    const again = await call(stack, 'cycle', { campaign_id: campaign, request_id: 'cycle-once' });
    expect(again.ran).toEqual(first.ran);
    expect(ofType(await campaignEvents(stack, campaign), 'CycleStarted')).toHaveLength(1);
    const next = await call(stack, 'cycle', { campaign_id: campaign, request_id: 'cycle-twice' });
    expect(next.ran!.map((r) => r.cycle)).toEqual([2]);
  });
});
