import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { SessionReply, SUBJECTS } from '@runledger/contracts';
import { RequestContext, RequestHandler, requesterOf } from '@runledger/messaging';
import { SessionGateway } from '../app/session.gateway';

/** agents.session.start and agents.session.get (issue 7). */
@Controller()
export class SessionsController {
  constructor(private readonly gateway: SessionGateway) {}

  @RequestHandler(SUBJECTS.agentSessionStart)
  start(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<SessionReply> {
    // A caller's request: its reply inbox names it (SessionGateway.start); decision starts its own sessions in process.
    return this.gateway.start(raw, ctx.reply);
  }

  @RequestHandler(SUBJECTS.agentSessionGet)
  get(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<SessionReply> {
    return this.gateway.get(raw, requesterOf(ctx));
  }
}
