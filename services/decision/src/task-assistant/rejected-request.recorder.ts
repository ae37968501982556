import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AgentDecisionReply, USER_ID } from '@runledger/contracts';
import { AppError, canonicalUuid, Clock, isUuid, RateLimit, RateLimiter, settingNumber, truncateChars } from '@runledger/kernel';
import { CLOCK } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { childRequestHash, RunRepository } from '@runledger/runs';
import { AgentDecision, buildAuditRecord } from '@runledger/task-assistant';
import { TASK_AGENT, TASK_LANE } from './task-run.types';

const MAX_RECORDED_MESSAGE = 4000;

/** Bounds on the rejected requests one decision instance records (RL_REJECTED_* env vars). */
export const REJECTED_LIMITS = Symbol('REJECTED_LIMITS');
export interface RejectedLimits {
  perCaller: RateLimit;
  /** All callers together: a flood that varies its user_id is still bounded. */
  overall: RateLimit;
}

export function rejectedLimitsFrom(env: NodeJS.ProcessEnv): RejectedLimits {
  return {
    perCaller: { burst: settingNumber('RL_REJECTED_BURST', env), perMinute: settingNumber('RL_REJECTED_PER_MINUTE', env) },
    overall: { burst: settingNumber('RL_REJECTED_OVERALL_BURST', env), perMinute: settingNumber('RL_REJECTED_OVERALL_PER_MINUTE', env) },
  };
}

/**
 * A request refused at the boundary is still a decision, so it is a run too: created, denied, with the
 * contract's audit record. Only bounded, typed fields of the raw request are recorded.
 */
@Injectable()
export class RejectedRequestRecorder {
  private readonly perCaller: RateLimiter;
  private readonly overall: RateLimiter;

  constructor(
    private readonly runs: RunRepository,
    private readonly policies: PolicyCatalog,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(REJECTED_LIMITS) limits: RejectedLimits,
  ) {
    this.perCaller = new RateLimiter(limits.perCaller);
    this.overall = new RateLimiter(limits.overall);
  }

  async record(raw: unknown, decision: AgentDecision, reason: string, forcedCode?: 'REQUEST.INVALID'): Promise<AgentDecisionReply> {
    const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const sent = typeof r.user_id === 'string' ? r.user_id : '';
    // A user id no operator could type back to erase (control characters: refused for that) owns nothing here either:
    // the refusal records no user, so nothing of it is sealed under an owner nobody can erase.
    const user_id = USER_ID.test(sent) ? truncateChars(sent, 256) : '';
    // Rejections are counted per caller in memory; past the limit they are turned away before the log.
    const nowMs = this.clock.now().getTime();
    if (!this.perCaller.take(user_id, nowMs) || !this.overall.take('', nowMs)) throw new AppError('REQUEST.RATE_LIMITED');
    const conversation_id = isUuid(r.conversation_id) ? canonicalUuid(r.conversation_id) : '';
    // Personal text is sealed under its user's key so that erasing the user erases it (README "Erasure"). A request
    // with no user has no key to seal under and nobody who could have it erased: its text is not kept (probe finding).
    const message = typeof r.message === 'string' && user_id.trim() !== '' ? truncateChars(r.message, MAX_RECORDED_MESSAGE) : '';
    const runId = randomUUID();
    const now = this.clock.now().toISOString();
    const code = forcedCode ?? (sent.trim() === '' ? 'AUTH.MISSING' : 'REQUEST.INVALID');
    const versions = this.policies.currentVersions();
    const audit = buildAuditRecord({
      timestamp: now,
      context: { user_id, message, conversation_id },
      // Refused before classification: the record says so (NOT_CLASSIFIED), not that the message was unclear.
      intent: null,
      decision,
    });
    const run = { run_id: runId, root_run_id: runId, ...(user_id ? { user_id } : {}) };
    await this.runs.append(run, [
      {
        type: 'RunCreated',
        data: {
          run_id: runId, run_kind: 'agent', agent_name: TASK_AGENT, root_run_id: runId, lane: TASK_LANE,
          ...(user_id ? { user_id } : {}), ...(conversation_id ? { conversation_id } : {}),
          contract_version: 'v1', policy_versions: versions, input_artifacts: [], parameters: { rejected: true },
          request_hash_sha256: childRequestHash({ user_id, conversation_id, message }),
        },
      },
      { type: 'AuthzDecided', data: { decision: 'deny', code, reason, policy_versions: versions } },
      { type: 'DecisionRecorded', data: { decision, audit_record: { ...audit, run_id: runId }, intent: null } },
      { type: 'RunDenied', data: { error: { error_code: code, message: truncateChars(reason, 500), retryable: false } } },
    ], { expectedVersion: 0, commandId: `rejected:${runId}` });
    return { run_id: runId, ...decision };
  }
}
