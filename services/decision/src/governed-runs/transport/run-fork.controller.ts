import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { RunForkRequestDto, RunForkResult, SUBJECTS } from '@runledger/contracts';
import { RequestContext, RequestHandler, validateMessage } from '@runledger/messaging';
import { OperatorActions, operatorRequestId } from '@runledger/policy-catalog';
import { RunForkService } from '../app/run-fork';
import { sentRunId } from '../app/recorded-as-sent';

/** rl.runs.fork (issue 25): operators only (deploy/nats/permissions.yaml) whose role grants `fork` (policy/operators.yaml); see RunForkService. */
@Controller()
export class RunForkController {
  constructor(private readonly forks: RunForkService, private readonly operators: OperatorActions) {}

  @RequestHandler(SUBJECTS.runsFork)
  async fork(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<RunForkResult> {
    const q = validateMessage(RunForkRequestDto, raw);
    await this.operators.authorize({ action: 'fork', request_id: operatorRequestId(ctx) ?? q.request_id, requested_by: q.requested_by ?? 'operator', reason: `fork from step ${q.from_step}`, target: { run_id: q.run_id } });
    return this.forks.fork(q, sentRunId(raw));
  }
}
