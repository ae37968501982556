import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AgentDecisionReply, SUBJECTS } from '@runledger/contracts';
import type { StoredEvent } from '@runledger/event-log';
import { LogConsumer, RequestHandler } from '@runledger/messaging';
import { TaskAssistantGateway } from './task-assistant.gateway';
import { TaskRunWorker } from './task-run.worker';
import { AgentRequested } from './task-run.types';

@Controller()
export class TaskAssistantController {
  constructor(private readonly gateway: TaskAssistantGateway, private readonly worker: TaskRunWorker) {}

  @RequestHandler(SUBJECTS.taskAssistantProcess)
  process(@Payload() raw: unknown): Promise<AgentDecisionReply> {
    return this.gateway.process(raw);
  }

  /** Runs are carried out from the durable inbox: a crash mid-run resumes on redelivery. */
  @LogConsumer('rl.log.inbox.decision', { durable: 'decision-inbox', concurrency: 16, ackWaitMs: Number(process.env.RL_INBOX_ACK_WAIT_MS ?? 30_000) })
  async onInbox(@Payload() event: StoredEvent): Promise<void> {
    if (event.type === 'AgentRequested' && (event.data as AgentRequested).agent_name === 'TASK_ASSISTANT') {
      await this.worker.handle(event.data as AgentRequested);
    }
  }
}
