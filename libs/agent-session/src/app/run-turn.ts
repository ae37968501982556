import { evaluateGuard, flushNew, withSchema } from '../domain/context-guard';
import { toolFailedStub } from '../domain/notices';
import { FINAL_REPORT_TOOL } from '../domain/session-config';
import { estimateMessagesTokens, estimateOutputTokens } from '../domain/tokens';
import type { FinalReport, ModelError } from '../domain/types';
import { renderXmlPast, type XmlToolResult } from '../domain/xml/messages';
import { settleFinalReport } from './final-report';
import { runAttempts } from './llm-attempts';
import type { SessionState } from './session-state';
import { runToolPhase, type CallResult } from './tool-phase';
import { planTurn, type TurnPlan } from './turn-plan';

/** The loop's next step after a turn, as data (run again, final output, or a fatal stop). */
export type NextStep =
  | { readonly type: 'run_again' }
  | { readonly type: 'final_output'; readonly report: FinalReport }
  | { readonly type: 'fatal'; readonly error: ModelError };

/**
 * §2 turn_preflight: before the request, flush `new` into `pending`, set the schema of the tools on offer
 * and project. Over the limit, the turn becomes a forced final turn with the schema recomputed for the
 * reduced tool set; if even that does not fit, the session goes on best-effort with a warning.
 */
function preflight(state: SessionState, plan: TurnPlan, turn: number): TurnPlan {
  const { targets, contextWindowBufferTokens: buffer } = state.config;
  const evaluate = (p: TurnPlan) => {
    state.counters = flushNew(withSchema(state.counters, p.schemaTokens));
    return evaluateGuard('turn_preflight', state.counters, targets, buffer, estimateMessagesTokens(p.ephemeral));
  };
  let verdict = evaluate(plan);
  if (verdict.fits) return plan;
  state.log('warn', 'context_guard_blocked', 'the next request would overflow the context window; forcing the final turn', {
    site: verdict.site,
    projected_tokens: verdict.projected,
    limit_tokens: verdict.limit,
    blocked: verdict.blocked,
    forcedFinalTurnReason: 'context',
  });
  state.forcedFinal ??= 'context';
  // §2 Forced Final Turn: this turn is the session's last; without a report it ends in the synthetic failure.
  state.effectiveMaxTurns = Math.min(state.effectiveMaxTurns, turn);
  const shrunk = planTurn(state, turn);
  verdict = evaluate(shrunk);
  if (!verdict.fits) {
    state.log('warn', 'context_guard_post_shrink', 'still over the context limit with only the final report tool; proceeding best-effort', {
      projected_tokens: verdict.projected,
      limit_tokens: verdict.limit,
      schemaCtxTokens: state.counters.schemaCtxTokens,
    });
  }
  return shrunk;
}

/** §1: a rejected final report collapses the remaining turns: the next turn is the last. */
function collapseTurns(state: SessionState, turn: number): void {
  state.effectiveMaxTurns = Math.min(state.effectiveMaxTurns, turn + 1);
  state.forcedFinal ??= 'final_report_failed';
}

export async function runTurn(state: SessionState, turn: number): Promise<NextStep> {
  const plan = preflight(state, planTurn(state, turn), turn);
  const outcome = await runAttempts(state, plan);
  if (outcome.type === 'fatal') return { type: 'fatal', error: outcome.error };
  if (outcome.type === 'exhausted') {
    // §1 maxRetries: the turn fails and the session moves on to the next turn (or ends).
    state.lastError = outcome.lastError;
    return { type: 'run_again' };
  }

  const { interpretation } = outcome;
  for (const warning of interpretation.warnings) state.log('warn', 'response_warning', warning);
  if (interpretation.progress !== undefined) state.log('info', 'progress_report', interpretation.progress);
  state.appendAssistant(interpretation.assistant);

  if (interpretation.final) {
    const settled = await settleFinalReport(state, interpretation.final);
    if (settled.ok) return { type: 'final_output', report: settled.report };
    collapseTurns(state, turn);
    const stub = toolFailedStub(`final report rejected: ${settled.error}`);
    if (interpretation.final.source === 'tool') state.appendToolOutput({ role: 'tool', toolCallId: interpretation.final.callId, name: FINAL_REPORT_TOOL, content: stub });
    else state.appendToolOutput({ role: 'user', content: `System Notice: ${stub}` });
  }

  const xmlResults: XmlToolResult[] = [];
  const commit = (r: CallResult) => {
    if (r.call.source === 'native') {
      state.appendToolOutput({ role: 'tool', toolCallId: r.call.id, name: r.call.name, content: r.content });
      return;
    }
    const block: XmlToolResult = { slot: r.call.id, tool: r.call.name, status: r.status, durationMs: r.latency, request: r.call.rawArgs, response: r.content };
    xmlResults.push(block);
    state.countToolOutput(estimateOutputTokens(renderXmlPast([block])));
  };
  await runToolPhase(state, plan, interpretation.calls, commit);
  // A tool output dropped by the context guard forces the final turn: the next turn is the last one.
  if (state.forcedFinal === 'context') state.effectiveMaxTurns = Math.min(state.effectiveMaxTurns, turn + 1);

  const slots = interpretation.calls.flatMap((c) => (c.slotNumber === undefined ? [] : [c.slotNumber]));
  if (slots.length > 0) state.nextSlot = Math.max(...slots) + 1;
  // XML-PAST: the tool results of this turn, as one permanent user message (tokens already counted).
  if (xmlResults.length > 0 && state.config.toolTransport === 'xml') state.appendCounted({ role: 'user', content: renderXmlPast(xmlResults) });
  return { type: 'run_again' };
}
