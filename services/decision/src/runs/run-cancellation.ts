import { Injectable } from '@nestjs/common';
import type { RunCancelResult } from '@runledger/contracts';
import { isTerminal, RunRepository } from '@runledger/runs';

/**
 * Records an operator's cancel on a run (RunCancelRequested, once per run); the worker carrying the run ends
 * it with RunCancelled before its next step or effect. A run that already has its outcome is left alone.
 */
@Injectable()
export class RunCancellation {
  constructor(private readonly runs: RunRepository) {}

  async request(runId: string, reason: string, requestedBy: string): Promise<RunCancelResult> {
    // The decider records nothing on a run that has ended or was asked already (idempotent).
    const state = await this.runs.handle(runId, { type: 'RequestCancel', data: { reason, requested_by: requestedBy } }, 'cancel-requested');
    return { run_id: runId, outcome: isTerminal(state) ? 'already_ended' : 'requested', status: state.status };
  }
}
