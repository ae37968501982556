import { checkpointToEvent, runWorkflow, type Checkpoint, type FailureStrategy, type StepContext, type WorkflowResult, type WorkflowStep } from '@runledger/agent-runtime';
import { ConcurrencyError } from '@runledger/event-log';
import { ERROR_CODES, toWireError } from '@runledger/kernel';
import type { RunCommand } from '../domain/run.decider';
import type { AuthzDecidedData, RunCreatedData, RunError, RunEvent, ToolCallStatus } from '../domain/run-events';
import { isTerminal, RunState } from '../domain/run-state';
import { childRunId } from '../domain/run-events';
import type { RunIdentity, RunRepository } from '../infra/run-repository';
import type { RunSession } from '../infra/run-session';

/** Thrown at a cancel check when the run has a RunCancelRequested: its carrier records RunCancelled instead of going on. */
export class CancelRequested extends Error {
  constructor(readonly reason: string) {
    super(`cancel requested: ${reason}`);
    this.name = 'CancelRequested';
  }
}

/** A tool call's outcome as the run records it (ToolCallRecorded). */
export interface ToolCallResult {
  child_run_id: string;
  status: ToolCallStatus;
  result?: unknown;
  error?: RunError;
}

/** The refusal of a write or an effect for an owner whose data was erased (`runledger erase`): nothing more is stored for them. */
export function isDataErased(err: unknown): boolean {
  return toWireError(err).code === 'DATA.ERASED';
}

/** The outcome of a run whose owner's data was erased while it was open: RunFailed holds no sealed field, so it can be recorded. */
export const DATA_ERASED_ERROR: RunError = { error_code: 'DATA.ERASED', message: ERROR_CODES['DATA.ERASED'].message, retryable: false };

export interface ToolCallRequest {
  call_id: string;
  tool_name: string;
  parameters: Record<string, unknown>;
  /** Absent: the next sequence number on the state the request lands on. */
  sequence?: number;
}

/**
 * When a record is appended: `now` (its own append), or `with-next`: in the same commit as the run's next append (a
 * tool call's request, the run's end, or flushCheckpoints()), one message fewer (RunSession's deferred decisions).
 * Only for a record no effect outside the run depends on before that next append: an opening before the run's first
 * effect, a step's checkpoint (its output may be sent to a service that records nothing, as the classifier), a tool
 * call's outcome (asked again under the same call id, the gateway answers it from its child run). A crash in between
 * loses the record, and the carrier that resumes decides it again, as if the crash had come just before it.
 */
export type CheckpointTiming = 'now' | 'with-next';

export interface RunEngineOptions {
  /** Observes each computed step's duration (metrics); restored steps are not observed. */
  onStep?: (stepId: string, seconds: number) => void;
}

/**
 * The one step runtime of every run a worker carries (task runs, governed agent runs, agent sessions): every write
 * is a command of the run decider, so the lifecycle rules hold for all of them alike, and
 * - a step is checkpointed (StepCompleted) and, once recorded, restored instead of recomputed (INV-CP-002);
 * - a tool call is recorded before it is made (ToolCallRequested) and after (ToolCallRecorded), under a call id
 *   whose tool_gateway child run derives from it, so a resumed run asks the same child run again and gets its
 *   recorded outcome back instead of a second effect;
 * - a child run is recorded on its parent (ChildRunStarted) before it is carried;
 * - an operator's cancel is read from the log at each check and ends the run with RunCancelled.
 */
export class RunEngine {
  constructor(readonly session: RunSession, private readonly opts: RunEngineOptions = {}) {}

  static async load(repo: RunRepository, run: RunIdentity, opts?: RunEngineOptions): Promise<RunEngine> {
    return new RunEngine(await repo.session(run), opts);
  }

  /**
   * An engine for a run believed new (its id drawn for this request), without reading the log: its first append
   * expects version 0. A run that exists after all makes that append conflict (ConcurrencyError); see carryNew.
   */
  static fresh(repo: RunRepository, run: RunIdentity, opts?: RunEngineOptions): RunEngine {
    return new RunEngine(repo.fresh(run), opts);
  }

