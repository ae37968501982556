import { Inject, Injectable, Logger } from '@nestjs/common';
import { truncateChars } from '@runledger/kernel';
import { maxDelegationDepthOf, WorkflowResult } from '@runledger/agent-runtime';
import { ConcurrencyError } from '@runledger/event-log';
import { Bus } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { runledgerMetrics } from '@runledger/telemetry';
import { CancelRequested, isTerminal, RunEngine, RunError, RunRepository } from '@runledger/runs';
import { AGENT_MAX_CONCURRENCY, createAgentRegistry, failureStrategyOf, GovernedAgentName, isGovernedAgent, profileOf } from '../domain/agents';
import { runErrorOf } from '../domain/errors';
import { restoredCheckpoint } from '../domain/fork';
import { payloadHash } from '../domain/response';
import { AgentRunCreatedData, AgentRunSpec, runCreatedOf, specOf } from '../domain/run-spec';
import { decideAgentStart } from '../domain/start-authz';
import { AGENT_RUN_LIMITS } from '../governed-runs.types';
import { KeyedLock } from '../../shared/keyed-lock';
import { AgentEffects, EffectLimits } from './agent-effects';
import { AGENT_BEHAVIOURS, AgentBehaviour } from './behaviours';
import { DelegationGuard } from './delegation-guard';
import { AGENT_REASONER, AgentReasoner, reasonerFor, RunScopedReasoner } from './reasoner';
import { CarryInterrupted, stepRuntime } from './step-runtime';

/**
 * Carries governed agent runs (contract 001) from request to terminal event. The run is opened with its pins
 * and start authorisation, then the agent's profile workflow runs step by step, each completed step recorded
 * as a StepCompleted checkpoint before the next starts. A run picked up again (redelivery after a crash,
 * a resumed parent) restores the recorded outputs and continues after the last checkpoint (INV-CP-002);
 * effects inside a step are idempotent at their choke points, so an interrupted step can run again.
 */
@Injectable()
export class AgentRunWorker {
  private readonly logger = new Logger('AgentRunWorker');
  private readonly locks = new KeyedLock();
  private readonly registry = createAgentRegistry();
  private readonly delegation: DelegationGuard;

  constructor(
    private readonly runs: RunRepository,
    private readonly policies: PolicyCatalog,
    private readonly bus: Bus,
    @Inject(AGENT_REASONER) private readonly reasoner: AgentReasoner | RunScopedReasoner,
    @Inject(AGENT_RUN_LIMITS) private readonly limits: EffectLimits,
  ) {
    this.delegation = new DelegationGuard(runs);
  }

  /** One run at a time per run id in this process; across instances the run's optimistic concurrency decides. */
  carry(spec: AgentRunSpec): Promise<void> {
    return this.locks.run(spec.run_id, () => this.advance(spec));
  }

  private async advance(requested: AgentRunSpec): Promise<void> {
    const run = await RunEngine.load(this.runs, requested, {
      onStep: (step, seconds) => runledgerMetrics().stepDuration.record(seconds, { 'runledger.agent': requested.agent_name, 'runledger.step': step }),
    });
    // A case erased while its run is open ends the run (DATA.ERASED) instead of leaving it running.
    return run.endingOnErasure(() => this.advanceLoaded(run, requested));
  }

  private async advanceLoaded(run: RunEngine, requested: AgentRunSpec): Promise<void> {
    if (isTerminal(run.state)) return;
    if (run.state.status === 'none' && !(await run.open(await this.opening(requested)))) return;
    if (run.state.status !== 'running') return;
    if (await run.cancelIfRequested()) return;

    // From here on the log is the truth: what was pinned at start, not what a redelivered command says.
    const spec = specOf(run.state.run as AgentRunCreatedData);
    const agent = spec.agent_name as GovernedAgentName;
    const profile = isGovernedAgent(agent) ? profileOf(this.registry, agent) : undefined;
    if (!profile) {
      // Opened under a release that knew this agent; this one does not (removed or disabled since): an outcome, not a retry loop.
      return run.fail({ error_code: 'AGENT.UNKNOWN', message: `${agent} is no longer a registered agent.`, retryable: false });
    }
    const behaviour = AGENT_BEHAVIOURS[agent];
    const asOfDay = (run.state.created_at ?? '').slice(0, 10);
    const deps = {
      runs: this.runs, engine: run, reasoner: reasonerFor(this.reasoner, spec),
      effects: new AgentEffects(this.bus, spec, this.limits),
      chain: () => this.delegation.chainOf(spec.run_id, maxDelegationDepthOf(profile)),
      carry: (child: AgentRunSpec) => this.carry(child),
    };
    // A fork (issue 25) restores its source's steps up to the checkpoint from the source's log, by reference.
    const restored = spec.forked_from ? await restoredCheckpoint(spec.forked_from, (id) => this.runs.load(id)) : null;
    if (spec.forked_from && !restored) {
      return run.fail({ error_code: 'FORK.CHECKPOINT_NOT_IN_RUN', message: `Run ${spec.forked_from.run_id} has no completed step ${spec.forked_from.checkpoint}.`, retryable: false });
    }
    // The profile's workflow on the engine: parallel groups, failure strategies, checkpoints and compensations are its.
    const result = await run.workflow(profile.workflow, (step, ctx) => behaviour.runStep(step.id, stepRuntime(spec, asOfDay, ctx.outputs, deps)), {
      maxConcurrency: AGENT_MAX_CONCURRENCY, failureStrategy: failureStrategyOf(spec.parameters), restored,
    });
    await this.finish(run, spec, behaviour, result);
  }

