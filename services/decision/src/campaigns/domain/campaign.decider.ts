import type { Decider, RecordedEvent } from '@runledger/event-log';
import { canonicalJson } from '@runledger/governance';
import { deterministicUuid, sha256Hex } from '@runledger/kernel';
import { analyzeLeads } from './lead-analysis';
import {
  CampaignCommand, CampaignEvent, CampaignRefusal, CampaignState, ItemDecision, Lead, PendingItem, TaskStatus,
} from './campaign-types';

type Ev = RecordedEvent<CampaignEvent['type'], CampaignEvent['data']>;

export function initialCampaignState(): CampaignState {
  return {
    exists: false, campaign_id: '', name: '', case_id: '', status: 'initializing',
    agent: { kind: 'scripted', proposals: [] },
    settings: { on_invalid: 'retry', max_attempts: 1, approval_ttl_seconds: 3600 },
    policy_versions: { lanes: '', roles: '' },
    tasks: [], current_task_id: null, leads: [], current_lead_id: null, imports: {}, artifacts: [], audit: [],
    open_cycle: null, cycles_started: 0, proposals_asked: 0, pending: {},
  };
}

const ev = <T extends CampaignEvent['type']>(type: T, data: Extract<CampaignEvent, { type: T }>['data']): CampaignEvent =>
  ({ type, data }) as CampaignEvent;

/** A lead's id: one per (campaign, import, position), so an import asked again names the same leads. */
export function leadId(campaignId: string, importId: string, index: number): string {
  return deterministicUuid('campaign-lead', campaignId, importId, index);
}

/** What an import's leads are, whatever their key order: an import asked again is compared by it. */
function importDigest(leads: readonly Lead[]): string {
  return sha256Hex(canonicalJson(leads));
}

/** The refusal for a campaign that is not there (also for one its asker may not reach: campaign-asker.ts). */
export const noSuchCampaign = (): CampaignRefusal => new CampaignRefusal('CAMPAIGN.NOT_FOUND', 'No campaign with that id.');
/** The refusal for a create naming an id another campaign has. */
export const otherCampaign = (): CampaignRefusal => new CampaignRefusal('CAMPAIGN.EXISTS', 'A different campaign already has that id.');

function mustExist(state: CampaignState): void {
  if (!state.exists) throw noSuchCampaign();
}

function mustBeInCycle(state: CampaignState, cycle: number): void {
  if (state.open_cycle?.cycle !== cycle) throw new CampaignRefusal('CAMPAIGN.STATE', `Cycle ${cycle} is not the open cycle.`);
}

/**
 * Decides one command on the campaign's state. Refusals the caller can act on throw CampaignRefusal (nothing is
 * recorded); business outcomes — a refused task selection, an approval by the wrong role, an expired item — are events.
 */
