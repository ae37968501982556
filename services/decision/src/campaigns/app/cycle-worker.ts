import { Injectable } from '@nestjs/common';
import { AppError } from '@runledger/kernel';
import { CancelRequested, isTerminal, type RunEngine } from '@runledger/runs';
import { KeyedLock } from '../../shared/keyed-lock';
import type { CampaignState } from '../domain/campaign-types';
import { Approvals } from './approvals';
import { CampaignRuns } from './campaign-effects';
import { CampaignStore } from './campaign-store';
import { CycleResult, CycleRunner, notActiveMessage } from './cycle-runner';

/** Inbox command of agents.campaign.cycle and agents.campaign.run: cycles of one campaign, carried by a run. */
export const CAMPAIGN_CYCLES_REQUESTED = 'CampaignCyclesRequested';

export interface CampaignCyclesRequested {
  campaign_id: string;
  /** The run that carries this request; its steps are the cycles it ran, its result their outcomes. */
  run_id: string;
  max_cycles: number;
}

/**
 * Carries a cycle request from the durable decision inbox (a crash mid-cycle is picked up on redelivery, without
 * anyone asking again). The request is a run of its own, on the one run engine: each cycle it runs is a journaled
 * step whose output is the cycle's outcome, so a resumed request goes on after the cycles it recorded and a cycle
 * cut short is resumed where the campaign's events end (CycleRunner). The run's result is what the caller is told.
 * Work on one campaign is serialised in this process, a cycle at a time; across instances the campaign's optimistic
 * concurrency decides.
 */
@Injectable()
export class CampaignCycleWorker {
  private readonly locks = new KeyedLock();

  constructor(private readonly store: CampaignStore, private readonly runs: CampaignRuns, private readonly cycles: CycleRunner, private readonly approvals: Approvals) {}

  /** Work on one campaign in this process, one piece at a time: cycles here, and the API's commands and answers. */
  serialised<T>(campaignId: string, work: () => Promise<T>): Promise<T> {
    return this.locks.run(campaignId, work);
  }

  /**
   * The request run holds no lock of its own: each cycle takes the campaign's (one cycle at a time per campaign in this
   * process), so a pause or an answer waits for one cycle, not for the whole request.
   */
  async carry(cmd: CampaignCyclesRequested): Promise<void> {
    const campaign = await this.store.loadExisting(cmd.campaign_id);
    const run = await this.runs.open(campaign, cmd.run_id, { action: 'campaign.cycles', campaign_id: cmd.campaign_id, max_cycles: cmd.max_cycles });
    const engine = run.session;
    if (isTerminal(engine.state)) return;
    let results: CycleResult[];
    try {
      // Each cycle is a journaled step (null: the campaign was no longer active), closed on the campaign only once it is
      // on record; the last one proposed no_op, waits for a human, or was refused or aborted. A redelivered request
      // closes its journaled cycles from their outcomes first, even when cancelled: a recorded cancel stops it only
      // before a cycle whose outcome is not on record.
      results = await engine.stepsUntil<CycleResult>(
        'cycle', cmd.max_cycles,
        () => this.serialised(cmd.campaign_id, () => this.nextCycle(cmd.campaign_id, cmd.run_id)),
        // A cycle whose effect failed is carried out all the same: the next cycle's agent sees it in the snapshot.
        ({ outcome }) => (outcome.outcome !== 'executed' && outcome.outcome !== 'failed') || outcome.action_type === 'no_op',
        (result) => this.serialised(cmd.campaign_id, () => this.cycles.close(cmd.campaign_id, result)),
      );
    } catch (err) {
      if (err instanceof CancelRequested) return this.cancel(cmd, engine, err.reason);
      // A refusal is the request's outcome; anything else (a bus fault) redelivers the command and resumes here.
      if (!(err instanceof AppError) || err.retryable) throw err;
      return run.fail({ error_code: err.code, message: err.message, retryable: false });
    }
    // Cancelled after its last cycle was journaled (found on a redelivery): cancelled, its cycles closed all the same.
    const asked = engine.state.cancel_requested;
    if (asked) return this.cancel(cmd, engine, asked.reason);
    if (results.length === 0) return run.fail(notActive(await this.store.load(cmd.campaign_id)));
    await run.complete({ campaign_id: cmd.campaign_id, ran: results.map((r) => r.outcome) });
  }

  /** A cycle this request opened and left without a recorded outcome ends with it, before the request does (a crash in between redelivers and ends it here). */
  private async cancel(cmd: CampaignCyclesRequested, engine: RunEngine, reason: string): Promise<void> {
    await this.serialised(cmd.campaign_id, () => this.cycles.cancelOpen(cmd.campaign_id, cmd.run_id, reason));
    return engine.cancel(reason);
  }

  /** Expires what is overdue and finishes approved effects a crash left owed, then carries a cycle if the campaign is active. */
  private async nextCycle(campaignId: string, requestRunId: string): Promise<CycleResult | null> {
    const state = await this.settle(await this.store.loadExisting(campaignId));
    return state.status === 'active' ? this.cycles.carryCycle(state, requestRunId) : null;
  }

  /** Expire what is overdue and finish approved effects a crash left owed, before anything else reads the state. */
  settle(state: CampaignState): Promise<CampaignState> {
    return this.approvals.expireDue(state).then((s) => this.approvals.finishOwed(s));
  }
}

export function notActive(state: CampaignState): { error_code: 'CAMPAIGN.STATE'; message: string; retryable: false } {
  return { error_code: 'CAMPAIGN.STATE', message: notActiveMessage(state), retryable: false };
}
