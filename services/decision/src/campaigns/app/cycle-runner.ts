import { Inject, Injectable, Logger } from '@nestjs/common';
import { buildStateSnapshot, toValidationErrorResponse, validateProposal, type DeepReadonly, type StateSnapshot } from '@runledger/agent-runtime';
import { canonicalJson } from '@runledger/governance';
import { AppError, Clock, deterministicUuid, sha256Hex, truncateChars } from '@runledger/kernel';
import { CLOCK } from '@runledger/messaging';
import { isTerminal } from '@runledger/runs';
import { snapshotSourceOf } from '../domain/campaign-snapshot';
import type { CampaignState } from '../domain/campaign-types';
import { CampaignRuns } from './campaign-effects';
import { CampaignStore } from './campaign-store';
import { executeProposal } from './proposal-executor';
import { PROPOSAL_AGENT, type ProposalAgent, type ProposalAnswer } from './proposal-agent';

export const CAMPAIGN_TOOL_TIMEOUT_MS = Symbol('CAMPAIGN_TOOL_TIMEOUT_MS');

export interface CycleOutcome {
  cycle: number;
  run_id: string;
  /** `failed`: the proposal was carried out but its effect did not succeed (a tool denied or failed, a write refused). */
  outcome: 'executed' | 'failed' | 'aborted' | 'awaiting_approval' | 'refused';
  action_type: string | null;
  errors?: string[];
  validation_error?: Record<string, unknown>;
}

/**
 * A cycle carried to its outcome but not yet closed: what the request run records (a journaled step) before the
 * campaign and the cycle's run are closed with it. Closing second means a crash in between finds the cycle still open
 * and carries it again (its effects answered from their records), never a new cycle in its place.
 */
export interface CycleResult {
  outcome: CycleOutcome;
  closing:
    | { type: 'complete'; data: { cycle: number; action_type: string; success: boolean; payload: Record<string, unknown> }; complete_campaign?: string }
    | { type: 'abort'; reason: string; error: { error_code: string; message: string; retryable: false } };
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

