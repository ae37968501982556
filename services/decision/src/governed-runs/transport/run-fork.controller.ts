import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RunForkRequestDto, RunForkResult, SUBJECTS } from '@runledger/contracts';
import { RequestHandler, validateMessage } from '@runledger/messaging';
import { RunForkService } from '../app/run-fork';

/** rl.runs.fork (issue 25): operators only (deploy/nats/permissions.yaml); see RunForkService. */
@Controller()
export class RunForkController {
  constructor(private readonly forks: RunForkService) {}

  @RequestHandler(SUBJECTS.runsFork)
  fork(@Payload() raw: unknown): Promise<RunForkResult> {
    return this.forks.fork(validateMessage(RunForkRequestDto, raw));
  }
}