export function decideCampaign(command: CampaignCommand, state: CampaignState): CampaignEvent[] {
  switch (command.type) {
    case 'CreateCampaign':
      if (state.exists) {
        // The same create again is a retry; another campaign under this id is a conflict.
        if (state.name === command.data.name && JSON.stringify(state.agent) === JSON.stringify(command.data.agent)) return [];
        throw otherCampaign();
      }
      return [ev('CampaignCreated', command.data)];
    case 'ImportLeads': {
      mustExist(state);
      const recorded = state.imports[command.data.import_id];
      if (recorded !== undefined) {
        // The same import again is a retry; other leads under its id would be dropped unseen: a conflict. Compared
        // with the leads as imported, not as they are now (a cycle's analysis rescores them).
        if (recorded === importDigest(command.data.leads)) return [];
        throw new CampaignRefusal('REQUEST.CONFLICT', 'That import_id was already used for different leads.');
      }
      const known = new Set(state.leads.map((l) => l.id));
      return [ev('LeadsImported', { import_id: command.data.import_id, leads: command.data.leads.filter((l) => !known.has(l.id)) })];
    }
    case 'StartCampaign':
      mustExist(state);
      if (state.status === 'active') return [];
      if (state.status === 'completed' || state.status === 'error') throw new CampaignRefusal('CAMPAIGN.STATE', `A ${state.status} campaign cannot start.`);
      return [ev('CampaignStarted', {})];
    case 'PauseCampaign':
      mustExist(state);
      if (state.status === 'paused') return [];
      if (state.status !== 'active') throw new CampaignRefusal('CAMPAIGN.STATE', `Only an active campaign can pause (it is ${state.status}).`);
      return [ev('CampaignPaused', { reason: command.reason })];
    case 'BeginCycle':
      mustExist(state);
      if (state.status !== 'active') throw new CampaignRefusal('CAMPAIGN.STATE', `The campaign is ${state.status}; cycles run only while it is active.`);
      if (state.open_cycle) throw new CampaignRefusal('CAMPAIGN.STATE', `Cycle ${state.open_cycle.cycle} is still open.`);
      if (command.data.cycle !== state.cycles_started + 1) throw new CampaignRefusal('CAMPAIGN.STATE', `The next cycle is ${state.cycles_started + 1}.`);
      return [ev('CycleStarted', command.data)];
    case 'RecordProposal':
      mustBeInCycle(state, command.data.cycle);
      if (state.open_cycle!.valid_proposal) throw new CampaignRefusal('CAMPAIGN.STATE', 'This cycle already has a valid proposal.');
      return [ev('ProposalRecorded', command.data)];
    case 'AbortCycle':
      mustBeInCycle(state, command.cycle);
      return [ev('CycleAborted', { cycle: command.cycle, reason: command.reason })];
    case 'CreateTask':
      mustBeInCycle(state, command.data.cycle);
      if (state.tasks.some((t) => t.id === command.data.task_id)) return [];
      return [ev('TaskCreated', command.data)];
    case 'SelectTask':
      return decideSelect(command, state);
    case 'RecordToolOutcome':
      return decideToolOutcome(command.data, state);
    case 'AnalyzeLeads': {
      mustBeInCycle(state, command.cycle);
      return [ev('LeadsAnalyzed', { cycle: command.cycle, analysis_type: command.analysis_type, ...analyzeLeads(state.leads, command.analysis_type, command.parameters) })];
    }
    case 'RequestApproval':
      mustBeInCycle(state, command.data.cycle);
      if (state.pending[command.data.item_id]) return [];
      return [ev('ApprovalRequested', command.data)];
    case 'DecideItem':
      return decideItem(command, state);
    case 'ExpireItems':
      return Object.values(state.pending)
        .filter((p) => p.status === 'pending' && Date.parse(p.expires_at) <= Date.parse(command.now))
        .map((p) => ev('ApprovalExpired', { item_id: p.item_id, expired_at: command.now }));
    case 'RecordItemExecuted': {
      const item = state.pending[command.data.item_id];
      if (!item || item.executed) return [];
      // An item nobody approved (pending, rejected, expired) is never executed.
      if (item.status !== 'approved') throw new CampaignRefusal('CAMPAIGN.STATE', `Item ${item.item_id} is ${item.status}, not approved.`);
      const events = [ev('ItemExecuted', command.data)];
      if (command.artifact && command.data.status === 'ok' && command.data.child_run_id) {
        events.push(ev('ArtifactPersisted', { ...command.artifact, child_run_id: command.data.child_run_id, item_id: item.item_id, cycle: item.cycle }));
      }
      return events;
    }
    case 'RecordArtifact':
      mustBeInCycle(state, command.data.cycle);
      return [ev('ArtifactPersisted', command.data)];
    case 'CompleteCycle': {
      mustBeInCycle(state, command.data.cycle);
      const events = [ev('CycleCompleted', command.data)];
      if (command.complete_campaign !== undefined) events.push(ev('CampaignCompleted', { cycle: command.data.cycle, details: command.complete_campaign }));
      return events;
    }
    default: {
      const exhaustive: never = command;
      throw new Error(`unhandled campaign command ${JSON.stringify(exhaustive)}`);
    }
  }
}

function decideSelect(command: Extract<CampaignCommand, { type: 'SelectTask' }>, state: CampaignState): CampaignEvent[] {
  mustBeInCycle(state, command.cycle);
  const task = state.tasks.find((t) => t.id === command.task_id);
  const refuse = (reason: string) => [ev('TaskSelectionRefused', { cycle: command.cycle, task_id: command.task_id, reason })];
  if (!task) return refuse('no such task');
  if (task.status === 'done' || task.status === 'blocked') return refuse(`the task is ${task.status}`);
  const unmet = task.preconditions.filter((id) => state.tasks.find((t) => t.id === id)?.status !== 'done');
  if (unmet.length > 0) return refuse(`preconditions not met: ${unmet.join(', ')}`);
  return [ev('TaskSelected', { cycle: command.cycle, task_id: task.id, ...(command.reasoning ? { reasoning: command.reasoning } : {}) })];
}

