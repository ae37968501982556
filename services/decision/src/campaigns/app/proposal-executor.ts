import { deterministicUuid, sha256Hex } from '@runledger/kernel';
import type { CampaignState } from '../domain/campaign-types';
import { verifyToolOutcome } from '../domain/verify-outcome';
import type { CampaignRun } from './campaign-effects';
import type { CampaignStore } from './campaign-store';

/** How one cycle ended, for CycleCompleted and for the caller's reply. */
export interface Executed {
  outcome: 'executed' | 'awaiting_approval' | 'refused';
  success: boolean;
  payload: Record<string, unknown>;
  complete_campaign?: string;
}

export interface ExecutionContext {
  store: CampaignStore;
  state: CampaignState;
  run: CampaignRun;
  cycle: number;
  now: Date;
  toolTimeoutMs: number;
}

type Proposal = Record<string, unknown> & { action_type: string };

/**
 * Carries out one validated proposal. Controller commands (create_task, select_next_task, analyze_leads) are
 * decided on the campaign aggregate; effects go only through the choke points under the cycle's run;
 * generate_message and persist_artifact needing approval, and request_user_input, become pending items.
 */
export async function executeProposal(ctx: ExecutionContext, proposal: Proposal): Promise<Executed> {
  const { store, state, cycle } = ctx;
  const id = state.campaign_id;
  switch (proposal.action_type) {
    case 'create_task': {
      const task = proposal['task'] as { description: string; preconditions?: string[] };
      const task_id = deterministicUuid('campaign-task', id, cycle);
      await store.handle(id, { type: 'CreateTask', data: { cycle, task_id, description: task.description, preconditions: task.preconditions ?? [], ...(typeof proposal['justification'] === 'string' ? { justification: proposal['justification'] } : {}), warnings: [] } }, `cycle-${cycle}:task`);
      return { outcome: 'executed', success: true, payload: { task_id } };
    }
    case 'select_next_task': {
      const task_id = String(proposal['task_id']);
      const r = await store.handle(id, { type: 'SelectTask', cycle, task_id, ...(typeof proposal['reasoning'] === 'string' ? { reasoning: proposal['reasoning'] } : {}) }, `cycle-${cycle}:select`);
      const refused = r.appended.find((e) => e.type === 'TaskSelectionRefused');
      return refused ? { outcome: 'refused', success: false, payload: { task_id, reason: (refused.data as { reason: string }).reason } } : { outcome: 'executed', success: true, payload: { task_id } };
    }
    case 'execute_tool':
      return executeTool(ctx, proposal);
    case 'analyze_leads': {
      const r = await store.handle(id, { type: 'AnalyzeLeads', cycle, analysis_type: String(proposal['analysis_type']), parameters: (proposal['parameters'] as Record<string, unknown>) ?? {} }, `cycle-${cycle}:analyze`);
      return { outcome: 'executed', success: true, payload: { analysis_type: proposal['analysis_type'], current_lead_id: r.state.current_lead_id } };
    }
    case 'generate_message':
    case 'persist_artifact':
      if (proposal['requires_approval'] !== false) return requestApproval(ctx, proposal);
      return proposal.action_type === 'generate_message'
        ? deliverMessage(ctx.run, state, proposal, `cycle-${cycle}`).then((r) => ({ outcome: 'executed' as const, success: r.status === 'ok', payload: r }))
        : persistArtifact(ctx, proposal);
    case 'request_user_input':
      return requestApproval(ctx, proposal);
    case 'no_op':
      return { outcome: 'executed', success: true, payload: { reason: proposal['reason'] }, ...(proposal['reason'] === 'campaign_complete' ? { complete_campaign: String(proposal['details'] ?? '') } : {}) };
    default:
      // validateProposal admits only the eight types; anything else here is a programming error.
      throw new Error(`no executor for ${proposal.action_type}`);
  }
}

