import type { WorkflowPlan } from './plan';
import type { RunWorkflowOptions, StepContext, StepFailure, WorkflowRan } from './run-types';
import type { Checkpoint } from './types';

type StepState = 'pending' | 'running' | 'completed' | 'failed' | 'skipped';

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** One execution of a validated plan. Single use; see `runWorkflow` for the rules. */
export class Scheduler {
  private readonly state: StepState[];
  private readonly outputs: Record<string, unknown>;
  private context: Record<string, unknown>;
  private memorySnapshot: unknown;
  private lastCheckpoint: Checkpoint | null;
  /** Completion order, restored steps first: the reverse is the compensation order. */
  private readonly completionOrder: number[] = [];
  private readonly completedThisRun: string[] = [];
  private readonly restored: string[] = [];
  private readonly failures: StepFailure[] = [];
  /** Steps that failed (this run or before the checkpoint): carried in every later checkpoint. */
  private readonly failedIds: string[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private stopping = false;
  private checkpointBroken = false;
  /** Serialises onCheckpoint calls so the log sees checkpoints in completion order. */
  private checkpointChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly plan: WorkflowPlan,
    private readonly options: RunWorkflowOptions,
    checkpoint: Checkpoint | null,
  ) {
    this.state = plan.steps.map(() => 'pending');
    this.outputs = { ...(checkpoint?.stepOutputs ?? {}) };
    this.context = { ...(checkpoint?.context ?? options.context ?? {}) };
    this.memorySnapshot = checkpoint !== null ? checkpoint.memorySnapshot : (options.memorySnapshot ?? null);
    this.lastCheckpoint = checkpoint;
    for (const [i, step] of plan.steps.entries()) {
      if (Object.hasOwn(this.outputs, step.id)) {
        this.state[i] = 'completed';
        this.completionOrder.push(i);
        this.restored.push(step.id);
      } else if (checkpoint?.failedStepIds?.includes(step.id)) {
        // Failed before the checkpoint: resume starts after it (INV-CP-002), so the failure stands.
        this.state[i] = 'failed';
        this.failedIds.push(step.id);
        this.failures.push({ stepId: step.id, stepIndex: i, message: 'failed before the checkpoint; not run again', kind: 'step', cause: null });
      }
    }
  }

  async run(): Promise<WorkflowRan> {
    // Launch what is ready, then again each time a step settles, until nothing runs (nothing more can start).
    this.launchNext();
    while (this.inFlight.size > 0) {
      await Promise.race(this.inFlight);
      this.launchNext();
    }
    this.state.forEach((s, i) => {
      if (s === 'pending') this.state[i] = 'skipped';
    });
    const compensated = await this.rollbackIfRequired();
    return this.result(compensated);
  }

  private launchNext(): void {
    this.skipStepsMissingInputs();
    if (!this.stopping) this.launchReadySteps();
  }

  private isSettled(i: number): boolean {
    const s = this.state[i];
    return s === 'completed' || s === 'failed' || s === 'skipped';
  }

  /** A step whose input failed or was skipped can never run (continueOnError keeps going around it). */
  private skipStepsMissingInputs(): void {
    for (const i of this.plan.topoOrder) {
      if (this.state[i] !== 'pending') continue;
      if (this.plan.dataDeps[i]!.some((d) => this.state[d] === 'failed' || this.state[d] === 'skipped')) {
        this.state[i] = 'skipped';
      }
    }
  }

  private launchReadySteps(): void {
    for (let i = 0; i < this.state.length && this.inFlight.size < this.options.maxConcurrency; i++) {
      if (this.state[i] !== 'pending') continue;
      const ready =
        this.plan.orderDeps[i]!.every((d) => this.isSettled(d)) &&
        this.plan.dataDeps[i]!.every((d) => this.state[d] === 'completed');
      if (!ready) continue;
      this.state[i] = 'running';
      const task = this.execute(i).finally(() => this.inFlight.delete(task));
      this.inFlight.add(task);
    }
  }