/** FR-006/FR-007: every tool outcome is recorded; the current task moves only on the controller's verified check. */
function decideToolOutcome(data: Extract<CampaignEvent, { type: 'ToolExecuted' }>['data'], state: CampaignState): CampaignEvent[] {
  mustBeInCycle(state, data.cycle);
  // A cycle resumed after a crash asks the gateway again and gets the recorded outcome: record it once.
  if (state.open_cycle!.tool_calls.includes(data.call_id)) return [];
  const events = [ev('ToolExecuted', data)];
  const task = state.tasks.find((t) => t.id === state.current_task_id);
  if (task && task.status === 'in-progress') {
    const to: TaskStatus | null = data.status === 'ok' && data.verified ? 'done' : data.status === 'denied' ? 'blocked' : null;
    if (to) {
      events.push(ev('TaskStatusChanged', {
        task_id: task.id, from: task.status, to,
        verified_by: { cycle: data.cycle, tool_name: data.tool_name, child_run_id: data.child_run_id, check: data.check },
      }));
    }
  }
  return events;
}

function decideItem(command: Extract<CampaignCommand, { type: 'DecideItem' }>, state: CampaignState): CampaignEvent[] {
  mustExist(state);
  const item = state.pending[command.item_id];
  if (!item) throw new CampaignRefusal('APPROVAL.NOT_FOUND', 'No pending item with that id.');
  if (item.status !== 'pending') {
    // The same decision again is a retry (its effect may still be owed); any other is too late.
    if (item.status === command.decision && item.approver?.id === command.approver.id) return [];
    if (item.status === 'expired') return [];
    throw new CampaignRefusal('APPROVAL.ALREADY_DECIDED', `The item was already ${item.status}.`);
  }
  if (!command.operator_roles.includes(command.approver.role)) {
    return [ev('ApprovalRefused', { item_id: item.item_id, approver: command.approver, code: 'APPROVAL.ROLE_DENIED', reason: `Role ${command.approver.role} may not decide campaign items.` })];
  }
  if (Date.parse(item.expires_at) <= Date.parse(command.now)) return [ev('ApprovalExpired', { item_id: item.item_id, expired_at: command.now })];
  if (decisionFieldProblem(item.kind, command.decision, command.answer)) {
    return [ev('ApprovalRefused', { item_id: item.item_id, approver: command.approver, code: 'REQUEST.INVALID', reason: item.kind === 'request_user_input' ? 'A question is answered, with an answer.' : 'An approval is approved or rejected.' })];
  }
  return [ev('ApprovalDecided', {
    item_id: item.item_id, decision: command.decision, approver: command.approver, decided_at: command.now,
    ...(command.answer !== undefined ? { answer: command.answer } : {}),
  })];
}

/**
 * Why a decision does not fit its item, naming the request field as validation details do (`decision …`), or null:
 * a question is answered, with an answer; an approval is approved or rejected.
 */
export function decisionFieldProblem(kind: PendingItem['kind'], decision: ItemDecision, answer: string | undefined): string | null {
  if (kind === 'request_user_input') {
    if (decision !== 'answered') return `decision must be answered for a question (it is ${decision})`;
    return answer ? null : 'answer is required to answer a question';
  }
  return decision === 'answered' ? 'decision must be approved or rejected for an approval (it is answered)' : null;
}

const withTask = (state: CampaignState, id: string, status: TaskStatus): CampaignState => ({
  ...state, tasks: state.tasks.map((t) => (t.id === id ? { ...t, status } : t)),
});
const withItem = (state: CampaignState, id: string, patch: Partial<PendingItem>): CampaignState =>
  state.pending[id] ? { ...state, pending: { ...state.pending, [id]: { ...state.pending[id]!, ...patch } } } : state;
const audited = (state: CampaignState, e: Ev, entry: Omit<CampaignState['audit'][number], 'timestamp'>): CampaignState => ({
  ...state, audit: [...state.audit, { ...entry, timestamp: e.metadata.recorded_at }],
});

