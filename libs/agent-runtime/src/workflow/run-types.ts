import type { Checkpoint, FailureStrategy, WorkflowStep } from './types';

/** What a step sees. Snapshots are frozen: steps communicate only through outputs and patches. */
export interface StepContext {
  readonly step: WorkflowStep;
  readonly stepIndex: number;
  /** Outputs of every step completed when this one started, restored ones included. */
  readonly outputs: Readonly<Record<string, unknown>>;
  readonly context: Readonly<Record<string, unknown>>;
  readonly memorySnapshot: unknown;
  /** True once failFast or rollback has stopped the workflow; long steps may stop early. */
  isCancelled(): boolean;
  /** Merged into the workflow context when (and only if) this step completes. */
  patchContext(patch: Readonly<Record<string, unknown>>): void;
  /** Replaces the memory snapshot when (and only if) this step completes. */
  setMemorySnapshot(snapshot: unknown): void;
}

export interface RunWorkflowOptions {
  readonly steps: readonly WorkflowStep[];
  /** The injected step runner: all effects and all concurrency live behind it. */
  readonly runStep: (step: WorkflowStep, ctx: StepContext) => Promise<unknown>;
  /** Resume point; steps with an output in it are restored, not re-run (INV-CP-002). */
  readonly checkpoint?: Checkpoint | null;
  /**
   * Persists a checkpoint. Called once per completed step, one call at a time, in
   * completion order; a step's dependents start only after it resolved.
   */
  readonly onCheckpoint: (cp: Checkpoint) => Promise<void>;
  /** Upper bound on steps running at once (INV-PE-001); integer >= 1. */
  readonly maxConcurrency: number;
  readonly failureStrategy: FailureStrategy;
  /** Undoes a completed step; required by the `rollback` strategy. */
  readonly compensate?: (step: WorkflowStep, output: unknown, ctx: { readonly stepIndex: number }) => Promise<void>;
  /** Initial context when not resuming (a checkpoint carries its own). */
  readonly context?: Readonly<Record<string, unknown>>;
  /** Initial memory snapshot when not resuming; defaults to null. */
  readonly memorySnapshot?: unknown;
}

export interface StepFailure {
  readonly stepId: string;
  readonly stepIndex: number;
  readonly message: string;
  /** 'step': runStep rejected; 'checkpoint': onCheckpoint rejected; 'compensation': compensate rejected. */
  readonly kind: 'step' | 'checkpoint' | 'compensation';
  readonly cause: unknown;
}

export type WorkflowRejectionCode =
  | 'WORKFLOW.INVALID_OPTIONS'
  | 'WORKFLOW.EMPTY_STEP_ID'
  | 'WORKFLOW.DUPLICATE_STEP'
  | 'WORKFLOW.UNKNOWN_DEPENDENCY'
  | 'WORKFLOW.CYCLE'
  | 'CHECKPOINT.INVALID';

/** Nothing ran: the workflow or its options were invalid. */
export interface WorkflowRejected {
  readonly status: 'rejected';
  readonly code: WorkflowRejectionCode;
  readonly message: string;
  readonly errors: readonly string[];
}

export interface WorkflowRan {
  /** completed: no failure. rolledBack: a step failed and every completed step was compensated. failed: anything else. */
  readonly status: 'completed' | 'failed' | 'rolledBack';
  /** Outputs of every completed step, restored ones included. */
  readonly outputs: Readonly<Record<string, unknown>>;
  /** Steps run in this call, in completion order. */
  readonly completed: readonly string[];
  /** Steps restored from the checkpoint, in array order. */
  readonly restored: readonly string[];
  readonly failures: readonly StepFailure[];
  /** Steps never started: stopped by failFast/rollback or missing a failed input. */
  readonly skipped: readonly string[];
  /** Steps compensated by rollback, in the order compensated (reverse completion). */
  readonly compensated: readonly string[];
  readonly checkpoint: Checkpoint | null;
  readonly context: Readonly<Record<string, unknown>>;
  readonly memorySnapshot: unknown;
}

export type WorkflowResult = WorkflowRejected | WorkflowRan;
