import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { AgentDecisionReply, SUBJECTS } from '@runledger/contracts';
import type { StoredEvent } from '@runledger/event-log';
import { callerOf, LogConsumer, RequestContext, RequestHandler } from '@runledger/messaging';
import { InboxDispatcher } from '../inbox/inbox.dispatcher';
import { TaskAssistantGateway } from './task-assistant.gateway';
import { settingNumber } from '@runledger/kernel';

@Controller()
export class TaskAssistantController {
  constructor(private readonly gateway: TaskAssistantGateway, private readonly inbox: InboxDispatcher) {}

  @RequestHandler(SUBJECTS.taskAssistantProcess, { acceptMalformed: true })
  process(@Payload() raw: unknown): Promise<AgentDecisionReply> {
    return this.gateway.process(raw);
  }

  /** The same on a caller's own door: its users, conversations and tasks are that caller's alone (caller-scope.ts). */
  @RequestHandler(SUBJECTS.callerTaskAssistantProcess, { acceptMalformed: true })
  processForCaller(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<AgentDecisionReply> {
    return this.gateway.process(raw, callerOf(ctx));
  }

  /** Runs (task assistant and governed agents) are carried out from the one durable inbox: a crash mid-run resumes on redelivery. */
  // Enough deliveries (backoff up to 15 s each) to outlast TOOL_RETRY_BUDGET_MS, after which a run records its failure.
  @LogConsumer('rl.log.inbox.decision', { durable: 'decision-inbox', concurrency: 16, maxDeliver: 30, ackWaitMs: settingNumber('RL_INBOX_ACK_WAIT_MS') })
  onInbox(@Payload() event: StoredEvent): Promise<void> {
    return this.inbox.dispatch(event);
  }
}
