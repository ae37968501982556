/**
 * Issue 10 "every run terminal": a run cut short by a crash is completed or failed by the resolver, from what the
 * log records, and the resolver never races a live worker into a second terminal event.
 */
import { createHash, randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ConcurrencyError, EventLog } from '@runledger/event-log';
import { LoadedRun, ownerOfKind, RunControl, RunEvent, RunRepository, TERMINAL_TYPES } from '@runledger/runs';
import { TestStack } from './support/stack';

jest.setTimeout(300_000);

const pin = { lanes: 'seed', roles: 'seed' };
const TOOL_CALL_OK = { status: 'ok', result: { task_id: 't-1' } };

describe('Issue 10 resolver (rl.runs.resolve): runs left open that nobody carries get their terminal event', () => {
  let stack: TestStack;
  /** Each kind of run recorded as its owner writes it (issue 23: a run another service wrote is forged, never resolved). */
  let repoOf: (kind: string) => RunRepository;
  beforeAll(async () => {
    stack = await TestStack.start({
      // Issue 23: each choke-point run is resolved by its owner, on decision's request (rl.runs.control.<owner>).
      services: ['decision', 'audit-ledger', 'tool-gateway', 'db-write'],
      // Sweeps only when asked; a run under an ended root counts as abandoned after 1 s without events.
      env: { RL_RESOLVER_INTERVAL_MS: '0', RL_RESOLVER_GRACE_MS: '1000', RL_RESOLVER_MIN_IDLE_MS: '1000' },
    });
    const jsm = await jetstreamManager(stack.nc);
    const repos = new Map<string, RunRepository>();
    repoOf = (kind) => {
      const owner = ownerOfKind(kind)!;
      if (!repos.has(owner)) repos.set(owner, new RunRepository(new EventLog(jetstream(stack.nc), jsm, { producer: owner, clock: { now: () => new Date() } })));
      return repos.get(owner)!;
    };
  });
  afterAll(async () => stack?.stop());

  /** Appends a run's events as its worker would have, before it was cut short. */
  async function record(run_id: string, root: string, kind: string, parent: string | undefined, more: RunEvent[], parameters: Record<string, unknown> = {}): Promise<void> {
    await repoOf(kind).append({ run_id, run_kind: kind as 'agent', root_run_id: root, ...(parent ? { parent_run_id: parent } : {}) }, [
      { type: 'RunCreated', data: { run_id, run_kind: kind as 'agent', agent_name: 'task-assistant', root_run_id: root, ...(parent ? { parent_run_id: parent } : {}), contract_version: 'v1', policy_versions: pin, input_artifacts: [], parameters, request_hash_sha256: createHash('sha256').update(run_id).digest('hex') } },
      { type: 'AuthzDecided', data: { decision: 'allow', policy_versions: pin } },
      { type: 'RunStarted', data: {} },
      ...more,
    ], { expectedVersion: 0, commandId: `seed:${run_id}` });
  }
  const call = (id: string, child: string): RunEvent => ({ type: 'ToolCallRequested', data: { call_id: id, sequence: Number(id.slice(5)), tool_name: 'add_task', parameters: {}, child_run_id: child } });
  const completed: RunEvent[] = [{ type: 'RunCompleted', data: { output_artifacts: [] } }];

  async function resolveNow(): Promise<{ open: number; resolved: { run_id: string; outcome: string; basis: string }[]; left_to_worker: number }> {
    const r = await stack.request<{ open: number; resolved: { run_id: string; outcome: string; basis: string }[]; left_to_worker: number }>('rl.runs.resolve', { requested_by: 'test' }, 60_000);
    if (!r.ok) throw new Error(`rl.runs.resolve failed: ${JSON.stringify(r.body)}`);
    return r.body;
  }

  it('Issue 10 resolver: children of an ended run are completed when the log records their effect, else failed RUN.ABANDONED; an open tree still carried is left alone; coverage clean', async () => {
    const root = randomUUID();
    const [tg1, dw1, tg2, dw2, tg3, dw3] = Array.from({ length: 6 }, () => randomUUID());
    await record(tg1, root, 'tool_gateway', root, [], { tool_name: 'add_task', call_id: 'call-1' });
    await record(dw1, root, 'db_write', tg1, [], { collection: 'tasks', operation: 'append' });
    await record(tg2, root, 'tool_gateway', root, [], { tool_name: 'add_task', call_id: 'call-2' });
    await record(dw2, root, 'db_write', tg2, [{ type: 'DbWriteAudited', data: { lane: 'TASKS', action: 'append:tasks', outcome: 'success', request_hash_sha256: createHash('sha256').update(dw2).digest('hex'), collection: 'tasks', operation: 'append', status: 'ok' } }, ...completed]);
    await record(tg3, root, 'tool_gateway', root, [], { tool_name: 'add_task', call_id: 'call-3' });
    await record(dw3, root, 'db_write', tg3, []);
    // The root ended: call-1's outcome recorded; call-2 and call-3 were never recorded (cut short).
    await record(root, root, 'agent', undefined, [call('call-1', tg1), { type: 'ToolCallRecorded', data: { call_id: 'call-1', child_run_id: tg1, ...TOOL_CALL_OK } }, call('call-2', tg2), call('call-3', tg3), { type: 'RunFailed', data: { error: { error_code: 'TOOL.FAILED', message: 'cut short', retryable: false } } }]);
    // A tree still carried (its root open, idle far less than RL_RESOLVER_IDLE_MS): nobody may touch it.
    const live = randomUUID();
    const liveChild = randomUUID();
    await record(live, live, 'agent', undefined, [call('call-1', liveChild)]);
    await record(liveChild, live, 'tool_gateway', live, [], { tool_name: 'add_task', call_id: 'call-1' });

    const mine = new Set<string>([tg1, dw1, tg2, dw2, tg3, dw3]);
    const outcomes = new Map<string, { outcome: string; basis: string }>();
    await stack.waitFor(async () => {
      for (const r of (await resolveNow()).resolved) if (mine.has(r.run_id)) outcomes.set(r.run_id, r);
      return outcomes.size === 5;
    }, 120_000);
    expect(Object.fromEntries([tg1, dw1, tg2, tg3, dw3].map((id) => [id, outcomes.get(id)]))).toEqual({
      [tg1]: { run_id: tg1, run_kind: 'tool_gateway', outcome: 'completed', basis: `ToolCallRecorded on ${root}` },
      [dw1]: { run_id: dw1, run_kind: 'db_write', outcome: 'completed', basis: `tool_gateway ${tg1} completed` },
      [tg2]: { run_id: tg2, run_kind: 'tool_gateway', outcome: 'completed', basis: `db_write ${dw2} completed` },
      [tg3]: { run_id: tg3, run_kind: 'tool_gateway', outcome: 'failed', basis: 'nothing recorded' },
      [dw3]: { run_id: dw3, run_kind: 'db_write', outcome: 'failed', basis: 'nothing recorded' },
    });
    const dw3Events = await stack.runEvents(dw3);
    expect(dw3Events.map((e) => e.type).slice(3)).toEqual(['DbWriteAudited', 'RunResolved', 'RunFailed']);
    // Issue 23: ended by its owner on decision's request, never appended by decision.
    expect(dw3Events.find((e) => e.type === 'RunResolved')?.data).toMatchObject({ resolved_by: 'db-write/run-resolver', outcome: 'failed' });
    expect(new Set(dw3Events.map((e) => e.metadata.producer))).toEqual(new Set(['db-write']));
    expect(dw3Events.at(-1)?.data).toMatchObject({ error: { error_code: 'RUN.ABANDONED' } });
    // Issue 23 idempotent by command id: decision's command again (its reply lost) is answered as it was, nothing appended.
    const tg3Events = await stack.runEvents(tg3);
    const resolvedAt = tg3Events.find((e) => e.type === 'RunResolved')!.seq;
    const decidedOn = Math.max(...tg3Events.filter((e) => e.seq < resolvedAt).map((e) => e.seq));
    const again = await stack.request('rl.runs.control.tool-gateway', { type: 'resolve_abandoned', command_id: `resolve@${decidedOn}`, run_id: tg3, idle_ms: 60_000, grace_ms: 1_000 }, 30_000);
    expect(again).toEqual({ ok: true, body: { run_id: tg3, outcome: 'resolved', status: 'failed', resolution: { run_kind: 'tool_gateway', outcome: 'failed', basis: 'nothing recorded' } } });
    expect(await stack.runEvents(tg3)).toHaveLength(tg3Events.length);
    // The carried tree is untouched.
    for (const id of [live, liveChild]) expect((await stack.runEvents(id)).some((e) => TERMINAL_TYPES.has(e.type))).toBe(false);
    // rl.audit.coverage: none of the resolved runs lacks anything.
    const resolved = new Set<string>(mine);
    const coverage = await stack.waitFor(async () => {
      const r = await stack.request<{ violations: { run_id: string }[]; in_progress: string[] }>('rl.audit.coverage', {}, 60_000);
      return r.ok && !r.body.in_progress.some((id) => resolved.has(id)) ? r.body : null;
    }, 60_000);
    expect(coverage.violations.filter((v) => resolved.has(v.run_id))).toEqual([]);
  });

  it('Issue 10 bounded input: rl.runs.resolve refuses an idle_ms under a minute (it could race live workers) with REQUEST.INVALID', async () => {
    const r = await stack.request<{ code: string }>('rl.runs.resolve', { idle_ms: 1_000 }, 30_000);
    expect({ ok: r.ok, code: r.body.code }).toEqual({ ok: false, code: 'REQUEST.INVALID' });
  });

  it('Issue 10 resolver: never races a live worker: a worker that advances the run while its owner decides the resolution wins, one terminal event', async () => {
    const root = randomUUID();
    const tg = randomUUID();
    await record(tg, root, 'tool_gateway', root, [], { tool_name: 'add_task', call_id: 'call-1' });
    await record(root, root, 'agent', undefined, [call('call-1', tg), { type: 'RunFailed', data: { error: { error_code: 'TOOL.FAILED', message: 'cut short', retryable: false } } }]);
    // The gateway's worker finishes the call right after the owner's resolution has read the run, before it appends.
    let raced = false;
    const racing = new (class extends RunRepository {
      override async load(runId: string): Promise<LoadedRun> {
        const loaded = await super.load(runId);
        if (runId === tg && !raced) {
          raced = true;
          await repoOf('tool_gateway').append({ run_id: tg, run_kind: 'tool_gateway', root_run_id: root, parent_run_id: root }, [{ type: 'ToolCallAudited', data: { lane: 'TASKS', action: 'tool:add_task', outcome: 'success', request_hash_sha256: createHash('sha256').update(tg).digest('hex'), tool_name: 'add_task', call_id: 'call-1', status: 'ok' } }, ...completed], { expectedVersion: loaded.version, commandId: `${tg}:close` });
        }
        return loaded;
      }
    })(repoOf('tool_gateway').log);
    // What tool-gateway runs on decision's resolve_abandoned (rl.runs.control.tool-gateway).
    // Its clock two hours on: the run counts as abandoned (idle past both thresholds, the owners' floor kept).
    const later = { now: () => new Date(Date.now() + 7_200_000) };
    const answer = await new RunControl(racing, 'tool-gateway', later, { minIdleMs: 60_000 }).handle({ type: 'resolve_abandoned', command_id: 'race', run_id: tg, idle_ms: 3_600_000, grace_ms: 60_000 });
    expect(raced).toBe(true);
    expect(answer).toMatchObject({ run_id: tg, outcome: 'left', status: 'completed' });
    const events = await stack.runEvents(tg);
    expect(events.filter((e) => TERMINAL_TYPES.has(e.type)).map((e) => e.type)).toEqual(['RunCompleted']);
    expect(events.some((e) => e.type === 'RunResolved')).toBe(false);
    // And a direct append on a stale version is refused the same way (the mechanism the resolution rests on).
    await expect(repoOf('tool_gateway').append({ run_id: tg, run_kind: 'tool_gateway', root_run_id: root }, [{ type: 'RunFailed', data: { error: { error_code: 'RUN.ABANDONED', message: 'x', retryable: false } } }], { expectedVersion: 3, commandId: `${tg}:stale` })).rejects.toBeInstanceOf(ConcurrencyError);
  });

  it('Issue 23 resolver: a run whose owner is down is left open (counted left to its worker) and resolved by the next sweep once the owner is back', async () => {
    const root = randomUUID();
    const tg = randomUUID();
    await record(tg, root, 'tool_gateway', root, [], { tool_name: 'add_task', call_id: 'call-1' });
    await record(root, root, 'agent', undefined, [call('call-1', tg), { type: 'RunFailed', data: { error: { error_code: 'TOOL.FAILED', message: 'cut short', retryable: false } } }]);
    await stack.waitFor(async () => {
      const r = await stack.request<{ runs: { run_id: string }[] }>('rl.runs.list', { root_run_id: root }, 30_000);
      return r.ok && r.body.runs.length === 2;
    }, 60_000);
    // The run is abandoned once quiet for the grace period (RL_RESOLVER_GRACE_MS 1 s: its root has ended).
    const last = Date.parse((await stack.runEvents(tg)).at(-1)!.metadata.recorded_at);
    await stack.waitFor(async () => Date.now() - last > 1_500, 10_000);
    await stack.kill('tool-gateway');
    try {
      // The sweep asks tool-gateway, which is not there: the run is left for the next sweep, the sweep goes on.
      const down = await resolveNow();
      expect(down.left_to_worker).toBeGreaterThanOrEqual(1);
      expect(down.resolved.map((r) => r.run_id)).not.toContain(tg);
      expect((await stack.runEvents(tg)).some((e) => TERMINAL_TYPES.has(e.type))).toBe(false);
    } finally {
      await stack.startService('tool-gateway');
    }
    const resolved = await stack.waitFor(async () => (await resolveNow()).resolved.find((r) => r.run_id === tg), 60_000);
    expect(resolved).toMatchObject({ outcome: 'failed', basis: 'nothing recorded' });
    expect((await stack.runEvents(tg)).filter((e) => e.type === 'RunResolved').map((e) => e.metadata.producer)).toEqual(['tool-gateway']);
  });
});