  /** RunCreated with every pin, the start authz decision (§1), then RunStarted or RunDenied. */
  private async opening(spec: AgentRunSpec) {
    const policy = await this.policies.resolve(spec.policy_versions);
    const registered = isGovernedAgent(spec.agent_name) && profileOf(this.registry, spec.agent_name) !== undefined;
    const authz = decideAgentStart(policy, { agent_name: spec.agent_name, registered, case_id: spec.case_id, input_artifacts: spec.input_artifacts });
    // A run started under an agent run is a delegation by that agent: a cycle or a chain too deep is the
    // run's error outcome (INV-DT-001/002), recorded like any other.
    let refusal: RunError | undefined;
    if (authz.decision === 'allow' && spec.parent_run_id && isGovernedAgent(spec.agent_name)) {
      const allowed = await this.delegation.check(spec.parent_run_id, spec.agent_name);
      if (!allowed.ok) refusal = { error_code: allowed.code, message: truncateChars(allowed.message, 500), retryable: false };
    }
    return { created: runCreatedOf(spec), authz, ...(refusal ? { refusal } : {}) };
  }

  private async finish(run: RunEngine, spec: AgentRunSpec, behaviour: AgentBehaviour, result: WorkflowResult): Promise<void> {
    if (result.status === 'completed') {
      const { output_artifacts, result: summary } = behaviour.outcome(result.outputs, spec);
      const response_hash_sha256 = payloadHash({ agent_name: spec.agent_name, output_artifacts, result: summary });
      return run.complete({ output_artifacts, result: summary, response_hash_sha256 });
    }
    const failure = result.status === 'rejected' ? undefined : result.failures.find((f) => f.kind !== 'step' || f.cause !== null) ?? result.failures[0];
    const cause = failure?.cause;
    const cancelled = result.status === 'rejected' ? undefined : result.failures.find((f) => f.cause instanceof CancelRequested);
    if (cancelled) return run.cancel((cancelled.cause as CancelRequested).reason);
    // Not the run's outcome but ours: the checkpoint was not saved, the run moved under us, or a child could
    // not be carried. Give the command back to the inbox; the run resumes from its last checkpoint.
    const ours = result.status === 'rejected' ? undefined : result.failures.find((f) => f.kind === 'checkpoint' || f.cause instanceof ConcurrencyError || f.cause instanceof CarryInterrupted);
    // Except a step output the log cannot encode (too deep for JSON.stringify's stack): every redelivery computes it
    // again and fails the same way, so it is the run's outcome, not a retry until the resolver abandons the run.
    if (ours?.kind === 'checkpoint' && ours.cause instanceof RangeError) {
      this.logger.error({ msg: 'step output not recordable', run_id: spec.run_id, step: ours.stepId, error: ours.cause.message });
      return run.fail({ error_code: 'STEP.OUTPUT_UNRECORDABLE', message: `The output of step ${ours.stepId} cannot be recorded (nested too deep to encode).`, retryable: false });
    }
    if (ours) throw ours.cause;
    const error = result.status === 'rejected'
      ? { error_code: 'INTERNAL', message: 'The agent workflow is not valid.', retryable: false }
      : result.status === 'rolledBack'
        ? { error_code: 'WORKFLOW.ROLLED_BACK', message: `Step ${failure?.stepId} failed; completed steps were compensated: ${result.compensated.join(', ') || 'none'}.`, retryable: false }
        : result.failures.length > 1
          ? { ...runErrorOf(cause), message: `${result.failures.length} steps failed: ${result.failures.map((f) => f.stepId).join(', ')}.` }
          : runErrorOf(cause);
    if (error.error_code === 'INTERNAL') this.logger.error({ msg: 'agent step failed', run_id: spec.run_id, step: failure?.stepId, error: (cause as Error)?.message, stack: (cause as Error)?.stack });
    await run.fail(error);
  }
}
