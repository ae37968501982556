/* eslint-disable */
// Generated from proto-contracts/schemas/runs/ by scripts/generate-contracts.js. Do not edit by hand.

/**
 * Every message of the log stream (rl.log.>): the envelope wrapped under `event`.
 */
export interface LogRecord {
  event: LogEvent;
}
export interface LogEvent {
  type: string;
  data: unknown;
  metadata: LogEventMetadata;
}
export interface LogEventMetadata {
  event_id: string;
  stream_id: string;
  run_id?: string;
  parent_run_id?: string;
  root_run_id?: string;
  case_id?: string;
  correlation_id?: string;
  causation_id?: string;
  schema_version: number;
  contract_version: 'v1';
  traceparent?: string;
  tracestate?: string;
  producer: string;
  recorded_at: string;
}

/**
 * Sent on rl.runs.get: the run's state and checkpoint, folded from its events.
 */
export interface RunQuery {
  run_id: string;
  include_events?: boolean;
}
