import { Inject, Injectable, Logger } from '@nestjs/common';
import { buildStateSnapshot, toValidationErrorResponse, validateProposal, type DeepReadonly, type StateSnapshot } from '@runledger/agent-runtime';
import { canonicalJson } from '@runledger/governance';
import { AppError, Clock, deterministicUuid, sha256Hex, truncateChars } from '@runledger/kernel';
import { CLOCK } from '@runledger/messaging';
import { snapshotSourceOf } from '../domain/campaign-snapshot';
import type { CampaignState } from '../domain/campaign-types';
import { CampaignRun, CampaignRuns } from './campaign-effects';
import { CampaignStore } from './campaign-store';
import { executeProposal } from './proposal-executor';
import { PROPOSAL_AGENT, type ProposalAgent } from './proposal-agent';

export const CAMPAIGN_TOOL_TIMEOUT_MS = Symbol('CAMPAIGN_TOOL_TIMEOUT_MS');

export interface CycleOutcome {
  cycle: number;
  run_id: string;
  outcome: 'executed' | 'aborted' | 'awaiting_approval' | 'refused';
  action_type: string | null;
  errors?: string[];
  validation_error?: Record<string, unknown>;
}

/**
 * One controller cycle (contract 003): the StateSnapshot folded from the campaign's events (bounded, validated
 * against the contract schema), one proposal from the agent, the proposal validated (schema, unknown action,
 * business rules), then executed only through controller commands and choke points. The snapshot hash, every
 * raw proposal and its verdict are in the log. A cycle interrupted by a crash is resumed where its events end.
 */
@Injectable()
export class CycleRunner {
  private readonly logger = new Logger('CampaignCycle');

  constructor(
    private readonly store: CampaignStore,
    private readonly runs: CampaignRuns,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PROPOSAL_AGENT) private readonly agent: ProposalAgent,
    @Inject(CAMPAIGN_TOOL_TIMEOUT_MS) private readonly toolTimeoutMs: number,
  ) {}

  async runCycle(initial: CampaignState): Promise<CycleOutcome> {
    let state = initial;
    const id = state.campaign_id;
    if (state.status !== 'active') throw new AppError('CAMPAIGN.STATE', `The campaign is ${state.status}; cycles run only while it is active.`);
    const cycle = state.open_cycle?.cycle ?? state.cycles_started + 1;
    const runId = deterministicUuid('campaign-cycle', id, cycle);
    const run = await this.runs.open(state, runId, { action: 'campaign.cycle', campaign_id: id, cycle });
    if (!state.open_cycle) {
      const built = buildStateSnapshot(snapshotSourceOf(state));
      // The fold produced a snapshot the contract refuses: a controller bug, never the agent's to see.
      if (!built.ok) throw new AppError('INTERNAL', 'The campaign state does not form a valid snapshot.');
      const snapshot = built.value.snapshot;
      state = (await this.store.handle(id, {
        type: 'BeginCycle',
        data: { cycle, run_id: runId, snapshot, snapshot_sha256: sha256Hex(canonicalJson(snapshot)), omitted: { pending_tasks: built.value.omitted.pendingTasks, audit_entries: built.value.omitted.auditEntries } },
      }, `cycle-${cycle}:begin`)).state;
    }
    const snapshot = state.open_cycle!.snapshot as DeepReadonly<StateSnapshot>;

    let errors: string[] = [];
    let validationError: Record<string, unknown> | undefined;
    while (!state.open_cycle!.valid_proposal) {
      const attempt = state.open_cycle!.attempts + 1;
      if (attempt > state.settings.max_attempts || (attempt > 1 && state.settings.on_invalid === 'abort')) {
        return this.abort(state, run, cycle, `invalid proposal (${errors.join('; ') || 'no valid proposal'})`, errors, validationError);
      }
      const answer = await this.agent.propose(state.agent, { campaign_id: id, cycle, attempt, snapshot, previous_errors: errors, proposals_asked: state.proposals_asked });
      const verdict = validateProposal(answer.raw, snapshot);
      errors = verdict.isValid ? [] : [...verdict.errors];
      validationError = verdict.isValid ? undefined : { ...toValidationErrorResponse(verdict) };
      state = (await this.store.handle(id, {
        type: 'RecordProposal',
        data: {
          cycle, attempt, raw: verdict.isValid ? JSON.parse(JSON.stringify(verdict.proposal)) : answer.raw, verdict: verdict.isValid ? 'valid' : 'invalid',
          action_type: verdict.actionType, errors, warnings: verdict.isValid ? [...verdict.warnings] : [],
          ...(verdict.isValid ? {} : { validation_error: toValidationErrorResponse(verdict) }), agent: answer.info,
        },
      }, `cycle-${cycle}:proposal-${attempt}`)).state;
    }

    const proposal = state.open_cycle!.valid_proposal as Record<string, unknown> & { action_type: string };
    const executed = await executeProposal({ store: this.store, state, run, cycle, now: this.clock.now(), toolTimeoutMs: this.toolTimeoutMs }, proposal);
    await this.store.handle(id, {
      type: 'CompleteCycle',
      data: { cycle, action_type: proposal.action_type, success: executed.success, payload: executed.payload },
      ...(executed.complete_campaign !== undefined ? { complete_campaign: executed.complete_campaign } : {}),
    }, `cycle-${cycle}:complete`);
    await run.complete({ cycle, action_type: proposal.action_type, outcome: executed.outcome, success: executed.success });
    this.logger.log({ msg: 'campaign cycle', campaign_id: id, cycle, action_type: proposal.action_type, outcome: executed.outcome });
    return { cycle, run_id: runId, outcome: executed.outcome, action_type: proposal.action_type };
  }

  /** FR-010: nothing of an invalid proposal is executed; the cycle ends aborted, with the reasons. */
  private async abort(state: CampaignState, run: CampaignRun, cycle: number, reason: string, errors: string[], validationError?: Record<string, unknown>): Promise<CycleOutcome> {
    await this.store.handle(state.campaign_id, { type: 'AbortCycle', cycle, reason: truncateChars(reason, 2000) }, `cycle-${cycle}:abort`);
    await run.fail({ error_code: 'PROPOSAL.INVALID', message: 'The agent gave no valid proposal; nothing was executed.', retryable: false });
    return { cycle, run_id: run.runId, outcome: 'aborted', action_type: null, errors, ...(validationError ? { validation_error: validationError } : {}) };
  }
}
