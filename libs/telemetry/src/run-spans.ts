import { SpanStatusCode, type Span } from '@opentelemetry/api';

/** What a span reads of the events one log message carries (a commit, or a consumer's delivery). */
export interface TracedEvent {
  type: string;
  data?: unknown;
  metadata?: { run_id?: string; event_id?: string };
}

/** A run's terminal events that are failures: the span that records one is an error, typed by the run's stable code. */
const FAILED_OUTCOMES = new Set(['RunFailed', 'RunDenied']);

/**
 * The span attributes of one log message, in one place for the producer's publish span and the consumer's process
 * span: `messaging.message.id` (the message's JetStream msg id: its first event's id), `rl.run_id` (the run its events
 * belong to) and `rl.agent` when the events name the agent (RunCreated, and the inbox commands that start runs).
 */
export function eventSpanAttributes(events: readonly TracedEvent[]): Record<string, string> {
  const first = events[0];
  if (!first) return {};
  const runId = events.find((e) => e.metadata?.run_id)?.metadata?.run_id;
  const agent = events.map(agentOf).find((a) => a !== undefined);
  return {
    ...(first.metadata?.event_id ? { 'messaging.message.id': first.metadata.event_id } : {}),
    ...(runId ? { 'rl.run_id': runId } : {}),
    ...(agent ? { 'rl.agent': agent } : {}),
  };
}

/** The stable error code of a failed or denied run outcome among the events, if there is one. */
export function failedRunOutcome(events: readonly TracedEvent[]): string | undefined {
  const failed = events.find((e) => FAILED_OUTCOMES.has(e.type));
  if (!failed) return undefined;
  const code = (failed.data as { error?: { error_code?: unknown } } | undefined)?.error?.error_code;
  return typeof code === 'string' && code ? code : 'INTERNAL';
}

/**
 * Marks a span that recorded (or carried) a run to a failed or denied end: error status and `error.type`, the run's
 * stable error code (OpenTelemetry's error convention), so trace search finds failed runs without reading the log.
 */
export function markRunFailed(span: Span | undefined, errorCode: string): void {
  if (!span?.isRecording()) return;
  span.setAttribute('error.type', errorCode);
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode });
}

function agentOf(e: TracedEvent): string | undefined {
  const d = (e.data ?? {}) as { agent_name?: unknown; spec?: { agent_name?: unknown; agent?: unknown } };
  const agent = d.agent_name ?? d.spec?.agent_name ?? d.spec?.agent;
  return typeof agent === 'string' && agent ? agent : undefined;
}
