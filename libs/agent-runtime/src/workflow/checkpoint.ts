import { isPlainObject } from '../shared/freeze';
import { err, ok, type Result } from '../shared/result';
import { dataDependencyClosure, planWorkflow } from './plan';
import type { Checkpoint, WorkflowStep } from './types';

export type CheckpointErrorCode = 'CHECKPOINT.INVALID';

/**
 * INV-CP-001: a checkpoint is complete when resuming needs nothing else. Checks
 * the five fields; with `steps`, also that it belongs to this workflow: the
 * recorded step is `steps[stepIndex]`, every output belongs to a known step, and
 * every completed step's inputs (its dependsOn closure) are among the outputs.
 * Order-only predecessors may be missing: under continueOnError a failed step
 * does not stop later ones; it is listed in failedStepIds and not run again on resume.
 */
export function validateCheckpoint(
  candidate: unknown,
  steps?: readonly WorkflowStep[],
): Result<Checkpoint, CheckpointErrorCode> {
  const errors: string[] = [];
  if (!isPlainObject(candidate)) {
    return err('CHECKPOINT.INVALID', 'checkpoint must be an object', ['checkpoint must be an object']);
  }
  const cp = candidate as Partial<Record<keyof Checkpoint, unknown>>;
  if (!Number.isInteger(cp.stepIndex) || (cp.stepIndex as number) < 0) {
    errors.push('stepIndex must be an integer >= 0');
  }
  if (typeof cp.completedStepId !== 'string' || cp.completedStepId.length === 0) {
    errors.push('completedStepId must be a non-empty string');
  }
  if (!isPlainObject(cp.stepOutputs)) errors.push('stepOutputs must be an object keyed by step id');
  if (!isPlainObject(cp.context)) errors.push('context must be an object');
  // null is a legitimate "no memory yet"; undefined means the field was forgotten.
  if (!('memorySnapshot' in cp) || cp.memorySnapshot === undefined) errors.push('memorySnapshot is missing');
  if (cp.failedStepIds !== undefined && (!Array.isArray(cp.failedStepIds) || !cp.failedStepIds.every((id) => typeof id === 'string' && id.length > 0))) {
    errors.push('failedStepIds must be a list of step ids');
  }
  if (errors.length === 0) {
    const outputs = cp.stepOutputs as Record<string, unknown>;
    if (!Object.hasOwn(outputs, cp.completedStepId as string)) {
      errors.push(`stepOutputs has no output for completedStepId '${String(cp.completedStepId)}'`);
    }
    if (steps !== undefined) errors.push(...checkAgainstSteps(cp as Checkpoint, steps));
  }
  if (errors.length > 0) return err('CHECKPOINT.INVALID', `invalid checkpoint: ${errors.join('; ')}`, errors);
  return ok(cp as Checkpoint);
}

function checkAgainstSteps(cp: Checkpoint, steps: readonly WorkflowStep[]): string[] {
  const plan = planWorkflow(steps);
  if (!plan.ok) return [plan.message];
  const errors: string[] = [];
  const step = steps[cp.stepIndex];
  if (step === undefined) errors.push(`stepIndex ${cp.stepIndex} is outside the workflow (${steps.length} steps)`);
  else if (step.id !== cp.completedStepId) {
    errors.push(`stepIndex ${cp.stepIndex} is step '${step.id}', not completedStepId '${cp.completedStepId}'`);
  }
  for (const id of cp.failedStepIds ?? []) {
    if (!plan.value.indexOf.has(id)) errors.push(`failedStepIds names unknown step '${id}'`);
    else if (Object.hasOwn(cp.stepOutputs, id)) errors.push(`step '${id}' is both completed and failed`);
  }
  for (const id of Object.keys(cp.stepOutputs)) {
    const i = plan.value.indexOf.get(id);
    if (i === undefined) {
      errors.push(`stepOutputs has an output for unknown step '${id}'`);
      continue;
    }
    for (const d of dataDependencyClosure(plan.value, i)) {
      const depId = steps[d]!.id;
      if (!Object.hasOwn(cp.stepOutputs, depId)) errors.push(`step '${id}' completed but its input '${depId}' is missing`);
    }
  }
  return errors;
}

/** The event that records one step's completion in the run's log. */
export interface StepCompletedEvent {
  readonly type: 'StepCompleted';
  readonly data: {
    readonly step_index: number;
    readonly step_id: string;
    readonly output: unknown;
    readonly context?: Record<string, unknown>;
    readonly memory_snapshot?: unknown;
    /** Every step failed so far under continueOnError (cumulative, so the last event is enough). */
    readonly failed_step_ids?: readonly string[];
  };
}

export type CheckpointEvent = StepCompletedEvent | { readonly type: string; readonly data?: unknown };

/** Fold seed: no step has completed. */
export function checkpointInitial(): Checkpoint | null {
  return null;
}

/**
 * Pure fold: the checkpoint is a projection of the run's events. Folding the
 * events produced by `checkpointToEvent` for each checkpoint the runner emitted
 * yields exactly the runner's last checkpoint. Other event types pass through;
 * a malformed StepCompleted is ignored rather than thrown on, because a
 * projection must not fail on a recorded fact (the step will simply re-run).
 */
export function evolveCheckpoint(state: Checkpoint | null, event: CheckpointEvent): Checkpoint | null {
  if (event.type !== 'StepCompleted' || !isPlainObject(event.data)) return state;
  const data = event.data as Partial<StepCompletedEvent['data']>;
  if (!Number.isInteger(data.step_index) || (data.step_index as number) < 0) return state;
  if (typeof data.step_id !== 'string' || data.step_id.length === 0) return state;
  return {
    stepIndex: data.step_index as number,
    completedStepId: data.step_id,
    stepOutputs: { ...(state?.stepOutputs ?? {}), [data.step_id]: data.output ?? null },
    context: isPlainObject(data.context) ? data.context : (state?.context ?? {}),
    memorySnapshot: data.memory_snapshot !== undefined ? data.memory_snapshot : (state?.memorySnapshot ?? null),
    ...failedOf(data.failed_step_ids, state),
  };
}

function failedOf(recorded: unknown, state: Checkpoint | null): { failedStepIds?: readonly string[] } {
  if (Array.isArray(recorded) && recorded.every((id) => typeof id === 'string')) return recorded.length ? { failedStepIds: [...(recorded as string[])] } : {};
  return state?.failedStepIds ? { failedStepIds: state.failedStepIds } : {};
}

/** The StepCompleted event that records `cp` (what `onCheckpoint` should append). */
export function checkpointToEvent(cp: Checkpoint): StepCompletedEvent {
  return {
    type: 'StepCompleted',
    data: {
      step_index: cp.stepIndex,
      step_id: cp.completedStepId,
      output: cp.stepOutputs[cp.completedStepId],
      context: { ...cp.context },
      memory_snapshot: cp.memorySnapshot,
      ...(cp.failedStepIds?.length ? { failed_step_ids: [...cp.failedStepIds] } : {}),
    },
  };
}
