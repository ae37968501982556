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
  if (!foldsInto(summary, event)) return summary;
  const next = { ...summary };
  foldRunEvent(next, event);
  return next;
}

/** Whether the event is after the last one folded into the summary: its position (seq, index in the commit) is later. */
export function foldsInto(summary: RunSummary, event: SummaryEvent): boolean {
  return event.seq > summary.last_seq || (event.seq === summary.last_seq && event.index > (summary.last_index ?? 0));
}

/**
 * {@link evolveRunSummary}'s step, in place: folds an event that {@link foldsInto} the summary into `next`, a copy the
 * caller owns. A fold of a batch (evolveIndexedRun) copies the row once, not once per event (issue 22: the ledger's
 * copies per event were a good part of its garbage).
 */
export function foldRunEvent(next: RunSummary, event: SummaryEvent): void {
  const md = event.metadata;
  const d = (event.data ?? {}) as Record<string, unknown>;
  const lifecycle = nextRunState(next.status === 'none' ? undefined : ({ status: next.status, decision: next.authz_decision ?? undefined } as RunLifecycleState), event);
  next.event_count += 1;
  next.last_seq = event.seq;
  // Only past a commit's first event: a row of format-1 events stays the row it was.
  if (event.index > 0) next.last_index = event.index;
  else if (next.last_index !== undefined) delete next.last_index;
  next.updated_at = md.recorded_at;
  next.parent_run_id ??= md.parent_run_id ?? null;
  next.root_run_id ??= md.root_run_id ?? null;
  next.case_id ??= md.case_id ?? null;
  next.trace_id ??= traceIdOf(md.traceparent);
  if (!lifecycle.ok) next.anomalies += 1;
  else if (lifecycle.state) {
    next.status = lifecycle.state.status;
    next.authz_decision = lifecycle.state.decision ?? next.authz_decision;
  }
  switch (event.type) {
    case 'RunCreated':
      next.created_at = md.recorded_at;
      next.run_kind = str(d.run_kind);
      next.agent_name = str(d.agent_name);
      next.user_id = str(d.user_id);
      next.conversation_id = str(d.conversation_id);
      next.case_id = str(d.case_id) ?? next.case_id;
      next.parent_run_id = str(d.parent_run_id) ?? next.parent_run_id;
      next.root_run_id = str(d.root_run_id) ?? next.root_run_id;
      return;
    case 'RunCancelRequested':
      next.cancel_requested = true;
      return;
    default:
      break;
  }
  if (!TERMINAL[event.type] || !lifecycle.ok) return;
  const error = (d.error ?? null) as { error_code?: string; message?: string } | null;
  const created = next.created_at ? Date.parse(next.created_at) : NaN;
  next.failed = next.status === 'failed' || next.status === 'denied';
  next.ended_at = md.recorded_at;
  next.duration_ms = Number.isNaN(created) ? null : Math.max(0, Date.parse(md.recorded_at) - created);
  next.error_code = error?.error_code ?? (event.type === 'RunCancelled' ? 'RUN.CANCELLED' : null);
  next.error_message = error?.message ?? (event.type === 'RunCancelled' ? str(d.reason) : null);
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}
