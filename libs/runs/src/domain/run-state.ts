import { isTerminalStatus, nextRunState, REQUIRED_AUDIT_EVENTS, RunLifecycleState } from '@runledger/governance';
import { Checkpoint, evolveCheckpoint } from '@runledger/agent-runtime';
import type { RecordedEvent } from '@runledger/event-log';
import type { ArtifactRefLike, AuthzDecidedData, EffectClaim, RunCreatedData, RunError, ToolCallStatus } from './run-events';

export interface ToolCallView {
  call_id: string;
  sequence: number;
  tool_name: string;
  parameters: Record<string, unknown>;
  child_run_id: string;
  status: 'requested' | ToolCallStatus;
  result?: unknown;
  error?: RunError;
}

/** What every run state carries, whatever its status. */
interface RunStateCommon {
  run?: RunCreatedData;
  authz?: AuthzDecidedData;
  checkpoint: Checkpoint | null;
  tool_calls: ToolCallView[];
  child_run_ids: string[];
  output_artifacts: ArtifactRefLike[];
  /** RunCompleted's result; a task run's is `{ decision }` from its DecisionRecorded (its RunCompleted holds none). */
  result?: unknown;
  response_hash_sha256?: string;
  error?: RunError;
  created_at?: string;
  updated_at?: string;
  event_count: number;
  /** The effect audit events (§6: ToolCallAudited, DbWriteAudited …) the run has recorded, by type. */
  audited: string[];
  /** An operator asked to cancel the run (RunCancelRequested): its worker ends it at the next step. */
  cancel_requested?: { reason: string; requested_by: string };
  /** A child run's last claim on its effect (EffectClaimed), marked released when its owner gave it back. */
  effect_claim?: EffectClaim & { released?: true };
  /** Recorded events that broke the lifecycle: a projection reports them instead of throwing on a fact. */
  anomalies: string[];
}

/**
 * The run aggregate's state, a union keyed by status (policy/contract-v1/run_lifecycle.md): narrowing on
 * `status` tells what the log must hold (a created run has its RunCreated pins; a run past authorisation its
 * AuthzDecided; a failed or denied run its error).
 */
export type RunState =
  | (RunStateCommon & { status: 'none'; run?: undefined })
  | (RunStateCommon & { status: 'created'; run: RunCreatedData })
  | (RunStateCommon & { status: 'authorized' | 'running' | 'completed' | 'cancelled'; run: RunCreatedData; authz: AuthzDecidedData })
  | (RunStateCommon & { status: 'failed'; run: RunCreatedData; authz: AuthzDecidedData; error: RunError })
  | (RunStateCommon & { status: 'denied'; run: RunCreatedData; authz: AuthzDecidedData; error: RunError });

export type RunStatusOf<S extends RunState['status']> = Extract<RunState, { status: S }>;

export function initialRunState(): RunState {
  return { status: 'none', checkpoint: null, tool_calls: [], child_run_ids: [], output_artifacts: [], event_count: 0, audited: [], anomalies: [] };
}

export type TerminalRunState = RunStatusOf<'completed' | 'failed' | 'denied' | 'cancelled'>;

export const isTerminal = (s: RunState): s is TerminalRunState => isTerminalStatus(s.status);

/** Every effect audit event type of §6 (one per run of its kind). */
const EFFECT_AUDIT_TYPES: ReadonlySet<string> = new Set(Object.values(REQUIRED_AUDIT_EVENTS).flat());

/**
 * The run projection: a pure fold over the run's events (live processing and replay use this same function).
 * `state` is never changed: the run state it returns is one shallow copy of it, updated field by field with what
 * the event changes (an array it changes copied once, every other part shared with `state`). One copy per event
 * instead of a spread per changed part: replaying the 1M-event log folded ~5 µs per event slower with the spreads
 * (bench/results-scale.md).
 */
