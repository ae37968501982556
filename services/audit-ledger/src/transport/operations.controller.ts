import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { DeadLetterRetryRequestDto, DeadLettersListRequestDto, RunsListRequestDto, SUBJECTS } from '@runledger/contracts';
import { RequestContext, RequestHandler, validateMessage } from '@runledger/messaging';
import { OperatorActions, operatorRequestId } from '@runledger/policy-catalog';
import { DeadLettersService } from '../app/dead-letters.service';
import { RunsIndexService } from '../app/runs-index.service';

/** What operators ask of the log beyond the audit view: the runs index and dead letters. */
@Controller()
export class OperationsController {
  constructor(private readonly runs: RunsIndexService, private readonly deadLetters: DeadLettersService, private readonly operators: OperatorActions) {}

  @RequestHandler(SUBJECTS.runsList)
  list(@Payload() raw: unknown) {
    return this.runs.list(validateMessage(RunsListRequestDto, raw));
  }

  @RequestHandler(SUBJECTS.deadLettersList)
  listDeadLetters(@Payload() raw: unknown) {
    return this.deadLetters.list(validateMessage(DeadLettersListRequestDto, raw).durable);
  }

  @RequestHandler(SUBJECTS.deadLettersRetry)
  async retryDeadLetter(@Payload() raw: unknown, @Ctx() ctx: RequestContext) {
    const q = validateMessage(DeadLetterRetryRequestDto, raw);
    const requestedBy = q.requested_by ?? 'operator';
    // The operator identity's role must grant `deadletter_retry` (policy/operators.yaml).
    await this.operators.authorize({ action: 'deadletter_retry', request_id: operatorRequestId(ctx), requested_by: requestedBy, target: { dead_letter_id: q.id } });
    return this.deadLetters.retry(q.id, requestedBy);
  }
}
