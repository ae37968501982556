import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { RunCancelResult } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import { isTerminal, RunRepository } from '@runledger/runs';
import { RunControlClient } from '@runledger/service-clients';

/**
 * Records an operator's or caller's cancel on a run (RunCancelRequested, once per run); the worker carrying the run
 * ends it with RunCancelled before its next step or effect. A run that already has its outcome is left alone.
 * Only a run's owner appends to it (issue 23): decision records the cancel of its own runs, and asks the owner of
 * any other (a choke point's run) on rl.runs.control.<owner>; an owner that is down is DEPENDENCY.DOWN, never "requested".
 */
@Injectable()
export class RunCancellation {
  constructor(private readonly runs: RunRepository, private readonly control: RunControlClient) {}

  async request(runId: string, reason: string, requestedBy: string): Promise<RunCancelResult> {
    const owner = await this.runs.ownerOf(runId);
    if (!owner) {
      await this.runs.events(runId); // a forged run is RUN.FORGED, no run at all RUN.NOT_FOUND
      throw new AppError('RUN.NOT_FOUND');
    }
    if (owner !== 'decision') {
      const answer = await this.control.send(owner, { type: 'cancel_request', command_id: randomUUID(), run_id: runId, reason, requested_by: requestedBy });
      return { run_id: runId, outcome: answer.outcome === 'already_ended' ? 'already_ended' : 'requested', status: answer.status };
    }
    // The decider records nothing on a run that has ended or was asked already (idempotent).
    const state = await this.runs.handle(runId, { type: 'RequestCancel', data: { reason, requested_by: requestedBy } }, 'cancel-requested');
    return { run_id: runId, outcome: isTerminal(state) ? 'already_ended' : 'requested', status: state.status };
  }
}
