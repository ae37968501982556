import { foldEvents, recorded } from '@runledger/event-log';
import { checkAuditCoverage } from '@runledger/governance';
import type { RunEvent } from './run-events';
import { evolveRun, initialRunState } from './run-state';
import { ABANDONED, resolveAbandoned as resolveAs, resolverOf, runView, RunView } from './resolution';

const RESOLVER = resolverOf('db-write');
const resolveAbandoned = (run: RunView, around: Parameters<typeof resolveAs>[1], reason: string) => resolveAs(run, around, reason, RESOLVER);

const pin = { lanes: 'l1', roles: 'r1' };
const created = (run_id: string, run_kind: string, parent?: string, parameters: Record<string, unknown> = {}): RunEvent => ({
  type: 'RunCreated',
  data: { run_id, run_kind: run_kind as 'agent', agent_name: 'task-assistant', root_run_id: 'root', ...(parent ? { parent_run_id: parent } : {}), contract_version: 'v1', policy_versions: pin, input_artifacts: [], parameters, request_hash_sha256: 'h' },
});
const allow: RunEvent = { type: 'AuthzDecided', data: { decision: 'allow', policy_versions: pin } };
const started: RunEvent = { type: 'RunStarted', data: {} };
const view = (run_id: string, events: RunEvent[]): RunView => runView(run_id, foldEvents(evolveRun, initialRunState(), recorded(events)), events);

const gatewayOpen = [created('tg', 'tool_gateway', 'root', { tool_name: 'add_task', call_id: 'call-1' }), allow, started];
const writeOpen = [created('dw', 'db_write', 'tg', { collection: 'tasks', operation: 'append', document_id: null }), allow, started];
const agentRunning = [created('root', 'agent'), allow, started, { type: 'ToolCallRequested', data: { call_id: 'call-1', sequence: 1, tool_name: 'add_task', parameters: {}, child_run_id: 'tg' } }] as RunEvent[];

/** The run's events after the resolution, with coverage checked over them. */
function afterResolution(events: RunEvent[], resolution: ReturnType<typeof resolveAbandoned>) {
  const all = [...events, ...(resolution?.events ?? [])];
  return { all, coverage: checkAuditCoverage(all.map((e) => ({ run_id: 'x', type: e.type, data: e.data }))), state: foldEvents(evolveRun, initialRunState(), recorded(all)) };
}

describe('Issue 10 resolver: every child run reaches a terminal event (decided from the log alone)', () => {
  it('Issue 10 resolver: a db_write run with nothing recorded ends failed with RUN.ABANDONED, audited, saying who resolved it', () => {
    const r = resolveAbandoned(view('dw', writeOpen), { children: [] }, 'idle');
    expect(r).toMatchObject({ outcome: 'failed', basis: 'nothing recorded' });
    const { all, coverage, state } = afterResolution(writeOpen, r);
    expect(state).toMatchObject({ status: 'failed', error: ABANDONED, anomalies: [] });
    expect(coverage.violations).toEqual([]);
    expect(all.find((e) => e.type === 'RunResolved')?.data).toMatchObject({ resolved_by: RESOLVER, reason: 'idle', outcome: 'failed' });
    expect(all.find((e) => e.type === 'DbWriteAudited')?.data).toMatchObject({ collection: 'tasks', status: 'failed', error_code: 'RUN.ABANDONED', resolved_by: RESOLVER });
  });

  it('Issue 10 resolver: a db_write run whose close was cut short after its audit (DbWriteAudited ok) ends completed, not abandoned', () => {
    const halfClosed = [...writeOpen, { type: 'DbWriteAudited', data: { collection: 'tasks', operation: 'append', document_id: 'd1', status: 'ok', case_id: null, document_sha256: 'x' } }] as RunEvent[];
    const r = resolveAbandoned(view('dw', halfClosed), { children: [] }, 'idle');
    expect(r).toMatchObject({ outcome: 'completed', basis: 'DbWriteAudited ok recorded' });
    const { all, coverage, state } = afterResolution(halfClosed, r);
    expect(state).toMatchObject({ status: 'completed', anomalies: [] });
    expect(coverage.violations).toEqual([]);
    expect(all.filter((e) => e.type === 'DbWriteAudited')).toHaveLength(1);
  });

  it('Issue 10 resolver: a tool_gateway run whose caller recorded the call ends with that recorded outcome', () => {
    const parent = view('root', [...agentRunning, { type: 'ToolCallRecorded', data: { call_id: 'call-1', child_run_id: 'tg', status: 'ok', result: { task_id: 't1' } } }]);
    const r = resolveAbandoned(view('tg', gatewayOpen), { parent, children: [] }, 'idle');
    const { coverage, state } = afterResolution(gatewayOpen, r);
    expect(r?.basis).toBe('ToolCallRecorded on root');
    expect(state).toMatchObject({ status: 'completed', result: { output: { task_id: 't1' } } });
    expect(coverage.violations).toEqual([]);
  });

  it('Issue 10 resolver: a tool_gateway run whose write completed ends completed (no effect without its outcome)', () => {
    const write = view('dw', [...writeOpen, { type: 'DbWriteAudited', data: {} }, { type: 'RunCompleted', data: { output_artifacts: [] } }]);
    const r = resolveAbandoned(view('tg', gatewayOpen), { parent: view('root', agentRunning), children: [write] }, 'idle');
    expect(r).toMatchObject({ outcome: 'completed', basis: 'db_write dw completed' });
    expect(afterResolution(gatewayOpen, r).coverage.violations).toEqual([]);
  });

  it('Issue 10 resolver: a tool_gateway run whose caller recorded a failure ends failed with that error, not ABANDONED', () => {
    const error = { error_code: 'TOOL.FAILED', message: 'The tool failed.', retryable: false };
    const parent = view('root', [...agentRunning, { type: 'ToolCallRecorded', data: { call_id: 'call-1', child_run_id: 'tg', status: 'failed', error } }]);
    const { state } = afterResolution(gatewayOpen, resolveAbandoned(view('tg', gatewayOpen), { parent, children: [] }, 'idle'));
    expect(state).toMatchObject({ status: 'failed', error });
  });

  it('Issue 10 resolver: an opening cut short is finished first (never started: failed; no authorization: denied), lifecycle intact', () => {
    const authorized = writeOpen.slice(0, 2);
    const a = afterResolution(authorized, resolveAbandoned(view('dw', authorized), { children: [] }, 'idle'));
    expect({ status: a.state.status, anomalies: a.state.anomalies, violations: a.coverage.violations }).toEqual({ status: 'failed', anomalies: [], violations: [] });
    const createdOnly = writeOpen.slice(0, 1);
    const c = afterResolution(createdOnly, resolveAbandoned(view('dw', createdOnly), { children: [] }, 'idle'));
    expect({ status: c.state.status, anomalies: c.state.anomalies, violations: c.coverage.violations }).toEqual({ status: 'denied', anomalies: [], violations: [] });
  });

  it('Issue 10 resolver: a run already terminal is left alone', () => {
    const done = [...writeOpen, { type: 'DbWriteAudited', data: {} }, { type: 'RunCompleted', data: { output_artifacts: [] } }] as RunEvent[];
    expect(resolveAbandoned(view('dw', done), { children: [] }, 'idle')).toBeNull();
  });
});
