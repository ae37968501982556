import { DeciderSpec, foldEvents, recorded } from '@runledger/event-log';
import { buildStateSnapshot } from '@runledger/agent-runtime';
import { campaignDecider, decisionFieldProblem, evolveCampaign, initialCampaignState, leadId } from './campaign.decider';
import { snapshotSourceOf } from './campaign-snapshot';
import { CampaignEvent, CampaignRefusal } from './campaign-types';

const CID = '11111111-1111-4111-8111-111111111111';
const T1 = '22222222-2222-4222-8222-222222222221';
const T2 = '22222222-2222-4222-8222-222222222222';
const L1 = '33333333-3333-4333-8333-333333333331';
const L2 = '33333333-3333-4333-8333-333333333332';
const RUN = '44444444-4444-4444-8444-444444444444';

const created: CampaignEvent = {
  type: 'CampaignCreated',
  data: { campaign_id: CID, name: 'Q1', case_id: `campaign-${CID}`, agent: { kind: 'scripted', proposals: [] }, settings: { on_invalid: 'retry', max_attempts: 2, approval_ttl_seconds: 60 }, policy_versions: { lanes: 'l', roles: 'r' } },
};
const started: CampaignEvent = { type: 'CampaignStarted', data: {} };
const cycleData = (n: number) => ({ cycle: n, run_id: RUN, snapshot_sha256: 'x', snapshot: {}, omitted: { pending_tasks: 0, audit_entries: 0 } });
const cycle = (n: number): CampaignEvent => ({ type: 'CycleStarted', data: { cycle: n, run_id: RUN, snapshot_sha256: 'x', snapshot: {}, omitted: { pending_tasks: 0, audit_entries: 0 } } });
const task = (id: string, pre: string[] = []): CampaignEvent => ({ type: 'TaskCreated', data: { cycle: 1, task_id: id, description: `task ${id}`, preconditions: pre, warnings: [] } });
const spec = DeciderSpec.for(campaignDecider);

describe('Issue 8 campaign aggregate: lifecycle', () => {
  it('contract 003 campaign status: created campaigns are initializing, start makes them active, pause paused', () => {
    const s = foldEvents(evolveCampaign, initialCampaignState(), recorded([created]));
    expect(s.status).toBe('initializing');
    spec.given([created]).when({ type: 'StartCampaign' }).then([started]);
    spec.given([created, started]).when({ type: 'PauseCampaign', reason: 'lunch' }).then([{ type: 'CampaignPaused', data: { reason: 'lunch' } }]);
    spec.given([created, started]).when({ type: 'StartCampaign' }).thenNothing();
  });

  it('Probe finding: the same import asked again is a retry; its import_id with other leads (changed, more, fewer) is REQUEST.CONFLICT, never dropped unseen', () => {
    const lead = (i: number, name: string) => ({ id: leadId(CID, 'imp-1', i), full_name: name, profile_url: `https://example.org/${i}`, weight_score: 10 + i });
    const imported: CampaignEvent = { type: 'LeadsImported', data: { import_id: 'imp-1', leads: [lead(0, 'Ann'), lead(1, 'Bob')] } };
    spec.given([created, imported]).when({ type: 'ImportLeads', data: { import_id: 'imp-1', leads: [lead(0, 'Ann'), lead(1, 'Bob')] } }).thenNothing();
    // Key order of a lead is not a difference (JSON objects are unordered).
    const reordered = { weight_score: 11, profile_url: 'https://example.org/1', full_name: 'Bob', id: leadId(CID, 'imp-1', 1) };
    spec.given([created, imported]).when({ type: 'ImportLeads', data: { import_id: 'imp-1', leads: [lead(0, 'Ann'), reordered] } }).thenNothing();
    // A cycle's analysis rescored the leads since: the same import asked again is still a retry (review finding).
    const rescored: CampaignEvent = { type: 'LeadsAnalyzed', data: { cycle: 1, analysis_type: 'prioritize', ranking: [lead(1, 'Bob').id], current_lead_id: lead(1, 'Bob').id, scores: { [lead(0, 'Ann').id]: 99, [lead(1, 'Bob').id]: 98 } } };
    spec.given([created, started, imported, cycle(1), rescored]).when({ type: 'ImportLeads', data: { import_id: 'imp-1', leads: [lead(0, 'Ann'), lead(1, 'Bob')] } }).thenNothing();
    for (const leads of [[lead(0, 'Ann'), lead(1, 'Rob')], [lead(0, 'Ann')], [lead(0, 'Ann'), lead(1, 'Bob'), lead(2, 'Cy')]]) {
      spec.given([created, imported]).when({ type: 'ImportLeads', data: { import_id: 'imp-1', leads } }).thenThrows(/already used for different leads/);
    }
  });

  it('Issue 8 cycles: a cycle begins only while the campaign is active, one at a time, in order', () => {
    spec.given([created]).when({ type: 'BeginCycle', data: cycleData(1) }).thenThrows(/initializing/);
    spec.given([created, started, cycle(1)]).when({ type: 'BeginCycle', data: cycleData(2) }).thenThrows(/still open/);
    spec.given([created, started]).when({ type: 'BeginCycle', data: cycleData(2) }).thenThrows(/next cycle is 1/);
  });

  it('review of d47866d: an open cycle records the request run that opened it; one recorded before that field folds all the same, without it', () => {
    const req = '55555555-5555-4555-8555-555555555555';
    const now = foldEvents(evolveCampaign, initialCampaignState(), recorded([created, started, { type: 'CycleStarted', data: { ...cycleData(1), request_run_id: req } } as CampaignEvent]));
    expect(now.open_cycle).toMatchObject({ cycle: 1, request_run_id: req });
    const old = foldEvents(evolveCampaign, initialCampaignState(), recorded([created, started, cycle(1)]));
    expect(old.open_cycle).toMatchObject({ cycle: 1, run_id: RUN });
    expect(old.open_cycle).not.toHaveProperty('request_run_id');
  });

  it('a create for an existing id with another definition is refused; the same create is a retry', () => {
    spec.given([created]).when({ type: 'CreateCampaign', data: (created as Extract<CampaignEvent, { type: 'CampaignCreated' }>).data }).thenNothing();
    expect(() => campaignDecider.decide({ type: 'CreateCampaign', data: { ...(created as Extract<CampaignEvent, { type: 'CampaignCreated' }>).data, name: 'other' } }, foldEvents(evolveCampaign, initialCampaignState(), recorded([created])))).toThrow(CampaignRefusal);
  });
});