export function evolveRun(state: RunState, event: RecordedEvent): RunState {
  const lifecycle = nextRunState(state.status === 'none' ? undefined : ({ status: state.status, decision: state.authz?.decision } as RunLifecycleState), event);
  // Built field by field and then typed: a projection never throws, so an anomalous history (a terminal
  // event on a created run) still folds, and its status stays where the lifecycle left it.
  const next: LooseRunState = { ...state };
  next.event_count = state.event_count + 1;
  next.updated_at = event.metadata.recorded_at;
  next.checkpoint = evolveCheckpoint(state.checkpoint, event);
  if (!lifecycle.ok) next.anomalies = [...state.anomalies, lifecycle.reason];
  else if (lifecycle.state) next.status = lifecycle.state.status;
  evolveFields(next, state, event);
  return next as RunState;
}

/** The fold's working shape: the status-keyed guarantees of RunState hold of lawful histories, not of every fact. */
type LooseRunState = RunStateCommon & { status: RunState['status'] };

/** Sets on `next` (the new state, a copy of `state` nobody else holds yet) what `event` changes; `state` is read, never written. */
function evolveFields(next: LooseRunState, state: RunState, event: RecordedEvent): void {
  const d = event.data as Record<string, unknown>;
  if (EFFECT_AUDIT_TYPES.has(event.type) && !state.audited.includes(event.type)) next.audited = [...state.audited, event.type];
  switch (event.type) {
    case 'RunCreated':
      next.run = d as unknown as RunCreatedData;
      next.created_at = event.metadata.recorded_at;
      return;
    case 'AuthzDecided':
      next.authz = d as unknown as AuthzDecidedData;
      return;
    case 'ToolCallRequested':
      if (!state.tool_calls.some((c) => c.call_id === d.call_id)) next.tool_calls = [...state.tool_calls, { ...(d as unknown as Omit<ToolCallView, 'status'>), status: 'requested' }];
      return;
    case 'ToolCallRecorded': {
      // A call is requested once (above): the one it records is replaced in one copy of the list.
      const i = state.tool_calls.findIndex((c) => c.call_id === d.call_id);
      if (i < 0) return;
      next.tool_calls = state.tool_calls.slice();
      next.tool_calls[i] = { ...state.tool_calls[i], status: d.status as ToolCallStatus, result: d.result, error: d.error as RunError | undefined };
      return;
    }
    case 'EffectClaimed':
      next.effect_claim = d as unknown as EffectClaim;
      return;
    case 'EffectReleased':
      if (state.effect_claim && state.effect_claim.owner === d.owner && state.effect_claim.attempt === d.attempt) next.effect_claim = { ...state.effect_claim, released: true };
      return;
    case 'RunCancelRequested':
      if (!state.cancel_requested) next.cancel_requested = { reason: String(d.reason ?? ''), requested_by: String(d.requested_by ?? '') };
      return;
    case 'ChildRunStarted':
      if (!state.child_run_ids.includes(d.child_run_id as string)) next.child_run_ids = [...state.child_run_ids, d.child_run_id as string];
      return;
    case 'DecisionRecorded':
      // A task run's result is the decision it records; its RunCompleted references it instead of holding a copy.
      if (state.status === 'running') next.result = { decision: d.decision };
      return;
    case 'RunCompleted':
      // Without a `result` (issue 21: the decision stored once), the result recorded before it in the run stands.
      next.output_artifacts = (d.output_artifacts as ArtifactRefLike[]) ?? [];
      next.result = Object.hasOwn(d, 'result') ? d.result : state.result;
      next.response_hash_sha256 = d.response_hash_sha256 as string | undefined;
      return;
    case 'RunFailed':
    case 'RunDenied':
      next.error = d.error as RunError;
      return;
  }
}

/** The claim on a child run's effect that still holds at `now` (its lease has not run out), if any. */
export function liveClaim(state: RunState, now: Date): EffectClaim | undefined {
  const claim = state.effect_claim;
  return claim && !claim.released && Date.parse(claim.lease_expires_at) > now.getTime() ? claim : undefined;
}

/** Outcome of a recorded tool call, looked up before an effect is retried. */
export function recordedToolCall(state: RunState, callId: string): ToolCallView | undefined {
  return state.tool_calls.find((c) => c.call_id === callId);
}