async function executeTool(ctx: ExecutionContext, proposal: Proposal): Promise<Executed> {
  const { store, state, cycle, run } = ctx;
  const tool_name = String(proposal['tool_name']);
  const parameters = (proposal['parameters'] as Record<string, unknown>) ?? {};
  const call_id = `campaign-cycle-${cycle}`;
  // Recorded on the cycle's run before it is made and after (the engine's tool call): a resumed cycle asks the
  // same tool_gateway child run again, which answers its recorded outcome instead of acting twice.
  const result = await run.session.toolCall({ call_id, tool_name, parameters }, () => run.invokeTool(call_id, tool_name, parameters, ctx.toolTimeoutMs));
  const { verified, check } = verifyToolOutcome(tool_name, parameters, result.status, result.result);
  const lead_id = typeof parameters['lead_id'] === 'string' ? parameters['lead_id'] : undefined;
  await store.handle(state.campaign_id, {
    type: 'RecordToolOutcome',
    data: { cycle, call_id, tool_name, child_run_id: result.child_run_id, status: result.status, ...(result.error ? { error_code: result.error.error_code } : {}), verified, check, ...(lead_id ? { lead_id } : {}) },
  }, `cycle-${cycle}:tool`);
  return { outcome: 'executed', success: result.status === 'ok' && verified, payload: { tool_name, status: result.status, child_run_id: result.child_run_id, verified, ...(result.error ? { error_code: result.error.error_code } : {}) } };
}

async function requestApproval(ctx: ExecutionContext, proposal: Proposal): Promise<Executed> {
  const { store, state, cycle, now } = ctx;
  const item_id = deterministicUuid('campaign-item', state.campaign_id, cycle);
  const expires_at = new Date(now.getTime() + state.settings.approval_ttl_seconds * 1000).toISOString();
  const kind = proposal.action_type as 'generate_message' | 'persist_artifact' | 'request_user_input';
  await store.handle(state.campaign_id, { type: 'RequestApproval', data: { item_id, kind, cycle, proposal, expires_at } }, `cycle-${cycle}:approval`);
  return { outcome: 'awaiting_approval', success: true, payload: { item_id, kind, expires_at } };
}

async function persistArtifact(ctx: ExecutionContext, proposal: Proposal): Promise<Executed> {
  const artifact = proposal['artifact'] as { artifact_type: string; artifact_key: string; content: Record<string, unknown> };
  const r = await writeArtifact(ctx.run, ctx.state, artifact, `cycle-${ctx.cycle}`);
  if (r.status === 'ok') {
    await ctx.store.handle(ctx.state.campaign_id, { type: 'RecordArtifact', data: { artifact_type: artifact.artifact_type, artifact_key: artifact.artifact_key, child_run_id: r.child_run_id!, cycle: ctx.cycle } }, `cycle-${ctx.cycle}:artifact`);
  }
  return { outcome: 'executed', success: r.status === 'ok', payload: { artifact_key: artifact.artifact_key, status: r.status } };
}

/** An approved (or approval-free) message goes to the campaign's message queue through db-write. */
export async function deliverMessage(run: CampaignRun, state: CampaignState, proposal: Record<string, unknown>, writeId: string, approvedBy?: string): Promise<{ status: string; child_run_id?: string; message_id: string }> {
  const message = proposal['message'] as { type: string; content: string };
  const message_id = deterministicUuid('campaign-message', state.campaign_id, writeId);
  const r = await run.write(`${writeId}:message`, 'campaign_messages', 'append', message_id, {
    message_type: message.type, content: message.content, content_sha256: sha256Hex(message.content), lead_id: state.current_lead_id, ...(approvedBy ? { approved_by: approvedBy } : {}),
  });
  return { status: r.status, ...(r.child_run_id ? { child_run_id: r.child_run_id } : {}), message_id };
}

export async function writeArtifact(run: CampaignRun, state: CampaignState, artifact: { artifact_type: string; artifact_key: string; content: Record<string, unknown> }, writeId: string): Promise<{ status: string; child_run_id?: string }> {
  const documentId = deterministicUuid('campaign-artifact', state.campaign_id, artifact.artifact_key);
  const r = await run.write(`${writeId}:artifact`, 'campaign_artifacts', 'upsert', documentId, { artifact_type: artifact.artifact_type, artifact_key: artifact.artifact_key, content: artifact.content });
  return { status: r.status, ...(r.child_run_id ? { child_run_id: r.child_run_id } : {}) };
}