  private async execute(i: number): Promise<void> {
    const step = this.plan.steps[i]!;
    let patch: Record<string, unknown> = {};
    let memory: { value: unknown } | undefined;
    const ctx: StepContext = {
      step,
      stepIndex: i,
      outputs: Object.freeze({ ...this.outputs }),
      context: Object.freeze({ ...this.context }),
      memorySnapshot: this.memorySnapshot,
      isCancelled: () => this.stopping,
      patchContext: (p) => {
        patch = { ...patch, ...p };
      },
      setMemorySnapshot: (value) => {
        memory = { value };
      },
    };

    let output: unknown;
    try {
      output = await this.options.runStep(step, ctx);
    } catch (cause) {
      this.state[i] = 'failed';
      this.failedIds.push(step.id);
      this.failures.push({ stepId: step.id, stepIndex: i, message: messageOf(cause), kind: 'step', cause });
      if (this.options.failureStrategy !== 'continueOnError') this.stopping = true;
      return;
    }

    // Commit output, context patch and memory together, then checkpoint (INV-CP-001).
    // undefined becomes null so that the live checkpoint equals its replayed projection.
    this.outputs[step.id] = output === undefined ? null : output;
    this.context = { ...this.context, ...patch };
    if (memory !== undefined) this.memorySnapshot = memory.value;
    const cp: Checkpoint = Object.freeze({
      stepIndex: i,
      completedStepId: step.id,
      stepOutputs: Object.freeze({ ...this.outputs }),
      context: Object.freeze({ ...this.context }),
      memorySnapshot: this.memorySnapshot,
      ...(this.failedIds.length > 0 ? { failedStepIds: Object.freeze([...this.failedIds]) } : {}),
    });
    try {
      await (this.checkpointChain = this.checkpointChain.then(() => this.options.onCheckpoint(cp)));
    } catch (cause) {
      // The step's effect happened but is not on record: continuing could repeat
      // it after a restart, so stop whatever the strategy and let the caller resume.
      this.state[i] = 'failed';
      delete this.outputs[step.id];
      this.failures.push({ stepId: step.id, stepIndex: i, message: `checkpoint not saved: ${messageOf(cause)}`, kind: 'checkpoint', cause });
      this.stopping = true;
      this.checkpointBroken = true;
      this.checkpointChain = Promise.resolve();
      return;
    }
    this.lastCheckpoint = cp;
    this.state[i] = 'completed';
    this.completionOrder.push(i);
    this.completedThisRun.push(step.id);
  }

  private async rollbackIfRequired(): Promise<string[]> {
    const compensate = this.options.compensate;
    const stepFailed = this.failures.some((f) => f.kind === 'step');
    if (this.options.failureStrategy !== 'rollback' || !stepFailed || this.checkpointBroken || !compensate) return [];
    const compensated: string[] = [];
    // Reverse completion order: a step is undone before the steps it built on.
    for (const i of [...this.completionOrder].reverse()) {
      const step = this.plan.steps[i]!;
      try {
        await compensate(step, this.outputs[step.id], { stepIndex: i });
        compensated.push(step.id);
      } catch (cause) {
        this.failures.push({ stepId: step.id, stepIndex: i, message: messageOf(cause), kind: 'compensation', cause });
      }
    }
    return compensated;
  }

  private result(compensated: string[]): WorkflowRan {
    const ids = (s: StepState) => this.plan.steps.filter((_, i) => this.state[i] === s).map((st) => st.id);
    const rolledBack =
      this.options.failureStrategy === 'rollback' &&
      !this.checkpointBroken &&
      this.failures.some((f) => f.kind === 'step') &&
      !this.failures.some((f) => f.kind === 'compensation');
    return {
      status: this.failures.length === 0 ? 'completed' : rolledBack ? 'rolledBack' : 'failed',
      outputs: { ...this.outputs },
      completed: [...this.completedThisRun],
      restored: [...this.restored],
      failures: [...this.failures],
      skipped: ids('skipped'),
      compensated,
      checkpoint: this.lastCheckpoint,
      context: { ...this.context },
      memorySnapshot: this.memorySnapshot,
    };
  }
}
