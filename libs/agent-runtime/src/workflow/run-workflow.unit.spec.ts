import { runWorkflow } from './run-workflow';
import type { WorkflowRan, WorkflowResult } from './run-types';
import { controlledSteps, instantSteps, recordCheckpoints, step } from './workflow-harness.unit-support';

/** Lets every pending promise callback run, so the scheduler reacts to what the test just did. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const ran = (r: WorkflowResult): WorkflowRan => {
  if (r.status === 'rejected') throw new Error(`unexpected rejection: ${r.message}`);
  return r;
};

describe('runWorkflow: order and concurrency', () => {
  it('INV-AGT-003: steps run one at a time in array order, even when concurrency is allowed', async () => {
    const steps = [step('zeta'), step('alpha'), step('mid'), step('beta')];
    const c = controlledSteps(flush);
    const done = runWorkflow({ steps, runStep: c.runStep, ...recordCheckpoints(), maxConcurrency: 4, failureStrategy: 'failFast' });
    await flush();
    expect(c.started).toEqual(['zeta']);
    await c.finish('zeta');
    expect(c.started).toEqual(['zeta', 'alpha']);
    await c.finish('alpha');
    await c.finish('mid');
    await c.finish('beta');
    const result = ran(await done);
    expect(c.started).toEqual(['zeta', 'alpha', 'mid', 'beta']);
    expect(c.maxActive()).toBe(1);
    expect(result.status).toBe('completed');
    expect(result.completed).toEqual(['zeta', 'alpha', 'mid', 'beta']);
  });

  it('INV-AGT-003: a parallel group waits for the sequential step before it and blocks the one after it', async () => {
    const steps = [step('setup'), step('p1', { parallel: true }), step('p2', { parallel: true }), step('report')];
    const c = controlledSteps(flush);
    const done = runWorkflow({ steps, runStep: c.runStep, ...recordCheckpoints(), maxConcurrency: 4, failureStrategy: 'failFast' });
    await flush();
    expect(c.started).toEqual(['setup']);
    await c.finish('setup');
    expect(c.started).toEqual(['setup', 'p1', 'p2']);
    await c.finish('p2');
    expect(c.started).not.toContain('report');
    await c.finish('p1');
    expect(c.started).toEqual(['setup', 'p1', 'p2', 'report']);
    await c.finish('report');
    expect(ran(await done).status).toBe('completed');
  });

  it('INV-PE-001: independent parallel steps run concurrently but never more than maxConcurrency at once', async () => {
    const steps = ['a', 'b', 'c', 'd', 'e'].map((id) => step(id, { parallel: true }));
    const c = controlledSteps(flush);
    const done = runWorkflow({ steps, runStep: c.runStep, ...recordCheckpoints(), maxConcurrency: 2, failureStrategy: 'failFast' });
    await flush();
    expect(c.started).toEqual(['a', 'b']);
    await c.finish('b');
    expect(c.started).toEqual(['a', 'b', 'c']);
    await c.finish('a');
    await c.finish('c');
    await c.finish('d');
    await c.finish('e');
    const result = ran(await done);
    expect(c.maxActive()).toBe(2);
    expect(result.completed).toEqual(['b', 'a', 'c', 'd', 'e']);
  });

  it('INV-PE-001: maxConcurrency must be a positive integer; nothing runs otherwise', async () => {
    const s = instantSteps();
    const result = await runWorkflow({ steps: [step('a')], runStep: s.runStep, ...recordCheckpoints(), maxConcurrency: 0, failureStrategy: 'failFast' });
    expect(result).toMatchObject({ status: 'rejected', code: 'WORKFLOW.INVALID_OPTIONS' });
    expect(s.calls).toEqual([]);
  });
});

describe('runWorkflow: dependencies', () => {
  it('INV-PE-002: a step starts only after all its dependencies completed, and receives their outputs', async () => {
    const steps = [
      step('fetch', { parallel: true }),
      step('left', { parallel: true, dependsOn: ['fetch'] }),
      step('right', { parallel: true, dependsOn: ['fetch'] }),
      step('merge', { parallel: true, dependsOn: ['left', 'right'] }),
    ];
    const c = controlledSteps(flush);
    const done = runWorkflow({ steps, runStep: c.runStep, ...recordCheckpoints(), maxConcurrency: 4, failureStrategy: 'failFast' });
    await flush();
    expect(c.started).toEqual(['fetch']);
    await c.finish('fetch', { rows: 3 });
    expect(c.started).toEqual(['fetch', 'left', 'right']);
    expect(c.ctx('left').outputs).toEqual({ fetch: { rows: 3 } });
    await c.finish('left', 'L');
    expect(c.started).not.toContain('merge');
    await c.finish('right', 'R');
    expect(c.ctx('merge').outputs).toMatchObject({ left: 'L', right: 'R' });
    await c.finish('merge');
    expect(ran(await done).status).toBe('completed');
  });

  it('INV-PE-002: circular dependencies are rejected before any step runs', async () => {
    const s = instantSteps();
    const steps = [
      step('a', { parallel: true, dependsOn: ['c'] }),
      step('b', { parallel: true, dependsOn: ['a'] }),
      step('c', { parallel: true, dependsOn: ['b'] }),
      step('free', { parallel: true }),
    ];
    const result = await runWorkflow({ steps, runStep: s.runStep, ...recordCheckpoints(), maxConcurrency: 2, failureStrategy: 'continueOnError' });
    expect(result).toMatchObject({ status: 'rejected', code: 'WORKFLOW.CYCLE' });
    expect(result.status === 'rejected' && result.message).toContain('a, b, c');
    expect(s.calls).toEqual([]);
  });

  it('INV-PE-002: a sequential step depending on a later step is a cycle against array order, and unknown dependencies are rejected', async () => {
    const s = instantSteps();
    const base = { runStep: s.runStep, ...recordCheckpoints(), maxConcurrency: 1, failureStrategy: 'failFast' as const };
    const forward = await runWorkflow({ ...base, steps: [step('a', { dependsOn: ['b'] }), step('b')] });
    expect(forward).toMatchObject({ status: 'rejected', code: 'WORKFLOW.CYCLE' });
    const unknown = await runWorkflow({ ...base, steps: [step('a', { dependsOn: ['ghost'] })] });
    expect(unknown).toMatchObject({ status: 'rejected', code: 'WORKFLOW.UNKNOWN_DEPENDENCY' });
    expect(s.calls).toEqual([]);
  });
});
