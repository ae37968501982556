import { getLane, getRole, type LaneKind, type PolicySet, type PolicyVersions } from '../policy/types';
import { truncateChars } from '@runledger/kernel';

/** One privileged action an agent asks a choke point to perform (§5). */
export interface AuthzRequest {
  agent_name: string;
  lane: string;
  kind: LaneKind;
  /** A tool name (`transcription.run`), an `<op>:<collection>` (`append:transcripts`), or an export phase (`assemble`). */
  action: string;
  /** The case the calling run is pinned to. */
  run_case_id?: string;
  /** The case the action touches; defaults to `scope.case_id`. */
  target_case_id?: string;
  /** The user the calling run acts for (user-isolated lanes such as TASKS). */
  run_user_id?: string;
  /** Scope fields the lane requires (`case_id`, `run_id`, `client_session_id`, `coa_version`, `user_id` …). */
  scope: Record<string, string | undefined>;
}

/** Stable deny codes; `reason` is a bounded human sentence with no internals. */
export type AuthzDenyCode =
  | 'LANE.UNKNOWN'
  | 'ROLE.UNKNOWN'
  | 'LANE.CALLER_DENIED'
  | 'LANE.KIND_MISMATCH'
  | 'LANE.ACTION_DENIED'
  | 'SCOPE.MISSING'
  | 'CASE.RUN_UNSCOPED'
  | 'CASE.CROSS_CASE_DENIED'
  | 'USER.CROSS_USER_DENIED';

/** The decision, with the policy versions that made it (for the AuthzDecided event). */
export type AuthzDecision =
  | { decision: 'allow'; policy_versions: PolicyVersions }
  | { decision: 'deny'; code: AuthzDenyCode; reason: string; policy_versions: PolicyVersions };

/**
 * Decides one request against a pinned policy (§5 lane-to-agent matrix, case isolation).
 * Checks, in order; the first failure decides:
 * 1. the lane exists; 2. the caller has a role; 3. lane and role both admit the caller;
 * 4. the lane serves the kind; 5. the action is listed for that kind;
 * 6. every required scope field is present and non-blank;
 * 7. isolation: a case lane needs a run pinned to a case; a run pinned to a case touches only that case
 *    (`target_case_id` and `scope.case_id`) unless the lane `allows_cross_case`; a user lane touches
 *    only the run's own user.
 *
 * Prohibitions (`cross_case_lookup`, `external_export`, `shared_knowledge_write`) need no check here:
 * `loadPolicy` refuses any policy whose lanes would let a role do what it is prohibited from.
 */
export function authorize(policy: PolicySet, request: AuthzRequest): AuthzDecision {
  const versions = policy.versions;
  const deny = (code: AuthzDenyCode, reason: string): AuthzDecision => ({ decision: 'deny', code, reason, policy_versions: versions });
  const agent = label(request.agent_name);
  const laneName = label(request.lane);

  const lane = getLane(policy, request.lane);
  if (!lane) return deny('LANE.UNKNOWN', `There is no lane named ${laneName}.`);
  const role = getRole(policy, request.agent_name);
  if (!role) return deny('ROLE.UNKNOWN', `${agent} is not a known agent or role.`);
  if (!role.lanes.includes(lane.name) || !lane.allowed_callers.includes(role.name)) {
    return deny('LANE.CALLER_DENIED', `${agent} may not use lane ${laneName}.`);
  }
  const actions = lane.actions[request.kind];
  if (!actions) return deny('LANE.KIND_MISMATCH', `Lane ${laneName} does not allow ${label(request.kind)} actions.`);
  if (!actions.includes(request.action)) {
    return deny('LANE.ACTION_DENIED', `Lane ${laneName} does not allow the ${request.kind} action ${label(request.action)}.`);
  }

  const missing = lane.required_scope.filter((field) => !present(request.scope, field));
  if (missing.length > 0) return deny('SCOPE.MISSING', `Missing required scope: ${missing.join(', ')}.`);

  if (lane.isolation === 'case' && !request.run_case_id) {
    return deny('CASE.RUN_UNSCOPED', `Lane ${laneName} needs a run pinned to a case.`);
  }
  // Any lane, not only case lanes: a run pinned to a case never reaches into another one through a side door.
  const targets = [request.target_case_id, request.scope.case_id].filter((c): c is string => !!c);
  if (request.run_case_id && !lane.allows_cross_case && targets.some((c) => c !== request.run_case_id)) {
    return deny('CASE.CROSS_CASE_DENIED', 'Cross-case access is not permitted in this lane.');
  }
  if (lane.isolation === 'user' && (!request.run_user_id || request.scope.user_id !== request.run_user_id)) {
    return deny('USER.CROSS_USER_DENIED', 'Only the signed-in user’s own data may be used in this lane.');
  }
  return { decision: 'allow', policy_versions: versions };
}

function present(scope: AuthzRequest['scope'], field: string): boolean {
  const value = Object.hasOwn(scope, field) ? scope[field] : undefined;
  return typeof value === 'string' && value.trim() !== '';
}

// Names come from the caller; echo them only in a bounded, harmless form.
function label(value: unknown): string {
  const text = typeof value === 'string' ? value.replace(/[^A-Za-z0-9_.:-]/g, '') : '';
  if (!text) return 'the request';
  return truncateChars(text, 64, { ellipsis: true });
}
