import { Injectable } from '@nestjs/common';
import { AppError } from '@runledger/kernel';
import type { StoredEvent } from '@runledger/event-log';
import { CAMPAIGN_CYCLES_REQUESTED, CampaignCycleWorker, type CampaignCyclesRequested } from '../campaigns/app/cycle-worker';
import { AgentRunWorker } from '../governed-runs/app/agent-run.worker';
import { AGENT_RUN_REQUESTED, AgentRunRequested } from '../governed-runs/governed-runs.types';
import { SessionWorker } from '../sessions/app/session.worker';
import { SESSION_REQUESTED, type SessionSpec } from '../sessions/domain/session-run';
import { AgentRequested, TASK_AGENT } from '../task-assistant/task-run.types';
import { TaskRunWorker } from '../task-assistant/task-run.worker';

/**
 * Routes the commands of the one durable decision inbox (`rl.log.inbox.decision`) to the worker that
 * carries them: task-assistant turns, governed agent runs, agent sessions and campaign cycles. A command nothing here
 * carries is refused for good (REQUEST.INVALID): the transport dead-letters it, named, instead of dropping it, and it is
 * never retried, since redelivering it could not make it known.
 */
@Injectable()
export class InboxDispatcher {
  constructor(private readonly taskRuns: TaskRunWorker, private readonly agentRuns: AgentRunWorker, private readonly sessions: SessionWorker, private readonly campaignCycles: CampaignCycleWorker) {}

  async dispatch(event: StoredEvent): Promise<void> {
    if (event.type === 'AgentRequested' && (event.data as AgentRequested).agent_name === TASK_AGENT) {
      return this.taskRuns.handle(event.data as AgentRequested);
    }
    if (event.type === AGENT_RUN_REQUESTED) return this.agentRuns.carry((event.data as AgentRunRequested).spec);
    if (event.type === SESSION_REQUESTED) return this.sessions.carry((event.data as { spec: SessionSpec }).spec);
    if (event.type === CAMPAIGN_CYCLES_REQUESTED) return this.campaignCycles.carry(event.data as CampaignCyclesRequested);
    throw new AppError('REQUEST.INVALID', `No worker carries inbox commands of type ${event.type.slice(0, 64)}.`);
  }
}
