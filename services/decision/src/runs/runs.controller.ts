import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { RunCancelRequestDto, RunCancelResult, RunQueryDto, SUBJECTS } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import { RequestContext, RequestHandler, validateMessage } from '@runledger/messaging';
import { OperatorActions, operatorRequestId } from '@runledger/policy-catalog';
import { RunRepository } from '@runledger/runs';
import { RunCancellation } from './run-cancellation';

/** Operators and callers inspect a run: its state and checkpoint as folded from its events. */
@Controller()
export class RunsController {
  constructor(private readonly runs: RunRepository, private readonly cancellation: RunCancellation, private readonly operators: OperatorActions) {}

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

  /** rl.runs.cancel: the operator's role must grant `cancel` (policy/operators.yaml); then see RunCancellation. */
  @RequestHandler(SUBJECTS.runsCancel)
  async cancel(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<RunCancelResult> {
    const q = validateMessage(RunCancelRequestDto, raw);
    const reason = q.reason ?? 'cancelled by an operator';
    const requestedBy = q.requested_by ?? 'operator';
    await this.operators.authorize({ action: 'cancel', request_id: operatorRequestId(ctx), requested_by: requestedBy, reason, target: { run_id: q.run_id } });
    return this.cancellation.request(q.run_id, reason, requestedBy);
  }
}