  /**
   * Carries a run believed new without reading the log first; when its first append finds the run there after all (a
   * redelivery, a repeated request) or a later one conflicts, carries it again once from what the log holds. A
   * conflict in that second carry is the caller's (its command is redelivered).
   */
  static async carryNew(repo: RunRepository, run: RunIdentity, carry: (engine: RunEngine) => Promise<void>, opts?: RunEngineOptions): Promise<void> {
    try {
      return await RunEngine.fresh(repo, run, opts).endingOnErasure(carry);
    } catch (err) {
      if (!(err instanceof ConcurrencyError)) throw err;
    }
    await (await RunEngine.load(repo, run, opts)).endingOnErasure(carry);
  }

  /**
   * Carries the run with `carry`; when the owner's data is erased meanwhile (a write or an effect refused with
   * DATA.ERASED), the run ends failed with DATA.ERASED instead of staying open for ever and its command being
   * dead-lettered: its deferred records are dropped (they hold the owner's data, which can no longer be sealed) and
   * RunFailed, which holds none, is recorded, so its caller is answered and its children were ended by their own
   * carriers the same way.
   */
  async endingOnErasure(carry: (engine: RunEngine) => Promise<void>): Promise<void> {
    try {
      await carry(this);
    } catch (err) {
      if (!isDataErased(err)) throw err;
      await this.session.reloadDiscarding();
      // Not opened (its opening held the owner's data) or ended meanwhile: nothing to end.
      if (this.state.status === 'running') await this.fail(DATA_ERASED_ERROR);
    }
  }

  get state(): RunState {
    return this.session.state;
  }

  get runId(): string {
    return this.session.run.run_id;
  }

  /**
   * Opens the run, or completes an opening a crash cut short; true when the run is running afterwards.
   * A run already past its opening (running or ended) is left as it is.
   */
  async open(data: { created: RunCreatedData; authz: AuthzDecidedData; denial?: RunError; refusal?: RunError }, timing: CheckpointTiming = 'now'): Promise<boolean> {
    if (this.state.status !== 'running' && !isTerminal(this.state)) {
      await this.session.decide({ type: 'Open', data }, `open@${this.state.event_count}`, { defer: timing === 'with-next' });
      // A denied or refused opening is the run's outcome: recorded now, whatever the timing.
      if (isTerminal(this.state)) await this.session.flush('open');
    }
    return this.state.status === 'running';
  }

  /** At the start of a (resumed) carry: a recorded cancel request ends the run now; true when it did. */
  async cancelIfRequested(): Promise<boolean> {
    const asked = this.state.cancel_requested;
    if (!asked || this.state.status !== 'running') return false;
    await this.cancel(asked.reason);
    return true;
  }

  /** Before each step, tool call and child run: the log is read again, and a recorded cancel request throws CancelRequested. */
  async checkCancel(): Promise<void> {
    await this.session.reload();
    const asked = this.state.cancel_requested;
    if (asked) throw new CancelRequested(asked.reason);
  }

  /** A checkpointed step: its recorded output is restored, never recomputed (INV-CP-002). */
  async step<T>(stepId: string, stepIndex: number, compute: () => Promise<T>, timing: CheckpointTiming = 'now'): Promise<T> {
    const outputs = this.state.checkpoint?.stepOutputs ?? {};
    if (Object.hasOwn(outputs, stepId)) return outputs[stepId] as T;
    const started = performance.now();
    const output = await compute();
    this.opts.onStep?.(stepId, (performance.now() - started) / 1_000);
    const data = { step_index: stepIndex, step_id: stepId, output };
    if (timing === 'with-next') {
      await this.session.decide({ type: 'RecordStep', data }, `step:${stepId}`, { defer: true });
      return output;
    }
    await this.checkpoint(data);
    // What the log holds wins: if another carrier recorded this step first (our append was its duplicate), go on
    // with its output, not with the one computed here, so everything after agrees with a replay.
    const recorded = this.state.checkpoint?.stepOutputs ?? {};
    return (Object.hasOwn(recorded, stepId) ? recorded[stepId] : output) as T;
  }

