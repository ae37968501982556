import { authorize, AuthzDecision } from './authorize';
import { AuthzInputs, requestFromInputs } from './authz-inputs';
import type { LaneKind, PolicySet } from '../policy/types';

/** Codes authorize() gives: a recorded deny with another code was decided by the choke point itself (claims, tickets, sources). */
const POLICY_DENY_CODES = new Set(['LANE.UNKNOWN', 'ROLE.UNKNOWN', 'LANE.CALLER_DENIED', 'LANE.KIND_MISMATCH', 'LANE.ACTION_DENIED', 'SCOPE.MISSING', 'CASE.RUN_UNSCOPED', 'CASE.CROSS_CASE_DENIED', 'USER.CROSS_USER_DENIED']);

const KIND_OF_RUN: Record<string, LaneKind> = { tool_gateway: 'tool', db_write: 'db_write', promotion: 'promotion', export: 'export' };

/** One recorded AuthzDecided, with the RunCreated of its run. */
export interface RecordedAuthz {
  run_id: string;
  run: { run_kind: string; agent_name: string; lane?: string; case_id?: string; user_id?: string; parent_run_id?: string };
  decision: 'allow' | 'deny';
  lane?: string;
  action?: string;
  code?: string;
  inputs?: AuthzInputs;
}

export type Redecision =
  | { outcome: 'same' | 'changed'; from: 'allow' | 'deny'; to: 'allow' | 'deny'; code?: string; reason?: string; reconstructed: boolean }
  | { outcome: 'skipped'; why: 'agent start' | 'not a policy decision' | 'no inputs' };

/**
 * The recorded decision taken again under `policy`. Inputs recorded with the event are used as they are;
 * older events get theirs rebuilt from the run's RunCreated (run, case, user; the scope a choke point always
 * sets), which `reconstructed` says. Start decisions of agent runs are not lane decisions and are skipped,
 * as are denials a choke point made for its own reasons (its policy check had allowed).
 */
export function redecide(policy: PolicySet, r: RecordedAuthz): Redecision {
  if (r.decision === 'deny' && r.code && !POLICY_DENY_CODES.has(r.code)) return { outcome: 'skipped', why: 'not a policy decision' };
  let inputs = r.inputs;
  const reconstructed = !inputs;
  if (!inputs) {
    const kind = KIND_OF_RUN[r.run.run_kind];
    if (!kind) return { outcome: 'skipped', why: 'agent start' };
    const lane = r.lane ?? r.run.lane;
    if (!lane || !r.action) return { outcome: 'skipped', why: 'no inputs' };
    const scope_fields = ['run_id', ...(r.run.case_id ? ['case_id'] : []), ...(r.run.user_id ? ['user_id'] : [])];
    inputs = { agent_name: r.run.agent_name, lane, kind, action: r.action, run_case_id: r.run.case_id, run_user_id: r.run.user_id, scope_fields, scope_case_id: r.run.case_id, scope_user_id: r.run.user_id };
  }
  // An export is allowed for all its phases at once: each is decided, the first denial decides.
  let decided: AuthzDecision = { decision: 'allow', policy_versions: policy.versions };
  for (const action of inputs.action.split(',')) {
    decided = authorize(policy, requestFromInputs(inputs, action));
    if (decided.decision === 'deny') break;
  }
  const to = decided.decision;
  return {
    outcome: to === r.decision ? 'same' : 'changed', from: r.decision, to, reconstructed,
    ...(decided.decision === 'deny' ? { code: decided.code, reason: decided.reason } : {}),
  };
}
