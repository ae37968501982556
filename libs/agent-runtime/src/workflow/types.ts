/** One step of an agent workflow, as declared in the agent profile. */
export interface WorkflowStep {
  readonly id: string;
  readonly name: string;
  readonly kind?: string;
  /** Steps whose outputs this step consumes; it waits for them and is skipped if one fails. */
  readonly dependsOn?: readonly string[];
  /**
   * Opt-in concurrency (INV-AGT-003: array order is the default). A run of
   * consecutive `parallel` steps forms a group that starts after every earlier
   * step has settled and must settle before any later step starts; inside the
   * group only `dependsOn` orders steps.
   */
  readonly parallel?: boolean;
}

/** Everything needed to resume a workflow (INV-CP-001). */
export interface Checkpoint {
  /** Array index of the step whose completion this checkpoint records. */
  readonly stepIndex: number;
  /** Id of that step: `steps[stepIndex].id`. */
  readonly completedStepId: string;
  /** Outputs of every completed step so far, restored (never recomputed) on resume. */
  readonly stepOutputs: Readonly<Record<string, unknown>>;
  readonly context: Readonly<Record<string, unknown>>;
  readonly memorySnapshot: unknown;
  /**
   * Steps that failed under continueOnError before this checkpoint. Resume starts after the checkpoint
   * (INV-CP-002), so they are not run again; their dependents stay skipped. Absent when none failed.
   */
  readonly failedStepIds?: readonly string[];
}

export type FailureStrategy = 'failFast' | 'continueOnError' | 'rollback';
