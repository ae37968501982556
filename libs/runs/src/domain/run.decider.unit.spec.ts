import { DeciderSpec } from '@runledger/event-log';
import type { AuthzDecidedData, RunCreatedData, RunEvent } from './run-events';
import { RunCommand, runDecider } from './run.decider';

const versions = { lanes: 'l1', roles: 'r1' };
const createdData: RunCreatedData = {
  run_id: 'r1', run_kind: 'agent', agent_name: 'INTAKE_AGENT', root_run_id: 'r1', contract_version: 'v1', policy_versions: versions, input_artifacts: [], parameters: {}, request_hash_sha256: 'h',
};
const allowData: AuthzDecidedData = { decision: 'allow', policy_versions: versions };
const denyData: AuthzDecidedData = { decision: 'deny', code: 'LANE.DENIED', reason: 'not in this lane', policy_versions: versions };
const created: RunEvent = { type: 'RunCreated', data: createdData };
const allowed: RunEvent = { type: 'AuthzDecided', data: allowData };
const denied: RunEvent = { type: 'AuthzDecided', data: denyData };
const started: RunEvent = { type: 'RunStarted', data: {} };
const running = [created, allowed, started];
const error = { error_code: 'TOOL.FAILED', message: 'The tool failed.', retryable: true };
const open = (authz = allowData, extra: Partial<Extract<RunCommand, { type: 'Open' }>['data']> = {}): RunCommand => ({ type: 'Open', data: { created: createdData, authz, ...extra } });
const request: RunCommand = { type: 'RequestToolCall', data: { call_id: 'c1', tool_name: 'list_tasks', parameters: {}, child_run_id: 'x1' } };
const requested: RunEvent = { type: 'ToolCallRequested', data: { call_id: 'c1', sequence: 1, tool_name: 'list_tasks', parameters: {}, child_run_id: 'x1' } };
const spec = DeciderSpec.for(runDecider);
/** RunLifecycleViolation's message: the command and the state it is not allowed in. */
const NOT_ALLOWED = /is not allowed in state/;

describe('Run aggregate (policy/contract-v1/run_lifecycle.md): opening', () => {
  it('Lifecycle: a new run is created, authorised and started in one opening', () => {
    spec.given([]).when(open()).then([created, allowed, started]);
  });

  it('Lifecycle: a deny is two events, the decision with its code and reason and the RunDenied outcome', () => {
    spec.given([]).when(open(denyData)).then([created, denied, { type: 'RunDenied', data: { error: { error_code: 'LANE.DENIED', message: 'not in this lane', retryable: false } } }]);
  });

  it('Lifecycle: an opening cut short by a crash is completed from where the log stops, never decided again', () => {
    spec.given([created]).when(open()).then([allowed, started]);
    spec.given([created, allowed]).when(open()).then([started]);
    // The recorded allow stands even if policy would deny now: authorisation is decided once.
    spec.given([created, allowed]).when(open(denyData)).then([started]);
    spec.given([created, denied]).when(open(allowData, { denial: error })).then([{ type: 'RunDenied', data: { error } }]);
    spec.given(running).when(open()).thenNothing();
  });

  it('INV-DT-001/002: a delegation the chain refuses is a started run failed at once, in the opening', () => {
    const refusal = { error_code: 'DELEGATION.CYCLE', message: 'Circular delegation: A -> A.', retryable: false };
    spec.given([]).when(open(allowData, { refusal })).then([created, allowed, started, { type: 'RunFailed', data: { error: refusal } }]);
  });

  it('§1 pinning: the same run id for another request is refused, never resumed', () => {
    const other = { type: 'Open' as const, data: { created: { ...createdData, request_hash_sha256: 'other' }, authz: allowData } };
    spec.given([created]).when(other).thenThrows(/different request/);
  });
});

