/* eslint-disable */
// Generated from proto-contracts/schemas/runs/ by scripts/generate-contracts.js. Do not edit by hand.

/**
 * Every message of the log stream (rl.log.>). Log format 2: one message per append, a commit of the events one decider command produced, under `commit`; the metadata every event of the commit shares is written once, and an event carries its id and only the metadata that differs (null: absent for that event). An event's position is (stream sequence, index in the commit). Format 1 (written before commits, read forever): one event per message, under `event`. The header Rl-Event-Type lists the commit's event types, comma-separated, in order.
 */
export type LogRecord = LogCommitRecord | LogEventRecord;
/**
 * The metadata of one event: the commit metadata's fields and its event_id.
 */
export type LogEventMetadata = LogCommitMetadata & {
  event_id: string;
};

export interface LogCommitRecord {
  commit: LogCommit;
}
export interface LogCommit {
  format: 2;
  metadata: LogCommitMetadata;
  /**
   * @minItems 1
   */
  events: [LogCommitEvent, ...LogCommitEvent[]];
}
export interface LogCommitMetadata {
  stream_id: string;
  run_id?: string;
  parent_run_id?: string;
  root_run_id?: string;
  case_id?: string;
  user_id?: string;
  correlation_id?: string;
  causation_id?: string;
  schema_version: number;
  contract_version: 'v1';
  traceparent?: string;
  tracestate?: string;
  producer: string;
  recorded_at: string;
}
export interface LogCommitEvent {
  /**
   * The event's event_id.
   */
  id: string;
  type: string;
  data: unknown;
  /**
   * Metadata of this event that differs from the commit's (null: absent for this event).
   */
  metadata?: {};
}
export interface LogEventRecord {
  event: LogEvent;
}
export interface LogEvent {
  type: string;
  data: unknown;
  metadata: LogEventMetadata;
}

/**
 * Sent on rl.runs.cancel: records RunCancelRequested on the run; its worker ends it with RunCancelled at its next step.
 */
export interface RunCancelRequest {
  run_id: string;
  reason?: string;
  /**
   * Who asks (recorded).
   */
  requested_by?: string;
}

/**
 * Reply of rl.runs.cancel. `requested`: recorded (or already recorded); `already_ended`: the run had its outcome, nothing recorded.
 */
export interface RunCancelResult {
  run_id: string;
  outcome: 'requested' | 'already_ended';
  /**
   * The run's status when the reply was sent.
   */
  status: string;
}

/**
 * Sent by decision on rl.runs.control.<owner> (issue 23): asks the service that owns a run (tool-gateway, db-write, promotion, export) to end it on its own subject. The owner loads the run, decides with the run decider on its own log view and appends with the expected version; the same command_id is answered the same way. `cancel_request`: record RunCancelRequested (reason, requested_by). `resolve_abandoned`: end a run nobody carries any more with the outcome its log supports (the resolver's sweep: idle_ms, grace_ms, and the child runs the runs index lists).
 */
export interface RunControlRequest {
  /**
   * The command's id: its append's command id, so a retried command deduplicates.
   */
  command_id: string;
  type: 'cancel_request' | 'resolve_abandoned';
  run_id: string;
  reason?: string;
  /**
   * Who asked decision (recorded in RunCancelRequested).
   */
  requested_by?: string;
  /**
   * resolve_abandoned: how long without an event makes the run abandoned. Required; under the owner's RL_RESOLVER_MIN_IDLE_MS (default 60000) it is REQUEST.INVALID.
   */
  idle_ms?: number;
  /**
   * resolve_abandoned: the shorter idle time once the run's root has ended. Required; under the owner's RL_RESOLVER_MIN_IDLE_MS it is REQUEST.INVALID.
   */
  grace_ms?: number;
  /**
   * resolve_abandoned: the run's children as the runs index lists them (read again from the log by the owner, which counts only those whose parent_run_id is this run).
   *
   * @maxItems 1000
   */
  child_run_ids?: string[];
}

