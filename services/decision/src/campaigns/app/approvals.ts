import { Inject, Injectable } from '@nestjs/common';
import { getRole } from '@runledger/governance';
import { AppError, Clock, deterministicUuid } from '@runledger/kernel';
import { CLOCK } from '@runledger/messaging';
import type { Approver, CampaignState, ItemDecision, PendingItem } from '../domain/campaign-types';
import { decisionFieldProblem } from '../domain/campaign.decider';
import { CampaignRun, CampaignRuns, OPERATOR_ROLES } from './campaign-effects';
import { CampaignStore } from './campaign-store';
import { deliverMessage, writeArtifact } from './proposal-executor';

export interface Answer {
  campaign_id: string;
  item_id: string;
  decision: ItemDecision;
  approver: Approver;
  answer?: string;
}

/**
 * Human approval of pending items. Every answer is a governed run of its own (approver and decision in its
 * RunCreated, allow or deny in AuthzDecided, outcome in its terminal event), so the audit chain holds who
 * decided what. An approved item's effect runs under that run through db-write; an expired, rejected or
 * pending item never runs. An approval whose effect was cut short by a crash is finished on the next answer
 * retry or the next cycle: the decision is in the log, the effect's ids derive from the item.
 */
@Injectable()
export class Approvals {
  constructor(private readonly store: CampaignStore, private readonly runs: CampaignRuns, @Inject(CLOCK) private readonly clock: Clock) {}

  async answer(a: Answer): Promise<CampaignState> {
    const before = await this.store.loadExisting(a.campaign_id);
    const policy = await this.runs.policies.resolve(before.policy_versions);
    const operatorRoles = OPERATOR_ROLES.filter((r) => getRole(policy, r) !== undefined);
    const now = this.clock.now().toISOString();
    const handled = await this.store.handle(a.campaign_id, { type: 'DecideItem', item_id: a.item_id, decision: a.decision, approver: a.approver, now, operator_roles: operatorRoles, ...(a.answer !== undefined ? { answer: a.answer } : {}) }, `answer:${a.item_id}:${a.approver.id}:${a.decision}:${now}`);
    const state = handled.state;
    const item = state.pending[a.item_id]!;
    const refused = handled.appended.find((e) => e.type === 'ApprovalRefused')?.data as { code: string; reason: string } | undefined;
    const expired = item.status === 'expired';
    // A refused answer is a run of its own: sharing the accepted answer's id left a later, permitted approval by the
    // same approver under that finished, denied run, whose write was refused (probe finding: approved, never written).
    const runId = refused
      ? deterministicUuid('campaign-decision-refused', a.campaign_id, a.item_id, a.approver.id, a.approver.role, a.decision, refused.code)
      : await this.acceptedRunId(a.campaign_id, a.item_id, a.approver.id, a.decision);
    const parameters = { action: 'campaign.answer', item_id: a.item_id, item_kind: item.kind, decision: a.decision, approver_id: a.approver.id, approver_role: a.approver.role };
    const denial = refused ? { error_code: refused.code, message: refused.reason, retryable: false } : undefined;
    const run = await this.runs.open(state, runId, parameters, denial);
    if (refused?.code === 'APPROVAL.ROLE_DENIED') throw new AppError('APPROVAL.ROLE_DENIED', refused.reason);
    if (refused) {
      // The field at fault, named as the request's other validation details name theirs.
      const field = decisionFieldProblem(item.kind, a.decision, a.answer);
      throw new AppError('REQUEST.INVALID', refused.reason, field ? [field] : undefined);
    }
    if (expired) {
      await run.fail({ error_code: 'APPROVAL.EXPIRED', message: 'The item expired before it was decided; nothing was executed.', retryable: false });
      throw new AppError('APPROVAL.EXPIRED');
    }
    const after = item.status === 'approved' ? await this.execute(state, item, run) : state;
    await run.complete({ item_id: item.item_id, decision: item.status, approver_id: item.approver?.id ?? a.approver.id, ...(after.pending[item.item_id]?.executed ? { executed: after.pending[item.item_id]!.executed } : {}) });
    return after;
  }

  /** Approved items whose effect is not yet recorded (a crash between decision and effect): finish them. */
  async finishOwed(state: CampaignState): Promise<CampaignState> {
    let current = state;
    for (const item of Object.values(state.pending)) {
      if (item.status !== 'approved' || item.executed || !item.approver) continue;
      const runId = await this.acceptedRunId(state.campaign_id, item.item_id, item.approver.id, 'approved');
      const parameters = { action: 'campaign.answer', item_id: item.item_id, item_kind: item.kind, decision: 'approved', approver_id: item.approver.id, approver_role: item.approver.role };
      const run = await this.runs.open(current, runId, parameters);
      current = await this.execute(current, item, run);
      await run.complete({ item_id: item.item_id, decision: 'approved', approver_id: item.approver.id, executed: current.pending[item.item_id]?.executed });
    }
    return current;
  }

  /**
   * The run of an accepted answer: derived from the item, approver and decision. A data directory of an earlier release
   * may hold a refused answer's denied run under that id (refusals shared it): the answer then runs under an id of its
   * own, so its effect is not refused as a finished run's child.
   */
  private async acceptedRunId(campaignId: string, itemId: string, approverId: string, decision: ItemDecision): Promise<string> {
    const runId = deterministicUuid('campaign-decision', campaignId, itemId, approverId, decision);
    const { state } = await this.runs.runs.load(runId);
    return state.status === 'denied' ? deterministicUuid('campaign-decision', campaignId, itemId, approverId, decision, 'after-refusal') : runId;
  }

  async expireDue(state: CampaignState): Promise<CampaignState> {
    const now = this.clock.now().toISOString();
    const due = Object.values(state.pending).some((p) => p.status === 'pending' && Date.parse(p.expires_at) <= Date.parse(now));
    return due ? (await this.store.handle(state.campaign_id, { type: 'ExpireItems', now }, `expire:${now}`)).state : state;
  }

  private async execute(state: CampaignState, item: PendingItem, run: CampaignRun): Promise<CampaignState> {
    if (item.executed) return state;
    const writeId = `item-${item.item_id}`;
    if (item.kind === 'generate_message') {
      const r = await deliverMessage(run, state, item.proposal, writeId, item.approver?.id);
      return (await this.store.handle(state.campaign_id, { type: 'RecordItemExecuted', data: { item_id: item.item_id, status: r.status === 'ok' ? 'ok' : r.status === 'denied' ? 'denied' : 'failed', ...(r.child_run_id ? { child_run_id: r.child_run_id } : {}) } }, `${writeId}:executed`)).state;
    }
    if (item.kind === 'persist_artifact') {
      const artifact = item.proposal['artifact'] as { artifact_type: string; artifact_key: string; content: Record<string, unknown> };
      const r = await writeArtifact(run, state, artifact, writeId);
      return (await this.store.handle(state.campaign_id, {
        type: 'RecordItemExecuted',
        data: { item_id: item.item_id, status: r.status === 'ok' ? 'ok' : r.status === 'denied' ? 'denied' : 'failed', ...(r.child_run_id ? { child_run_id: r.child_run_id } : {}) },
        artifact: { artifact_type: artifact.artifact_type, artifact_key: artifact.artifact_key },
      }, `${writeId}:executed`)).state;
    }
    return state;
  }
}
