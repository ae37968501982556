import { Inject, Injectable, Logger } from '@nestjs/common';
import { callerOfScopedUser, IntentModelCall, SUBJECTS, ToolInvocationResult, UserIntentReply } from '@runledger/contracts';
import { getRole } from '@runledger/governance';
import { Clock, toWireError, truncateChars } from '@runledger/kernel';
import { Bus, CLOCK } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { childOutcomeFromLog, childRequestHash, childRunId, governanceScopeOf, isTerminal, RETRY, RunEngine, RunRepository, RunState, toolCallOutcomeOf } from '@runledger/runs';
import { ToolGatewayClient } from '@runledger/service-clients';
import {
  AgentDecision, buildAuditRecord, createPendingConfirmation, DecisionContext, HistoryMessage, isPendingLive, nextStep, PendingConfirmation, TEMPLATES, ToolOutcome, TurnStep, UserIntent, validateDecision,
} from '@runledger/task-assistant';
import type { KnownState } from '@runledger/event-log';
import type { ConversationState } from '../conversation/conversation';
import { ConversationRepository } from '../conversation/conversation.repository';
import { KeyedLock } from '../shared/keyed-lock';
import { AgentRequested, ContextCheckpoint, ResolvedContext, STEPS, TASK_AGENT, TASK_LANE, TaskRunResult, taskRequestHash } from './task-run.types';
import { runledgerMetrics } from '@runledger/telemetry';

export const TOOL_CALL_TIMEOUT_MS = Symbol('TOOL_CALL_TIMEOUT_MS');
/** How long a run keeps retrying an unreachable tool gateway before it records the call as failed. */
export const TOOL_RETRY_BUDGET_MS = Symbol('TOOL_RETRY_BUDGET_MS');
/** How long classification is retried (classifier restarting) before the run degrades to AMBIGUOUS. */
export const CLASSIFY_RETRY_BUDGET_MS = Symbol('CLASSIFY_RETRY_BUDGET_MS');

/** The classify step's recorded output: the intent, marked when it is the degraded fallback rather than a classification. */
type ClassifiedIntent = UserIntent & { degraded?: true; model_call?: IntentModelCall };

/**
 * Carries one task-assistant run from request to outcome. Every step is recorded before the next starts
 * (context, classification, each tool call requested then recorded), so a run picked up again after a
 * crash resumes after its last recorded step and never repeats a completed tool call.
 */
@Injectable()
export class TaskRunWorker {
  private readonly logger = new Logger('TaskRunWorker');
  private readonly locks = new KeyedLock();
  /** Tool outcomes this worker recorded itself (the gateway unreachable past the retry budget), not the gateway. */
  private readonly givenUp = new WeakSet<object>();
  private readonly tools: ToolGatewayClient;

