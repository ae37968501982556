import type { RunCommand } from '../domain/run.decider';
import type { AuthzDecidedData, RunCreatedData, RunError, RunEvent, ToolCallStatus } from '../domain/run-events';
import { isTerminal, RunState } from '../domain/run-state';
import { childRunId } from '../domain/run-events';
import type { RunIdentity, RunRepository } from '../infra/run-repository';
import type { RunSession } from '../infra/run-session';
import { sha256Hex } from '@runledger/kernel';

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

export interface ToolCallRequest {
  call_id: string;
  tool_name: string;
  parameters: Record<string, unknown>;
  /** Absent: the next sequence number on the state the request lands on. */
  sequence?: number;
}

type RecordStepData = Extract<RunCommand, { type: 'RecordStep' }>['data'];

/**
 * When a step's checkpoint is appended: `now` (its own append), or `with-next`: with the run's next append (a tool
 * call's request, the run's end, or flushCheckpoints()), one round trip fewer. Only for a step whose output no
 * effect or other record depends on before that next append (it may be sent to a service that records nothing, as
 * the classifier): a crash in between loses the checkpoint, and the step is computed again on resume, as if the
 * crash had come just before it.
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
  /** Steps computed with `with-next` checkpoints, not yet appended (they go first in the run's next append). */
  private pendingSteps: RecordStepData[] = [];

  constructor(readonly session: RunSession, private readonly opts: RunEngineOptions = {}) {}

  static async load(repo: RunRepository, run: RunIdentity, opts?: RunEngineOptions): Promise<RunEngine> {
    return new RunEngine(await repo.session(run), opts);
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
  async open(data: { created: RunCreatedData; authz: AuthzDecidedData; denial?: RunError; refusal?: RunError }): Promise<boolean> {
    if (this.state.status !== 'running' && !isTerminal(this.state)) await this.session.decide({ type: 'Open', data }, `open@${this.state.event_count}`);
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
    const pending = this.pendingSteps.find((p) => p.step_id === stepId);
    if (pending) return pending.output as T;
    const started = performance.now();
    const output = await compute();
    this.opts.onStep?.(stepId, (performance.now() - started) / 1_000);
    if (timing === 'with-next') {
      this.pendingSteps.push({ step_index: stepIndex, step_id: stepId, output });
      return output;
    }
    await this.checkpoint({ step_index: stepIndex, step_id: stepId, output });
    // What the log holds wins: if another carrier recorded this step first (our append was its duplicate), go on
    // with its output, not with the one computed here, so everything after agrees with a replay.
    const recorded = this.state.checkpoint?.stepOutputs ?? {};
    return (Object.hasOwn(recorded, stepId) ? recorded[stepId] : output) as T;
  }

  /** Appends the checkpoints of `with-next` steps now (before an effect outside the run that depends on them). */
  flushCheckpoints(): Promise<void> {
    return this.decide([], 'steps');
  }

  /** Records a step completed elsewhere (a workflow engine's checkpoint). */
  checkpoint(data: Extract<RunCommand, { type: 'RecordStep' }>['data']): Promise<void> {
    return this.decide({ type: 'RecordStep', data }, `step:${data.step_id}`);
  }

  /**
   * One tool call, recorded before and after. A call whose outcome is recorded is answered from the log; one
   * requested before a crash is asked again under the same call id (the gateway answers its child run's outcome,
   * or waits for the attempt still executing it).
   */
  async toolCall(call: ToolCallRequest, invoke: (childRunId: string) => Promise<ToolCallResult>): Promise<ToolCallResult> {
    const recorded = this.recordedCall(call.call_id);
    if (recorded) return recorded;
    const child_run_id = childRunId('tool_gateway', this.runId, call.call_id);
    await this.decide({ type: 'RequestToolCall', data: { ...call, child_run_id } }, `tool:${call.call_id}:requested`);
    const res = await invoke(child_run_id);
    const { status, result, error } = res;
    await this.decide({
      type: 'RecordToolCall',
      data: { call_id: call.call_id, child_run_id: res.child_run_id, status, ...(result !== undefined ? { result } : {}), ...(error ? { error } : {}) },
    }, `tool:${call.call_id}:recorded`);
    return res;
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

  /**
   * Every write of the run: pending `with-next` checkpoints go first, in the same append. Their label then carries
   * a digest of their outputs, so the append's event ids are those of this content: a retry of the same append
   * deduplicates, while another carrier that computed the steps differently writes other ids on the same version and
   * gets a ConcurrencyError (nothing of it appended; its redelivery resumes from what the log holds) instead of being
   * handed our events as duplicates of its own and going on with its own outputs.
   */
  private async decide(command: RunCommand | RunCommand[], label: string): Promise<void> {
    const commands = Array.isArray(command) ? command : [command];
    if (this.pendingSteps.length === 0) {
      if (commands.length) await this.session.decide(commands, label);
      return;
    }
    const steps = this.pendingSteps;
    // Any text that is the same for the same outputs serves: a digest that differs only makes a carrier resume from the log.
    const digest = sha256Hex(JSON.stringify(steps)).slice(0, 16);
    await this.session.decide([...steps.map((data): RunCommand => ({ type: 'RecordStep', data })), ...commands], `${label}+steps:${digest}`);
    this.pendingSteps = [];
  }

  private recordedCall(callId: string): ToolCallResult | undefined {
    const c = this.state.tool_calls.find((t) => t.call_id === callId);
    if (!c || c.status === 'requested') return undefined;
    return { child_run_id: c.child_run_id, status: c.status, ...(c.result !== undefined ? { result: c.result } : {}), ...(c.error ? { error: c.error } : {}) };
  }
}