describe('Run aggregate: work is recorded only while the run is running', () => {
  it('Lifecycle: no shortcut from created to running: steps, tool calls and outcomes before RunStarted are refused', () => {
    for (const command of [request, { type: 'Complete', data: { output_artifacts: [] } }, { type: 'Fail', data: { error } }, { type: 'RecordStep', data: { step_index: 0, step_id: 's', output: 1 } }] as RunCommand[]) {
      spec.given([created, allowed]).when(command).thenThrows(NOT_ALLOWED);
    }
  });

  it('Lifecycle: terminal states accept no further lifecycle events', () => {
    const completed = [...running, { type: 'RunCompleted', data: { output_artifacts: [] } } as RunEvent];
    spec.given(completed).when({ type: 'Fail', data: { error } }).thenThrows(/Fail is not allowed in state completed/);
    spec.given(completed).when({ type: 'Complete', data: { output_artifacts: [] } }).thenThrows(NOT_ALLOWED);
    spec.given(completed).when(request).thenThrows(NOT_ALLOWED);
  });

  it('Lifecycle: RunDenied only follows a deny decision', () => {
    spec.given(running).when({ type: 'Deny', data: { error } }).thenThrows(NOT_ALLOWED);
    spec.given([created, denied]).when({ type: 'Deny', data: { error } }).then([{ type: 'RunDenied', data: { error } }]);
  });

  it('§6 audit: a child run records its audit events together with its outcome', () => {
    const audit: RunEvent = { type: 'ToolCallAudited', data: { tool_name: 't', status: 'ok' } };
    spec.given(running).when({ type: 'Complete', data: { output_artifacts: [], result: 1 }, audit: [audit] }).then([audit, { type: 'RunCompleted', data: { output_artifacts: [], result: 1 } }]);
    spec.given(running).when({ type: 'Fail', data: { error }, audit: [audit] }).then([audit, { type: 'RunFailed', data: { error } }]);
  });

  it('§6 audit, Issue 10 no duplicates: a close cut short after its audit event was recorded records only the outcome when resumed', () => {
    const audit: RunEvent = { type: 'ToolCallAudited', data: { tool_name: 't', status: 'ok' } };
    spec.given([...running, audit]).when({ type: 'Complete', data: { output_artifacts: [], result: 1 }, audit: [audit] }).then([{ type: 'RunCompleted', data: { output_artifacts: [], result: 1 } }]);
    spec.given([...running, audit]).when({ type: 'Fail', data: { error }, audit: [audit] }).then([{ type: 'RunFailed', data: { error } }]);
  });
});

describe('Run aggregate: checkpoints and tool calls (contract 004 INV-CP-*)', () => {
  const step = { step_index: 0, step_id: 'context', output: { h: 1 } };

  it('INV-CP-001: a completed step is recorded with its output, context and memory snapshot', () => {
    const full = { ...step, context: { k: 'v' }, memory_snapshot: { m: 1 } };
    spec.given(running).when({ type: 'RecordStep', data: full }).then([{ type: 'StepCompleted', data: full }]);
  });

  it('INV-CP-002: a step already checkpointed is not recorded again (its output is restored, not recomputed)', () => {
    spec.given([...running, { type: 'StepCompleted', data: step }]).when({ type: 'RecordStep', data: { ...step, output: { h: 2 } } }).thenNothing();
  });

  it('INV-CP-002: a tool call is requested before it is made and recorded after; a repeat of either is nothing', () => {
    spec.given(running).when(request).then([requested]);
    spec.given([...running, requested]).when(request).thenNothing();
    const record: RunCommand = { type: 'RecordToolCall', data: { call_id: 'c1', child_run_id: 'x1', status: 'ok', result: [] } };
    spec.given([...running, requested]).when(record).then([{ type: 'ToolCallRecorded', data: record.data }]);
    spec.given([...running, requested, { type: 'ToolCallRecorded', data: record.data }]).when(record).thenNothing();
  });

  it('INV-CP-002: an outcome for a call that was never requested is refused (it could not be resumed)', () => {
    spec.given(running).when({ type: 'RecordToolCall', data: { call_id: 'c9', child_run_id: 'x9', status: 'ok' } }).thenThrows(NOT_ALLOWED);
  });

  it('tool calls of parallel steps each get the next sequence number on the state they land on', () => {
    spec.given([...running, requested]).when({ type: 'RequestToolCall', data: { call_id: 'c2', tool_name: 't', parameters: {}, child_run_id: 'x2' } })
      .then([{ type: 'ToolCallRequested', data: { call_id: 'c2', sequence: 2, tool_name: 't', parameters: {}, child_run_id: 'x2' } }]);
  });

  it('INV-DT: a child run is recorded on its parent once, before it is carried', () => {
    const child: RunCommand = { type: 'StartChild', data: { child_run_id: 'k1', run_kind: 'agent', agent_name: 'MAPPING_AGENT' } };
    spec.given(running).when(child).then([{ type: 'ChildRunStarted', data: child.data }]);
    spec.given([...running, { type: 'ChildRunStarted', data: child.data }]).when(child).thenNothing();
  });
});

