import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { AgentRunResponse, SUBJECTS } from '@runledger/contracts';
import { callerOf, RequestContext, RequestHandler } from '@runledger/messaging';
import { AgentRunGateway } from '../app/agent-run.gateway';

/** rl.caller.<caller>.runs.start (contract 001 §2): request/reply; the reply is the §2.2 response of the finished run. */
@Controller()
export class AgentRunsController {
  constructor(private readonly gateway: AgentRunGateway) {}

  @RequestHandler(SUBJECTS.callerRunsStart, { acceptMalformed: true })
  start(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<AgentRunResponse> {
    // The caller's own door: the subject names the caller the run is recorded for.
    return this.gateway.start(raw, callerOf(ctx));
  }
}
