/** The kinds of governed run (§1; child runs are the privileged action kinds; artifact_ingest: a caller's input, issue 26). */
export const RUN_KINDS = ['agent', 'tool_gateway', 'db_write', 'promotion', 'export', 'artifact_ingest'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export type RunStatus = 'created' | 'authorized' | 'denied' | 'running' | 'completed' | 'failed' | 'cancelled';

/** The events that end a run; every run has exactly one. */
export const TERMINAL_EVENT_TYPES = ['RunCompleted', 'RunFailed', 'RunDenied', 'RunCancelled'] as const;
export type TerminalEventType = (typeof TERMINAL_EVENT_TYPES)[number];

/** The events that move a run's state (policy/contract-v1/run_lifecycle.md); all others leave it alone. */
export const LIFECYCLE_EVENT_TYPES = ['RunCreated', 'AuthzDecided', 'RunStarted', ...TERMINAL_EVENT_TYPES] as const;

/** Audit events each allowed run kind must record besides AuthzDecided and its terminal event (§6). */
export const REQUIRED_AUDIT_EVENTS: Readonly<Record<RunKind, readonly string[]>> = Object.freeze({
  agent: [],
  tool_gateway: ['ToolCallAudited'],
  db_write: ['DbWriteAudited'],
  promotion: ['PromotionAudited'],
  export: ['ExportAuthorized', 'ExportAssembled', 'ExportFinalized'],
  // A caller's input artifact through rl.caller.<identity>.artifacts.ingest (issue 26): what was stored, for whom.
  artifact_ingest: ['ArtifactIngestAudited'],
});

/** A run's lifecycle position; `decision` is set once AuthzDecided is recorded. */
export interface RunLifecycleState {
  readonly status: RunStatus;
  readonly decision?: 'allow' | 'deny';
}

/** Any log event; only `type` and, for AuthzDecided, `data.decision` matter here. */
export interface LifecycleEvent {
  readonly type: string;
  readonly data?: unknown;
}

export type LifecycleStep = { ok: true; state: RunLifecycleState | undefined } | { ok: false; reason: string };

const TERMINAL_STATUS: Record<TerminalEventType, RunStatus> = {
  RunCompleted: 'completed',
  RunFailed: 'failed',
  RunDenied: 'denied',
  RunCancelled: 'cancelled',
};

const TERMINAL_STATUSES: ReadonlySet<string> = new Set(Object.values(TERMINAL_STATUS));

/** Whether a run with this status has its outcome (completed, failed, denied, cancelled). */
export function isTerminalStatus(status: string): boolean {
  return TERMINAL_STATUSES.has(status);
}

/**
 * One step of the run state machine of run_lifecycle.md, as a pure fold step.
 * Non-lifecycle events (audit events, LLM calls …) leave the state unchanged; an illegal lifecycle
 * event is reported, not thrown, so a projection never throws on a recorded fact.
 */
export function nextRunState(state: RunLifecycleState | undefined, event: LifecycleEvent): LifecycleStep {
  const illegal = (): LifecycleStep => ({ ok: false, reason: `${event.type} is not allowed in state ${state ? state.status : 'none'}` });
  if (!(LIFECYCLE_EVENT_TYPES as readonly string[]).includes(event.type)) return { ok: true, state };
  if (!state) return event.type === 'RunCreated' ? { ok: true, state: { status: 'created' } } : illegal();

  switch (state.status) {
    case 'created':
      if (event.type === 'AuthzDecided' && state.decision === undefined) {
        const decision = decisionOf(event);
        if (decision === 'allow') return { ok: true, state: { status: 'authorized', decision } };
        // A deny is recorded first; the RunDenied outcome event then ends the run.
        if (decision === 'deny') return { ok: true, state: { status: 'created', decision } };
        return { ok: false, reason: 'AuthzDecided without a decision of allow or deny' };
      }
      if (event.type === 'RunDenied' && state.decision === 'deny') return { ok: true, state: { status: 'denied', decision: 'deny' } };
      return illegal();
    case 'authorized':
      return event.type === 'RunStarted' ? { ok: true, state: { ...state, status: 'running' } } : illegal();
    case 'running':
      if (event.type === 'RunCompleted' || event.type === 'RunFailed' || event.type === 'RunCancelled') {
        return { ok: true, state: { ...state, status: TERMINAL_STATUS[event.type] } };
      }
      return illegal();
    default:
      return illegal(); // terminal states
  }
}

function decisionOf(event: LifecycleEvent): unknown {
  return typeof event.data === 'object' && event.data !== null ? (event.data as { decision?: unknown }).decision : undefined;
}