describe('Run aggregate: cancellation (rl.runs.cancel)', () => {
  const ask: RunCommand = { type: 'RequestCancel', data: { reason: 'stop', requested_by: 'op' } };
  const asked: RunEvent = { type: 'RunCancelRequested', data: { reason: 'stop', requested_by: 'op' } };

  it('an operator request is recorded once; the run that has its outcome is left alone', () => {
    spec.given(running).when(ask).then([asked]);
    spec.given([...running, asked]).when(ask).thenNothing();
    spec.given([...running, { type: 'RunFailed', data: { error } }]).when(ask).thenNothing();
    spec.given([]).when(ask).thenThrows(NOT_ALLOWED);
  });

  it('Lifecycle: running → cancelled by RunCancelled; a repeated cancel is nothing', () => {
    spec.given([...running, asked]).when({ type: 'Cancel', data: { reason: 'stop' } }).then([{ type: 'RunCancelled', data: { reason: 'stop' } }]);
    spec.given([...running, { type: 'RunCancelled', data: { reason: 'stop' } }]).when({ type: 'Cancel', data: { reason: 'stop' } }).thenNothing();
    spec.given([created, allowed]).when({ type: 'Cancel', data: { reason: 'stop' } }).thenThrows(NOT_ALLOWED);
  });
});

describe('Run aggregate: an effect in flight is claimed (issue 7: a tool call in flight never runs twice)', () => {
  const claimed: RunEvent = { type: 'EffectClaimed', data: { owner: 'gw-a', attempt: 1, lease_expires_at: '2026-01-01T00:00:05.000Z' } };
  const claim = (owner: string, now: string): RunCommand => ({ type: 'ClaimEffect', data: { owner, now, lease_ms: 5_000 } });

  it('the first attempt claims the effect with its owner and a lease; the effect runs only in a started run', () => {
    spec.given(running).when(claim('gw-a', '2026-01-01T00:00:00.000Z')).then([claimed]);
    spec.given([created, allowed]).when(claim('gw-a', '2026-01-01T00:00:00.000Z')).thenThrows(NOT_ALLOWED);
  });

  it('while the lease holds, any other claim is refused (the caller waits for the first attempt\'s outcome)', () => {
    spec.given([...running, claimed]).when(claim('gw-b', '2026-01-01T00:00:04.999Z')).thenThrows(/claimed by gw-a/);
  });

  it('a crashed owner\'s claim runs out with its lease and is taken over as the next attempt', () => {
    spec.given([...running, claimed]).when(claim('gw-b', '2026-01-01T00:00:05.000Z'))
      .then([{ type: 'EffectClaimed', data: { owner: 'gw-b', attempt: 2, lease_expires_at: '2026-01-01T00:00:10.000Z' } }]);
  });

  it('only the owner releases its claim; a released claim is taken over at once', () => {
    const released: RunEvent = { type: 'EffectReleased', data: { owner: 'gw-a', attempt: 1, reason: 'Error' } };
    spec.given([...running, claimed]).when({ type: 'ReleaseEffect', data: { owner: 'gw-b', reason: 'Error' } }).thenNothing();
    spec.given([...running, claimed]).when({ type: 'ReleaseEffect', data: { owner: 'gw-a', reason: 'Error' } }).then([released]);
    spec.given([...running, claimed, released]).when(claim('gw-b', '2026-01-01T00:00:01.000Z'))
      .then([{ type: 'EffectClaimed', data: { owner: 'gw-b', attempt: 2, lease_expires_at: '2026-01-01T00:00:06.000Z' } }]);
  });
});

describe('Run aggregate: the resolver ends abandoned runs through the decider (issue 10, issue 21)', () => {
  const resolved: RunEvent = { type: 'RunResolved', data: { resolved_by: 'resolver', reason: 'idle', outcome: 'failed', basis: 'nothing recorded' } };
  const failed: RunEvent = { type: 'RunFailed', data: { error } };

  it('Issue 21 resolver: a running run is ended with RunResolved and the outcome its log supports', () => {
    spec.given(running).when({ type: 'Resolve', events: [resolved, failed] }).then([resolved, failed]);
    spec.given([created, allowed]).when({ type: 'Resolve', events: [started, resolved, failed] }).then([started, resolved, failed]);
  });

  it('Issue 21 resolver: a run that ended meanwhile is left as it is', () => {
    spec.given([...running, failed]).when({ type: 'Resolve', events: [resolved, failed] }).thenNothing();
  });

  it('Issue 21 resolver: events that break the lifecycle, do not end the run, or are not marked as the resolver\'s are refused', () => {
    spec.given([created, allowed]).when({ type: 'Resolve', events: [resolved, failed] }).thenThrows(NOT_ALLOWED);
    spec.given(running).when({ type: 'Resolve', events: [resolved] }).thenThrows(NOT_ALLOWED);
    spec.given(running).when({ type: 'Resolve', events: [failed] }).thenThrows(NOT_ALLOWED);
    spec.given([]).when({ type: 'Resolve', events: [created, resolved, failed] }).thenThrows(NOT_ALLOWED);
  });
});
