import { compileSchema } from '../domain/final-report/json-schema';
import { resolveSessionConfig, type SessionConfigInput } from '../domain/session-config';
import type { AIAgentResult, SessionError } from '../domain/types';
import type { SessionPorts } from '../ports';
import { syntheticFailureReport } from './final-report';
import { runTurn } from './run-turn';
import { SessionState } from './session-state';

function failed(error: SessionError): AIAgentResult {
  return { success: false, error, conversation: [], accounting: [] };
}

/**
 * Runs one agent session (contract 002) and always returns an `AIAgentResult`, never throws (§2):
 * turns up to `maxTurns`, each an LLM phase (retries, provider cycling, backoff) and a tool phase
 * (limits, timeout, truncation, context guard), ending with a model-provided report, a synthetic
 * failure report, or a fatal error.
 */
export async function runSession(input: SessionConfigInput, prompt: string, ports: SessionPorts & { readonly nonce: () => string }): Promise<AIAgentResult> {
  let state: SessionState | undefined;
  try {
    const resolved = resolveSessionConfig(input);
    if (!resolved.ok) return failed({ kind: 'invalid_config', message: resolved.errors.join('; ') });
    const { config } = resolved;
    const schema = compileSchema(config.outputSchema ?? { type: 'object' });
    if (!schema.ok) return failed({ kind: 'invalid_schema', message: `outputSchema does not compile: ${schema.error}` });

    state = new SessionState(config, ports, { format: config.expectedOutputFormat, check: schema.check }, ports.nonce());
    if (config.systemPrompt !== '') state.appendPending({ role: 'system', content: config.systemPrompt });
    state.appendPending({ role: 'user', content: prompt });

    for (let turn = 1; turn <= state.effectiveMaxTurns; turn++) {
      const step = await runTurn(state, turn);
      switch (step.type) {
        case 'final_output':
          return state.result({ finalReport: step.report });
        case 'fatal': {
          const kind = step.error.kind === 'quota' ? 'quota' : 'auth';
          state.log('error', 'llm_fatal', `fatal ${kind} error: ${step.error.message}`);
          return state.result({ error: { kind, message: step.error.message } });
        }
        case 'run_again':
          break;
        default: {
          const _exhaustive: never = step;
          return _exhaustive;
        }
      }
    }
    state.log('warn', 'max_turns_exhausted', 'the session ran out of turns without a final report');
    return state.result({ finalReport: syntheticFailureReport(state) });
  } catch (e) {
    const error: SessionError = { kind: 'internal', message: e instanceof Error ? e.message : String(e) };
    return state ? state.result({ error }) : failed(error);
  }
}
