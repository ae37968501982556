import { Injectable } from '@nestjs/common';
import type { RunCancelResult } from '@runledger/contracts';
import { ConcurrencyError } from '@runledger/event-log';
import { AppError } from '@runledger/kernel';
import { isTerminal, RunRepository, RunSession } from '@runledger/runs';

/**
 * Records an operator's cancel on a run (RunCancelRequested, once per run); the worker carrying the run ends
 * it with RunCancelled before its next step or effect. A run that already has its outcome is left alone.
 */
@Injectable()
export class RunCancellation {
  constructor(private readonly runs: RunRepository) {}

  async request(runId: string, reason: string, requestedBy: string): Promise<RunCancelResult> {
    for (let attempt = 1; ; attempt++) {
      const { state, version } = await this.runs.load(runId);
      if (state.status === 'none' || !state.run) throw new AppError('RUN.NOT_FOUND');
      if (isTerminal(state)) return { run_id: runId, outcome: 'already_ended', status: state.status };
      if (state.cancel_requested) return { run_id: runId, outcome: 'requested', status: state.status };
      try {
        await new RunSession(this.runs, state.run, state, version).decide({ type: 'RequestCancel', data: { reason, requested_by: requestedBy } }, 'cancel-requested');
        return { run_id: runId, outcome: 'requested', status: state.status };
      } catch (err) {
        // The worker appended meanwhile: look again (it may even have finished).
        if (!(err instanceof ConcurrencyError) || attempt >= 5) throw err;
      }
    }
  }
}