export function evolveCampaign(state: CampaignState, event: Ev): CampaignState {
  const e = { type: event.type, data: event.data } as CampaignEvent;
  switch (e.type) {
    case 'CampaignCreated':
      return { ...state, exists: true, campaign_id: e.data.campaign_id, name: e.data.name, case_id: e.data.case_id, agent: e.data.agent, settings: e.data.settings, policy_versions: e.data.policy_versions, ...(e.data.requested_by !== undefined ? { requested_by: e.data.requested_by } : {}) };
    case 'LeadsImported':
      return { ...state, imports: { ...state.imports, [e.data.import_id]: importDigest(e.data.leads) }, leads: [...state.leads, ...e.data.leads.map((l) => ({ ...l, status: 'pending' as const }))] };
    case 'CampaignStarted':
      return { ...state, status: 'active' };
    case 'CampaignPaused':
      return { ...state, status: 'paused' };
    case 'CampaignCompleted':
      return { ...state, status: 'completed' };
    case 'CycleStarted':
      // request_run_id: absent on cycles opened before it was recorded (such a cycle is aborted by no cancel).
      return {
        ...state, cycles_started: e.data.cycle,
        open_cycle: { cycle: e.data.cycle, run_id: e.data.run_id, ...(e.data.request_run_id !== undefined ? { request_run_id: e.data.request_run_id } : {}), snapshot: e.data.snapshot, attempts: 0, valid_proposal: null, tool_calls: [] },
      };
    case 'ProposalRecorded': {
      const open = state.open_cycle && { ...state.open_cycle, attempts: state.open_cycle.attempts + 1, valid_proposal: e.data.verdict === 'valid' ? (e.data.raw as Record<string, unknown>) : null };
      return { ...state, proposals_asked: state.proposals_asked + 1, open_cycle: open };
    }
    case 'CycleAborted':
      return audited({ ...state, open_cycle: null }, event, { action_type: 'cycle_aborted', success: false, payload: { cycle: e.data.cycle } });
    case 'TaskCreated':
      return { ...state, tasks: [...state.tasks, { id: e.data.task_id, description: e.data.description, status: 'pending', preconditions: e.data.preconditions }] };
    case 'TaskSelected': {
      // The task left behind goes back to the queue unless it finished.
      const prev = state.tasks.find((t) => t.id === state.current_task_id);
      const s = prev && prev.status === 'in-progress' && prev.id !== e.data.task_id ? withTask(state, prev.id, 'pending') : state;
      return { ...withTask(s, e.data.task_id, 'in-progress'), current_task_id: e.data.task_id };
    }
    case 'TaskSelectionRefused':
      return state;
    case 'TaskStatusChanged':
      return withTask(state, e.data.task_id, e.data.to);
    case 'ToolExecuted': {
      const open = state.open_cycle && { ...state.open_cycle, tool_calls: [...state.open_cycle.tool_calls, e.data.call_id] };
      const contacted = e.data.status === 'ok' && e.data.tool_name === 'send_message' && e.data.lead_id;
      const leads = contacted ? state.leads.map((l) => (l.id === e.data.lead_id && l.status === 'pending' ? { ...l, status: 'contacted' as const } : l)) : state.leads;
      return { ...state, leads, open_cycle: open };
    }
    case 'LeadsAnalyzed':
      return {
        ...state, current_lead_id: e.data.current_lead_id,
        leads: state.leads.map((l) => (e.data.scores[l.id] !== undefined ? { ...l, weight_score: e.data.scores[l.id] } : l)),
      };
    case 'ApprovalRequested':
      return { ...state, pending: { ...state.pending, [e.data.item_id]: { ...e.data, requested_at: event.metadata.recorded_at, status: 'pending' } } };
    case 'ApprovalDecided':
      return audited(withItem(state, e.data.item_id, { status: e.data.decision, approver: e.data.approver, ...(e.data.answer !== undefined ? { answer: e.data.answer } : {}) }), event, {
        action_type: `approval_${e.data.decision}`, success: true, payload: { item_id: e.data.item_id, approver_id: e.data.approver.id, ...(e.data.answer !== undefined ? { answer: e.data.answer } : {}) },
      });
    case 'ApprovalRefused':
      return state;
    case 'ApprovalExpired':
      return audited(withItem(state, e.data.item_id, { status: 'expired' }), event, { action_type: 'approval_expired', success: false, payload: { item_id: e.data.item_id } });
    case 'ItemExecuted':
      return audited(withItem(state, e.data.item_id, { executed: { status: e.data.status, ...(e.data.child_run_id ? { child_run_id: e.data.child_run_id } : {}) } }), event, {
        action_type: state.pending[e.data.item_id]?.kind ?? 'item', success: e.data.status === 'ok', payload: { item_id: e.data.item_id },
      });
    case 'ArtifactPersisted':
      return { ...state, artifacts: [...state.artifacts.filter((a) => a.artifact_key !== e.data.artifact_key), { artifact_type: e.data.artifact_type, artifact_key: e.data.artifact_key }] };
    case 'CycleCompleted':
      return audited({ ...state, open_cycle: null }, event, { action_type: e.data.action_type, success: e.data.success, payload: e.data.payload });
    default: {
      const exhaustive: never = e;
      return exhaustive;
    }
  }
}

export const campaignDecider: Decider<CampaignCommand, CampaignEvent, CampaignState> = {
  decide: decideCampaign,
  evolve: evolveCampaign,
  initialState: initialCampaignState,
};
