import { validateCheckpoint } from './checkpoint';
import { planWorkflow } from './plan';
import type { RunWorkflowOptions, WorkflowRejected, WorkflowResult } from './run-types';
import { Scheduler } from './scheduler';

const STRATEGIES = ['failFast', 'continueOnError', 'rollback'] as const;

/**
 * Runs a workflow. Non-parallel steps run one after another in array order
 * (INV-AGT-003); runs of `parallel` steps are scheduled by their dependsOn DAG
 * (INV-PE-002), at most `maxConcurrency` at a time (INV-PE-001), ready steps
 * started in array order so that runs are reproducible. Failures follow
 * `failureStrategy` (INV-PE-003). Every completed step is checkpointed through
 * `onCheckpoint`; resuming from a checkpoint restores outputs instead of
 * re-running steps (INV-CP-002). Never throws for a failing step: the outcome is data.
 */
export async function runWorkflow(options: RunWorkflowOptions): Promise<WorkflowResult> {
  const optionErrors = checkOptions(options);
  if (optionErrors.length > 0) {
    return reject('WORKFLOW.INVALID_OPTIONS', `invalid workflow options: ${optionErrors.join('; ')}`, optionErrors);
  }
  const plan = planWorkflow(options.steps);
  if (!plan.ok) return reject(plan.code, plan.message, [plan.message]);

  const checkpoint = options.checkpoint ?? null;
  if (checkpoint !== null) {
    const valid = validateCheckpoint(checkpoint, options.steps);
    if (!valid.ok) return reject(valid.code, valid.message, valid.errors ?? [valid.message]);
  }
  return new Scheduler(plan.value, options, checkpoint).run();
}

function checkOptions(o: RunWorkflowOptions): string[] {
  const errors: string[] = [];
  if (!Number.isInteger(o.maxConcurrency) || o.maxConcurrency < 1) errors.push('maxConcurrency must be an integer >= 1');
  if (!(STRATEGIES as readonly string[]).includes(o.failureStrategy)) {
    errors.push(`failureStrategy must be one of ${STRATEGIES.join(', ')}`);
  }
  if (o.failureStrategy === 'rollback' && o.compensate === undefined) {
    errors.push("failureStrategy 'rollback' needs a compensate function");
  }
  return errors;
}

function reject(code: WorkflowRejected['code'], message: string, errors: readonly string[]): WorkflowRejected {
  return { status: 'rejected', code, message, errors };
}
