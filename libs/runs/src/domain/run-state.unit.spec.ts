import { freezeDeep } from '@runledger/agent-runtime';
import { foldEvents, recorded, RecordedEvent } from '@runledger/event-log';
import { evolveRun, initialRunState, RunState } from './run-state';
import type { RunEvent } from './run-events';
import fixture from './fixtures/task-run-v1.json';

const created: RunEvent = {
  type: 'RunCreated',
  data: { run_id: 'r1', run_kind: 'agent', agent_name: 'TASK_ASSISTANT', root_run_id: 'r1', contract_version: 'v1', policy_versions: { lanes: 'l1', roles: 'r1' }, input_artifacts: [], parameters: {}, request_hash_sha256: 'h' },
};
const allow: RunEvent = { type: 'AuthzDecided', data: { decision: 'allow', policy_versions: { lanes: 'l1', roles: 'r1' } } };
const fold = (events: RunEvent[]) => foldEvents(evolveRun, initialRunState(), recorded(events));

describe('Run projection (lifecycle of policy/contract-v1/run_lifecycle.md)', () => {
  it('Lifecycle: created → authorized → running → completed', () => {
    expect(fold([created]).status).toBe('created');
    expect(fold([created, allow]).status).toBe('authorized');
    expect(fold([created, allow, { type: 'RunStarted', data: {} }]).status).toBe('running');
    const done = fold([created, allow, { type: 'RunStarted', data: {} }, { type: 'RunCompleted', data: { output_artifacts: [], result: { ok: 1 } } }]);
    expect(done).toMatchObject({ status: 'completed', result: { ok: 1 }, anomalies: [] });
  });

  it('Lifecycle: a deny ends the run as denied, with its error', () => {
    const denied = fold([created, { type: 'AuthzDecided', data: { decision: 'deny', code: 'LANE.DENIED', policy_versions: { lanes: 'l1', roles: 'r1' } } }, { type: 'RunDenied', data: { error: { error_code: 'LANE.DENIED', message: 'no', retryable: false } } }]);
    expect(denied).toMatchObject({ status: 'denied', error: { error_code: 'LANE.DENIED' } });
  });

  it('Projections never throw on a recorded fact: an illegal transition is reported as an anomaly', () => {
    const s = fold([created, { type: 'RunCompleted', data: { output_artifacts: [] } }]);
    expect(s.status).toBe('created');
    expect(s.anomalies).toEqual(['RunCompleted is not allowed in state created']);
  });

  it('Tool calls: requested then recorded; a repeated request is folded once', () => {
    const req: RunEvent = { type: 'ToolCallRequested', data: { call_id: 'c1', sequence: 1, tool_name: 'list_tasks', parameters: {}, child_run_id: 'x' } };
    const s = fold([created, allow, { type: 'RunStarted', data: {} }, req, req, { type: 'ToolCallRecorded', data: { call_id: 'c1', child_run_id: 'x', status: 'ok', result: { tasks: [] } } }]);
    expect(s.tool_calls).toEqual([{ call_id: 'c1', sequence: 1, tool_name: 'list_tasks', parameters: {}, child_run_id: 'x', status: 'ok', result: { tasks: [] } }]);
  });

  it('Pure fold: evolveRun never changes the state it is given, on every kind of event (each state deep-frozen before the next event)', () => {
    const effect = { owner: 'tool-gateway', attempt: 1, lease_expires_at: '2026-01-01T00:01:00Z' };
    const call = { call_id: 'c1', sequence: 1, tool_name: 'list_tasks', parameters: {}, child_run_id: 'x' };
    const events = recorded([
      created, allow, { type: 'RunStarted', data: {} }, { type: 'AuthzDecided', data: { decision: 'allow' } } as RunEvent,
      { type: 'StepCompleted', data: { step_index: 0, step_id: 'context', output: { h: 1 } } }, { type: 'ToolCallRequested', data: call },
      { type: 'ToolCallRequested', data: { ...call, call_id: 'c2' } }, { type: 'ToolCallRecorded', data: { call_id: 'c2', child_run_id: 'x', status: 'ok', result: { n: 2 } } },
      { type: 'ToolCallRecorded', data: { call_id: 'c1', child_run_id: 'x', status: 'error', error: { error_code: 'E', message: 'm', retryable: false } } },
      { type: 'ChildRunStarted', data: { child_run_id: 'x' } }, { type: 'ToolCallAudited', data: { status: 'ok' } }, { type: 'ToolCallAudited', data: { status: 'ok' } },
      { type: 'EffectClaimed', data: effect }, { type: 'EffectReleased', data: effect }, { type: 'RunCancelRequested', data: { reason: 'r', requested_by: 'op' } },
      { type: 'DecisionRecorded', data: { decision: { decision_type: 'RESPOND_ONLY' } } }, { type: 'RunCompleted', data: { output_artifacts: [], response_hash_sha256: 'h' } },
      { type: 'RunFailed', data: { error: { error_code: 'F', message: 'late', retryable: false } } },
    ] as RunEvent[]);
    const states = [freezeDeep(initialRunState())];
    for (const e of events) states.push(freezeDeep(evolveRun(states[states.length - 1] as RunState, e)) as RunState);
    const last = states[states.length - 1] as RunState;
    expect(last).toMatchObject({ status: 'completed', event_count: events.length, audited: ['ToolCallAudited'], child_run_ids: ['x'], effect_claim: { released: true }, cancel_requested: { reason: 'r' } });
    expect(last.tool_calls.map((c) => c.status)).toEqual(['error', 'ok']);
    expect(last.anomalies).toEqual(['AuthzDecided is not allowed in state running', 'RunFailed is not allowed in state completed']);
  });

  it('INV-CP-001: the checkpoint holds stepIndex, completedStepId, stepOutputs, context and memorySnapshot', () => {
    const s = fold([created, allow, { type: 'RunStarted', data: {} }, { type: 'StepCompleted', data: { step_index: 0, step_id: 'context', output: { h: 1 } } }, { type: 'StepCompleted', data: { step_index: 1, step_id: 'classify', output: { i: 2 }, context: { k: 'v' }, memory_snapshot: { m: 1 } } }]);
    expect(s.checkpoint).toEqual({ stepIndex: 1, completedStepId: 'classify', stepOutputs: { context: { h: 1 }, classify: { i: 2 } }, context: { k: 'v' }, memorySnapshot: { m: 1 } });
  });

  it('Replay fixture (schema v1): a recorded task-assistant run still folds to the state it had when recorded', () => {
    const state = foldEvents(evolveRun, initialRunState(), fixture.events as unknown as RecordedEvent[]);
    expect(JSON.parse(JSON.stringify(state))).toEqual(fixture.expected_state);
  });

  it('Issue 21 the decision stored once: a task run whose RunCompleted holds no copy of the decision folds to the state of one recorded with the copy (result { decision } from DecisionRecorded)', () => {
    const events = fixture.events as unknown as RecordedEvent[];
    const last = events[events.length - 1]!;
    const { result: _copy, ...withoutCopy } = last.data as { result: unknown };
    const referenced = [...events.slice(0, -1), { ...last, data: withoutCopy }];
    expect(JSON.parse(JSON.stringify(foldEvents(evolveRun, initialRunState(), referenced)))).toEqual(fixture.expected_state);
  });

  it('Issue 21 a DecisionRecorded on a run that is not running (a refused request, recorded before RunDenied) sets no result, as before', () => {
    const decided = { type: 'DecisionRecorded', data: { decision: { decision_type: 'RESPOND_ONLY' } } } as RunEvent;
    const denied = fold([created, { type: 'AuthzDecided', data: { decision: 'deny', code: 'C', policy_versions: { lanes: 'l1', roles: 'r1' } } }, decided, { type: 'RunDenied', data: { error: { error_code: 'C', message: 'm', retryable: false } } }]);
    expect(denied.result).toBeUndefined();
    const completed = fold([created, allow, { type: 'RunStarted', data: {} }, { type: 'RunCompleted', data: { output_artifacts: [], result: { done: true } } }]);
    expect(completed.result).toEqual({ done: true });
  });
});

