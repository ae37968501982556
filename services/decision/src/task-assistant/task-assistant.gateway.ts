import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AgentDecisionReply, DecisionContextDto } from '@runledger/contracts';
import { aggregateRef, EventLog, type StoredEvent } from '@runledger/event-log';
import { AppError, deterministicUuid } from '@runledger/kernel';
import { MalformedPayload, validateMessage } from '@runledger/messaging';
import { AgentDecision, TEMPLATES, validateContext } from '@runledger/task-assistant';
import { RunWaiter } from '../runs/run-waiter';
import { doorUserProblem, forCaller, inCallerScope } from './caller-scope';
import { RejectedRequestRecorder } from './rejected-request.recorder';
import { decisionOf, respondOnly } from './task-run.reply';
import { AgentRequested, DECISION_INBOX, TASK_AGENT, taskRequestHash } from './task-run.types';

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

  /** `caller`: the identity of the door the request came on (caller-scope.ts); absent on agents.task-assistant.process. */
  async process(raw: unknown, caller?: string): Promise<AgentDecisionReply> {
    // Contract 000: invalid input is answered with its template (and audited), even when it is not bounded JSON.
    if (raw instanceof MalformedPayload) return this.rejected.record({}, invalidInput(), raw.reason, 'REQUEST.INVALID');
    // Validated once (issue 21): the contract's table rows with their templates, then the DTO's shape.
    const checked = validateContext(raw, shapeProblems);
    if (!checked.ok) return this.rejected.record(inCallerScope(raw, caller), checked.decision, checked.reason);
    const crossing = doorUserProblem(checked.context.user_id, caller);
    // Recorded without that user_id: the refused request is no run of that door's user.
    if (crossing) return this.rejected.record({ ...(raw as object), user_id: undefined }, invalidInput(), crossing, 'REQUEST.INVALID');
    const sent = raw as Partial<DecisionContextDto>;
    const context = inCallerScope(checked.context, caller);
    const runId = sent.request_id ? deterministicUuid('task-assistant', context.user_id, sent.request_id) : randomUUID();
    const command: AgentRequested = {
      run_id: runId,
      agent_name: TASK_AGENT,
      request: context,
      caller_context: sent.message_history !== undefined || sent.pending_confirmation !== undefined,
    };
    const requestHash = taskRequestHash(context);
    // Nothing is read before the inbox append (issue 22). Without a request_id the run id is drawn at random: no run
    // can have it yet. With one, an append the log takes as new proves the request new within the log's duplicate
    // window: nothing can have answered it yet, the live feed will. Only a duplicate (a repeated request) is looked up.
    const watch = await this.waiter.watch(runId, this.replyTimeoutMs, { newRun: true });
    let duplicate = false;
    try {
      const queued = await this.log.append(aggregateRef('inbox', DECISION_INBOX), [{ type: 'AgentRequested', data: command, metadata: { run_id: runId, root_run_id: runId, user_id: context.user_id } }], { commandId: `request:${runId}` });
      duplicate = queued.duplicate;
      // A request_id names one request: reused for another, it is refused instead of answering the old one. The run
      // may not exist yet while its first request waits in the inbox: the queued command is the record.
      if (duplicate && taskRequestHash((queued.events[0].data as AgentRequested).request) !== requestHash) throw reused();
      // Its outcome may be in the log already (recorded before this watch subscribed): read once.
      if (duplicate) await this.refuseReuse(runId, requestHash, await watch.look());
    } catch (err) {
      watch.cancel();
      throw err;
    }
    const outcome = await watch.outcome;
    if (outcome === 'timeout') {
      this.logger.warn({ msg: 'reply timeout; run continues', run_id: runId });
      return { run_id: runId, ...respondOnly(TEMPLATES.error.timeout()) };
    }
    // Repeated past the duplicate window, the request was taken as new: a run found by the timeout's look (not heard
    // being carried for it) may be an older request's, checked as a duplicate's would be.
    if (sent.request_id && !duplicate && !outcome.heard) await this.refuseReuse(runId, requestHash, outcome.terminal);
    return { run_id: runId, ...forCaller(decisionOf(outcome), context.user_id, caller) };
  }

  /** `last`: the run's last event as the waiter read it (null: no run yet, nothing to compare). */
  private async refuseReuse(runId: string, requestHash: string, last: StoredEvent | null): Promise<void> {
    if (!last) return;
    const created = last.type === 'RunCreated' ? last : await this.waiter.created(runId);
    if (created?.type === 'RunCreated' && (created.data as { request_hash_sha256?: string }).request_hash_sha256 !== requestHash) throw reused();
  }
}

function reused(): AppError {
  return new AppError('REQUEST.CONFLICT', 'That request_id was already used for a different request (user, conversation or message differ).');
}

/** The request's structural problems by its DTO (types, bounds, nesting), for the one validation of `process`. */
function shapeProblems(raw: unknown): string[] {
  try {
    validateMessage(DecisionContextDto, raw);
    return [];
  } catch (err) {
    return err instanceof AppError ? (err.details?.length ? [...err.details] : [err.message]) : ['invalid request'];
  }
}

function invalidInput(): AgentDecision {
  return respondOnly(TEMPLATES.error.invalidInput());
}
