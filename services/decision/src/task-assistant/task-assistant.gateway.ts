import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AgentDecisionReply, DecisionContextDto } from '@runledger/contracts';
import { aggregateRef, EventLog } from '@runledger/event-log';
import { AppError, deterministicUuid } from '@runledger/kernel';
import { MALFORMED_PAYLOAD, validateMessage } from '@runledger/messaging';
import { AgentDecision, TEMPLATES, validateContext } from '@runledger/task-assistant';
import { RunWaiter } from '../runs/run-waiter';
import { RejectedRequestRecorder } from './rejected-request.recorder';
import { AgentRequested, DECISION_INBOX, TASK_AGENT, TaskRunResult } from './task-run.types';

export const REPLY_TIMEOUT_MS = Symbol('REPLY_TIMEOUT_MS');

/**
 * The agent-request API of the task assistant. It validates at the boundary, queues the request in the
 * decision inbox (durable: a crash of this service loses nothing) and replies once the run's outcome is in
 * the log, with the decision carried out and the run id.
 */
@Injectable()
export class TaskAssistantGateway {
  private readonly logger = new Logger('TaskAssistant');

  constructor(
    private readonly log: EventLog,
    private readonly waiter: RunWaiter,
    private readonly rejected: RejectedRequestRecorder,
    @Inject(REPLY_TIMEOUT_MS) private readonly replyTimeoutMs: number,
  ) {}

  async process(raw: unknown): Promise<AgentDecisionReply> {
    // Contract 000: invalid input is answered with its template (and audited), even when it is not JSON.
    if (raw === MALFORMED_PAYLOAD) return this.rejected.record({}, invalidInput(), 'the request is not valid JSON', 'REQUEST.INVALID');
    const checked = validateContext(raw);
    if (!checked.ok) return this.rejected.record(raw, checked.decision, checked.reason);
    let dto: DecisionContextDto;
    try {
      dto = validateMessage(DecisionContextDto, raw);
    } catch (err) {
      const reason = err instanceof AppError ? (err.details ?? []).join('; ') || err.message : 'invalid request';
      return this.rejected.record(raw, invalidInput(), reason);
    }
    const context = checked.context;
    const runId = dto.request_id ? deterministicUuid('task-assistant', context.user_id, dto.request_id) : randomUUID();
    const command: AgentRequested = {
      run_id: runId,
      agent_name: TASK_AGENT,
      request: context,
      caller_context: dto.message_history !== undefined || dto.pending_confirmation !== undefined,
    };
    const watch = this.waiter.watch(runId, this.replyTimeoutMs);
    try {
      await this.log.append(aggregateRef('inbox', DECISION_INBOX), [{ type: 'AgentRequested', data: command, metadata: { run_id: runId, root_run_id: runId } }], { commandId: `request:${runId}` });
    } catch (err) {
      watch.cancel();
      throw err;
    }
    const outcome = await watch.outcome;
    if (outcome === 'timeout') {
      this.logger.warn({ msg: 'reply timeout; run continues', run_id: runId });
      return { run_id: runId, ...respondOnly(TEMPLATES.error.timeout()) };
    }
    const result = outcome.result as TaskRunResult | undefined;
    if (outcome.status !== 'completed' || !result?.decision) {
      return { run_id: runId, ...respondOnly(TEMPLATES.error.invalidInput()) };
    }
    return { run_id: runId, ...result.decision };
  }
}

function respondOnly(text: string): AgentDecision {
  return { decision_type: 'RESPOND_ONLY', tool_calls: null, response_text: text, clarification_question: null, pending_action: null };
}

function invalidInput(): AgentDecision {
  return respondOnly(TEMPLATES.error.invalidInput());
}
