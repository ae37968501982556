import type { AuthzRequest } from './authorize';

/**
 * What an authorisation was decided on, as recorded in its AuthzDecided event, so the decision can be taken
 * again later under another policy (`runledger replay --policy`). Scope values are not recorded (a tool's
 * parameters can carry user text); only which scope fields were present, and the case and user the
 * isolation rules compare.
 */
export interface AuthzInputs extends Omit<AuthzRequest, 'scope'> {
  scope_fields: string[];
  scope_case_id?: string;
  scope_user_id?: string;
}

const nonBlank = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

export function authzInputsOf(r: AuthzRequest): AuthzInputs {
  return {
    agent_name: r.agent_name, lane: r.lane, kind: r.kind, action: r.action,
    ...(r.run_case_id ? { run_case_id: r.run_case_id } : {}),
    ...(r.target_case_id ? { target_case_id: r.target_case_id } : {}),
    ...(r.run_user_id ? { run_user_id: r.run_user_id } : {}),
    scope_fields: Object.keys(r.scope).filter((k) => nonBlank(r.scope[k])).sort(),
    ...(nonBlank(r.scope.case_id) ? { scope_case_id: r.scope.case_id } : {}),
    ...(nonBlank(r.scope.user_id) ? { scope_user_id: r.scope.user_id } : {}),
  };
}

/** The request again, from its recorded inputs: present scope fields stand in by a placeholder value. */
export function requestFromInputs(i: AuthzInputs, action = i.action): AuthzRequest {
  const scope: Record<string, string> = Object.fromEntries(i.scope_fields.map((f) => [f, 'present']));
  if (i.scope_case_id) scope.case_id = i.scope_case_id;
  else delete scope.case_id;
  if (i.scope_user_id) scope.user_id = i.scope_user_id;
  else delete scope.user_id;
  return { agent_name: i.agent_name, lane: i.lane, kind: i.kind, action, run_case_id: i.run_case_id, target_case_id: i.target_case_id, run_user_id: i.run_user_id, scope };
}