describe('Issue 8 campaign aggregate: tasks (FR-007)', () => {
  it('select_next_task: a task whose preconditions are not done is refused as an event, not selected', () => {
    spec.given([created, started, cycle(1), task(T1), task(T2, [T1])]).when({ type: 'SelectTask', cycle: 1, task_id: T2 })
      .then([{ type: 'TaskSelectionRefused', data: { cycle: 1, task_id: T2, reason: `preconditions not met: ${T1}` } }]);
  });

  it('FR-007: the current task is done only after a verified tool outcome; an unverified success leaves it in progress', () => {
    const given = [created, started, cycle(1), task(T1), { type: 'TaskSelected', data: { cycle: 1, task_id: T1 } } as CampaignEvent];
    const outcome = { cycle: 1, call_id: 'c', tool_name: 'browser_navigate', child_run_id: RUN, status: 'ok' as const, verified: false, check: 'url differs' };
    spec.given(given).when({ type: 'RecordToolOutcome', data: outcome }).then([{ type: 'ToolExecuted', data: outcome }]);
    const verified = { ...outcome, verified: true, check: 'url matches' };
    spec.given(given).when({ type: 'RecordToolOutcome', data: verified }).then([
      { type: 'ToolExecuted', data: verified },
      { type: 'TaskStatusChanged', data: { task_id: T1, from: 'in-progress', to: 'done', verified_by: { cycle: 1, tool_name: 'browser_navigate', child_run_id: RUN, check: 'url matches' } } },
    ]);
  });
});

describe('Issue 8 campaign aggregate: a resumed cycle', () => {
  it('FR-006: a tool outcome asked for again after a crash is recorded once', () => {
    const outcome = { cycle: 1, call_id: 'campaign-cycle-1', tool_name: 'send_message', child_run_id: RUN, status: 'ok' as const, verified: true, check: 'outbox' };
    spec.given([created, started, cycle(1), { type: 'ToolExecuted', data: outcome }]).when({ type: 'RecordToolOutcome', data: outcome }).thenNothing();
  });
});

