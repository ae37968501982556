import { nextRunState, RunLifecycleState } from '@runledger/governance';
import type { RunSummary } from '@runledger/contracts';
import type { StoredEvent } from '@runledger/event-log';

/**
 * One row of the runs index (the wire type RunSummary of proto-contracts/schemas/runs/run-summary.schema.json):
 * what an operator filters and pages on, folded from the run's events alone. Generic over run kinds: every
 * field comes from the envelope's metadata or from RunCreated's data, so a run kind added later is indexed
 * without a change here. The position of the last event folded in (`last_seq`, `last_index`) makes a redelivered
 * event a no-op.
 */
export type { RunSummary };

type SummaryEvent = Pick<StoredEvent, 'type' | 'data' | 'metadata' | 'seq' | 'index'>;

const TERMINAL: Record<string, true> = { RunCompleted: true, RunFailed: true, RunDenied: true, RunCancelled: true };

export function initialRunSummary(runId: string): RunSummary {
  return {
    run_id: runId, run_kind: null, agent_name: null, status: 'none', authz_decision: null, failed: false, parent_run_id: null, root_run_id: null,
    case_id: null, user_id: null, conversation_id: null, trace_id: null, created_at: null, updated_at: null, ended_at: null,
    duration_ms: null, error_code: null, error_message: null, cancel_requested: false, event_count: 0, last_seq: 0, anomalies: 0,
  };
}

/** The trace id of a W3C traceparent (`00-<trace>-<span>-<flags>`), or null. */
export function traceIdOf(traceparent: string | undefined): string | null {
  const m = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(traceparent ?? '');
  return m ? m[1] : null;
}

/** The runs-index projection: a pure fold over one run's events (live indexing and replay use this function). */
export function evolveRunSummary(summary: RunSummary, event: SummaryEvent): RunSummary {
  // Folded already when its position (seq, index in the commit) is not after the last one folded.
  const lastIndex = summary.last_index ?? 0;
  if (event.seq < summary.last_seq || (event.seq === summary.last_seq && event.index <= lastIndex)) return summary;
  const md = event.metadata;
  const d = (event.data ?? {}) as Record<string, unknown>;
  const lifecycle = nextRunState(summary.status === 'none' ? undefined : ({ status: summary.status, decision: summary.authz_decision ?? undefined } as RunLifecycleState), event);
  const { last_index: _previous, ...rest } = summary;
  const next: RunSummary = {
    ...rest,
    event_count: summary.event_count + 1,
    last_seq: event.seq,
    // Only past a commit's first event: a row of format-1 events stays the row it was.
    ...(event.index > 0 ? { last_index: event.index } : {}),
    updated_at: md.recorded_at,
    parent_run_id: summary.parent_run_id ?? md.parent_run_id ?? null,
    root_run_id: summary.root_run_id ?? md.root_run_id ?? null,
    case_id: summary.case_id ?? md.case_id ?? null,
    trace_id: summary.trace_id ?? traceIdOf(md.traceparent),
  };
  if (!lifecycle.ok) next.anomalies += 1;
  else if (lifecycle.state) {
    next.status = lifecycle.state.status;
    next.authz_decision = lifecycle.state.decision ?? next.authz_decision;
  }
  switch (event.type) {
    case 'RunCreated':
      return {
        ...next, created_at: md.recorded_at, run_kind: str(d.run_kind), agent_name: str(d.agent_name),
        user_id: str(d.user_id), conversation_id: str(d.conversation_id), case_id: str(d.case_id) ?? next.case_id,
        parent_run_id: str(d.parent_run_id) ?? next.parent_run_id, root_run_id: str(d.root_run_id) ?? next.root_run_id,
      };
    case 'RunCancelRequested':
      return { ...next, cancel_requested: true };
    default:
      break;
  }
  if (!TERMINAL[event.type] || !lifecycle.ok) return next;
  const error = (d.error ?? null) as { error_code?: string; message?: string } | null;
  const created = next.created_at ? Date.parse(next.created_at) : NaN;
  return {
    ...next,
    failed: next.status === 'failed' || next.status === 'denied',
    ended_at: md.recorded_at,
    duration_ms: Number.isNaN(created) ? null : Math.max(0, Date.parse(md.recorded_at) - created),
    error_code: error?.error_code ?? (event.type === 'RunCancelled' ? 'RUN.CANCELLED' : null),
    error_message: error?.message ?? (event.type === 'RunCancelled' ? str(d.reason) : null),
  };
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}
