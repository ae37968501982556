import { runWorkflow } from './run-workflow';
import type { WorkflowRan, WorkflowResult } from './run-types';
import { controlledSteps, instantSteps, recordCheckpoints, step } from './workflow-harness.unit-support';

/** Lets every pending promise callback run, so the scheduler reacts to what the test just did. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const ran = (r: WorkflowResult): WorkflowRan => {
  if (r.status === 'rejected') throw new Error(`unexpected rejection: ${r.message}`);
  return r;
};

describe('runWorkflow: failure strategies', () => {
  it('INV-PE-003: failFast starts nothing after the first failure; steps already running still finish and are recorded', async () => {
    const steps = ['a', 'b', 'c', 'd'].map((id) => step(id, { parallel: true }));
    const c = controlledSteps(flush);
    const cps = recordCheckpoints();
    const done = runWorkflow({ steps, runStep: c.runStep, ...cps, maxConcurrency: 2, failureStrategy: 'failFast' });
    await flush();
    await c.fail('a');
    expect(c.started).toEqual(['a', 'b']);
    expect(c.ctx('b').isCancelled()).toBe(true);
    await c.finish('b');
    const result = ran(await done);
    expect(result.status).toBe('failed');
    expect(result.failures.map((f) => [f.stepId, f.message])).toEqual([['a', 'a broke']]);
    expect(result.completed).toEqual(['b']);
    expect(result.skipped).toEqual(['c', 'd']);
    expect(cps.saved.map((cp) => cp.completedStepId)).toEqual(['b']);
  });

  it('INV-PE-003: continueOnError runs everything that does not need a failed output and aggregates all errors', async () => {
    const steps = [step('a'), step('b'), step('needs-b', { dependsOn: ['b'] }), step('d'), step('e')];
    const s = instantSteps(['b', 'd']);
    const result = ran(await runWorkflow({ steps, runStep: s.runStep, ...recordCheckpoints(), maxConcurrency: 1, failureStrategy: 'continueOnError' }));
    expect(s.calls).toEqual(['a', 'b', 'd', 'e']);
    expect(result.status).toBe('failed');
    expect(result.failures.map((f) => f.stepId)).toEqual(['b', 'd']);
    expect(result.skipped).toEqual(['needs-b']);
    expect(result.outputs).toEqual({ a: 'a-out', e: 'e-out' });
  });

  it('INV-PE-003: rollback compensates completed steps in reverse completion order, and runs nothing more', async () => {
    const steps = [step('reserve'), step('charge'), step('ship'), step('notify')];
    const s = instantSteps(['ship']);
    const undone: [string, unknown][] = [];
    const result = ran(
      await runWorkflow({
        steps,
        runStep: s.runStep,
        ...recordCheckpoints(),
        maxConcurrency: 1,
        failureStrategy: 'rollback',
        compensate: async (st, output) => void undone.push([st.id, output]),
      }),
    );
    expect(undone).toEqual([['charge', 'charge-out'], ['reserve', 'reserve-out']]);
    expect(result.status).toBe('rolledBack');
    expect(result.compensated).toEqual(['charge', 'reserve']);
    expect(result.skipped).toEqual(['notify']);
    expect(s.calls).not.toContain('notify');
  });

  it('INV-PE-003: a failed compensation is reported and the remaining steps are still compensated', async () => {
    const steps = [step('a'), step('b'), step('c')];
    const s = instantSteps(['c']);
    const result = ran(
      await runWorkflow({
        steps,
        runStep: s.runStep,
        ...recordCheckpoints(),
        maxConcurrency: 1,
        failureStrategy: 'rollback',
        compensate: async (st) => {
          if (st.id === 'b') throw new Error('cannot undo b');
        },
      }),
    );
    expect(result.status).toBe('failed');
    expect(result.compensated).toEqual(['a']);
    expect(result.failures.map((f) => [f.stepId, f.kind])).toEqual([['c', 'step'], ['b', 'compensation']]);
  });

  it('INV-PE-003: rollback without a compensate function is refused up front', async () => {
    const s = instantSteps();
    const result = await runWorkflow({ steps: [step('a')], runStep: s.runStep, ...recordCheckpoints(), maxConcurrency: 1, failureStrategy: 'rollback' });
    expect(result).toMatchObject({ status: 'rejected', code: 'WORKFLOW.INVALID_OPTIONS' });
    expect(s.calls).toEqual([]);
  });

  it('INV-PE-003: when a checkpoint cannot be saved the workflow stops whatever the strategy', async () => {
    const s = instantSteps();
    const result = ran(
      await runWorkflow({
        steps: [step('a'), step('b')],
        runStep: s.runStep,
        onCheckpoint: async () => {
          throw new Error('log unavailable');
        },
        maxConcurrency: 1,
        failureStrategy: 'continueOnError',
      }),
    );
    expect(s.calls).toEqual(['a']);
    expect(result.status).toBe('failed');
    expect(result.failures[0]).toMatchObject({ stepId: 'a', kind: 'checkpoint' });
    expect(result.checkpoint).toBeNull();
  });
});
