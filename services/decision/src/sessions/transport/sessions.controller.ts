import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { SessionReply, SUBJECTS } from '@runledger/contracts';
import { RequestHandler } from '@runledger/messaging';
import { SessionGateway } from '../app/session.gateway';

/** agents.session.start and agents.session.get (issue 7). */
@Controller()
export class SessionsController {
  constructor(private readonly gateway: SessionGateway) {}

  @RequestHandler(SUBJECTS.agentSessionStart)
  start(@Payload() raw: unknown): Promise<SessionReply> {
    return this.gateway.start(raw);
  }

  @RequestHandler(SUBJECTS.agentSessionGet)
  get(@Payload() raw: unknown): Promise<SessionReply> {
    return this.gateway.get(raw);
  }
}
