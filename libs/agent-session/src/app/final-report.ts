import { acceptFinalReportArgs, acceptReportText, type AcceptedReport } from '../domain/final-report/accept';
import type { FinalCandidate } from '../domain/interpret-response';
import { FINAL_REPORT_TOOL } from '../domain/session-config';
import { parseToolArguments } from '../domain/tool-args';
import type { FinalReport } from '../domain/types';
import type { SessionState } from './session-state';

export type FinalOutcome = { readonly ok: true; readonly report: FinalReport } | { readonly ok: false; readonly error: string };

function accept(state: SessionState, candidate: FinalCandidate): AcceptedReport {
  switch (candidate.source) {
    case 'tool': {
      const args = parseToolArguments(candidate.rawArgs);
      if (!args.ok) return { ok: false, error: `the arguments are not valid JSON: ${args.error}` };
      return acceptFinalReportArgs(args.value, state.rules);
    }
    case 'xml': {
      // Layer 1 (transport) gave us the format attribute and the raw payload; layer 2 reads the payload.
      const warnings = candidate.format !== undefined && candidate.format !== state.rules.format ? [`format '${candidate.format}' normalised to '${state.rules.format}'`] : [];
      const r = acceptReportText(candidate.payload, state.rules);
      return r.ok ? { ...r, warnings: [...warnings, ...r.warnings] } : r;
    }
    case 'text-fallback':
      return { ok: true, body: candidate.body, warnings: candidate.warnings };
    default: {
      const _exhaustive: never = candidate;
      return _exhaustive;
    }
  }
}

/**
 * Turns a final-report candidate into the session's report (§5). Status comes from the source: a
 * model-provided report is `success`. A rejected report is logged with its full payload (§1).
 */
export async function settleFinalReport(state: SessionState, candidate: FinalCandidate): Promise<FinalOutcome> {
  const started = state.nowMs();
  const accepted = accept(state, candidate);
  const rawPayload = candidate.source === 'tool' ? candidate.rawArgs : candidate.source === 'xml' ? candidate.payload : JSON.stringify(candidate.body);
  if (candidate.source !== 'text-fallback') {
    await state.recordTool({
      mcpServer: 'agent',
      command: candidate.source === 'xml' ? `${FINAL_REPORT_TOOL}_xml` : FINAL_REPORT_TOOL,
      status: accepted.ok ? 'ok' : 'failed',
      latency: state.nowMs() - started,
      charactersIn: rawPayload.length,
      charactersOut: 0,
      source: candidate.source === 'xml' ? 'xml' : 'native',
      ...(accepted.ok ? {} : { error: accepted.error }),
    });
  }
  if (!accepted.ok) {
    state.log('error', 'final_report_failed', `final report rejected: ${accepted.error}`, { payload: rawPayload, source: candidate.source });
    return { ok: false, error: accepted.error };
  }
  for (const warning of accepted.warnings) state.log('warn', 'final_report_normalised', warning, { source: candidate.source });
  const { body } = accepted;
  return {
    ok: true,
    report: {
      status: 'success',
      source: candidate.source,
      ts: state.nowMs(),
      format: state.rules.format,
      ...(body.content !== undefined ? { content: body.content } : {}),
      ...(body.content_json !== undefined ? { content_json: body.content_json } : {}),
      ...(body.messages !== undefined ? { messages: body.messages } : {}),
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    },
  };
}

/** §2 Synthetic Failure Report: the session ran out of turns without an answer. */
export function syntheticFailureReport(state: SessionState): FinalReport {
  // A session whose context guard forced the final turn ends for that reason, not for running out of turns.
  const context = state.forcedFinal === 'context' && state.effectiveMaxTurns < state.config.maxTurns;
  const reason = context ? 'context_window_exhausted' : 'max_turns_exhausted';
  return {
    status: 'failure',
    source: 'synthetic',
    ts: state.nowMs(),
    format: state.rules.format,
    content: context
      ? 'The session ended without a final report: the context window was exhausted and the forced final turn gave no report.'
      : `The session ended without a final report: the maximum number of turns (${state.config.maxTurns}) was reached.`,
    metadata: {
      reason,
      maxTurns: state.config.maxTurns,
      ...(state.forcedFinal ? { forcedFinalReason: state.forcedFinal } : {}),
      ...(state.lastError ? { lastError: state.lastError } : {}),
    },
  };
}