describe('Issue 8 campaign aggregate: approvals', () => {
  const item = { item_id: 'i1', kind: 'generate_message' as const, cycle: 1, proposal: { action_type: 'generate_message' }, expires_at: '2026-01-01T00:01:00.000Z' };
  const given = [created, started, cycle(1), { type: 'ApprovalRequested', data: item } as CampaignEvent];
  const approver = { id: 'ops-1', role: 'CAMPAIGN_OPERATOR' };
  const decide = (now: string, role = approver.role) => ({ type: 'DecideItem' as const, item_id: 'i1', decision: 'approved' as const, approver: { ...approver, role }, now, operator_roles: ['CAMPAIGN_OPERATOR'] });

  it('an operator with the right role approves before expiry; the approver is recorded', () => {
    spec.given(given).when(decide('2026-01-01T00:00:30.000Z')).then([{ type: 'ApprovalDecided', data: { item_id: 'i1', decision: 'approved', approver, decided_at: '2026-01-01T00:00:30.000Z' } }]);
  });
  it('another role is refused, as an audited event', () => {
    spec.given(given).when(decide('2026-01-01T00:00:30.000Z', 'TASK_ASSISTANT')).then([
      { type: 'ApprovalRefused', data: { item_id: 'i1', approver: { id: 'ops-1', role: 'TASK_ASSISTANT' }, code: 'APPROVAL.ROLE_DENIED', reason: 'Role TASK_ASSISTANT may not decide campaign items.' } },
    ]);
  });
  it('a decision that does not fit its item is refused as an audited event, and the refusal names the request field at fault', () => {
    spec.given(given).when({ ...decide('2026-01-01T00:00:30.000Z'), decision: 'answered' as const, answer: 'yes' }).then([
      { type: 'ApprovalRefused', data: { item_id: 'i1', approver, code: 'REQUEST.INVALID', reason: 'An approval is approved or rejected.' } },
    ]);
    expect(decisionFieldProblem('generate_message', 'answered', 'yes')).toBe('decision must be approved or rejected for an approval (it is answered)');
    expect(decisionFieldProblem('generate_message', 'rejected', undefined)).toBeNull();
    expect(decisionFieldProblem('request_user_input', 'approved', undefined)).toBe('decision must be answered for a question (it is approved)');
    expect(decisionFieldProblem('request_user_input', 'answered', '')).toBe('answer is required to answer a question');
    expect(decisionFieldProblem('request_user_input', 'answered', 'Skip')).toBeNull();
  });
  it('an answer after expiry expires the item instead, and an expired item can never be executed', () => {
    spec.given(given).when(decide('2026-01-01T00:01:00.000Z')).then([{ type: 'ApprovalExpired', data: { item_id: 'i1', expired_at: '2026-01-01T00:01:00.000Z' } }]);
    const expired = [...given, { type: 'ApprovalExpired', data: { item_id: 'i1', expired_at: 'x' } } as CampaignEvent];
    spec.given(expired).when({ type: 'RecordItemExecuted', data: { item_id: 'i1', status: 'ok' } }).thenThrows(/expired, not approved/);
    spec.given(given).when({ type: 'ExpireItems', now: '2026-01-01T00:02:00.000Z' }).then([{ type: 'ApprovalExpired', data: { item_id: 'i1', expired_at: '2026-01-01T00:02:00.000Z' } }]);
  });
});

describe('Issue 8 snapshot source (FR-050)', () => {
  it('the snapshot folded from the log is valid against the contract schema and bounded', () => {
    const leads: CampaignEvent = { type: 'LeadsImported', data: { import_id: 'a', leads: [{ id: L1, full_name: 'Jane', profile_url: 'https://example.org/jane', weight_score: 40 }, { id: L2, full_name: 'Joe', profile_url: 'https://example.org/joe', weight_score: 90 }] } };
    const tasks = Array.from({ length: 12 }, (_, i) => task(`22222222-2222-4222-8222-${String(i).padStart(12, '0')}`));
    const analyzed: CampaignEvent = { type: 'LeadsAnalyzed', data: { cycle: 1, analysis_type: 'prioritize', ranking: [L2, L1], current_lead_id: L2, scores: {} } };
    const state = foldEvents(evolveCampaign, initialCampaignState(), recorded([created, started, leads, cycle(1), ...tasks, analyzed]));
    const built = buildStateSnapshot(snapshotSourceOf(state));
    if (!built.ok) throw new Error(built.message);
    expect(built.value.snapshot.pending_tasks).toHaveLength(10);
    expect(built.value.omitted.pendingTasks).toBe(2);
    expect(built.value.snapshot.leads_summary).toMatchObject({ total: 2, pending: 2, current_lead: { id: L2, weight_score: 90 } });
  });
});