/**
 * Reply of rl.runs.control.<owner>. cancel_request: `requested` (recorded, or recorded before) or `already_ended`. resolve_abandoned: `resolved` (with the outcome and its basis), `left` (carried: a live claim, not idle long enough, or a worker appended first), `not_open` (no open run to resolve).
 */
export interface RunControlResult {
  run_id: string;
  outcome: 'requested' | 'already_ended' | 'resolved' | 'left' | 'not_open';
  /**
   * The run's status when the reply was sent.
   */
  status: string;
  resolution?: {
    run_kind: string;
    outcome: 'completed' | 'failed' | 'denied';
    basis: string;
  };
}

/**
 * Sent on rl.runs.fork: a new run of the source run's agent that restores the source's recorded step outputs up to and including `from_step` (read from the source's events, not copied) and executes the remaining steps under `policy_versions` (default: the current policy). The same `request_id` forks once: the fork's run id derives from it.
 */
export interface RunForkRequest {
  /**
   * The source run.
   */
  run_id: string;
  /**
   * The checkpoint: the step id of a StepCompleted of the source run (as `runs show` lists them).
   */
  from_step: string;
  /**
   * The policy versions the fork pins; a published version (policy catalog). Absent: the current versions.
   */
  policy_versions?: {
    lanes: string;
    roles: string;
  };
  /**
   * Idempotency key: the same request_id (with the same source and checkpoint) forks once.
   */
  request_id: string;
  /**
   * Who asks (recorded in the fork's RunCreated, forked_from.requested_by).
   */
  requested_by?: string;
  /**
   * Reply once the fork has its outcome, or after AGENT_RUN_REPLY_TIMEOUT_MS (default 60 s) with its status still running: give the request a longer timeout. Absent: reply as soon as the fork is queued.
   */
  wait?: boolean;
}

/**
 * Reply of rl.runs.fork. `forked`: the fork was requested now; `existing`: this request_id had forked before (its run is returned). `status` is the fork's status when the reply was sent; with `wait`, its outcome and error.
 */
export interface RunForkResult {
  /**
   * The fork's run id.
   */
  run_id: string;
  outcome: 'forked' | 'existing';
  status: string;
  forked_from: {
    run_id: string;
    /**
     * The source's step id the fork restores up to (inclusive).
     */
    checkpoint: string;
  };
  policy_versions: {
    lanes: string;
    roles: string;
  };
  error?: {
    error_code: string;
    message: string;
    retryable?: boolean;
  };
}

/**
 * Sent on rl.runs.get: the run's state and checkpoint, folded from its events.
 */
export interface RunQuery {
  run_id: string;
  include_events?: boolean;
}

/**
 * One row of the runs index: a pure fold of one run's events (any run kind), kept by audit-ledger.
 */
export interface RunSummary {
  run_id: string;
  run_kind: string | null;
  agent_name: string | null;
  /**
   * none | created | authorized | running | completed | failed | denied | cancelled
   */
  status: string;
  authz_decision: 'allow' | 'deny' | null;
  /**
   * The run ended failed or denied.
   */
  failed: boolean;
  parent_run_id: string | null;
  root_run_id: string | null;
  case_id: string | null;
  user_id: string | null;
  conversation_id: string | null;
  /**
   * W3C trace id of the run's first event (open it in Jaeger).
   */
  trace_id: string | null;
  created_at: string | null;
  updated_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  error_code: string | null;
  error_message: string | null;
  cancel_requested: boolean;
  event_count: number;
  /**
   * Log sequence of the commit of the last event folded in.
   */
  last_seq: number;
  /**
   * Index of the last event folded in within its commit; absent when it is the commit's first (log format 1 has only those).
   */
  last_index?: number;
  anomalies: number;
}

/**
 * Sent on rl.runs.list: runs from the runs index, newest first, filtered and paged. Every filter is optional.
 */
