import { randomUUID } from 'node:crypto';
import { validateStateSnapshot } from '@runledger/agent-runtime';
import { sha256Hex } from '@runledger/kernel';
import { startOpenAiStub, type OpenAiStub } from '@runledger/testing';
import { call, callError, CAMPAIGN_SERVICES, campaignEvents, cycleRunOf, ofType, scriptedCampaign, taskIdOf } from './support/campaigns';
import { TestStack } from './support/stack';

jest.setTimeout(240_000);

interface AgentInfo {
  system_prompt_sha256: string;
  abilities: { included: string[]; tokens_used: number };
  [key: string]: unknown;
}

const ABORT = { on_invalid: 'abort', max_attempts: 1 };
const UNKNOWN_TASK = '990e8400-e29b-41d4-a716-446655440009';
const NOT_JSON_CAMPAIGN = 'Model answers in prose';
const EFFECT_EVENTS = ['TaskCreated', 'TaskSelected', 'ToolExecuted', 'LeadsAnalyzed', 'ApprovalRequested', 'ArtifactPersisted'];

describe('Issue 8: every contract-003 schema and rule, through the bus', () => {
  let stack: TestStack;
  let llm: OpenAiStub;

  beforeAll(async () => {
    // A campaign named NOT_JSON_CAMPAIGN (its name is in the snapshot) gets prose with broken JSON from the model.
    llm = await startOpenAiStub((body) => JSON.stringify(body.messages).includes(NOT_JSON_CAMPAIGN)
      ? { content: 'Sure! Here is my proposal: {"action_type": no_op' }
      : { content: JSON.stringify({ action_type: 'create_task', task: { description: 'Prioritize the imported leads' }, justification: 'First step' }) });
    stack = await TestStack.start({ services: CAMPAIGN_SERVICES, serviceEnv: { decision: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'test-key' } } });
  });
  afterAll(async () => {
    await stack?.stop();
    await llm?.stop();
  });

  /** Runs one cycle of a one-proposal campaign (after `before`, run first) and returns what the cycle recorded. */
  async function oneCycle(proposal: unknown, before: unknown[] = [], settings: Record<string, unknown> = ABORT) {
    const campaign = await scriptedCampaign(stack, [...before, proposal], settings);
    for (let i = 0; i < before.length; i++) await call(stack, 'cycle', { campaign_id: campaign });
    const reply = await call(stack, 'cycle', { campaign_id: campaign });
    const cycle = before.length + 1;
    const events = (await campaignEvents(stack, campaign)).filter((e) => (e.data as { cycle?: number }).cycle === cycle);
    return { campaign, ran: reply.ran![0]!, events, types: events.map((e) => e.type) };
  }

  it.each([
    ['FR-005i create_task', { action_type: 'create_task', task: { description: 'Test' } }, '/task/description must NOT have fewer than 10 characters'],
    ['FR-005j select_next_task', { action_type: 'select_next_task', reasoning: 'no id' }, "must have required property 'task_id'"],
    ['FR-005k execute_tool', { action_type: 'execute_tool', tool_name: 'browser_navigate' }, "must have required property 'parameters'"],
    ['FR-005l generate_message', { action_type: 'generate_message', message: { type: 'sms', content: 'Hello there, nice to meet you!' } }, '/message/type must be equal to one of the allowed values'],
    ['FR-005m analyze_leads', { action_type: 'analyze_leads', analysis_type: 'guess' }, '/analysis_type must be equal to one of the allowed values'],
    ['FR-005n request_user_input', { action_type: 'request_user_input', question: 'Why?' }, '/question must NOT have fewer than 10 characters'],
    ['FR-005o persist_artifact', { action_type: 'persist_artifact', artifact: { artifact_type: 'malware', artifact_key: 'k', content: {} } }, '/artifact/artifact_type must be equal to one of the allowed values'],
    ['FR-005p no_op', { action_type: 'no_op', reason: 'bored' }, '/reason must be equal to one of the allowed values'],
    ['FR-010 unknown action type', { action_type: 'invalid_action' }, 'unknown action type'],
  ])('%s: an invalid proposal is rejected with the validation-error response and nothing is executed', async (_, proposal, expected) => {
    const { campaign, ran, types } = await oneCycle(proposal);
    expect(ran.outcome).toBe('aborted');
    expect(ran.errors!.join('\n')).toContain(expected);
    expect(ran.validation_error).toMatchObject({ is_valid: false, error: expect.stringContaining(expected) });
    expect(types).toEqual(['CycleStarted', 'ProposalRecorded', 'CycleAborted']);
    const run = await stack.runEvents(cycleRunOf(campaign, 1));
    expect(run.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'RunFailed']);
    expect(run[3]!.data).toMatchObject({ error: { error_code: 'PROPOSAL.INVALID' } });
  });

  it.each([
    ['FR-005i create_task', { action_type: 'create_task', task: { description: 'Send connection request to Jane' }, justification: 'Best lead' }, [], 'executed', 'TaskCreated'],
    ['FR-005j select_next_task', (id: string) => ({ action_type: 'select_next_task', task_id: taskIdOf(id, 1) }), [{ action_type: 'create_task', task: { description: 'Send connection request to Jane' } }], 'executed', 'TaskSelected'],
    ['FR-005k execute_tool', { action_type: 'execute_tool', tool_name: 'send_message', parameters: { to: 'https://example.org/in/jane', content: 'Hello Jane' } }, [], 'executed', 'ToolExecuted'],
    ['FR-005l generate_message', { action_type: 'generate_message', message: { type: 'follow_up', content: 'Thanks for connecting, Jane. Happy to share notes.' } }, [], 'awaiting_approval', 'ApprovalRequested'],
    ['FR-005m analyze_leads', { action_type: 'analyze_leads', analysis_type: 'prioritize' }, [], 'executed', 'LeadsAnalyzed'],
    ['FR-005n request_user_input', { action_type: 'request_user_input', question: 'Should I proceed or skip this lead?' }, [], 'awaiting_approval', 'ApprovalRequested'],
    ['FR-005o persist_artifact', { action_type: 'persist_artifact', artifact: { artifact_type: 'job_posting', artifact_key: 'jp-1', content: { title: 'SRE' } } }, [], 'awaiting_approval', 'ApprovalRequested'],
    ['FR-005p no_op', { action_type: 'no_op', reason: 'rate_limit_reached', details: 'wait an hour' }, [], 'executed', null],
  ])('%s: a valid proposal is executed by the controller', async (_, proposal, before, outcome, effect) => {
    // select_next_task names a task the first cycle created; its id derives from the campaign, so build it per campaign.
    const campaignScript = (id: string) => [...before, typeof proposal === 'function' ? proposal(id) : proposal];
    const campaign = await scriptedCampaign(stack, campaignScript, ABORT);
    let reply = await call(stack, 'cycle', { campaign_id: campaign });
    if (before.length) reply = await call(stack, 'cycle', { campaign_id: campaign });
    expect(reply.ran![0]).toMatchObject({ outcome, action_type: campaignScript(campaign).at(-1)!.action_type });
    const cycle = before.length + 1;
    const events = (await campaignEvents(stack, campaign)).filter((e) => (e.data as { cycle?: number }).cycle === cycle);
    expect(events.map((e) => e.type).filter((t) => EFFECT_EVENTS.includes(t))).toEqual(effect ? [effect] : []);
    expect(ofType<{ verdict: string }>(events, 'ProposalRecorded').map((p) => p.verdict)).toEqual(['valid']);
  });

  it('003 business rule 1: execute_tool with a tool outside the enum is rejected, naming the tool', async () => {
    const { ran } = await oneCycle({ action_type: 'execute_tool', tool_name: 'shell_exec', parameters: {} });
    expect(ran.errors).toEqual([expect.stringContaining("tool 'shell_exec' is not an allowed tool")]);
  });

  it('003 business rule 2: select_next_task with a task_id the snapshot does not hold is rejected', async () => {
    const { ran } = await oneCycle({ action_type: 'select_next_task', task_id: UNKNOWN_TASK });
    expect(ran.errors).toEqual([expect.stringContaining('neither the current task nor a pending task')]);
  });

  it('003 business rule 3: generate_message content over 300 characters is rejected with its length', async () => {
    const { ran } = await oneCycle({ action_type: 'generate_message', message: { type: 'direct_message', content: 'x'.repeat(301) } });
    expect(ran.errors).toEqual(['/message/content is 301 characters; LinkedIn allows at most 300']);
  });

  it('003 business rule 4: create_task without justification is accepted with a recorded warning', async () => {
    const { ran, events } = await oneCycle({ action_type: 'create_task', task: { description: 'Follow up on connection request' } });
    expect(ran.outcome).toBe('executed');
    expect(ofType<{ warnings: string[] }>(events, 'ProposalRecorded')[0]!.warnings).toEqual([expect.stringContaining('no justification')]);
  });

  it('FR-010 retry: an invalid proposal is asked again; the valid second proposal is executed and both are recorded', async () => {
    const { ran, events } = await oneCycle({ action_type: 'no_op', reason: 'awaiting_user_input' }, [], { on_invalid: 'retry', max_attempts: 2 });
    expect(ran.outcome).toBe('executed');
    const retried = await scriptedCampaign(stack, [{ action_type: 'no_op', reason: 'nope' }, { action_type: 'no_op', reason: 'awaiting_user_input' }], { on_invalid: 'retry', max_attempts: 2 });
    const reply = await call(stack, 'cycle', { campaign_id: retried });
    expect(reply.ran![0]).toMatchObject({ outcome: 'executed', action_type: 'no_op' });
    const recorded = ofType<{ attempt: number; verdict: string; raw: unknown }>(await campaignEvents(stack, retried), 'ProposalRecorded');
    expect(recorded.map((p) => [p.attempt, p.verdict])).toEqual([[1, 'invalid'], [2, 'valid']]);
    expect(recorded[0]!.raw).toEqual({ action_type: 'no_op', reason: 'nope' });
    expect(ofType(events, 'ProposalRecorded')).toHaveLength(1);
  });

  it('FR-010 retry budget: when every attempt is invalid the cycle is aborted after max_attempts', async () => {
    const bad = { action_type: 'no_op', reason: 'nope' };
    const campaign = await scriptedCampaign(stack, [bad, bad, bad], { on_invalid: 'retry', max_attempts: 2 });
    const reply = await call(stack, 'cycle', { campaign_id: campaign });
    expect(reply.ran![0]!.outcome).toBe('aborted');
    expect(ofType(await campaignEvents(stack, campaign), 'ProposalRecorded')).toHaveLength(2);
  });

  it('FR-050 bounds: the snapshot holds at most 10 pending tasks and the 5 newest audit entries, only schema fields, and is valid', async () => {
    const tasks = Array.from({ length: 12 }, (_, i) => ({ action_type: 'create_task', task: { description: `Research lead number ${i}` }, justification: 'x' }));
    const campaign = await scriptedCampaign(stack, [...tasks, { action_type: 'no_op', reason: 'preconditions_not_met' }], ABORT);
    const reply = await call(stack, 'run', { campaign_id: campaign, max_cycles: 13 });
    expect(reply.ran).toHaveLength(13);
    const last = ofType<{ snapshot: Record<string, unknown>; omitted: { pending_tasks: number; audit_entries: number } }>(await campaignEvents(stack, campaign), 'CycleStarted')[12]!;
    const snapshot = last.snapshot as { pending_tasks: { description: string }[]; recent_audit_log: { timestamp: string; payload: { task_id: string } }[] };
    expect(validateStateSnapshot(snapshot).ok).toBe(true);
    expect(snapshot.pending_tasks.map((t) => t.description)).toEqual(tasks.slice(0, 10).map((t) => t.task.description));
    expect(last.omitted).toEqual({ pending_tasks: 2, audit_entries: 7 });
    expect(snapshot.recent_audit_log.map((e) => e.payload.task_id)).toEqual([12, 11, 10, 9, 8].map((c) => taskIdOf(campaign, c)));
    expect(Object.keys(last.snapshot).sort()).toEqual(['available_artifacts', 'campaign', 'current_task', 'leads_summary', 'pending_tasks', 'recent_audit_log']);
    expect(Object.keys(snapshot.pending_tasks[0]!).sort()).toEqual(['description', 'id']);
  });

  it('FR-010 / no parser text to a caller: a model proposal that is not JSON aborts the cycle with PROPOSAL.NOT_JSON in our words', async () => {
    const campaign_id = randomUUID();
    await call(stack, 'create', { campaign_id, name: NOT_JSON_CAMPAIGN, agent: { kind: 'llm', model: 'stub-model' }, settings: ABORT });
    await call(stack, 'start', { campaign_id });
    const reply = await call(stack, 'cycle', { campaign_id });
    const reason = 'PROPOSAL.NOT_JSON: the proposal is not valid JSON; answer with exactly one JSON object';
    expect(reply.ran![0]).toMatchObject({ outcome: 'aborted', errors: [reason], validation_error: { is_valid: false, errors: [reason] } });
    expect(JSON.stringify(reply)).not.toMatch(/Unexpected token|in JSON at|position \d/);
    // Operators keep the model's text itself on the log.
    expect(ofType<{ raw: unknown }>(await campaignEvents(stack, campaign_id), 'ProposalRecorded')[0]!.raw).toBe('Sure! Here is my proposal: {"action_type": no_op');
  });

  it('Issue 8 lifecycle: cycles run only while the campaign is active; bad input gets a specific code', async () => {
    const campaign = await scriptedCampaign(stack, []);
    await call(stack, 'pause', { campaign_id: campaign });
    expect((await callError(stack, 'cycle', { campaign_id: campaign })).code).toBe('CAMPAIGN.STATE');
    expect((await callError(stack, 'cycle', { campaign_id: randomUUID() })).code).toBe('CAMPAIGN.NOT_FOUND');
    const invalid = await callError(stack, 'create', { campaign_id: 'nope', agent: { kind: 'robot' } });
    // Named in the words of every other refusal (the campaign_id's format, the missing name, the agent's unknown kind).
    expect(invalid).toMatchObject({ code: 'REQUEST.INVALID', details: ['name is required', 'campaign_id must be a UUID', 'agent.kind must be one of the following values: scripted, llm, session'] });
    expect(JSON.stringify(invalid)).not.toMatch(/at \w+ \(|node_modules/);
  });

  /** The campaign profiles' one core ability, in tokens (~4 characters each). */
  const coreTokens = Math.ceil(`Answer with exactly one JSON object: a proposal whose action_type is one of create_task, select_next_task, execute_tool, generate_message, analyze_leads, request_user_input, persist_artifact, no_op, following contract 003. You hold no memory between cycles: decide only from the state snapshot.`.length / 4);

  it('INV-AGT-SEL-004 / INV-AGT-ABL-001..003 in the controller: a model campaign naming no profile gets the selected one; abilities go into the system prompt before the call, core first, within budget', async () => {
    const results: AgentInfo[] = [];
    for (const [name, limit] of [['Quarterly planning', coreTokens], ['Prioritize leads for Q1', 400]] as const) {
      const campaign_id = randomUUID();
      await call(stack, 'create', { campaign_id, name, agent: { kind: 'llm', model: 'stub-model', token_limit: limit } });
      await call(stack, 'start', { campaign_id });
      const before = llm.requests.length;
      const reply = await call(stack, 'cycle', { campaign_id });
      expect(reply.ran![0]).toMatchObject({ outcome: 'executed', action_type: 'create_task' });
      const request = llm.requests[before]!;
      const recorded = ofType<{ agent: AgentInfo }>(await campaignEvents(stack, campaign_id), 'ProposalRecorded')[0]!.agent;
      const system = String((request.body.messages[0] as { content: string }).content);
      expect(recorded.system_prompt_sha256).toBe(sha256Hex(system));
      expect(system.startsWith('Answer with exactly one JSON object')).toBe(true);
      expect(recorded.abilities.included[0]).toBe('proposal-contract');
      expect(recorded.abilities.tokens_used).toBeLessThanOrEqual(limit);
      results.push(recorded);
    }
    expect(results[0]).toMatchObject({ kind: 'llm', model: 'stub-model', profile_id: 'standard', selection: { agent_id: 'standard', fallback: true, confidence: 0.5 } });
    expect(results[1]).toMatchObject({ profile_id: 'lead-researcher', selection: { agent_id: 'lead-researcher', fallback: false } });
    expect(results[1]!.abilities.included).toEqual(expect.arrayContaining(['proposal-contract', 'lead-scoring']));
  });

  it('Issue 26 / INV-AGT-ABL-002 at create: a token_limit below the core abilities is refused with REQUEST.INVALID naming both numbers and the field (details), and no campaign is recorded', async () => {
    for (const agent of [{ kind: 'llm', model: 'stub-model', token_limit: coreTokens - 1 }, { kind: 'llm', model: 'stub-model', profile: 'outreach-writer', token_limit: 1 }]) {
      const campaign_id = randomUUID();
      const refused = await callError(stack, 'create', { campaign_id, name: 'Too small a budget', agent });
      expect(refused.code).toBe('REQUEST.INVALID');
      expect((refused as { retryable?: boolean }).retryable).toBe(false);
      expect(refused.message).toContain(`token_limit ${agent.token_limit} `);
      expect(refused.message).toContain(` ${coreTokens} tokens`);
      // The field named by its path, as the schema's refusals name theirs.
      expect((refused as { details?: string[] }).details).toEqual([expect.stringMatching(/^agent\.token_limit \d+ is below/)]);
      expect((await callError(stack, 'get', { campaign_id })).code).toBe('CAMPAIGN.NOT_FOUND');
    }
    const unknown = await callError(stack, 'create', { campaign_id: randomUUID(), name: 'No such profile', agent: { kind: 'llm', model: 'stub-model', profile: 'no-such-profile' } });
    expect(unknown).toMatchObject({ code: 'REQUEST.INVALID', message: expect.stringContaining('no-such-profile'), details: ['agent.profile: No agent profile no-such-profile.'] });
    // The least budget that holds the core abilities is accepted.
    await call(stack, 'create', { campaign_id: randomUUID(), name: 'Exactly enough', agent: { kind: 'llm', model: 'stub-model', token_limit: coreTokens } });
  });

  it('Create refuses a session campaign naming an unknown session agent, as an unknown llm profile is (REQUEST.INVALID, the field in details), and records no campaign', async () => {
    const campaign_id = randomUUID();
    const refused = await callError(stack, 'create', { campaign_id, name: 'No such agent', agent: { kind: 'session', agent: 'nope' } });
    expect(refused).toMatchObject({ code: 'REQUEST.INVALID', message: 'No agent profile nope.', details: ['agent.agent: No agent profile nope.'] });
    expect((await callError(stack, 'get', { campaign_id })).code).toBe('CAMPAIGN.NOT_FOUND');
  });
});
