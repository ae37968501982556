import { commitResponse } from '../domain/context-guard';
import { interpretResponse, type Interpretation } from '../domain/interpret-response';
import { decideRetry, NEW_RETRY_TRACK, targetIndexForAttempt, type AttemptFailure, type RetryTrack } from '../domain/retry-policy';
import type { ResolvedTarget } from '../domain/session-config';
import { estimateMessagesTokens } from '../domain/tokens';
import type { AssistantResponse, ConversationMessage, ModelError, TokenUsage } from '../domain/types';
import type { ModelRequest, ModelResult } from '../ports';
import type { SessionState } from './session-state';
import type { TurnPlan } from './turn-plan';

export type AcceptedInterpretation = Extract<Interpretation, { kind: 'accepted' }>;

/** How the LLM phase of a turn ended. */
export type AttemptsOutcome =
  | { readonly type: 'accepted'; readonly interpretation: AcceptedInterpretation; readonly target: ResolvedTarget }
  | { readonly type: 'fatal'; readonly error: ModelError }
  | { readonly type: 'exhausted'; readonly lastError: string };

const ZERO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/** A port that throws instead of resolving still yields a classified error (§2 Always Return Output). */
async function callModel(state: SessionState, request: ModelRequest): Promise<ModelResult> {
  try {
    return await state.ports.model.call(request);
  } catch (e) {
    return { ok: false, error: { kind: 'model', message: `model adapter failed: ${e instanceof Error ? e.message : String(e)}` } };
  }
}

type UnusedAnswer = { failure: AttemptFailure; message: string; errorKind: 'empty_response' | 'invalid_response' };

function failureOf(interpretation: Exclude<Interpretation, { kind: 'accepted' }>): UnusedAnswer {
  if (interpretation.kind === 'ignored') {
    const message = interpretation.reason === 'empty' ? 'empty response' : 'plain text response without tool calls ignored';
    return { failure: { kind: 'empty_response' }, message, errorKind: 'empty_response' };
  }
  return { failure: { kind: 'unusable_response', detail: interpretation.detail }, message: `unusable response: ${interpretation.detail}`, errorKind: 'invalid_response' };
}

/** A response the provider delivered; `unused` when the session could not use it (still an attempt, so `failed`). */
async function recordResponse(state: SessionState, target: ResolvedTarget, latency: number, response: AssistantResponse, unused?: UnusedAnswer): Promise<void> {
  await state.recordLlm({
    provider: target.provider,
    model: target.model,
    status: unused === undefined ? 'ok' : 'failed',
    latency,
    tokens: response.usage,
    ...(unused === undefined ? {} : { error: unused.message, errorKind: unused.errorKind }),
    ...(response.stopReason ? { stopReason: response.stopReason } : {}),
    ...(response.actualModel ? { actualModel: response.actualModel } : {}),
    ...(response.actualProvider ? { actualProvider: response.actualProvider } : {}),
    ...(response.costUsd !== undefined ? { costUsd: response.costUsd } : {}),
  });
}

/**
 * The LLM phase of one turn (§1 maxRetries, §3): up to `maxRetries` attempts, round-robin over the
 * targets, each one accounted. Ephemeral retry notices go with the next attempt only and count as
 * pending tokens before the request is logged.
 */
export async function runAttempts(state: SessionState, plan: TurnPlan): Promise<AttemptsOutcome> {
  const { config } = state;
  let track: RetryTrack = NEW_RETRY_TRACK;
  let notice: string | undefined;
  let lastError = 'no attempt was made';
  for (let attempt = 1; attempt <= config.maxRetries; attempt++) {
    const target = config.targets[targetIndexForAttempt(attempt, config.targets.length)]!;
    const ephemeral: ConversationMessage[] = [...plan.ephemeral, ...(notice ? [{ role: 'user' as const, content: notice }] : [])];
    const pending = state.counters.pendingCtxTokens + estimateMessagesTokens(ephemeral);
    const ctx = state.counters.currentCtxTokens;
    state.log('debug', 'llm_request_prepared', `LLM request prepared for ${target.provider}/${target.model}`, {
      provider: target.provider,
      model: target.model,
      attempt,
      ctxTokens: ctx,
      pendingCtxTokens: pending,
      schemaCtxTokens: plan.schemaTokens,
      expectedTokens: ctx + pending + plan.schemaTokens,
      tools: plan.requestTools.map((t) => t.name),
    });

    const started = state.nowMs();
    const result = await callModel(state, {
      target,
      messages: [...state.conversation, ...ephemeral],
      tools: plan.requestTools,
      toolChoice: 'auto',
    });
    const latency = state.nowMs() - started;

    let failure: AttemptFailure;
    if (result.ok) {
      const interpretation = interpretResponse(result.response, plan.interpret);
      if (interpretation.kind === 'accepted') {
        await recordResponse(state, target, latency, result.response);
        const usage = result.response.usage;
        state.counters = commitResponse(state.counters, usage.inputTokens + usage.outputTokens + (usage.cachedTokens ?? 0));
        return { type: 'accepted', interpretation, target };
      }
      const failed = failureOf(interpretation);
      await recordResponse(state, target, latency, result.response, failed);
      failure = failed.failure;
      lastError = failed.message;
    } else {
      await state.recordLlm({
        provider: target.provider,
        model: target.model,
        status: 'failed',
        latency,
        tokens: ZERO_USAGE,
        error: result.error.message,
        errorKind: result.error.kind,
      });
      failure = { kind: 'error', error: result.error };
      lastError = `${result.error.kind}: ${result.error.message}`;
    }

    const decision = decideRetry(failure, attempt, config.maxRetries, config.targets.length, track);
    if (decision.type === 'fatal') return { type: 'fatal', error: decision.error };
    if (decision.type === 'exhausted') break;
    track = decision.track;
    notice = decision.notice;
    if (decision.waitMs > 0) {
      state.log('info', 'llm_backoff', `waiting ${decision.waitMs} ms before the next attempt`, { waitMs: decision.waitMs });
      await state.ports.sleeper.sleep(decision.waitMs);
    }
  }
  state.log('warn', 'turn_attempts_exhausted', `all ${config.maxRetries} attempts failed`, { lastError });
  return { type: 'exhausted', lastError };
}