  /**
   * Carries the campaign's open cycle (or begins the next one) to its outcome: snapshot, proposals, execution. Idempotent
   * up to its closing: carried again after a crash, every recorded step and effect is answered from its record.
   * `requestRunId`: the request run carrying it, recorded on a cycle it begins (only that request's cancel ends it).
   */
  async carryCycle(initial: CampaignState, requestRunId: string): Promise<CycleResult> {
    let state = initial;
    const id = state.campaign_id;
    if (state.status !== 'active') throw new AppError('CAMPAIGN.STATE', notActiveMessage(state));
    const cycle = state.open_cycle?.cycle ?? state.cycles_started + 1;
    const runId = deterministicUuid('campaign-cycle', id, cycle);
    const run = await this.runs.open(state, runId, { action: 'campaign.cycle', campaign_id: id, cycle });
    // The cycle's run ended before the cycle did (the resolver closed it while nobody carried it): nothing more can be
    // recorded on it, so the cycle is aborted with the run's outcome instead of being carried on.
    if (isTerminal(run.session.state)) {
      return abortedBy(runId, cycle, `cycle run ${run.session.state.status}`, run.session.state.error?.error_code ?? 'RUN.ABANDONED', 'The cycle\'s run ended before the cycle did; nothing more was executed.');
    }
    if (!state.open_cycle) {
      const built = buildStateSnapshot(snapshotSourceOf(state));
      // The fold produced a snapshot the contract refuses: a controller bug, never the agent's to see.
      if (!built.ok) throw new AppError('INTERNAL', 'The campaign state does not form a valid snapshot.');
      const snapshot = built.value.snapshot;
      state = (await this.store.handle(id, {
        type: 'BeginCycle',
        data: { cycle, run_id: runId, request_run_id: requestRunId, snapshot, snapshot_sha256: sha256Hex(canonicalJson(snapshot)), omitted: { pending_tasks: built.value.omitted.pendingTasks, audit_entries: built.value.omitted.auditEntries } },
      }, `cycle-${cycle}:begin`)).state;
    }
    const snapshot = state.open_cycle!.snapshot as DeepReadonly<StateSnapshot>;

    let errors: string[] = [];
    let validationError: Record<string, unknown> | undefined;
    while (!state.open_cycle!.valid_proposal) {
      const attempt = state.open_cycle!.attempts + 1;
      if (attempt > state.settings.max_attempts || (attempt > 1 && state.settings.on_invalid === 'abort')) {
        return aborted(runId, cycle, `invalid proposal (${errors.join('; ') || 'no valid proposal'})`, errors, validationError);
      }
      let answer: ProposalAnswer;
      try {
        answer = await this.agent.propose(state.agent, { campaign_id: id, cycle, attempt, snapshot, previous_errors: errors, proposals_asked: state.proposals_asked });
      } catch (err) {
        // An agent that can never propose (a session agent that does not exist) ends the cycle it opened, recorded,
        // instead of leaving it open for good (probe finding); what may pass (a provider down) is asked again.
        if (!(err instanceof AppError) || err.retryable) throw err;
        const message = `The campaign's agent cannot propose: ${err.message}`;
        return abortedBy(runId, cycle, message, 'CAMPAIGN.AGENT_UNAVAILABLE', message);
      }
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
    // An effect that did not succeed is not "executed" to the caller (probe finding: a denied tool read as executed).
    const failed = executed.outcome === 'executed' && !executed.success;
    const errorCode = executed.payload['error_code'];
    return {
      outcome: {
        cycle, run_id: runId, outcome: failed ? 'failed' : executed.outcome, action_type: proposal.action_type,
        ...(failed && typeof errorCode === 'string' ? { errors: [errorCode] } : {}),
      },
      closing: {
        type: 'complete', data: { cycle, action_type: proposal.action_type, success: executed.success, payload: executed.payload },
        ...(executed.complete_campaign !== undefined ? { complete_campaign: executed.complete_campaign } : {}),
      },
    };
  }

  /**
   * Closes a carried cycle on the campaign (CycleCompleted, or CycleAborted) and on its run, once the request run has
   * recorded it; idempotent: a cycle the campaign closed already, or a run that ended already, is left as it is.
   */
  async close(campaignId: string, result: CycleResult): Promise<void> {
    const { cycle, run_id } = result.outcome;
    const state = await this.store.loadExisting(campaignId);
    if (state.open_cycle?.cycle === cycle) {
      await this.store.handle(campaignId, result.closing.type === 'complete'
        ? { type: 'CompleteCycle', data: result.closing.data, ...(result.closing.complete_campaign !== undefined ? { complete_campaign: result.closing.complete_campaign } : {}) }
        : { type: 'AbortCycle', cycle, reason: truncateChars(result.closing.reason, 2000) }, `cycle-${cycle}:${result.closing.type}`);
    }
    const run = await this.runs.open(state, run_id, { action: 'campaign.cycle', campaign_id: campaignId, cycle });
    if (result.closing.type === 'complete') {
      const { action_type, success } = result.closing.data;
      await run.complete({ cycle, action_type, outcome: result.outcome.outcome, success });
    } else {
      await run.fail(result.closing.error);
    }
    this.logger.log({ msg: 'campaign cycle', campaign_id: campaignId, cycle, action_type: result.outcome.action_type, outcome: result.outcome.outcome });
  }

  /**
   * A cancelled request ends the cycle it opened and left open (probe finding: its run stayed running until the next
   * cycle request): the campaign records CycleAborted and the cycle's run RunCancelled, with the request's reason.
   * Called only once the request's journaled cycles are closed, so the cycle left is one whose outcome is not on
   * record. Another request's cycle, or one opened before the opener was recorded, is left to be carried on.
   * Idempotent: no such cycle, or a run that ended already, is left as it is.
   */
  async cancelOpen(campaignId: string, requestRunId: string, reason: string): Promise<void> {
    const state = await this.store.loadExisting(campaignId);
    const open = state.open_cycle;
    if (!open || open.request_run_id !== requestRunId) return;
    await this.store.handle(campaignId, { type: 'AbortCycle', cycle: open.cycle, reason: truncateChars(`the request carrying the cycle was cancelled: ${reason}`, 2000) }, `cycle-${open.cycle}:abort`);
    const run = await this.runs.open(state, deterministicUuid('campaign-cycle', campaignId, open.cycle), { action: 'campaign.cycle', campaign_id: campaignId, cycle: open.cycle });
    if (!isTerminal(run.session.state)) await run.session.cancel(reason);
  }

}

/** FR-010: nothing of an invalid proposal is executed; the cycle ends aborted, with the reasons. */
function aborted(runId: string, cycle: number, reason: string, errors: string[], validationError?: Record<string, unknown>): CycleResult {
  return {
    outcome: { cycle, run_id: runId, outcome: 'aborted', action_type: null, errors, ...(validationError ? { validation_error: validationError } : {}) },
    closing: { type: 'abort', reason, error: { error_code: 'PROPOSAL.INVALID', message: 'The agent gave no valid proposal; nothing was executed.', retryable: false } },
  };
}

/** A cycle that cannot go on (its run ended, its agent cannot propose): aborted, nothing executed, the error said once. */
function abortedBy(runId: string, cycle: number, reason: string, errorCode: string, message: string): CycleResult {
  return { outcome: { cycle, run_id: runId, outcome: 'aborted', action_type: null, errors: [message] }, closing: { type: 'abort', reason, error: { error_code: errorCode, message, retryable: false } } };
}

export function notActiveMessage(state: CampaignState): string {
  return `The campaign is ${state.status}; cycles run only while it is active.`;
}
