import type { RunCreatedData } from '../domain/run-events';
import { RunRepository } from './run-repository';

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
  code: 'RUN.UNKNOWN_CALLER' | 'RUN.CLAIM_MISMATCH';
  reason: string;
}

/**
 * Checks a caller's claims (who it is, which case or user, which pinned policy) against the RunCreated of
 * the run it says it acts for, so a choke point decides on what the log pinned, not on what a message says.
 * RunCreated never changes, so it is cached by run id.
 */
export class CallerVerifier {
  private readonly created = new Map<string, RunCreatedData>();

  constructor(private readonly runs: RunRepository, private readonly cacheLimit = 10_000) {}

  async check(claims: CallerClaims): Promise<ClaimMismatch | null> {
    const run = await this.createdOf(claims.parent_run_id);
    if (!run) return { code: 'RUN.UNKNOWN_CALLER', reason: 'The calling run is not in the log.' };
    const differs = [
      run.agent_name !== claims.agent_name && 'agent_name',
      run.root_run_id !== claims.root_run_id && 'root_run_id',
      (run.case_id ?? null) !== (claims.case_id ?? null) && 'case_id',
      (run.user_id ?? null) !== (claims.user_id ?? null) && 'user_id',
      (run.policy_versions.lanes !== claims.policy_versions.lanes || run.policy_versions.roles !== claims.policy_versions.roles) && 'policy_versions',
    ].filter(Boolean);
    return differs.length ? { code: 'RUN.CLAIM_MISMATCH', reason: `The call's ${differs.join(', ')} differ from what the calling run pinned.` } : null;
  }

  private async createdOf(runId: string): Promise<RunCreatedData | undefined> {
    const held = this.created.get(runId);
    if (held) return held;
    const first = await this.runs.log.first(RunRepository.ref(runId));
    if (first?.type !== 'RunCreated') return undefined;
    const run = first.data as RunCreatedData;
    if (this.created.size >= this.cacheLimit) this.created.delete(this.created.keys().next().value as string);
    this.created.set(runId, run);
    return run;
  }
}
