import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { AgentRunResponse, SUBJECTS } from '@runledger/contracts';
import { RequestContext, RequestHandler } from '@runledger/messaging';
import { AgentRunGateway } from '../app/agent-run.gateway';

/** agents.run.start (contract 001 §2): request/reply; the reply is the §2.2 response of the finished run. */
@Controller()
export class AgentRunsController {
  constructor(private readonly gateway: AgentRunGateway) {}

  @RequestHandler(SUBJECTS.agentRunStart, { acceptMalformed: true })
  start(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<AgentRunResponse> {
    // Only callers may send agents.run.start; its reply inbox names the caller the run is recorded for (see startingCaller).
    return this.gateway.start(raw, ctx.reply);
  }
}
