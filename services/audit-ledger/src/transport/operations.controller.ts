import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DeadLetterRetryRequestDto, DeadLettersListRequestDto, RunsListRequestDto, SUBJECTS } from '@runledger/contracts';
import { RequestHandler, validateMessage } from '@runledger/messaging';
import { DeadLettersService } from '../app/dead-letters.service';
import { RunsIndexService } from '../app/runs-index.service';

/** What operators ask of the log beyond the audit view: the runs index and dead letters. */
@Controller()
export class OperationsController {
  constructor(private readonly runs: RunsIndexService, private readonly deadLetters: DeadLettersService) {}

  @RequestHandler(SUBJECTS.runsList)
  list(@Payload() raw: unknown) {
    return this.runs.list(validateMessage(RunsListRequestDto, raw));
  }

  @RequestHandler(SUBJECTS.deadLettersList)
  listDeadLetters(@Payload() raw: unknown) {
    return this.deadLetters.list(validateMessage(DeadLettersListRequestDto, raw).durable);
  }

  @RequestHandler(SUBJECTS.deadLettersRetry)
  retryDeadLetter(@Payload() raw: unknown) {
    const q = validateMessage(DeadLetterRetryRequestDto, raw);
    return this.deadLetters.retry(q.id, q.requested_by ?? 'operator');
  }
}