export interface RunsListRequest {
  status?: 'created' | 'authorized' | 'running' | 'completed' | 'failed' | 'denied' | 'cancelled';
  agent_name?: string;
  run_kind?: string;
  case_id?: string;
  user_id?: string;
  /**
   * Runs whose id, agent, kind, case, user, error code or error message contains this text (case-insensitive).
   */
  text?: string;
  /**
   * Every run of one tree (implies include_children).
   */
  root_run_id?: string;
  /**
   * Only runs that ended failed or denied.
   */
  failed_only?: boolean;
  /**
   * Also child runs (tool_gateway, db_write …); default: top-level runs only.
   */
  include_children?: boolean;
  /**
   * Created at or after.
   */
  since?: string;
  /**
   * Created before.
   */
  until?: string;
  /**
   * Also count every matching run per agent by outcome (the reply's by_agent).
   */
  by_agent?: boolean;
  /**
   * Page size, default 50.
   */
  limit?: number;
  /**
   * next_cursor of the previous page.
   */
  cursor?: string;
}

/**
 * Reply of rl.runs.list: one page, newest first; next_cursor is null on the last page.
 */
export interface RunsListResult {
  runs: RunSummary[];
  /**
   * Runs matching the filters, over all pages.
   */
  matched: number;
  next_cursor: string | null;
  /**
   * With by_agent in the request: every run matching the filters (all pages), counted per agent by outcome; agents by name.
   */
  by_agent?: RunsPerAgent[];
}
/**
 * One row of the runs index: a pure fold of one run's events (any run kind), kept by audit-ledger.
 */
export interface RunsPerAgent {
  agent_name: string | null;
  runs: number;
  completed: number;
  failed: number;
  denied: number;
  cancelled: number;
  /**
   * Not ended yet (created, authorized, running).
   */
  open: number;
  /**
   * Median duration of the ended runs (nearest rank); null when none ended.
   */
  p50_ms: number | null;
  /**
   * 95th percentile duration of the ended runs (nearest rank); null when none ended.
   */
  p95_ms: number | null;
}

/**
 * Sent on rl.runs.resolve: one sweep of the resolver now. Runs left open that nobody carries (no event for idle_ms, or for the grace period once their root run has ended) get the terminal outcome their log supports.
 */
export interface RunsResolveRequest {
  /**
   * Idle time after which a run counts as abandoned (default RL_RESOLVER_IDLE_MS, 15 min). At least a minute, so no live worker is raced.
   */
  idle_ms?: number;
  /**
   * Who asks (logged).
   */
  requested_by?: string;
}

/**
 * Reply of rl.runs.resolve: what the sweep found and closed. Each closed run records RunResolved (resolved_by, reason, basis) before its terminal event.
 */
export interface RunsResolveResult {
  /**
   * Open runs the runs index listed.
   */
  open: number;
  /**
   * Runs a worker advanced while the resolver looked (its append lost on the expected version): left to the worker.
   */
  left_to_worker: number;
  resolved: {
    run_id: string;
    run_kind: string;
    outcome: 'completed' | 'failed' | 'denied';
    /**
     * The recorded fact the outcome rests on, or 'nothing recorded' (then RUN.ABANDONED).
     */
    basis: string;
  }[];
}

/**
 * A personal or case data field of an event as the log stores it (README "Erasure"; libs/messaging SEALED_FIELDS lists the fields per event type): the JSON of the value sealed with AES-256-GCM under its owner's data key, the key's name as additional data. Destroying the key erases the value: it then reads as "[erased]" (text) or {"erased": true}.
 */
export interface SealedValue {
  sealed: 'aes-256-gcm/v1';
  /**
   * The owner's key name: which key opens it.
   */
  owner: string;
  /**
   * The 12-byte nonce, base64.
   */
  iv: string;
  /**
   * The 16-byte GCM tag, base64.
   */
  tag: string;
  /**
   * The sealed JSON, base64.
   */
  ciphertext: string;
  /**
   * Set when the value was a string: its erased marker is a string too.
   */
  text?: true;
}