  constructor(
    private readonly runs: RunRepository,
    private readonly conversations: ConversationRepository,
    private readonly policies: PolicyCatalog,
    private readonly bus: Bus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TOOL_CALL_TIMEOUT_MS) private readonly toolTimeoutMs: number,
    @Inject(TOOL_RETRY_BUDGET_MS) private readonly toolRetryBudgetMs: number,
    @Inject(CLASSIFY_RETRY_BUDGET_MS) private readonly classifyRetryBudgetMs: number,
  ) {
    this.tools = new ToolGatewayClient(bus);
  }

  handle(cmd: AgentRequested): Promise<void> {
    return this.locks.run(`${cmd.request.user_id}\u0000${cmd.request.conversation_id}`, () => this.advance(cmd));
  }

  /**
   * A run's id is drawn for its request, so the worker starts it without reading the log; a run that exists after all
   * (a redelivery, a repeated request) makes its first append conflict, and it is carried again from what the log holds.
   */
  private advance(cmd: AgentRequested): Promise<void> {
    const identity = { run_id: cmd.run_id, root_run_id: cmd.run_id, correlation_id: cmd.request.conversation_id, user_id: cmd.request.user_id };
    return RunEngine.carryNew(this.runs, identity, (run) => this.carry(cmd, run), { onStep: observeStep });
  }

  private async carry(cmd: AgentRequested, run: RunEngine): Promise<void> {
    if (isTerminal(run.state)) return;
    // The opening goes out with the run's first append (its first tool call's request, or its end): one commit opens
    // the run and asks for its first effect, and the gateway verifies the caller from that one commit.
    if (!(await run.open(await this.opening(cmd, run.state.run?.policy_versions), 'with-next'))) return;
    // A cancel recorded while the run was carried made its next append conflict; the redelivery lands here.
    if (await run.cancelIfRequested()) return;
    const now = run.state.created_at!;

    // The conversation as this turn loaded it, when the context step ran here (not resumed from the log): the
    // exchange is recorded on it without reading the conversation again.
    // The context and classify checkpoints go out with the run's next append (the tool call's request, or before the
    // conversation is written in finish): no effect or record depends on them before that (the classifier is asked
    // with the context, but records nothing). A crash in between computes both again on resume.
    // The checkpoint names the conversation's version, not a copy of its history: the log holds the history once.
    let conversation: KnownState<ConversationState> | undefined;
    const checkpoint = await run.step<ContextCheckpoint>('context', STEPS.context, async () => {
      conversation = await this.conversations.load(cmd.request.user_id, cmd.request.conversation_id);
      const runs = conversation.state.recent_run_ids;
      return { conversation_version: conversation.version, based_on_run_id: runs[runs.length - 1] ?? null };
    }, 'with-next');
    const resolved = await this.resolveContext(cmd, checkpoint, conversation);
    const context: DecisionContext = { ...cmd.request, message_history: resolved.history ?? [], pending_confirmation: resolved.pending_confirmation };
    const { degraded: _degraded, ...intent } = await run.step<ClassifiedIntent>('classify', STEPS.classify, () => this.classify(context, now), 'with-next');

    // The contract-000 engine decides each next tool call from the outcomes recorded so far, then the decision.
    // An outcome goes out with the run's next append (the next call's request, or its end): asked again after a crash,
    // the gateway answers it from the call's child run. An outcome the gateway never gave (recorded as failed past the
    // retry budget) has no child run to answer it again: it is recorded now.
    const decided = await run.toolCallsUntilDone<Extract<TurnStep, { kind: 'done' }>>((state) => {
      const step = nextStep({ context, intent, now }, toolOutcomes(state));
      if (step.kind !== 'invoke') return { done: step };
      const { sequence, tool_name, parameters } = step.call;
      return { call: { call_id: `call-${sequence}`, sequence, tool_name, parameters } };
    }, (call) => this.invokeTool(cmd, run.state, call.call_id, call.tool_name, call.parameters), {
      record: (res) => (this.givenUp.has(res) ? 'now' : 'with-next'),
    });
    await this.finish(cmd, decided.decision, decided.conversation_effect, intent, resolved, now, run, conversation);
  }

  /** The run's opening; a run resumed mid-opening keeps the versions its RunCreated pinned. */
  private async opening(cmd: AgentRequested, pinned?: { lanes: string; roles: string }) {
    const versions = pinned ?? this.policies.currentVersions();
    const policy = await this.policies.resolve(versions);
    const allowed = getRole(policy, TASK_AGENT) !== undefined;
    const r = cmd.request;
    const reason = 'The task assistant is not a known agent.';
    // A request of a caller's door is attributed to that caller (its user_id is in the caller's name space).
    const caller = callerOfScopedUser(r.user_id);
    return {
      created: {
        run_id: cmd.run_id, run_kind: 'agent' as const, agent_name: TASK_AGENT, root_run_id: cmd.run_id, correlation_id: r.conversation_id, lane: TASK_LANE,
        user_id: r.user_id, conversation_id: r.conversation_id, contract_version: 'v1' as const, policy_versions: versions, input_artifacts: [],
        parameters: { message: r.message }, request_hash_sha256: taskRequestHash(r), ...(caller !== undefined ? { requested_by: caller } : {}),
      },
      authz: allowed
        ? { decision: 'allow' as const, lane: TASK_LANE, policy_versions: versions }
        : { decision: 'deny' as const, lane: TASK_LANE, code: 'ROLE.UNKNOWN', reason, policy_versions: versions },
      denial: { error_code: 'ROLE.UNKNOWN', message: reason, retryable: false },
    };
  }

  /**
   * Contract 000 graceful degradation, but not on the first hiccup: an unreachable classifier (a restart) is asked
   * again within a budget; only then does the run degrade to AMBIGUOUS and a clarification, recorded as degraded.
   */
  private async classify(context: DecisionContext, now: string): Promise<ClassifiedIntent> {
    try {
      const reply = await this.bus.requestIdempotent<UserIntentReply>(SUBJECTS.intentClassify, {
        message: context.message, history: (context.message_history ?? []).slice(-20).map(boundedHistory), pending_confirmation_active: isPendingLive(context.pending_confirmation, now),
      }, {
        timeoutMs: 8_000, // longer than the LLM classifier's own 5 s, so its rules fallback can still answer
        retryDelayMs: RETRY.classify,
        signal: AbortSignal.timeout(this.classifyRetryBudgetMs),
      });
      // The classifier's model call (and whether the rules answered instead) is recorded with the classify step.
      const intent: ClassifiedIntent = { intent_type: reply.intent_type, confidence: reply.confidence, extracted_params: reply.extracted_params };
      return reply.model_call ? { ...intent, model_call: reply.model_call } : intent;
    } catch (err) {
      this.logger.warn({ msg: 'classification failed within its retry budget; degrading to AMBIGUOUS', error: (err as Error).message });
      return { intent_type: 'AMBIGUOUS', confidence: null, extracted_params: null, degraded: true };
    }
  }

  private invokeTool(cmd: AgentRequested, state: RunState, callId: string, toolName: string, parameters: Record<string, unknown>): Promise<ToolInvocationResult> {
    const governance = governanceScopeOf({ ...state.run!, correlation_id: cmd.request.conversation_id, user_id: cmd.request.user_id }, TASK_LANE);
    // The gateway answers within the tool timeout; the margin covers the bus. A gateway that does not answer
    // at all throws here, the message is redelivered, and the recorded call is asked again (at most once effect).
    // Past the retry budget the call is recorded as failed, so the run ends with the contract's failure reply
    // instead of waiting forever (its child run, if any, keeps its own record).
    return this.tools.invoke({ call_id: callId, tool_name: toolName, parameters, timeout_ms: this.toolTimeoutMs, governance }, { retry: RETRY.none }).catch(async (err: unknown) => {
      const waitedMs = this.clock.now().getTime() - Date.parse(state.created_at ?? '');
      if (!(waitedMs > this.toolRetryBudgetMs)) throw err;
      // Only a call that never started may be recorded as failed: one the log shows done is answered as done,
      // one still open is unknown and stays so (asked again on redelivery) until the gateway resolves it.
      const childId = childRunId('tool_gateway', cmd.run_id, callId);
      const logged = await childOutcomeFromLog(this.runs, childId);
      if (logged === 'open') throw err;
      if (logged !== 'absent') return { child_run_id: childId, call_id: callId, tool_name: toolName, ...toolCallOutcomeOf(logged.state), replayed: true };
      const wire = toWireError(err);
      this.logger.warn({ msg: 'tool gateway unreachable past the retry budget; recording the call as failed', run_id: cmd.run_id, call_id: callId, code: wire.code });
      const failed: ToolInvocationResult = { child_run_id: childId, call_id: callId, tool_name: toolName, status: 'failed', error: { error_code: wire.code, message: wire.message, retryable: wire.retryable } };
      this.givenUp.add(failed);
      return failed;
    });
  }

  /**
   * The turn's context from its checkpoint: the caller's own history when it brought one, else the conversation as this
   * turn read it (`loaded` when the step ran here; read at the recorded version when the run resumed), or the copy a
   * run checkpointed before the reference holds.
   */
  private async resolveContext(cmd: AgentRequested, checkpoint: ContextCheckpoint, loaded?: KnownState<ConversationState>): Promise<ResolvedContext> {
    const based_on_run_id = checkpoint.based_on_run_id;
    if (checkpoint.history !== undefined) return { history: checkpoint.history, pending_confirmation: checkpoint.pending_confirmation ?? null, based_on_run_id };
    if (cmd.caller_context) return { history: cmd.request.message_history ?? [], pending_confirmation: cmd.request.pending_confirmation ?? null, based_on_run_id };
    const r = cmd.request;
    const { state } = loaded ?? (await this.conversations.load(r.user_id, r.conversation_id, checkpoint.conversation_version ?? 0));
    return { history: state.history, pending_confirmation: state.pending_confirmation, based_on_run_id };
  }

  private async finish(
    cmd: AgentRequested, decision: AgentDecision, effect: 'none' | 'set_pending' | 'clear_pending', intent: UserIntent, resolved: ResolvedContext, now: string, run: RunEngine,
    conversation: KnownState<ConversationState> | undefined,
  ) {
    const violations = validateDecision(decision);
    if (violations.length) {
      this.logger.error({ msg: 'decision failed output validation', run_id: cmd.run_id, violations });
      decision = { decision_type: 'RESPOND_ONLY', tool_calls: null, response_text: TEMPLATES.error.invalidInput(), clarification_question: null, pending_action: null };
    }
    const pending: PendingConfirmation | null =
      effect === 'set_pending' && decision.pending_action ? createPendingConfirmation(decision.pending_action, now)
        : effect === 'clear_pending' ? null
          : isPendingLive(resolved.pending_confirmation, now) ? resolved.pending_confirmation : null;
    const r = cmd.request;
    // The conversation is written only once the context it was resolved from is in the log: a resumed run must find
    // the context of this turn, not the conversation with this turn's exchange already in it.
    await run.flushCheckpoints('context');
    await this.conversations.record(r.user_id, r.conversation_id, {
      run_id: cmd.run_id, user_message: r.message, assistant_message: decision.response_text ?? decision.clarification_question ?? '', at: now, pending_confirmation: pending,
      // Runs checkpointed before this field existed carry no base: they are recorded as before.
      ...(resolved.based_on_run_id !== undefined ? { based_on_run_id: resolved.based_on_run_id } : {}),
    }, conversation);
    const audit = buildAuditRecord({ timestamp: this.clock.now().toISOString(), context: r, intent, decision });
    // The decision is stored once, in DecisionRecorded: RunCompleted holds no copy (the run's folded result is
    // `{ decision }` from it, and the hash still covers exactly that).
    const result: TaskRunResult = { decision };
    await run.complete(
      { output_artifacts: [], response_hash_sha256: childRequestHash(result) },
      [{ type: 'DecisionRecorded', data: { decision, intent, conversation_effect: effect, audit_record: { ...audit, run_id: cmd.run_id } } }],
    );
  }
}

