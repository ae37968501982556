import type { Decider, RecordedEvent } from '@runledger/event-log';
import { LIFECYCLE_EVENT_TYPES } from '@runledger/governance';
import { AppError } from '@runledger/kernel';
import type { ArtifactRefLike, AuthzDecidedData, EffectClaim, RunCreatedData, RunError, RunEvent, ToolCallStatus } from './run-events';
import { evolveRun, initialRunState, isTerminal, liveClaim, RunState } from './run-state';

/** What a run's carrier (a worker, a child-run choke point, an operator) asks of the run aggregate. */
export type RunCommand =
  /**
   * RunCreated, AuthzDecided, then RunStarted or RunDenied (with `denial`, else the decision's code and reason);
   * `refusal` fails a started run at once (INV-DT-001/002: a delegation the chain does not allow).
   */
  | { type: 'Open'; data: { created: RunCreatedData; authz: AuthzDecidedData; denial?: RunError; refusal?: RunError } }
  | { type: 'RecordStep'; data: { step_index: number; step_id: string; output: unknown; context?: Record<string, unknown>; memory_snapshot?: unknown } }
  /** `sequence` absent: the next one, decided on the state the request lands on (parallel steps each get their own). */
  | { type: 'RequestToolCall'; data: { call_id: string; sequence?: number; tool_name: string; parameters: Record<string, unknown>; child_run_id: string } }
  | { type: 'RecordToolCall'; data: { call_id: string; child_run_id: string; status: ToolCallStatus; result?: unknown; error?: RunError } }
  | { type: 'StartChild'; data: { child_run_id: string; run_kind: 'agent'; agent_name: string } }
  /** Domain and audit events of a running run (SessionStarted, journal entries, StepCompensated …). */
  | { type: 'Record'; events: RunEvent[] }
  /** `audit` events are appended with the outcome (ToolCallAudited, DecisionRecorded …). */
  | { type: 'Complete'; data: { output_artifacts: ArtifactRefLike[]; result?: unknown; response_hash_sha256?: string }; audit?: RunEvent[] }
  | { type: 'Fail'; data: { error: RunError }; audit?: RunEvent[] }
  | { type: 'Deny'; data: { error: RunError } }
  /** Claims a child run's effect for `owner` until now + lease_ms; refused while another claim's lease holds. */
  | { type: 'ClaimEffect'; data: { owner: string; now: string; lease_ms: number } }
  | { type: 'ReleaseEffect'; data: { owner: string; reason: string } }
  | { type: 'RequestCancel'; data: { reason: string; requested_by: string } }
  | { type: 'Cancel'; data: { reason: string } }
  /**
   * An abandoned run ended by the resolver: RunResolved with its basis, and whatever the lifecycle needs to reach the
   * outcome the run's log supports (a deny, a start, missing audit events, the terminal event).
   */
  | { type: 'Resolve'; events: RunEvent[] };

/** A command the run's lifecycle does not allow: a bug in the carrier, never a business outcome (those are events). */
export class RunLifecycleViolation extends Error {
  constructor(readonly command: RunCommand['type'], readonly status: RunState['status']) {
    super(`${command} is not allowed in state ${status}`);
    this.name = 'RunLifecycleViolation';
  }
}

/** Another owner's claim on the effect still holds: the caller waits for its outcome or for the lease to run out. */
export class EffectClaimHeld extends Error {
  constructor(readonly claim: EffectClaim) {
    super(`The effect is claimed by ${claim.owner} until ${claim.lease_expires_at}.`);
    this.name = 'EffectClaimHeld';
  }
}

/**
 * Decides one command on a run's state, with the lifecycle of policy/contract-v1/run_lifecycle.md
 * (libs/governance nextRunState) enforced here, before anything is appended. Commands are idempotent where a
 * carrier may repeat them after a crash: what the log already holds is decided as nothing.
 */
