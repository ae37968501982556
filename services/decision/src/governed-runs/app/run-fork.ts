import { Injectable, Logger } from '@nestjs/common';
import type { RunForkRequestDto, RunForkResult } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { isTerminal, RunError, RunRepository } from '@runledger/runs';
import { decideFork, forkRunId } from '../domain/fork';
import type { AgentRunCreatedData } from '../domain/run-spec';
import { AgentRunGateway } from './agent-run.gateway';
import { recordedAsSent } from './recorded-as-sent';

/**
 * rl.runs.fork (issue 25, operators only): a new governed run of the source's agent, case and caller that restores
 * the source's step outputs up to a checkpoint from the source's log and executes the rest under the policy version
 * it pins, through the same inbox, worker and choke points as a caller's runs.start. The source is only read.
 */
@Injectable()
export class RunForkService {
  private readonly logger = new Logger('RunFork');

  constructor(private readonly runs: RunRepository, private readonly policies: PolicyCatalog, private readonly gateway: AgentRunGateway) {}

  /** `sent`: the source's `run_id` as the raw message sent it (recordedAsSent: a source recorded in upper case keeps its id). */
  async fork(req: RunForkRequestDto, sent?: unknown): Promise<RunForkResult> {
    const policy_versions = req.policy_versions ?? this.policies.currentVersions();
    try {
      await this.policies.resolve(policy_versions);
    } catch {
      throw new AppError('FORK.POLICY_UNKNOWN', `Policy lanes ${policy_versions.lanes} / roles ${policy_versions.roles} was never published.`);
    }
    let source = await this.runs.load(req.run_id);
    let sourceId = req.run_id;
    // Upgrade: a source recorded before run ids were read in lower case is found under its id as sent, and a fork of
    // it derives the fork id it derived before (a repeat answers that fork, nothing new is started).
    const asSent = source.state.run ? undefined : await recordedAsSent(this.runs, req.run_id, sent);
    if (asSent) [sourceId, source] = [asSent.run_id, asSent.loaded];
    const existing = (await this.runs.load(forkRunId(sourceId, req.request_id))).state;
    const decided = decideFork(source.state, source.events, {
      from_step: req.from_step, request_id: req.request_id, policy_versions,
      ...(req.requested_by ? { requested_by: req.requested_by } : {}),
    }, existing.run as AgentRunCreatedData | undefined);
    if (!decided.ok) {
      this.logger.warn({ msg: 'fork refused', code: decided.code, run_id: sourceId, from_step: req.from_step });
      throw new AppError(decided.code, decided.message);
    }
    const spec = decided.spec;
    // A repeat of a fork already ended answers its outcome; otherwise (re)queue it: the inbox command id is the run's.
    const state = isTerminal(existing) ? existing : await this.gateway.enqueueAndWait(spec, req.wait ?? false);
    const error = 'error' in state ? (state.error as RunError | undefined) : undefined;
    this.logger.log({ msg: 'fork requested', run_id: spec.run_id, source: sourceId, from_step: req.from_step, policy_versions: spec.policy_versions });
    return {
      run_id: spec.run_id, outcome: existing.run ? 'existing' : 'forked', status: state.status,
      forked_from: { run_id: sourceId, checkpoint: spec.forked_from!.checkpoint },
      policy_versions: { lanes: spec.policy_versions.lanes, roles: spec.policy_versions.roles },
      ...(error ? { error: { error_code: error.error_code, message: error.message, retryable: error.retryable } } : {}),
    };
  }
}
