import type { StoredEvent } from '@runledger/event-log';
import { evolveRunSummary, initialRunSummary, RunSummary, traceIdOf } from './run-summary';
import fixture from './fixtures/task-run-v1.json';

type Ev = Pick<StoredEvent, 'type' | 'data' | 'metadata' | 'seq' | 'index'>;
const RUN = 'r1';
let seq = 0;
const ev = (type: string, data: unknown = {}, at = '2026-11-24T10:00:00.000Z', extra: Record<string, unknown> = {}): Ev => ({
  type, data, seq: ++seq, index: 0,
  metadata: { event_id: `e${seq}`, stream_id: RUN, run_id: RUN, root_run_id: RUN, schema_version: 1, contract_version: 'v1', producer: 't', recorded_at: at, ...extra },
});
const fold = (events: Ev[]): RunSummary => events.reduce(evolveRunSummary, initialRunSummary(RUN));
const created = (extra: Record<string, unknown> = {}) => ev('RunCreated', { run_id: RUN, run_kind: 'agent', agent_name: 'INTAKE_AGENT', root_run_id: RUN, case_id: 'case-1', user_id: 'u1' }, '2026-11-24T10:00:00.000Z', extra);

describe('Issue 11 runs index: the run summary is a pure fold over run events', () => {
  it('Issue 11 runs index: a completed run has its agent, case, user, trace id, duration and outcome', () => {
    const s = fold([
      created({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }),
      ev('AuthzDecided', { decision: 'allow' }), ev('RunStarted'),
      ev('RunCompleted', { output_artifacts: [] }, '2026-11-24T10:00:02.500Z'),
    ]);
    expect(s).toMatchObject({
      status: 'completed', failed: false, agent_name: 'INTAKE_AGENT', run_kind: 'agent', case_id: 'case-1', user_id: 'u1',
      trace_id: '0af7651916cd43dd8448eb211c80319c', duration_ms: 2500, ended_at: '2026-11-24T10:00:02.500Z', event_count: 4, anomalies: 0,
    });
  });

  it('Issue 11 runs index: failed and denied runs are "failed", with their error code', () => {
    const failed = fold([created(), ev('AuthzDecided', { decision: 'allow' }), ev('RunStarted'), ev('RunFailed', { error: { error_code: 'TOOL.FAILED', message: 'boom' } })]);
    expect(failed).toMatchObject({ status: 'failed', failed: true, error_code: 'TOOL.FAILED', error_message: 'boom' });
    const denied = fold([created(), ev('AuthzDecided', { decision: 'deny' }), ev('RunDenied', { error: { error_code: 'LANE.DENIED', message: 'no' } })]);
    expect(denied).toMatchObject({ status: 'denied', failed: true, error_code: 'LANE.DENIED' });
  });

  it('Issue 11 runs cancel: a cancel request is visible before the run ends cancelled (not failed)', () => {
    const asked = fold([created(), ev('AuthzDecided', { decision: 'allow' }), ev('RunStarted'), ev('RunCancelRequested', { reason: 'stop', requested_by: 'op' })]);
    expect(asked).toMatchObject({ status: 'running', cancel_requested: true });
    const done = evolveRunSummary(asked, ev('RunCancelled', { reason: 'stop' }));
    expect(done).toMatchObject({ status: 'cancelled', failed: false, error_code: 'RUN.CANCELLED', error_message: 'stop' });
  });

  it('Issue 11 runs index: a redelivered event (seq already folded) changes nothing', () => {
    const events = [created(), ev('AuthzDecided', { decision: 'allow' })];
    const once = fold(events);
    expect(evolveRunSummary(once, events[1])).toBe(once);
  });

  it('Issue 11 runs index: the recorded v1 task-run history still folds (old event versions stay readable)', () => {
    const history = (fixture.events as unknown as Ev[]).map((e, i) => ({ ...e, seq: i + 1 }));
    const s = history.reduce(evolveRunSummary, initialRunSummary(fixture.events[0].data.run_id as string));
    expect(s).toMatchObject({ status: fixture.expected_state.status, agent_name: 'TASK_ASSISTANT', user_id: 'alice', anomalies: 0, event_count: history.length });
  });

  it('Issue 11 runs index: only a well-formed traceparent gives a trace id', () => {
    expect(traceIdOf('garbage')).toBeNull();
    expect(traceIdOf(undefined)).toBeNull();
  });
  it('Log format 2: the events of one commit (one sequence) are each folded once, and a redelivered commit is a no-op', () => {
    const commit = [created(), ev('AuthzDecided', { decision: 'allow' }), ev('RunStarted')].map((e, index) => ({ ...e, seq: 1000, index }));
    const opened = fold(commit);
    expect(opened).toMatchObject({ status: 'running', event_count: 3, last_seq: 1000, last_index: 2 });
    expect(fold([...commit, ...commit])).toEqual(opened);
    const ended = evolveRunSummary(opened, { ...ev('RunCompleted', { output_artifacts: [] }), seq: 1001, index: 0 });
    expect(ended).toMatchObject({ status: 'completed', event_count: 4, last_seq: 1001 });
    expect(ended).not.toHaveProperty('last_index');
  });
});