  /**
   * Appends the `with-next` records now (before an effect outside the run that depends on them); with `stepId`, only
   * when that step's checkpoint is among them (otherwise they keep waiting for the run's next append).
   */
  async flushCheckpoints(stepId?: string): Promise<void> {
    if (stepId !== undefined && !this.session.pendingEvents.some((e) => e.type === 'StepCompleted' && (e.data as { step_id?: string }).step_id === stepId)) return;
    await this.session.flush('steps');
  }

  /** Records a step completed elsewhere (a workflow engine's checkpoint). */
  checkpoint(data: Extract<RunCommand, { type: 'RecordStep' }>['data']): Promise<void> {
    return this.decide({ type: 'RecordStep', data }, `step:${data.step_id}`);
  }

  /**
   * A workflow of steps (contract 004) carried on this run: steps in array order, runs of `parallel` steps side by
   * side by their dependsOn DAG (at most `maxConcurrency`), failures by strategy (failFast, continueOnError, rollback).
   * Every completed step is checkpointed on the run and a resumed run restores what its checkpoint holds (INV-CP-002);
   * a recorded cancel stops each step before it starts (its failure is CancelRequested); a rollback's compensation is
   * a recorded withdrawal of the step's output (StepCompensated: the log cannot forget an effect). The outcome is data.
   * `restored`: a fork's checkpoint read from its source run's log (issue 25): its steps are restored like the run's
   * own recorded ones, never recomputed, and never recorded again on this run.
   */
  workflow(
    steps: readonly WorkflowStep[], runStep: (step: WorkflowStep, ctx: StepContext) => Promise<unknown>,
    opts: { maxConcurrency: number; failureStrategy: FailureStrategy; restored?: Checkpoint | null },
  ): Promise<WorkflowResult> {
    const { restored, ...options } = opts;
    return runWorkflow({
      steps, checkpoint: withRestored(restored ?? null, this.state.checkpoint), ...options,
      runStep: async (step, ctx) => {
        await this.checkCancel();
        const started = performance.now();
        try {
          return await runStep(step, ctx);
        } finally {
          this.opts.onStep?.(step.id, (performance.now() - started) / 1_000);
        }
      },
      onCheckpoint: (cp) => this.checkpoint(checkpointToEvent(cp).data),
      compensate: (step, output, { stepIndex }) => this.record([{ type: 'StepCompensated', data: { step_index: stepIndex, step_id: step.id, output } }], `compensate:${step.id}`),
    });
  }

  /**
   * One tool call, recorded before and after. A call whose outcome is recorded is answered from the log; one
   * requested before a crash is asked again under the same call id (the gateway answers its child run's outcome,
   * or waits for the attempt still executing it).
   */
  async toolCall(call: ToolCallRequest, invoke: (childRunId: string) => Promise<ToolCallResult>, opts: { record?: CheckpointTiming | ((res: ToolCallResult) => CheckpointTiming) } = {}): Promise<ToolCallResult> {
    const recorded = this.recordedCall(call.call_id);
    if (recorded) return recorded;
    const child_run_id = childRunId('tool_gateway', this.runId, call.call_id);
    await this.decide({ type: 'RequestToolCall', data: { ...call, child_run_id } }, `tool:${call.call_id}:requested`);
    const res = await invoke(child_run_id);
    const { status, result, error } = res;
    await this.session.decide({
      type: 'RecordToolCall',
      data: { call_id: call.call_id, child_run_id: res.child_run_id, status, ...(result !== undefined ? { result } : {}), ...(error ? { error } : {}) },
    }, `tool:${call.call_id}:recorded`, { defer: (typeof opts.record === 'function' ? opts.record(res) : opts.record) === 'with-next' });
    return res;
  }