/** The classify request accepts history messages of at most this many characters (ClassifyIntentRequest schema). */
const HISTORY_CONTENT_MAX = 8000;

/**
 * A long reply (a list of many 1000-character tasks) must not make the classify request invalid: that would
 * degrade every later turn of the conversation to AMBIGUOUS until the reply scrolls out of the window.
 */
function boundedHistory(m: HistoryMessage): HistoryMessage {
  const content = truncateChars(m.content, HISTORY_CONTENT_MAX);
  return content === m.content ? m : { ...m, content };
}

const observeStep = (step: string, seconds: number) => runledgerMetrics().stepDuration.record(seconds, { 'runledger.agent': TASK_AGENT, 'runledger.step': step });

/** Recorded tool outcomes in the shape the pure decision engine folds. */
function toolOutcomes(state: RunState): ToolOutcome[] {
  return state.tool_calls
    .filter((c) => c.status !== 'requested')
    .sort((a, b) => a.sequence - b.sequence)
    .map((c) => {
      const call = { tool_name: c.tool_name as ToolOutcome['call']['tool_name'], parameters: c.parameters, sequence: c.sequence };
      return c.status === 'ok' ? { call, status: 'ok' as const, result: c.result } : { call, status: c.status as 'failed' | 'timeout' | 'denied', error_code: c.error?.error_code ?? 'TOOL.FAILED' };
    });
}
