import type { RunRepository } from '../infra/run-repository';
import { runRepositoryOnRealLog } from '../infra/real-log.fixture';
import { ConcurrencyError } from '@runledger/event-log';
import { CancelRequested, RunEngine } from './run-engine';

describe('The one step runtime (RunEngine) on a real log', () => {
  const log = runRepositoryOnRealLog();
  let repo: RunRepository;
  beforeAll(() => {
    repo = log.repo();
  });

  const versions = { lanes: 'l', roles: 'r' };
  const opening = (runId: string) => ({
    created: { run_id: runId, run_kind: 'agent' as const, agent_name: 'TASK_ASSISTANT', root_run_id: runId, contract_version: 'v1' as const, policy_versions: versions, input_artifacts: [], parameters: {}, request_hash_sha256: 'h' },
    authz: { decision: 'allow' as const, policy_versions: versions },
  });
  const load = (runId: string) => RunEngine.load(repo, { run_id: runId, root_run_id: runId });

  it('INV-CP-002: a carrier picked up again restores recorded steps and answers recorded tool calls from the log; nothing runs twice', async () => {
    const computed: string[] = [];
    const invoked: string[] = [];
    const carry = async () => {
      const run = await load('e-resume');
      expect(await run.open(opening('e-resume'))).toBe(true);
      const ctx = await run.step('context', 0, async () => (computed.push('context'), { h: 1 }));
      const res = await run.toolCall({ call_id: 'call-1', tool_name: 'list_tasks', parameters: {} }, async (child) => (invoked.push('call-1'), { child_run_id: child, status: 'ok', result: ['t'] }));
      return { ctx, res, run };
    };
    const first = await carry();
    const again = await carry(); // a redelivery after a crash: same run, same steps
    expect({ computed, invoked }).toEqual({ computed: ['context'], invoked: ['call-1'] });
    expect(again.ctx).toEqual(first.ctx);
    expect(again.res).toEqual(first.res);
    await again.run.complete({ output_artifacts: [], result: 'done' });
    const types = (await repo.load('e-resume')).events.map((e) => e.type);
    expect(types).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'StepCompleted', 'ToolCallRequested', 'ToolCallRecorded', 'RunCompleted']);
  });

  it('INV-CP-002: a tool call requested before a crash but not recorded is asked again under the same call id and child run', async () => {
    const run = await load('e-requested');
    await run.open(opening('e-requested'));
    const children: string[] = [];
    await expect(run.toolCall({ call_id: 'call-1', tool_name: 't', parameters: {} }, async (child) => {
      children.push(child);
      throw new Error('crash before the outcome');
    })).rejects.toThrow('crash');
    const resumed = await load('e-requested');
    const res = await resumed.toolCall({ call_id: 'call-1', tool_name: 't', parameters: {} }, async (child) => (children.push(child), { child_run_id: child, status: 'ok', result: 1 }));
    expect(res.status).toBe('ok');
    expect(new Set(children).size).toBe(1);
    expect(resumed.state.tool_calls).toMatchObject([{ call_id: 'call-1', sequence: 1, status: 'ok' }]);
  });

  it('INV-CP-002: a with-next checkpoint goes out in the run\'s next append and is restored from it; one never appended is computed again', async () => {
    const computed: string[] = [];
    const carry = async (then: (run: RunEngine) => Promise<unknown>) => {
      const run = await load('e-with-next');
      await run.open(opening('e-with-next'));
      const ctx = await run.step('context', 0, async () => (computed.push('context'), { h: computed.length }), 'with-next');
      await then(run);
      return { ctx, run };
    };
    // First carrier: computed, then it stops (a crash) before any other append: nothing of the step is in the log.
    await carry(async () => undefined);
    expect((await repo.load('e-with-next')).events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted']);
    // Second: computed again, and its checkpoint goes out with the tool call's request, before the call is made.
    const second = await carry((run) => run.toolCall({ call_id: 'call-1', tool_name: 't', parameters: {} }, async (child) => {
      expect((await repo.load('e-with-next')).events.map((e) => e.type).slice(3)).toEqual(['StepCompleted', 'ToolCallRequested']);
      return { child_run_id: child, status: 'ok', result: 1 };
    }));
    // Third: restored from the log, not computed.
    const third = await carry(async () => undefined);
    expect(computed).toEqual(['context', 'context']);
    expect(third.ctx).toEqual(second.ctx);
    expect(second.ctx).toEqual({ h: 2 });
  });

  it('INV-CP-002: two carriers whose with-next steps computed different outputs: the second appends nothing and calls nothing (ConcurrencyError; it resumes from the log)', async () => {
    const a = await load('e-with-next-race');
    await a.open(opening('e-with-next-race'));
    const b = await load('e-with-next-race');
    await a.step('classify', 0, async () => ({ intent: 'ADD_TASK' }), 'with-next');
    await b.step('classify', 0, async () => ({ intent: 'LIST_TASKS' }), 'with-next');
    const invoked: string[] = [];
    const call = (run: RunEngine, tool: string) => run.toolCall({ call_id: 'call-1', tool_name: tool, parameters: {} }, async (child) => (invoked.push(tool), { child_run_id: child, status: 'ok', result: tool }));
    await call(a, 'add_task');
    await expect(call(b, 'list_tasks')).rejects.toBeInstanceOf(ConcurrencyError);
    expect(invoked).toEqual(['add_task']);
    const { events, state } = await repo.load('e-with-next-race');
    expect(events.map((e) => e.type).slice(3)).toEqual(['StepCompleted', 'ToolCallRequested', 'ToolCallRecorded']);
    expect(state.checkpoint?.stepOutputs).toEqual({ classify: { intent: 'ADD_TASK' } });
    // Resumed from the log, the second carrier goes on with what the log holds.
    const resumed = await load('e-with-next-race');
    expect(await resumed.step('classify', 0, async () => ({ intent: 'LIST_TASKS' }), 'with-next')).toEqual({ intent: 'ADD_TASK' });
  });

  it('rl.runs.cancel: a recorded cancel request stops the carrier at its next check and ends the run cancelled', async () => {
    const run = await load('e-cancel');
    await run.open(opening('e-cancel'));
    const operator = await load('e-cancel');
    await operator.session.decide({ type: 'RequestCancel', data: { reason: 'stop', requested_by: 'op' } }, 'cancel-requested');
    await expect(run.checkCancel()).rejects.toBeInstanceOf(CancelRequested);
    expect(await (await load('e-cancel')).cancelIfRequested()).toBe(true);
    expect((await repo.load('e-cancel')).state.status).toBe('cancelled');
  });

  describe('One commit per decision: deferred (with-next) records go out in the run\'s next append', () => {
    const commits = async (runId: string) => {
      const events = (await repo.load(runId)).events;
      return [...new Set(events.map((e) => e.seq))].map((seq) => events.filter((e) => e.seq === seq).map((e) => e.type));
    };

    it('a run opened with-next is opened, checkpointed and asks for its first effect in one commit; the effect\'s outcome goes out with the close', async () => {
      const run = RunEngine.fresh(repo, { run_id: 'e-commit', root_run_id: 'e-commit' });
      expect(await run.open(opening('e-commit'), 'with-next')).toBe(true);
      expect(run.state.created_at).toBeTruthy(); // the opening's time is decided with it, and is the commit's
      await run.step('context', 0, async () => ({ h: 1 }), 'with-next');
      expect(await repo.load('e-commit')).toMatchObject({ version: 0 }); // nothing appended yet
      await run.toolCall({ call_id: 'call-1', tool_name: 't', parameters: {} }, async (child) => ({ child_run_id: child, status: 'ok', result: 1 }), { record: 'with-next' });
      expect(run.state.tool_calls).toMatchObject([{ call_id: 'call-1', status: 'ok' }]); // folded before it is appended
      await run.complete({ output_artifacts: [], result: 'done' });
      expect(await commits('e-commit')).toEqual([
        ['RunCreated', 'AuthzDecided', 'RunStarted', 'StepCompleted', 'ToolCallRequested'],
        ['ToolCallRecorded', 'RunCompleted'],
      ]);
      // What the carrier folded is what the log folds (each deferred event stamped with the time it was decided).
      const stored = await repo.load('e-commit');
      expect(stored.state).toEqual(run.state);
      const at = (type: string) => Date.parse(stored.events.find((e) => e.type === type)!.metadata.recorded_at);
      expect(at('RunCreated')).toBeLessThanOrEqual(at('ToolCallRequested'));
      expect(at('ToolCallRecorded')).toBeLessThanOrEqual(at('RunCompleted'));
    });

    it('a tool outcome deferred and lost in a crash is asked again under the same call id and child run, and recorded once', async () => {
      const children: string[] = [];
      const first = RunEngine.fresh(repo, { run_id: 'e-lost', root_run_id: 'e-lost' });
      await first.open(opening('e-lost'), 'with-next');
      await first.toolCall({ call_id: 'call-1', tool_name: 't', parameters: {} }, async (child) => (children.push(child), { child_run_id: child, status: 'ok', result: 1 }), { record: 'with-next' });
      // The carrier dies here: its recorded outcome never reached the log.
      const resumed = await load('e-lost');
      expect(resumed.state.tool_calls).toMatchObject([{ call_id: 'call-1', status: 'requested' }]);
      await resumed.toolCall({ call_id: 'call-1', tool_name: 't', parameters: {} }, async (child) => (children.push(child), { child_run_id: child, status: 'ok', result: 1 }), { record: 'with-next' });
      await resumed.complete({ output_artifacts: [], result: 'done' });
      expect(new Set(children).size).toBe(1);
      expect((await repo.load('e-lost')).events.filter((e) => e.type === 'ToolCallRecorded')).toHaveLength(1);
    });

    it('a fresh engine for a run that exists after all conflicts at its first append and appends nothing', async () => {
      const existing = await load('e-exists');
      await existing.open(opening('e-exists'));
      const fresh = RunEngine.fresh(repo, { run_id: 'e-exists', root_run_id: 'e-exists' });
      await fresh.open(opening('e-exists'), 'with-next');
      await expect(fresh.toolCall({ call_id: 'call-1', tool_name: 't', parameters: {} }, async () => {
        throw new Error('no effect may run');
      })).rejects.toBeInstanceOf(ConcurrencyError);
      expect((await repo.load('e-exists')).events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted']);
    });

    it('carryNew: a run that exists after all is carried again from the log, its recorded call answered, not repeated', async () => {
      const invoked: string[] = [];
      const carry = async (run: RunEngine) => {
        if (!(await run.open(opening('e-carry'), 'with-next'))) return;
        await run.toolCall({ call_id: 'call-1', tool_name: 't', parameters: {} }, async (child) => (invoked.push(child), { child_run_id: child, status: 'ok', result: 1 }));
        await run.complete({ output_artifacts: [], result: 'done' });
      };
      await RunEngine.carryNew(repo, { run_id: 'e-carry', root_run_id: 'e-carry' }, carry);
      await RunEngine.carryNew(repo, { run_id: 'e-carry', root_run_id: 'e-carry' }, carry); // a redelivery
      expect(invoked).toHaveLength(1);
      expect((await repo.load('e-carry')).state.status).toBe('completed');
    });

    it('a denied opening is recorded at once, whatever its timing', async () => {
      const run = RunEngine.fresh(repo, { run_id: 'e-denied', root_run_id: 'e-denied' });
      const denied = { ...opening('e-denied'), authz: { decision: 'deny' as const, code: 'ROLE.UNKNOWN', reason: 'no', policy_versions: versions }, denial: { error_code: 'ROLE.UNKNOWN', message: 'no', retryable: false } };
      expect(await run.open(denied, 'with-next')).toBe(false);
      expect(await commits('e-denied')).toEqual([['RunCreated', 'AuthzDecided', 'RunDenied']]);
    });
  });

  describe('Parallel steps as an engine feature (contract 004 INV-PE-001, INV-PE-003, INV-CP-002)', () => {
    const steps = [
      { id: 'read', name: 'read' },
      { id: 'left', name: 'left', parallel: true },
      { id: 'right', name: 'right', parallel: true },
      { id: 'join', name: 'join', dependsOn: ['left', 'right'] },
    ];

    it('INV-PE-001 + INV-CP-002: a parallel group runs side by side, every step is checkpointed on the run, and a carrier picked up again after a crash in the group restores what was recorded and runs only the rest', async () => {
      const ran: string[] = [];
      let crashRight = true;
      let bothStarted: () => void = () => undefined;
      const started = new Promise<void>((resolve) => (bothStarted = resolve));
      const inGroup = new Set<string>();
      const runStep = async (step: { id: string }) => {
        ran.push(step.id);
        if (step.id === 'left' || step.id === 'right') {
          inGroup.add(step.id);
          if (inGroup.size === 2) bothStarted();
          await started; // both group steps are in flight at once
          if (step.id === 'right' && crashRight) throw new Error('the process died mid-step');
        }
        return { of: step.id };
      };
      const first = await load('e-workflow');
      await first.open(opening('e-workflow'));
      const crashed = await first.workflow(steps, runStep, { maxConcurrency: 2, failureStrategy: 'failFast' });
      expect(crashed.status).toBe('failed');
      crashRight = false;
      const resumed = await load('e-workflow');
      const result = await resumed.workflow(steps, runStep, { maxConcurrency: 2, failureStrategy: 'failFast' });
      expect(result.status).toBe('completed');
      expect(result.status !== 'rejected' && [...result.restored].sort()).toEqual(['left', 'read']);
      expect(ran).toEqual(['read', 'left', 'right', 'right', 'join']);
      const recorded = (await repo.load('e-workflow')).events.filter((e) => e.type === 'StepCompleted').map((e) => (e.data as { step_id: string }).step_id);
      expect(recorded).toEqual(['read', 'left', 'right', 'join']);
    });

    it('Issue 25 fork: steps restored from another run\'s checkpoint are neither run nor recorded on the fork; a crash after the fork\'s own first step resumes without repeating a step', async () => {
      // The source checkpointed read and left, then ended (right failed).
      const source = await load('e-fork-source');
      await source.open(opening('e-fork-source'));
      await source.workflow(steps, async (step) => {
        if (step.id === 'right') throw new Error('right failed');
        return { of: step.id, run: 'source' };
      }, { maxConcurrency: 1, failureStrategy: 'failFast' });
      const restored = source.state.checkpoint;
      expect(Object.keys(restored?.stepOutputs ?? {})).toEqual(['read', 'left']);

      const ran: string[] = [];
      let crashJoin = true;
      const runStep = async (step: { id: string }, ctx: { outputs: Readonly<Record<string, unknown>> }) => {
        ran.push(step.id);
        if (step.id === 'join' && crashJoin) throw new Error('the process died mid-step');
        return { of: step.id, run: 'fork', saw: Object.keys(ctx.outputs).sort() };
      };
      const fork = await load('e-fork');
      await fork.open(opening('e-fork'));
      expect((await fork.workflow(steps, runStep, { maxConcurrency: 1, failureStrategy: 'failFast', restored })).status).toBe('failed');
      crashJoin = false;
      const resumed = await load('e-fork');
      const result = await resumed.workflow(steps, runStep, { maxConcurrency: 1, failureStrategy: 'failFast', restored });
      expect(result.status).toBe('completed');
      // read and left were never run on the fork, right ran once, join was computed again only because it crashed.
      expect(ran).toEqual(['right', 'join', 'join']);
      expect(result.status === 'completed' && result.outputs).toMatchObject({ read: { run: 'source' }, left: { run: 'source' }, right: { run: 'fork', saw: ['left', 'read'] } });
      const recorded = (await repo.load('e-fork')).events.filter((e) => e.type === 'StepCompleted').map((e) => (e.data as { step_id: string }).step_id);
      expect(recorded).toEqual(['right', 'join']);
    });

    it('INV-PE-003 rollback: the steps completed before the failure are compensated in reverse order, each a StepCompensated on the run', async () => {
      const run = await load('e-rollback');
      await run.open(opening('e-rollback'));
      const result = await run.workflow(steps, async (step) => {
        if (step.id === 'right') throw new Error('right failed');
        return step.id;
      }, { maxConcurrency: 1, failureStrategy: 'rollback' });
      expect(result.status).toBe('rolledBack');
      const compensated = (await repo.load('e-rollback')).events.filter((e) => e.type === 'StepCompensated').map((e) => (e.data as { step_id: string }).step_id);
      expect(compensated).toEqual(['left', 'read']);
    });

    it('Cancel: a cancel recorded while the run is carried stops its next step before it starts, with CancelRequested as its failure', async () => {
      const run = await load('e-wf-cancel');
      await run.open(opening('e-wf-cancel'));
      await repo.handle('e-wf-cancel', { type: 'RequestCancel', data: { reason: 'operator', requested_by: 'ops' } }, 'cancel-requested');
      const ran: string[] = [];
      const result = await run.workflow(steps, async (step) => (ran.push(step.id), step.id), { maxConcurrency: 1, failureStrategy: 'failFast' });
      expect(ran).toEqual([]);
      expect(result.status === 'failed' && result.failures[0]!.cause).toBeInstanceOf(CancelRequested);
    });
  });
});