export function decideRun(command: RunCommand, state: RunState): RunEvent[] {
  const refuse = (): never => {
    throw new RunLifecycleViolation(command.type, state.status);
  };
  const running = () => (state.status === 'running' ? undefined : refuse());
  switch (command.type) {
    case 'Open':
      return decideOpen(command.data, state);
    case 'RecordStep':
      running();
      return Object.hasOwn(state.checkpoint?.stepOutputs ?? {}, command.data.step_id) ? [] : [{ type: 'StepCompleted', data: command.data }];
    case 'RequestToolCall': {
      running();
      if (state.tool_calls.some((c) => c.call_id === command.data.call_id)) return [];
      const { sequence, ...call } = command.data;
      return [{ type: 'ToolCallRequested', data: { ...call, sequence: sequence ?? state.tool_calls.length + 1 } }];
    }
    case 'RecordToolCall': {
      running();
      const call = state.tool_calls.find((c) => c.call_id === command.data.call_id);
      if (!call) return refuse(); // INV-CP-002: a call is recorded before it is made
      return call.status === 'requested' ? [{ type: 'ToolCallRecorded', data: command.data }] : [];
    }
    case 'StartChild':
      running();
      return state.child_run_ids.includes(command.data.child_run_id) ? [] : [{ type: 'ChildRunStarted', data: command.data }];
    case 'Record':
      running();
      // The lifecycle moves only through its own commands, where its rules are checked.
      if (command.events.some((e) => (LIFECYCLE_EVENT_TYPES as readonly string[]).includes(e.type))) return refuse();
      return command.events;
    case 'Complete':
      running();
      return [...notYetAudited(state, command.audit), { type: 'RunCompleted', data: command.data }];
    case 'Fail':
      running();
      return [...notYetAudited(state, command.audit), { type: 'RunFailed', data: command.data }];
    case 'Deny':
      if (state.status === 'denied') return [];
      return state.status === 'created' && state.authz?.decision === 'deny' ? [{ type: 'RunDenied', data: command.data }] : refuse();
    case 'ClaimEffect': {
      running();
      const now = new Date(command.data.now);
      const held = liveClaim(state, now);
      if (held) throw new EffectClaimHeld(held);
      const attempt = (state.effect_claim?.attempt ?? 0) + 1;
      return [{ type: 'EffectClaimed', data: { owner: command.data.owner, attempt, lease_expires_at: new Date(now.getTime() + command.data.lease_ms).toISOString() } }];
    }
    case 'ReleaseEffect': {
      const claim = state.effect_claim;
      if (state.status !== 'running' || !claim || claim.released || claim.owner !== command.data.owner) return [];
      return [{ type: 'EffectReleased', data: { owner: claim.owner, attempt: claim.attempt, reason: command.data.reason } }];
    }
    case 'RequestCancel':
      if (state.status === 'none') return refuse();
      return isTerminal(state) || state.cancel_requested ? [] : [{ type: 'RunCancelRequested', data: command.data }];
    case 'Cancel':
      if (state.status === 'cancelled') return [];
      running();
      return [{ type: 'RunCancelled', data: command.data }];
    case 'Resolve': {
      if (state.status === 'none') return refuse();
      if (isTerminal(state)) return [];
      // Accepted only if the events move the lifecycle along its rules to an end, and say they are the resolver's.
      const after = command.events.reduce<RunState>((s, e) => evolveRun(s, { ...e, metadata: { recorded_at: state.updated_at ?? '' } } as unknown as RecordedEvent), state);
      const lawful = after.anomalies.length === state.anomalies.length && isTerminal(after) && command.events.some((e) => e.type === 'RunResolved');
      return lawful ? command.events : refuse();
    }
    default: {
      const exhaustive: never = command;
      return exhaustive;
    }
  }
}

/**
 * The audit events of a close that the run does not hold yet: a close cut short between its audit event and its
 * outcome (a crash, a lost ack) and resumed later must not record the audit twice (each is one per run, §6).
 */
function notYetAudited(state: RunState, audit: RunEvent[] | undefined): RunEvent[] {
  return (audit ?? []).filter((e) => !state.audited.includes(e.type));
}

/**
 * What is missing of the run's opening. Events may be appended one by one, so a crash can leave a prefix of the
 * opening in the log; the resumed carrier completes it instead of finding the run stuck in created or authorized.
 */
function decideOpen(data: Extract<RunCommand, { type: 'Open' }>['data'], state: RunState): RunEvent[] {
  const { created, refusal } = data;
  // A run id derives from the request: the same id with another request is a caller bug, never a resume.
  if (state.run && state.run.request_hash_sha256 !== created.request_hash_sha256) {
    throw new AppError('REQUEST.INVALID', 'That action id was already used for a different request.');
  }
  // Once recorded, the decision stands: a resumed opening never decides authorisation again.
  const authz = state.authz ?? data.authz;
  const outcome: RunEvent[] = authz.decision === 'deny'
    ? [{ type: 'RunDenied', data: { error: data.denial ?? { error_code: authz.code ?? 'POLICY_DENIED', message: authz.reason ?? 'Denied by policy.', retryable: false } } }]
    : [{ type: 'RunStarted', data: {} }, ...(refusal ? [{ type: 'RunFailed', data: { error: refusal } } as RunEvent] : [])];
  switch (state.status) {
    case 'none':
      return [{ type: 'RunCreated', data: created }, { type: 'AuthzDecided', data: authz }, ...outcome];
    case 'created':
      return state.authz ? outcome : [{ type: 'AuthzDecided', data: authz }, ...outcome];
    case 'authorized':
      return outcome;
    default:
      return [];
  }
}

export const runDecider: Decider<RunCommand, RunEvent, RunState> = {
  decide: decideRun,
  evolve: evolveRun,
  initialState: initialRunState,
};
