import { LruMap } from '@runledger/kernel';
import { TERMINAL_EVENT_TYPES } from '@runledger/governance';
import type { RunCreatedData } from '../domain/run-events';
import type { RunRepository } from './run-repository';

/** The governance claims a choke point receives with every call. */
export interface CallerClaims {
  parent_run_id: string;
  root_run_id: string;
  agent_name: string;
  case_id?: string;
  user_id?: string;
  policy_versions: { lanes: string; roles: string };
}

export interface ClaimMismatch {
  code: 'RUN.UNKNOWN_CALLER' | 'RUN.CLAIM_MISMATCH' | 'RUN.PARENT_TERMINAL';
  reason: string;
}

/** A choke point's own denial of a caller, in the shape of a policy decision. */
export type ChildDenial = { decision: 'deny' } & ClaimMismatch;

export interface CheckOptions {
  /**
   * Claims that need not equal the record (artifact reads let a case-less shared-plane run name the case it
   * screens; the choke point decides what that case may see).
   */
  ignore?: ReadonlyArray<'case_id'>;
}

/**
 * Checks a caller's claims (who it is, which case or user, which pinned policy) against the RunCreated of
 * the run it says it acts for, so a choke point decides on what the log pinned, not on what a message says,
 * and (decideChild) refuses a finished (completed, failed, denied, cancelled) run as the parent of a new child run.
 * RunCreated never changes, so it is cached by run id; so is a run once it is finished. The record may be kept with its
 * sealed fields sealed (read from the caller's last commit, issue 22): the check, and `recorded`'s readers, read only
 * ids, agent, case, user and policy versions, which are never sealed.
 */
export class CallerVerifier {
  private readonly created: LruMap<string, RunCreatedData>;
  private readonly finished: LruMap<string, true>;

  constructor(private readonly runs: RunRepository, cacheLimit = 10_000) {
    this.created = new LruMap(cacheLimit);
    this.finished = new LruMap(cacheLimit);
  }

  async check(claims: CallerClaims, opts: CheckOptions = {}): Promise<ClaimMismatch | null> {
    return mismatchOf(await this.recorded(claims.parent_run_id), claims, opts);
  }

  /**
   * The decision for a call that opens a child run of the caller: its claims first, then the choke point's policy,
   * then, for an allowed call, that the caller has not finished (a finished run parents nothing new). The policy's
   * own denials come before the finished check so that a refusal names what the policy says: `policy` is all of the
   * choke point's authorising (lanes and roles, and any reads it decides on: export inputs, a promotion's ticket and
   * sources), so a case denial is never masked by RUN.PARENT_TERMINAL.
   *
   * One read of the caller: its last commit. A caller asks for its child in the commit that records the request
   * (ToolCallRequested, ChildRunStarted …), and a run's first such commit also opens it, so that commit holds its
   * RunCreated too (otherwise it is cached from an earlier call, or read once) and says whether it has finished.
   */
  async decideChild<D extends { decision: 'allow' | 'deny' }>(claims: CallerClaims, policy: () => D | Promise<D>): Promise<D | ChildDenial> {
    const runId = claims.parent_run_id;
    const lastCommit = this.finished.has(runId) ? null : await this.runs.callerLastCommit(runId);
    const opened = lastCommit?.find((e) => e.type === 'RunCreated');
    if (opened) this.created.set(runId, opened.data as RunCreatedData);
    const mismatch = mismatchOf(await this.recorded(runId), claims);
    if (mismatch) return { decision: 'deny', ...mismatch };
    const decided = await policy();
    // Every run has exactly one terminal event and the lifecycle admits nothing after it, so its last commit says it.
    const finished = lastCommit === null || lastCommit.some((e) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(e.type));
    if (finished) this.finished.set(runId, true);
    if (decided.decision === 'allow' && finished) {
      return { decision: 'deny', code: 'RUN.PARENT_TERMINAL', reason: 'The calling run has finished; it cannot start new child runs.' };
    }
    return decided;
  }

  /** The calling run's creation record (its pinned agent, case, root and policy), or undefined if it is not in the log. */
  async recorded(runId: string): Promise<RunCreatedData | undefined> {
    const held = this.created.get(runId);
    if (held) return held;
    // Only a run its owner created is a caller (a run forged under another service's name is unknown).
    const first = await this.runs.created(runId);
    if (first?.type !== 'RunCreated') return undefined;
    const run = first.data as RunCreatedData;
    this.created.set(runId, run);
    return run;
  }
}

/** What of the claims differs from the run's record (none recorded: an unknown caller), or null when they agree. */
function mismatchOf(run: RunCreatedData | undefined, claims: CallerClaims, opts: CheckOptions = {}): ClaimMismatch | null {
  if (!run) return { code: 'RUN.UNKNOWN_CALLER', reason: 'The calling run is not in the log.' };
  const ignored = new Set(opts.ignore ?? []);
  const differs = [
    run.agent_name !== claims.agent_name && 'agent_name',
    run.root_run_id !== claims.root_run_id && 'root_run_id',
    !ignored.has('case_id') && (run.case_id ?? null) !== (claims.case_id ?? null) && 'case_id',
    (run.user_id ?? null) !== (claims.user_id ?? null) && 'user_id',
    (run.policy_versions.lanes !== claims.policy_versions.lanes || run.policy_versions.roles !== claims.policy_versions.roles) && 'policy_versions',
  ].filter(Boolean);
  return differs.length ? { code: 'RUN.CLAIM_MISMATCH', reason: `The call's ${differs.join(', ')} differ from what the calling run pinned.` } : null;
}
