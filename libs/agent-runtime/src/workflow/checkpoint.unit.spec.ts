import { checkpointInitial, checkpointToEvent, evolveCheckpoint, validateCheckpoint, type CheckpointEvent } from './checkpoint';
import { runWorkflow } from './run-workflow';
import type { StepContext } from './run-types';
import type { Checkpoint, WorkflowStep } from './types';
import { instantSteps, recordCheckpoints, step } from './workflow-harness.unit-support';

const steps = [step('plan'), step('draft', { dependsOn: ['plan'] }), step('review'), step('publish', { dependsOn: ['draft'] })];

/** A step that also updates the context and the memory, the way an agent step does. */
const writingStep = async (s: WorkflowStep, ctx: StepContext): Promise<unknown> => {
  ctx.patchContext({ [`${s.id}At`]: ctx.stepIndex });
  ctx.setMemorySnapshot({ notes: [...((ctx.memorySnapshot as { notes: string[] } | null)?.notes ?? []), s.id] });
  return { by: s.id, saw: Object.keys(ctx.outputs) };
};

describe('checkpoint completeness', () => {
  it('INV-CP-001: every checkpoint carries stepIndex, completedStepId, all outputs so far, context and memory', async () => {
    const cps = recordCheckpoints();
    await runWorkflow({ steps, runStep: writingStep, ...cps, maxConcurrency: 1, failureStrategy: 'failFast', context: { tenant: 't1' } });
    expect(cps.saved).toHaveLength(4);
    expect(cps.saved[1]).toEqual({
      stepIndex: 1,
      completedStepId: 'draft',
      stepOutputs: { plan: { by: 'plan', saw: [] }, draft: { by: 'draft', saw: ['plan'] } },
      context: { tenant: 't1', planAt: 0, draftAt: 1 },
      memorySnapshot: { notes: ['plan', 'draft'] },
    });
    for (const cp of cps.saved) expect(validateCheckpoint(cp, steps).ok).toBe(true);
  });

  it('INV-CP-001: a checkpoint missing a field, or an input of a completed step, is rejected with the reason', () => {
    const good: Checkpoint = { stepIndex: 1, completedStepId: 'draft', stepOutputs: { plan: 1, draft: 2 }, context: {}, memorySnapshot: null };
    expect(validateCheckpoint(good, steps).ok).toBe(true);

    const { memorySnapshot: _m, ...noMemory } = good;
    const missing = validateCheckpoint(noMemory);
    expect(missing).toMatchObject({ ok: false, code: 'CHECKPOINT.INVALID' });
    expect(!missing.ok && missing.errors).toContain('memorySnapshot is missing');

    const lostInput = validateCheckpoint({ ...good, stepOutputs: { draft: 2 } }, steps);
    expect(!lostInput.ok && lostInput.errors).toContain("step 'draft' completed but its input 'plan' is missing");

    const wrongStep = validateCheckpoint({ ...good, completedStepId: 'review', stepOutputs: { plan: 1, review: 3 } }, steps);
    expect(!wrongStep.ok && wrongStep.message).toContain("stepIndex 1 is step 'draft'");
  });

  it('INV-CP-001: resuming needs nothing but the checkpoint: context and memory come back from it', async () => {
    const first = recordCheckpoints();
    await runWorkflow({ steps: steps.slice(0, 2), runStep: writingStep, ...first, maxConcurrency: 1, failureStrategy: 'failFast', context: { tenant: 't1' } });
    const seen: StepContext[] = [];
    const resumed = await runWorkflow({
      steps,
      runStep: async (s, ctx) => (seen.push(ctx), writingStep(s, ctx)),
      checkpoint: first.saved.at(-1)!,
      ...recordCheckpoints(),
      maxConcurrency: 1,
      failureStrategy: 'failFast',
    });
    expect(seen[0]!.context).toEqual({ tenant: 't1', planAt: 0, draftAt: 1 });
    expect(seen[0]!.memorySnapshot).toEqual({ notes: ['plan', 'draft'] });
    expect(resumed.status === 'completed' && resumed.memorySnapshot).toEqual({ notes: ['plan', 'draft', 'review', 'publish'] });
  });
});

