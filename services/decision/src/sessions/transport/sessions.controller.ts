import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { SessionReply, SUBJECTS } from '@runledger/contracts';
import { callerOf, RequestContext, RequestHandler } from '@runledger/messaging';
import { SessionGateway } from '../app/session.gateway';

/** A caller's sessions (issue 7) on its own door, rl.caller.<caller>.sessions.start | get: the subject names the caller (callerOf). */
@Controller()
export class SessionsController {
  constructor(private readonly gateway: SessionGateway) {}

  @RequestHandler(SUBJECTS.callerSessionsStart)
  start(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<SessionReply> {
    return this.gateway.start(raw, callerOf(ctx));
  }

  @RequestHandler(SUBJECTS.callerSessionsGet)
  get(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<SessionReply> {
    return this.gateway.get(raw, callerOf(ctx));
  }
}
