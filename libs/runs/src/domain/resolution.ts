import { REQUIRED_AUDIT_EVENTS, type RunKind } from '@runledger/governance';
import type { RunError, RunEvent } from './run-events';
import { isTerminal, type RunState } from './run-state';

/**
 * Who resolves an abandoned run: its owner (issue 23: only the owner appends to its runs), on decision's sweep
 * (services/decision resolver) or for its own runs; recorded in every event the resolution appends.
 */
export function resolverOf(owner: string): string {
  return `${owner}/run-resolver`;
}

export const ABANDONED: RunError = {
  error_code: 'RUN.ABANDONED',
  message: 'The run was cut short and nobody carries it any more; the log holds no outcome of its effect.',
  retryable: false,
};

export interface RunView {
  run_id: string;
  state: RunState;
  /** The types of the run's recorded events, in order. */
  types: readonly string[];
  /** The run's own effect audit events (ToolCallAudited, DbWriteAudited …) as recorded, with their data. */
  audits: ReadonlyArray<{ type: string; data: unknown }>;
}

/** A run as the resolver looks at it, from its folded state and its recorded events. */
export function runView(run_id: string, state: RunState, events: ReadonlyArray<{ type: string; data: unknown }>): RunView {
  const required = new Set(state.run ? (REQUIRED_AUDIT_EVENTS[state.run.run_kind] ?? []) : []);
  return { run_id, state, types: events.map((e) => e.type), audits: events.filter((e) => required.has(e.type)).map(({ type, data }) => ({ type, data })) };
}

/** What the log says around an abandoned run: its parent and its child runs, folded. */
export interface RunNeighbourhood {
  parent?: RunView;
  children: RunView[];
}

export interface Resolution {
  outcome: 'completed' | 'failed' | 'denied';
  /** Which recorded fact the outcome rests on ("nothing recorded" when none). */
  basis: string;
  events: RunEvent[];
}

/**
 * The terminal outcome of a run left open that no worker carries any more, decided from the log alone:
 * - a tool_gateway run whose caller recorded the call's outcome (ToolCallRecorded) ends with that outcome;
 * - a tool_gateway run whose write (a db_write child) completed, or a db_write run whose tool completed, ends completed;
 * - a run whose own effect audit says `ok` (a close cut short after it) ends completed: the audit is written after the effect;
 * - anything else ends failed with RUN.ABANDONED (or denied, when only a deny was recorded).
 * The run's lifecycle is respected (an opening cut short is finished first: a run never started ran no effect),
 * the audit events its kind requires are added (marked as resolved), and a RunResolved event says who decided.
 */
export function resolveAbandoned(run: RunView, around: RunNeighbourhood, reason: string, resolver: string): Resolution | null {
  const s = run.state;
  if (!s.run || isTerminal(s)) return null;
  const kind = s.run.run_kind;
  const resolved = { resolved_by: resolver };
  const note = (outcome: Resolution['outcome'], basis: string): RunEvent => ({ type: 'RunResolved', data: { ...resolved, reason, outcome, basis } });

  if (!s.authz) {
    // Cut short before its authorisation was recorded: nothing was allowed, so nothing ran.
    const basis = 'no authorization recorded';
    return { outcome: 'denied', basis, events: [{ type: 'AuthzDecided', data: { decision: 'deny', code: ABANDONED.error_code, reason: ABANDONED.message, policy_versions: s.run.policy_versions, ...resolved } }, note('denied', basis), { type: 'RunDenied', data: { error: ABANDONED } }] };
  }
  if (s.authz.decision === 'deny') {
    const error = { error_code: s.authz.code ?? 'LANE.DENIED', message: s.authz.reason ?? 'Denied by policy.', retryable: false };
    return { outcome: 'denied', basis: 'deny decision recorded', events: [note('denied', 'deny decision recorded'), { type: 'RunDenied', data: { error } }] };
  }
  // A run never started ran no effect (effects run only once RunStarted is recorded).
  const opening: RunEvent[] = s.status === 'authorized' ? [{ type: 'RunStarted', data: {} }] : [];
  const found = s.status === 'authorized' ? null : recordedOutcome(run, kind, around);
  const basis = found?.basis ?? (s.status === 'authorized' ? 'never started' : 'nothing recorded');
  const failure = found ? (found.call && found.call.status !== 'ok' ? (found.call.error ?? ABANDONED) : null) : ABANDONED;
  const terminal: RunEvent = failure
    ? { type: 'RunFailed', data: { error: failure } }
    : { type: 'RunCompleted', data: { output_artifacts: [], ...(found?.call ? { result: { output: found.call.result, truncated: false } } : {}) } };
  const outcome = failure ? 'failed' : 'completed';
  const audit = missingAudit(run, kind, resolver, failure ? 'failed' : 'ok', failure?.error_code);
  return { outcome, basis, events: [...opening, ...audit, note(outcome, basis), terminal] };
}