  /**
   * Journaled steps `${prefix}-1`, `${prefix}-2` … one after another, until `compute` answers null, `last` says the
   * output it got is the last, or `max` steps ran; the outputs in order. A resumed run restores the recorded steps
   * (and stops where they say) and computes only the rest; a recorded cancel stops it before a step is computed
   * (CancelRequested). `recorded` runs after each step's output is in the log, restored ones included (so it must be
   * idempotent): what may happen only once the step is on record.
   */
  async stepsUntil<T>(prefix: string, max: number, compute: (index: number) => Promise<T | null>, last: (output: T) => boolean, recorded?: (output: T) => Promise<void>): Promise<T[]> {
    const outputs: T[] = [];
    for (let i = 0; i < max; i++) {
      const id = `${prefix}-${i + 1}`;
      if (!Object.hasOwn(this.state.checkpoint?.stepOutputs ?? {}, id)) await this.checkCancel();
      const output = await this.step<T | null>(id, i, () => compute(i));
      if (output === null) break;
      await recorded?.(output);
      outputs.push(output);
      if (last(output)) break;
    }
    return outputs;
  }

  /**
   * Tool calls one after another, each decided from the run's recorded state: `next` (pure: the same state gives the
   * same answer, so a resumed run decides the same calls) names the next call, or the result once no call is left.
   * Each call is a journaled `toolCall`, so a resumed run answers the recorded ones from the log.
   */
  async toolCallsUntilDone<T>(
    next: (state: RunState) => { call: ToolCallRequest } | { done: T },
    invoke: (call: ToolCallRequest, childRunId: string) => Promise<ToolCallResult>,
    opts: { record?: CheckpointTiming | ((res: ToolCallResult) => CheckpointTiming) } = {},
  ): Promise<T> {
    let step = next(this.state);
    while ('call' in step) {
      const call = step.call;
      await this.toolCall(call, (childRunId) => invoke(call, childRunId), opts);
      step = next(this.state);
    }
    return step.done;
  }

  /** A child run recorded on this run (once) before `carry` carries it to its end. */
  async child(childRunId: string, agentName: string, label: string, carry: () => Promise<void>): Promise<void> {
    await this.decide({ type: 'StartChild', data: { child_run_id: childRunId, run_kind: 'agent', agent_name: agentName } }, `child:${label}`);
    await carry();
  }

  /** Domain and audit events of the running run (journal entries, decisions, compensations). */
  record(events: RunEvent[], label: string): Promise<void> {
    return this.decide({ type: 'Record', events }, label);
  }

  complete(data: Extract<RunCommand, { type: 'Complete' }>['data'], audit?: RunEvent[]): Promise<void> {
    return this.decide({ type: 'Complete', data, ...(audit ? { audit } : {}) }, 'finish');
  }

  fail(error: RunError, audit?: RunEvent[]): Promise<void> {
    return this.decide({ type: 'Fail', data: { error }, ...(audit ? { audit } : {}) }, 'finish');
  }

  cancel(reason: string): Promise<void> {
    return this.decide({ type: 'Cancel', data: { reason: reason || 'cancelled by an operator' } }, 'finish');
  }

  /** Every write of the run: deferred (`with-next`) records go first, in the same commit (RunSession). */
  private decide(command: RunCommand | RunCommand[], label: string): Promise<void> {
    return this.session.decide(command, label);
  }

  private recordedCall(callId: string): ToolCallResult | undefined {
    const c = this.state.tool_calls.find((t) => t.call_id === callId);
    if (!c || c.status === 'requested') return undefined;
    return { child_run_id: c.child_run_id, status: c.status, ...(c.result !== undefined ? { result: c.result } : {}), ...(c.error ? { error: c.error } : {}) };
  }
}

/**
 * The checkpoint a fork resumes from: its source's restored checkpoint under its own (the StepCompleted events it
 * recorded after the restored steps). Restored outputs stay in the source's log, never copied into the fork's.
 */
export function withRestored(restored: Checkpoint | null, own: Checkpoint | null): Checkpoint | null {
  if (!restored) return own;
  if (!own) return restored;
  const failed = [...new Set([...(restored.failedStepIds ?? []), ...(own.failedStepIds ?? [])])];
  return { ...own, stepOutputs: { ...restored.stepOutputs, ...own.stepOutputs }, ...(failed.length ? { failedStepIds: failed } : {}) };
}
