import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RunCancelRequestDto, RunCancelResult, RunQueryDto, SUBJECTS } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import { RequestHandler, validateMessage } from '@runledger/messaging';
import { RunRepository } from '@runledger/runs';
import { RunCancellation } from './run-cancellation';

/** Operators and callers inspect a run: its state and checkpoint as folded from its events. */
@Controller()
export class RunsController {
  constructor(private readonly runs: RunRepository, private readonly cancellation: RunCancellation) {}

  @RequestHandler(SUBJECTS.runsGet)
  async get(@Payload() raw: unknown) {
    const q = validateMessage(RunQueryDto, raw);
    const { state, version, events } = await this.runs.load(q.run_id);
    if (state.status === 'none') throw new AppError('RUN.NOT_FOUND');
    return {
      run_id: q.run_id, version, status: state.status, run: state.run, authz: state.authz, checkpoint: state.checkpoint,
      tool_calls: state.tool_calls, child_run_ids: state.child_run_ids, output_artifacts: state.output_artifacts,
      result: state.result, error: state.error, created_at: state.created_at, updated_at: state.updated_at,
      ...(q.include_events ? { events: events.map((e) => ({ seq: e.seq, index: e.index, type: e.type, data: e.data, recorded_at: e.metadata.recorded_at })) } : {}),
    };
  }

  /** rl.runs.cancel: see RunCancellation. */
  @RequestHandler(SUBJECTS.runsCancel)
  cancel(@Payload() raw: unknown): Promise<RunCancelResult> {
    const q = validateMessage(RunCancelRequestDto, raw);
    return this.cancellation.request(q.run_id, q.reason ?? 'cancelled by an operator', q.requested_by ?? 'operator');
  }
}