type RecordedCall = RunState['tool_calls'][number];

/** A recorded fact that says what the run's effect came to, or null. */
function recordedOutcome(run: RunView, kind: RunKind, around: RunNeighbourhood): { basis: string; call?: RecordedCall } | null {
  if (kind === 'tool_gateway') {
    const call = around.parent?.state.tool_calls.find((c) => c.child_run_id === run.run_id && c.status !== 'requested');
    if (call) return { basis: `ToolCallRecorded on ${around.parent!.run_id}`, call };
    const write = around.children.find((c) => c.state.run?.run_kind === 'db_write' && c.state.status === 'completed');
    if (write) return { basis: `db_write ${write.run_id} completed` };
  }
  if (kind === 'db_write' && around.parent?.state.run?.run_kind === 'tool_gateway' && around.parent.state.status === 'completed') {
    return { basis: `tool_gateway ${around.parent.run_id} completed` };
  }
  // A close appends the effect's audit first and its outcome after it; cut short in between, the audit is the outcome.
  const own = run.audits.find((a) => {
    const { status, resolved_by } = a.data as { status?: unknown; resolved_by?: unknown };
    return status === 'ok' && !resolved_by; // one the resolver added is not a fact about the effect
  });
  if (own) return { basis: `${own.type} ok recorded` };
  return null;
}

/** The audit events coverage requires of the run's kind that it lacks, recorded as the resolver's. */
function missingAudit(run: RunView, kind: RunKind, resolver: string, status: 'ok' | 'failed', errorCode?: string): RunEvent[] {
  const created = run.state.run;
  const p = created?.parameters ?? {};
  const base = { status, ...(errorCode ? { error_code: errorCode } : {}), resolved_by: resolver };
  // What audit_event.schema.json requires of each type, from the run's own RunCreated.
  const effect = { lane: created?.lane ?? '', outcome: status === 'ok' ? 'success' : 'failure', request_hash_sha256: created?.request_hash_sha256 ?? '' };
  const present = new Set(run.types);
  return (REQUIRED_AUDIT_EVENTS[kind] ?? []).filter((t) => !present.has(t)).map((type): RunEvent => {
    if (type === 'ToolCallAudited') return { type, data: { ...effect, action: String(p.tool_name ?? ''), tool_name: p.tool_name ?? null, call_id: p.call_id ?? null, ...base } };
    if (type === 'DbWriteAudited') {
      const data = { collection: p.collection ?? null, operation: p.operation ?? null, document_id: p.document_id ?? null, case_id: created?.case_id ?? null, document_sha256: null };
      return { type, data: { ...effect, action: `${String(p.operation ?? '')}:${String(p.collection ?? '')}`, ...data, ...base } };
    }
    if (type === 'PromotionAudited') {
      return { type, data: { lane: effect.lane, outcome: status === 'ok' ? 'promoted' : 'failed', input_artifacts: created?.input_artifacts ?? [], output_artifacts: [], ...base } };
    }
    // Export events name their bundle: the export run.
    return { type, data: { bundle_id: run.run_id, ...base } };
  });
}