describe('resume position', () => {
  it('INV-CP-002: resume starts at stepIndex + 1 and restores earlier outputs instead of recomputing them', async () => {
    const checkpoint: Checkpoint = {
      stepIndex: 1,
      completedStepId: 'draft',
      stepOutputs: { plan: 'saved-plan', draft: 'saved-draft' },
      context: {},
      memorySnapshot: null,
    };
    const calls: [string, Readonly<Record<string, unknown>>][] = [];
    const result = await runWorkflow({
      steps,
      runStep: async (s, ctx) => (calls.push([s.id, ctx.outputs]), `${s.id}-out`),
      checkpoint,
      ...recordCheckpoints(),
      maxConcurrency: 1,
      failureStrategy: 'failFast',
    });
    expect(calls.map(([id]) => id)).toEqual(['review', 'publish']);
    expect(calls[1]![1]).toMatchObject({ draft: 'saved-draft' });
    expect(result).toMatchObject({
      status: 'completed',
      restored: ['plan', 'draft'],
      completed: ['review', 'publish'],
      outputs: { plan: 'saved-plan', draft: 'saved-draft', review: 'review-out', publish: 'publish-out' },
    });
  });

  it('INV-CP-002: a checkpoint that does not belong to the workflow is refused and nothing runs', async () => {
    const s = instantSteps();
    const result = await runWorkflow({
      steps,
      runStep: s.runStep,
      checkpoint: { stepIndex: 7, completedStepId: 'gone', stepOutputs: { gone: 1 }, context: {}, memorySnapshot: null },
      ...recordCheckpoints(),
      maxConcurrency: 1,
      failureStrategy: 'failFast',
    });
    expect(result).toMatchObject({ status: 'rejected', code: 'CHECKPOINT.INVALID' });
    expect(s.calls).toEqual([]);
  });

  it('INV-CP-002: after a crash, the checkpoint folded from the log resumes exactly where the live run stopped', async () => {
    const log: CheckpointEvent[] = [{ type: 'RunStarted', data: { at: '2026-01-06T10:00:00Z' } }];
    const live = recordCheckpoints();
    // The run "crashes" when review fails; its completions were appended to the log as events.
    await runWorkflow({
      steps,
      runStep: async (s, ctx) => {
        if (s.id === 'review') throw new Error('process died');
        return writingStep(s, ctx);
      },
      onCheckpoint: async (cp) => {
        await live.onCheckpoint(cp);
        log.push(checkpointToEvent(cp), { type: 'PolicyDecided', data: {} });
      },
      maxConcurrency: 1,
      failureStrategy: 'failFast',
    });
    const folded = log.reduce(evolveCheckpoint, checkpointInitial());
    expect(folded).toEqual(live.saved.at(-1));

    const s = instantSteps();
    const resumed = await runWorkflow({ steps, runStep: s.runStep, checkpoint: folded, ...recordCheckpoints(), maxConcurrency: 1, failureStrategy: 'failFast' });
    expect(s.calls).toEqual(['review', 'publish']);
    expect(resumed.status).toBe('completed');
  });
});

describe('evolveCheckpoint', () => {
  it('INV-CP-001: a step that returns nothing is recorded as null, so the replayed checkpoint equals the live one', async () => {
    const live = recordCheckpoints();
    await runWorkflow({ steps: [step('notify'), step('log')], runStep: async () => undefined, ...live, maxConcurrency: 1, failureStrategy: 'failFast' });
    const last = live.saved.at(-1)!;
    expect(last.stepOutputs).toEqual({ notify: null, log: null });
    const replayed = live.saved.map(checkpointToEvent).reduce(evolveCheckpoint, checkpointInitial());
    expect(replayed).toStrictEqual({ ...last, stepOutputs: { ...last.stepOutputs }, context: { ...last.context } });
  });

  it('INV-CP-001: ignores other events and malformed StepCompleted data instead of throwing on a recorded fact', () => {
    const cp = evolveCheckpoint(null, { type: 'StepCompleted', data: { step_index: 0, step_id: 'plan', output: 'p' } });
    expect(cp).toEqual({ stepIndex: 0, completedStepId: 'plan', stepOutputs: { plan: 'p' }, context: {}, memorySnapshot: null });
    expect(evolveCheckpoint(cp, { type: 'StepCompleted', data: { step_index: -1, step_id: 'x' } })).toBe(cp);
    expect(evolveCheckpoint(cp, { type: 'StepCompleted', data: 'garbage' })).toBe(cp);
    expect(evolveCheckpoint(cp, { type: 'StepStarted', data: { step_index: 1, step_id: 'draft' } })).toBe(cp);
  });
});

describe('resume after a failure under continueOnError (Issue 8)', () => {
  const chain = [step('a'), step('b'), step('c'), step('d', { dependsOn: ['b'] })];

  it('INV-CP-002: resume starts after the checkpoint even when an earlier step failed under continueOnError; the failed step is not run again', async () => {
    const first = recordCheckpoints();
    const crashed = instantSteps(['b']);
    // c completes after b failed, so its checkpoint records the failure; the run "crashes" before the end.
    await runWorkflow({ steps: chain.slice(0, 3), runStep: crashed.runStep, ...first, maxConcurrency: 1, failureStrategy: 'continueOnError' });
    const cp = first.saved.at(-1)!;
    expect(cp).toMatchObject({ completedStepId: 'c', failedStepIds: ['b'] });
    expect(validateCheckpoint(cp, chain).ok).toBe(true);

    const resumed = instantSteps();
    const result = await runWorkflow({ steps: chain, runStep: resumed.runStep, checkpoint: cp, ...recordCheckpoints(), maxConcurrency: 1, failureStrategy: 'continueOnError' });
    expect(resumed.calls).toEqual([]);
    expect(result).toMatchObject({ status: 'failed', restored: ['a', 'c'], skipped: ['d'] });
  });

  it('INV-CP-002: the failed steps survive the StepCompleted round trip through the log', async () => {
    const cps = recordCheckpoints();
    await runWorkflow({ steps: chain, runStep: instantSteps(['b']).runStep, ...cps, maxConcurrency: 1, failureStrategy: 'continueOnError' });
    const folded = cps.saved.map(checkpointToEvent).reduce<Checkpoint | null>((s, e) => evolveCheckpoint(s, e), checkpointInitial());
    expect(folded).toEqual(cps.saved.at(-1));
    expect(validateCheckpoint({ ...folded!, failedStepIds: ['a'] }, chain).ok).toBe(false);
  });
});
